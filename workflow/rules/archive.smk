# The run archive (privdtol archive, privdtol.archive): one deterministic tar.gz holding the
# source at the commit (git ls-files), the lockfile, the config files, the outputs of the default
# target (tables, checks, notebooks with their HTML, figures, the report PDF, logs, benchmarks)
# and ro-crate-metadata.json (a Workflow Run RO-Crate).  Its name, fixed at parse time by the
# commit and the merged config's hash (the run's results/config.merged.yaml, which it is given
# as its config), is the one the report's provenance appendix gives; its
# sha256 is written beside it in <name>.sha256 (the report inside cannot hold it).  Not part of
# `all`:
#
#   snakemake archive            # or: make archive

import os

from privdtol.archive.layout import archive_name, git_info

ARCHIVE_DIR = "results/archive"
ARCHIVE_NAME = archive_name(git_info(Path(".")), canonical(CONFIG))


rule archive:
    input:
        outputs=rules.all.input,
        configs=[RUN_CONFIG],
    output:
        tar=f"{ARCHIVE_DIR}/{ARCHIVE_NAME}",
        sha256=f"{ARCHIVE_DIR}/{ARCHIVE_NAME}.sha256",
    log:
        "logs/archive/archive.log",
    localrule: True
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=lambda wc, input: " ".join(f"--config {shlex.quote(f)}" for f in input.configs),
        out=lambda wc, output: os.path.dirname(output.tar),
    shell:
        "privdtol archive {params.configs} --repo . --workdir . --out-dir {params.out:q}"
        " > {log:q} 2>&1"
