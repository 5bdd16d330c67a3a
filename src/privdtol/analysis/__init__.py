"""Analysis: from aggregated tables to verdicts.

- :mod:`.stats`: fits and intervals (log-log slopes, log K against log² K, Theorem 1's constants);
- :mod:`.verdict`: the decision rule (PASS / FAIL / INCONCLUSIVE from a confidence interval);
- :mod:`.records`: the check record (``results/checks/<claim>.json``) and the agg-table reader;
- :mod:`.cells`: selecting cells, regimes and series of aggregated tables;
- :mod:`.claims`: one module per claim of the paper, each with its record (quote, thresholds,
  controls, notebook, typeset statement), its check and display helpers;
- :mod:`.findings`: one module per subject of the findings (numbers beside the verdicts);
- :mod:`.claim_types`: the record types;
- :mod:`.registry`: collects the claims and findings from their modules, lists the notebooks.
"""
