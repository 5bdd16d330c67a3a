"""Analysis: statistics (fits and intervals), the verdict rule, check records and the checks
of the paper's claims, from aggregated tables to verdicts."""
