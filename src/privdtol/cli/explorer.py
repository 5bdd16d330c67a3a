"""``privdtol explorer``: the interactive, self-contained explorer page of the run's cells
(:mod:`privdtol.report.html.explorer`), ``results/explorer/index.html``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub):
    p = sub.add_parser(
        "explorer",
        help="write the explorer: regret against the horizon for every cell, the privacy audit, "
        "the proof's slack, the worst-case searches and the claims (one HTML page)",
        description="Read aggregated regret tables, the check records and (where given) the "
        "privacy audit's, the proof's and the searches' tables, and write one self-contained "
        "HTML page (data and Plotly inline, no network) that plots regret against the horizon "
        "for any selection of experiment, algorithms, K, gap, epsilon and loss model, the "
        "privacy loss found against epsilon, each proof step's slack, each search's trace and "
        "instances, and lists every claim (paper claim or diagnostic) with its negative "
        "controls and their verdicts.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--agg",
        nargs="+",
        required=True,
        type=Path,
        metavar="PARQUET",
        help="aggregated regret tables (results/agg/<experiment>.parquet)",
    )
    p.add_argument("--checks", default="results/checks", type=Path, help="check records")
    for name, table in (
        ("privacy", "the privacy audit's table"),
        ("proof", "the proof table"),
        ("searches", "the worst-case searches' table"),
    ):
        p.add_argument(
            f"--{name}",
            type=Path,
            metavar="PARQUET",
            help=f"{table} (results/agg/{name}.parquet); omitted: the view says not run",
        )
    p.add_argument(
        "--configfiles",
        nargs="+",
        metavar="YAML",
        help="the config files the run was built from, in merge order (named on the page)",
    )
    p.add_argument(
        "--out", default="results/explorer/index.html", type=Path, help="the HTML page written"
    )
    p.set_defaults(handler=run_explorer)


def _check_agg(paths) -> None:
    """Every --agg a Parquet table (a CSV was a pyarrow traceback); its columns are checked by
    the explorer's reader (:data:`privdtol.report.html.explorer.REQUIRED`)."""
    from privdtol.errors import InputError

    for path in paths:
        if path.suffix != ".parquet":
            raise InputError("agg", f"{path} is not a .parquet table", "results/agg/<exp>.parquet")


def run_explorer(args) -> int:
    from privdtol.report.html.explorer import build_explorer

    _check_agg(args.agg)
    views = {"privacy": args.privacy, "proof": args.proof, "searches": args.searches}
    out = build_explorer(args.agg, args.checks, args.out, views, args.configfiles)
    size = out.stat().st_size / 2**20
    print(f"explorer: {out} ({size:.1f} MiB, {len(args.agg)} tables)", file=sys.stderr)
    return 0
