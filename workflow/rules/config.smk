# The run's config, written once into the run (issue 39): results/config.merged.yaml (the
# validated, merged config every job reads: files and --config overrides) and
# results/config.sources.json (the files with their sha256, and the overrides), from
# privdtol.pipeline.run_config.  RUN_CONFIG and RUN_SOURCES are named in common.smk.
import json

from privdtol.pipeline.run_config import canonical, file_sha256, sources_json


# Both rerun when what they write changes (Snakemake's params trigger): the merged config when
# a file or an override changes a value (and then every check and the report, which read it),
# the sources also when a file changes without changing a value (a comment: the report only).
rule write_config:
    output:
        RUN_CONFIG,
    log:
        "logs/config/write_config.log",
    localrule: True
    conda:
        "../envs/privdtol.yaml"
    params:
        merged=json.dumps(canonical(CONFIG), sort_keys=True),
    shell:
        "privdtol run-config --merged {params.merged:q} --out {output:q} > {log:q} 2>&1"


rule write_config_sources:
    output:
        RUN_SOURCES,
    log:
        "logs/config/write_config_sources.log",
    localrule: True
    conda:
        "../envs/privdtol.yaml"
    params:
        sources=sources_json(report_configfiles(), workflow.config_settings.config),
        # the files' bytes (their sha256 is recorded): an edit reruns this rule
        digests=[file_sha256(f) for f in report_configfiles()],
    shell:
        "privdtol run-config --sources {params.sources:q} --out {output:q} > {log:q} 2>&1"
