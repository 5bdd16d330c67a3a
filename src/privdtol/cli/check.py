"""``privdtol check``: one claim's check, from the aggregated tables to
``results/checks/<ID>.json``.

The config files are merged in order and validated by the one loader
(:func:`privdtol.pipeline.config.load_config_files`, which fills the schema's defaults of the
``checks:`` thresholds); the claim's experiments are read from the agg directory (those absent
are skipped) and the claim's check of :data:`privdtol.analysis.registry.CLAIMS` writes a
deterministic JSON record, atomically.  ``--control ALG`` runs the claim's check on a
negative control (an algorithm of the claim's ``controls``) and marks the record
``control_of`` the claim (``results/checks/<ID>--<ALG>.json``; its purpose is served when its
verdict is FAIL).  ``--findings`` writes the registry's findings (not claims, out of the
verdict count) to ``results/findings.json``; ``--power`` the size and power of every check
with a negative control in the config (:mod:`privdtol.analysis.power`, synthetic tables from
the form fitted to the run's grid) to ``results/checks/power.json``.
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
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--claim", metavar="ID", help=f"claim id ({', '.join(CLAIMS)})")
    what.add_argument(
        "--findings",
        action="store_true",
        help="write the findings (not claims) to --out, e.g. results/findings.json",
    )
    what.add_argument(
        "--power",
        action="store_true",
        help="write the size and power of the checks to --out, e.g. results/checks/power.json",
    )
    what.add_argument(
        "--multiverse",
        action="store_true",
        help="write every verdict recomputed over the pre-declared threshold ranges "
        "(checks.multiverse) to --out, e.g. results/checks/multiverse.json",
    )
    what.add_argument(
        "--by-algorithm",
        action="store_true",
        help="write every rate claim's verdict on every private algorithm of the config to "
        "--out, e.g. results/checks/by_algorithm.json",
    )
    what.add_argument(
        "--battery",
        action="store_true",
        help="write every claim's verdicts on the battery of known truths (tables whose "
        "answer is known by construction) to --out, e.g. results/checks/battery.json",
    )
    what.add_argument(
        "--out-of-sample",
        action="store_true",
        help="rerun each claim changed after results were seen (and its controls) on the "
        "cells that none of the configs it was tuned on simulates (config/<stem>.yaml) and "
        "write the results to --out, e.g. results/checks/out_of_sample.json",
    )
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--control",
        metavar="ALG",
        help="check a negative control of the claim (one of its registry controls) instead of its "
        "subject (rps, or the cited work's algorithm)",
    )
    who.add_argument(
        "--algorithm",
        metavar="NAME",
        help="ask the claim of any registered algorithm (plugins included) instead of its subject",
    )
    add_config_files_option(p)
    p.add_argument(
        "--agg-dir", help="directory of <experiment>.parquet (default: the config's agg_dir)"
    )
    p.add_argument("--out", required=True, help="output JSON (results/checks/<ID>.json)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.analysis.diagnosis import diagnose
    from privdtol.analysis.records import agg_path, as_control, load_agg, write_check
    from privdtol.analysis.registry import CLAIMS, claim_thresholds
    from privdtol.errors import InputError, lookup
    from privdtol.pipeline.config import load_config_files

    out = Path(args.out)
    if out.suffix != ".json":
        raise InputError("out", f"unknown extension {out.suffix!r} in {out}", ".json")
    if not out.parent.is_dir():  # as simulate and aggregate: never create directories
        raise InputError("out", f"directory {out.parent} does not exist", "an existing directory")
    config = load_config_files(args.config)
    agg_dir = Path(args.agg_dir or config["agg_dir"])
    if args.findings:
        return run_findings(agg_dir, out)
    if args.power:
        return run_power(config, agg_dir, out)
    if args.multiverse:
        return run_multiverse(config, agg_dir, out)
    if args.by_algorithm:
        return run_table("by_algorithm", config, agg_dir, out)
    if args.battery:
        return run_table("battery", config, agg_dir, out)
    if args.out_of_sample:
        return run_table("out_of_sample", config, agg_dir, out)
    claim = lookup(CLAIMS, args.claim, "claim", "claim")
    algorithm = claim.subject  # rps, or the cited work's algorithm for a claim of a cited work
    if args.algorithm is not None:
        from privdtol.algorithms import ALGORITHMS

        lookup(ALGORITHMS, args.algorithm, "algorithm", "algorithm")
        algorithm = args.algorithm
    if args.control is not None:
        if args.control not in claim.controls:
            raise InputError(
                "control",
                f"{args.control!r} is not a negative control of claim {claim.id}",
                ", ".join(claim.controls) or "none",
            )
        algorithm = args.control
    tables = load_agg(agg_dir, claim.experiments)
    if not tables:
        raise InputError(
            "agg-dir",
            f"no aggregated table of claim {claim.id} in {agg_dir}",
            ", ".join(f"{e}.parquet" for e in claim.experiments),
        )
    inputs = [str(agg_path(agg_dir, e)) for e in tables]
    fn = claim.check_function()
    # the declared thresholds only: the check rule reruns when one of them changes, not others
    thresholds = claim_thresholds(claim.id, config["checks"])
    if args.control is None:
        record = fn(tables, thresholds, inputs, algorithm=algorithm)
    else:
        record = as_control(fn(tables, thresholds, inputs, algorithm=algorithm), claim.id)
    diagnosis = diagnose(record)
    if diagnosis is not None:
        record = {**record, "diagnosis": diagnosis}
    write_check(record, out)
    what = claim.id if args.control is None else f"{claim.id} control {args.control}"
    what += f" on {algorithm}" if args.algorithm else ""
    print(f"check {what}: {record['verdict']} ({', '.join(tables)}) -> {out}", file=sys.stderr)
    return 0


def run_findings(agg_dir: Path, out: Path) -> int:
    import json

    from privdtol.analysis.findings import findings
    from privdtol.analysis.records import load_agg
    from privdtol.analysis.registry import FINDINGS_EXPERIMENTS
    from privdtol.pipeline.io import atomic_path

    tables = load_agg(agg_dir, FINDINGS_EXPERIMENTS)
    text = json.dumps(findings(tables), sort_keys=True, indent=2, allow_nan=False) + "\n"
    with atomic_path(out) as tmp:
        tmp.write_text(text, encoding="utf-8")
    print(f"findings ({', '.join(tables) or 'no tables'}) -> {out}", file=sys.stderr)
    return 0


def run_power(config: dict, agg_dir: Path, out: Path) -> int:
    import json

    from privdtol.analysis.power import fitted_model, power_table
    from privdtol.analysis.records import load_agg
    from privdtol.pipeline.io import atomic_path

    model = fitted_model(load_agg(agg_dir, ["grid"]))
    table = power_table(config, model, config["checks"]["power_replicates"])
    text = json.dumps(table, sort_keys=True, indent=2, allow_nan=False) + "\n"
    with atomic_path(out) as tmp:
        tmp.write_text(text, encoding="utf-8")
    print(f"power ({len(table['rows'])} checks, {model['source']}) -> {out}", file=sys.stderr)
    return 0


def run_multiverse(config: dict, agg_dir: Path, out: Path) -> int:
    import json

    from privdtol.analysis.multiverse import multiverse_table
    from privdtol.pipeline.io import atomic_path

    table = multiverse_table(config, agg_dir)
    text = json.dumps(table, sort_keys=True, indent=2, allow_nan=False) + "\n"
    with atomic_path(out) as tmp:
        tmp.write_text(text, encoding="utf-8")
    changed = sum(r["verdict"] != r["base_verdict"] for r in table["rows"])
    print(
        f"multiverse ({len(table['rows'])} variants, {changed} change a verdict) -> {out}",
        file=sys.stderr,
    )
    return 0


def run_table(kind: str, config: dict, agg_dir: Path, out: Path) -> int:
    """``--by-algorithm``, ``--battery`` or ``--out-of-sample``: one JSON table, written
    atomically."""
    import json

    from privdtol.pipeline.io import atomic_path

    if kind == "by_algorithm":
        from privdtol.analysis.by_algorithm import by_algorithm_table

        table = by_algorithm_table(config, agg_dir)
    elif kind == "out_of_sample":
        from privdtol.analysis.held_out import out_of_sample_table

        table = out_of_sample_table(config, agg_dir)
    else:
        from privdtol.analysis.battery import config_battery

        table = config_battery(config, agg_dir)
    text = json.dumps(table, sort_keys=True, indent=2, allow_nan=False) + "\n"
    with atomic_path(out) as tmp:
        tmp.write_text(text, encoding="utf-8")
    print(f"{kind} ({len(table['rows'])} rows) -> {out}", file=sys.stderr)
    return 0
