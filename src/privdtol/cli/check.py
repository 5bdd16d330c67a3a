"""``privdtol check``: one claim's check, from the aggregated tables to
``results/checks/<ID>.json``.

The config files are merged in order and validated by the one loader
(:func:`privdtol.pipeline.config.load_config_files`, which fills the schema's defaults of the
``checks:`` thresholds); the claim's experiments are read from the agg directory (those absent
are skipped) and the claim's check of :data:`privdtol.analysis.registry.CLAIMS` writes a
deterministic JSON record, atomically.
"""

from __future__ import annotations

import sys
from pathlib import Path

from privdtol.cli.common import add_config_files_option


def add_parser(sub):
    from privdtol.analysis.registry import CLAIMS

    p = sub.add_parser(
        "check",
        help="check one claim of the paper: agg tables -> results/checks/<ID>.json",
        description="Run one claim's check on the aggregated tables of its experiments and "
        "write its record (statistic, interval, threshold, verdict) as JSON.  "
        f"Claims: {', '.join(CLAIMS)}.",
    )
    p.add_argument("--claim", required=True, metavar="ID", help=f"claim id ({', '.join(CLAIMS)})")
    add_config_files_option(p)
    p.add_argument(
        "--agg-dir", help="directory of <experiment>.parquet (default: the config's agg_dir)"
    )
    p.add_argument("--out", required=True, help="output JSON (results/checks/<ID>.json)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.analysis.records import agg_path, load_agg, write_check
    from privdtol.analysis.registry import CLAIMS
    from privdtol.errors import InputError, lookup
    from privdtol.pipeline.config import load_config_files

    claim = lookup(CLAIMS, args.claim, "claim", "claim")
    out = Path(args.out)
    if out.suffix != ".json":
        raise InputError("out", f"unknown extension {out.suffix!r} in {out}", ".json")
    config = load_config_files(args.config)
    agg_dir = Path(args.agg_dir or config["agg_dir"])
    tables = load_agg(agg_dir, claim.experiments)
    if not tables:
        raise InputError(
            "agg-dir",
            f"no aggregated table of claim {claim.id} in {agg_dir}",
            ", ".join(f"{e}.parquet" for e in claim.experiments),
        )
    inputs = [str(agg_path(agg_dir, e)) for e in tables]
    record = claim.check_function()(tables, config["checks"], inputs)
    write_check(record, out)
    print(f"check {claim.id}: {record['verdict']} ({', '.join(tables)}) -> {out}", file=sys.stderr)
    return 0
