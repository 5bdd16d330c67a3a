# The run's config, written into the run: results/config.merged.yaml (the
# validated, merged config every job reads: files and --config overrides) and
# results/config.sources.json (the files with their sha256, and the overrides), from
# privdtol.pipeline.run_config.  RUN_CONFIG and RUN_SOURCES are named in common.smk.
import json

from privdtol.pipeline.run_config import canonical, file_sha256, sources_json


# One job writes both: it reruns when what it writes changes, the merged config when a file or
# an override changes a value (the stamp of the whole config, MERGED_PIECE), the sources also
# when a file changes without changing a value (a comment: the stamp of the files' bytes).
# (One job, not two: every value edit rewrites both, and the report reads both.)  The other
# jobs read the config from its stamp (MERGED_PIECE, a param) and rerun on the stamps of the
# pieces they read (config_piece, common.smk), not on every rewrite of these files.
rule write_config:
    input:
        piece=MERGED_PIECE,
        # the files (with their bytes' sha256) and the overrides
        sources=config_piece(
            "sources",
            [
                sources_json(report_configfiles(), workflow.config_settings.config),
                [file_sha256(f) for f in report_configfiles()],
            ],
        ),
    output:
        merged=RUN_CONFIG,
        sources=RUN_SOURCES,
    log:
        "logs/config/write_config.log",
    localrule: True
    conda:
        "../envs/privdtol.yaml"
    params:
        merged=json.dumps(canonical(CONFIG), sort_keys=True),
        sources=sources_json(report_configfiles(), workflow.config_settings.config),
    shell:
        "privdtol run-config --merged {params.merged:q} --out {output.merged:q} > {log:q} 2>&1"
        " && privdtol run-config --sources {params.sources:q} --out {output.sources:q}"
        " >> {log:q} 2>&1"
