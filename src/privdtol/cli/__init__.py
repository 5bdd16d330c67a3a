"""The ``privdtol`` command.  Each subcommand lives in its own module and registers itself
through ``add_parser(subparsers)``; every bad input ends as one line naming the argument and
the allowed values, with exit status 2 and no output file written."""

from __future__ import annotations

import argparse
import importlib
import sys

from privdtol.errors import InputError

#: subcommand modules, in the order ``privdtol --help`` lists them
SUBCOMMANDS = [
    "simulate",
    "exact",
    "lemmas",
    "worst_case",
    "listing",
    "report",
    "explorer",
    "batch",
    "aggregate",
    "proof",
    "check",
    "config",
    "audit",
    "archive",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="privdtol",
        description="Simulate and check the private DTOL algorithms of Cesari & Colomboni "
        "(arXiv 2605.29148).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except InputError as err:
        flag = err.field if err.field.startswith("-") else "--" + err.field.replace("_", "-")
        message = f"{flag}: {err.problem}" + (f" (allowed: {err.allowed})" if err.allowed else "")
        print(f"privdtol {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
