"""The ``privdtol`` command.  Each subcommand lives in its own module and registers itself
through ``add_parser(subparsers)``; every bad input ends as one line naming the argument and
the allowed values, with exit status 2 and no output file written."""

from __future__ import annotations

import argparse
import importlib
import sys

from privdtol.errors import InputError, printable

#: each subcommand and the module that registers it, in the order ``privdtol --help`` lists
#: them; ``privdtol COMMAND`` imports that module only (a pipeline job starts in a fraction of
#: the time that importing every subcommand's dependencies takes)
COMMANDS = {
    "simulate": "simulate",
    "exact": "exact",
    "lemmas": "lemmas",
    "lower-bound": "lower_bound",
    "lower-bound-table": "lower_bound",
    "worst-case": "worst_case",
    "searches-table": "worst_case",
    "list": "listing",
    "report-assets": "report",
    "report-compile": "report",
    "report-arxiv": "report",
    "explorer": "explorer",
    "notebook": "notebook",
    "simulate-batch": "batch",
    "aggregate": "aggregate",
    "proof-table": "proof",
    "check": "check",
    "check-config": "config",
    "run-config": "run_config",
    "audit": "audit",
    "audit-grid": "audit",
    "archive": "archive",
    "archive-name": "archive",
    "archive-compare": "archive",
}
#: subcommand modules, in the order ``privdtol --help`` lists them
SUBCOMMANDS = list(dict.fromkeys(COMMANDS.values()))


class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as one line (``<prog>: error: <message>``, exit 2) instead of the
    usage block: the message names the argument and, for choices, the allowed values."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``command``'s module only."""
    parser = OneLineParser(
        prog="privdtol",
        description="Simulate and check the private DTOL algorithms of Cesari & Colomboni "
        "(arXiv 2605.29148).",
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser
    )
    for name in [COMMANDS[command]] if command in COMMANDS else SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:  # importing a subcommand builds the registries: a broken plugin is refused here
        parser = build_parser(argv[0] if argv else None)
    except InputError as err:
        print(f"privdtol: error: {err}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except InputError as err:
        field = err.field
        if field.startswith("-") or any(c in field for c in ".[") or hasattr(err, "config_key"):
            flag = field  # a flag as given, or a config key (experiments[0].gap) as written
        else:
            flag = "--" + field.replace("_", "-")
        message = f"{flag}: {err.problem}" + (f" (allowed: {err.allowed})" if err.allowed else "")
        message = printable(message)  # one line, whatever a config's keys hold
        print(f"privdtol {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # a reader closed our output (``| head``): one line, no traceback
        _silence_stdout()
        print(f"privdtol {args.command}: error: output pipe closed by its reader", file=sys.stderr)
        return 1
    except OSError as err:  # a full disk, a read-only or vanished directory: one line
        where = f": {err.filename}" if err.filename else ""
        reason = err.strerror or type(err).__name__
        print(printable(f"privdtol {args.command}: error: {reason}{where}"), file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of a closed pipe
    raises nothing more (the Python documentation's advice for SIGPIPE)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover (no real stdout)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
