"""``privdtol check-config``: validate a pipeline config and print its plan (cells, jobs)."""

from __future__ import annotations

import sys


def add_parser(sub):
    p = sub.add_parser(
        "check-config",
        help="validate a pipeline config and print its plan",
        description="Validate a pipeline config (JSON schema and semantics); "
        "print cells, simulation jobs and estimated CPU seconds per "
        "experiment.  Errors name the key and the allowed values.",
    )
    p.add_argument("config", help="config YAML (e.g. config/config.yaml)")
    p.add_argument("--schema", help="JSON schema (default: the schema shipped with privdtol)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.config import load_config

    config = load_config(args.config, args.schema)
    rows = grid.summary(config)
    print(f"{'experiment':<12} {'cells':>6} {'jobs':>5} {'est. CPU s':>10}")
    for r in rows:
        print(
            f"{r['experiment']:<12} {r['cells']:>6} {r['batches']:>5} "
            f"{r['estimated_seconds']:>10.1f}"
        )
    print(
        f"{'total':<12} {sum(r['cells'] for r in rows):>6} "
        f"{sum(r['batches'] for r in rows):>5} "
        f"{sum(r['estimated_seconds'] for r in rows):>10.1f}"
    )
    print(f"{args.config}: ok", file=sys.stderr)
    return 0
