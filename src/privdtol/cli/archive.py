"""``privdtol archive``, ``privdtol archive-name`` and ``privdtol archive-compare``: the run
archive of :mod:`privdtol.archive.build` and the comparison that ``make replay`` ends with."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privdtol.cli.common import add_config_files_option
from privdtol.errors import InputError


def add_parser(sub):
    p = sub.add_parser(
        "archive",
        help="write the run archive results/archive/privdtol-<commit>-<config hash>.tar.gz",
        description="Pack the source (git ls-files of --repo), the config files, the outputs of "
        "the run under --workdir and an RO-Crate into one deterministic tar.gz, with its sha256 "
        "in <name>.sha256 beside it.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_config_files_option(p)
    p.add_argument("--repo", default=".", help="git checkout whose tracked files are the source")
    p.add_argument("--workdir", default=".", help="working directory of the run (results/, logs/)")
    p.add_argument("--out-dir", default="results/archive", help="where the archive is written")
    p.set_defaults(handler=run_archive)

    n = sub.add_parser(
        "archive-name",
        help="print the file name of the run archive (commit and config hash)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_config_files_option(n)
    n.add_argument("--repo", default=".", help="git checkout")
    n.set_defaults(handler=run_name)

    c = sub.add_parser(
        "archive-compare",
        help="compare rebuilt tables and checks with those of an unpacked archive",
        description="Exit 0 when every archived aggregated table, check record and findings "
        "file under RUN/results equals the rebuilt one under --results byte for byte, and "
        "every file the archive's RO-Crate (RUN/../ro-crate-metadata.json) lists is present "
        "with the sha256 it records; a missing file is a difference.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    c.add_argument("--run", required=True, help="the run/ directory of an unpacked archive")
    c.add_argument("--results", default="results", help="the rebuilt results directory")
    c.add_argument(
        "--agg-dir",
        default=None,
        help="the run's agg_dir (default: that of the config files RUN/configfiles.txt lists, "
        "read from the working directory, else results/agg)",
    )
    c.set_defaults(handler=run_compare)


def run_archive(args) -> int:
    from privdtol.archive.build import build_archive
    from privdtol.pipeline.config import load_config_files

    workdir = Path(args.workdir)
    if not workdir.is_dir():
        raise InputError("workdir", f"{workdir} is not a directory", "the run's working directory")
    files = [f if Path(f).is_absolute() else str(workdir / f) for f in args.config]
    config = load_config_files(files)
    out = build_archive(config, args.config, Path(args.repo), workdir, Path(args.out_dir))
    size = out.stat().st_size
    print(f"archive: {out} ({size / 1e6:.1f} MB)", file=sys.stderr)
    return 0


def run_name(args) -> int:
    from privdtol.archive.layout import archive_name, git_info
    from privdtol.pipeline.config import load_config_files

    print(archive_name(git_info(Path(args.repo)), load_config_files(args.config)))
    return 0


def _archived_agg_dir(run: Path) -> str:
    """The agg_dir of the config files ``run/configfiles.txt`` lists (one a line, relative to
    the working directory, as ``make replay`` reads them), or results/agg without them."""
    from privdtol.archive.layout import AGG_DIR, agg_dir_of
    from privdtol.pipeline.config import load_config_files

    listing = run / "configfiles.txt"
    files = listing.read_text().splitlines() if listing.is_file() else []
    if not files or not all(Path(f).is_file() for f in files):
        return AGG_DIR
    return agg_dir_of(load_config_files(files))


def run_compare(args) -> int:
    from privdtol.archive.build import compare

    run, results = Path(args.run), Path(args.results)
    if not run.is_dir():
        raise InputError("run", f"{run} is not a directory", "the run/ directory of an archive")
    agg_dir = args.agg_dir if args.agg_dir is not None else _archived_agg_dir(run)
    same, problems, verdicts = compare(run, results, agg_dir)
    for claim, verdict in sorted(verdicts.items()):
        print(f"{claim}: {verdict}")
    for p in problems:
        print(f"archive-compare: {p}", file=sys.stderr)
    print(
        f"archive-compare: {len(same)} identical, {len(problems)} different or missing "
        f"({run}/results vs {results})",
        file=sys.stderr,
    )
    return 1 if problems else 0
