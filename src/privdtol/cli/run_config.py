"""``privdtol run-config``: write the configuration a run used into the run
(:mod:`privdtol.pipeline.run_config`): the validated, merged config that every job reads
(``--merged``), or the files and ``--config`` overrides it was merged from (``--sources``).
The workflow's rule ``write_config`` (config.smk) calls it, once for each, with
what Snakemake's parse computed."""

from __future__ import annotations

import json
import sys


def add_parser(sub):
    p = sub.add_parser(
        "run-config",
        help="write the run's merged config (or its sources) into the run",
        description="Write the validated, merged config of a run (--merged, as JSON) to --out "
        "as YAML, or the record of its config files and overrides (--sources, as JSON).",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--merged", metavar="JSON", help="the merged config, as JSON")
    what.add_argument(
        "--sources",
        metavar="JSON",
        help='{"files": [config files in merge order], "overrides": {--config values}}',
    )
    p.add_argument("--out", required=True, help="output file (results/config.merged.yaml)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.errors import InputError
    from privdtol.pipeline.config import load_config
    from privdtol.pipeline.run_config import sources_record, write_merged, write_sources

    field = "merged" if args.merged is not None else "sources"
    try:
        value = json.loads(args.merged if args.merged is not None else args.sources)
    except json.JSONDecodeError as err:
        raise InputError(field, f"not JSON ({err})", "a JSON object") from None
    if not isinstance(value, dict):
        raise InputError(field, f"a JSON {type(value).__name__}", "a JSON object")
    if args.merged is not None:
        out = write_merged(load_config(value), args.out)
    else:
        files, overrides = value.get("files"), value.get("overrides")
        if not isinstance(files, list) or not isinstance(overrides, dict):
            raise InputError("sources", "no files list or overrides mapping", "files, overrides")
        out = write_sources(sources_record(files, overrides), args.out)
    print(f"run-config: {out}", file=sys.stderr)
    return 0
