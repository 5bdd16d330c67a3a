"""``privdtol check-config``: validate a pipeline config and print its plan (cells, jobs) and,
with ``--cores N``, every job of its build and the build's wall time on N cores
(:mod:`privdtol.pipeline.build_estimate`)."""

from __future__ import annotations

import sys
import textwrap


def add_parser(sub):
    p = sub.add_parser(
        "check-config",
        help="validate a pipeline config and print its plan",
        description="Validate a pipeline config (JSON schema and semantics); "
        "print cells, simulation jobs and estimated CPU seconds per "
        "experiment, and per algorithm which engine computes its cells and why; with "
        "--cores N, every job of the build (counted by a Snakemake dry run) with its "
        "estimated job time, and the wall time on N cores.  "
        "Errors name the key and the allowed values.",
    )
    p.add_argument("config", help="config YAML (e.g. config/config.yaml)")
    p.add_argument("--schema", help="JSON schema (default: the schema shipped with privdtol)")
    p.add_argument(
        "--cores",
        type=int,
        help="also count every job of the build (a Snakemake dry run, a minute at paper "
        "scale) and estimate its job time and its wall time on this many cores",
    )
    p.add_argument(
        "--snakefile",
        default="Snakefile",
        help="the workflow whose jobs are counted (snakemake -n --forceall); none found: "
        "the simulations only",
    )
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.errors import InputError
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.config import load_config
    from privdtol.pipeline.semantics import check_out_dirs
    from privdtol.pipeline.yaml_load import read_mapping
    from privdtol.privacy.audit_grid import merge_grid
    from privdtol.privacy.cost import check_privacy_block

    if args.cores is not None and args.cores < 1:  # before any work
        raise InputError("cores", f"got {args.cores}", "an integer >= 1")
    schema = read_mapping(args.schema, "schema") if args.schema else None
    config = load_config(args.config, schema)
    check_out_dirs(config)
    if config.get("privacy"):
        try:  # what the schema cannot say (as the workflow's privacy.smk checks it)
            merge_grid(config["privacy"])
        except InputError as err:
            raise InputError(
                f"privacy.{err.field.removeprefix('privacy.')}", err.problem, err.allowed
            ) from None
        check_privacy_block(config)  # its audits' cost, before any runs
    rows = grid.summary(config)  # refuses a grid above the config's limits
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
    print_engines(config)
    print_build(args, config)
    print(f"{args.config}: ok", file=sys.stderr)
    return 0


def print_build(args, config: dict) -> None:
    """Every job of the build (counted by Snakemake), its estimated job time by kind and the
    wall time on ``--cores`` cores (privdtol.pipeline.build_estimate)."""
    from pathlib import Path

    from privdtol.pipeline import build_estimate as est
    from privdtol.pipeline import plan as grid

    if args.cores is None:
        print("build: every job and the wall time with --cores N (e.g. --cores 2)")
        return
    snakefile = Path(args.snakefile)
    if not snakefile.is_file():
        print(f"build: no {snakefile} here: the simulations above only (run from the repository)")
        return
    rows = est.estimate(est.planned_jobs(snakefile, args.config), config, grid.plan(config))
    print(f"build (every job of snakemake --cores {args.cores}; estimated job time):")
    print(f"  {'kind':<22} {'jobs':>5} {'est. s':>8}")
    for kind, (jobs, seconds) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        print(f"  {kind:<22} {jobs:>5} {seconds:>8.0f}")
    total = sum(s for _, s in rows.values())
    print(f"  {'total':<22} {sum(j for j, _ in rows.values()):>5} {total:>8.0f}")
    wall = est.wall_seconds(rows, args.cores)
    print(f"  wall time on {args.cores} cores: about {est.minutes(wall)}")


def print_engines(config: dict) -> None:
    """Per algorithm and loss model: the engine of its cells, why, and the experiments."""
    from privdtol.pipeline.engines import engine_report

    seen: dict[tuple, list[str]] = {}
    for r in engine_report(config):
        key = (r["algorithm"], r["env"], r["engine"], r["reason"])
        where = r["experiment"] + (f"/{r['slice']}" if r["slice"] else "")
        seen.setdefault(key, []).append(where)
    print("engines (algorithm, loss model: engine, why; experiments):")
    for (alg, env, engine, why), where in seen.items():
        text = f"{alg:<16} {env:<13} {engine:<11} {why}; {', '.join(where)}"
        print(textwrap.fill(text, width=99, initial_indent="  ", subsequent_indent=" " * 6))
