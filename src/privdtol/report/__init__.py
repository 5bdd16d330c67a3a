"""Report: the generated LaTeX pieces of the replication report, its tables, provenance and
compilation.  It renders what the earlier layers computed and computes nothing itself."""
