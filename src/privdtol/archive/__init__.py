"""The run archive: one deterministic ``privdtol-<commit>-<config hash>.tar.gz`` holding the
source, the config, the outputs of a built run and its Workflow Run RO-Crate.  It is not part of
the report (the report only names it); it packs the report's PDF as one of the run's files.

- :mod:`~privdtol.archive.layout` what identifies a run and what the archive holds: the sha256 of
  files and of the merged config, the git commit, the run's date, the archive's name and the
  globs of the archived outputs;
- :mod:`~privdtol.archive.crate` the ``ro-crate-metadata.json`` (``rocrate``);
- :mod:`~privdtol.archive.build` collecting, packing (deterministic tar.gz) and comparing a replay.

The modules import one another in that order only (no import circle; tests/workflow/test_layers.py).
"""
