"""The ``privdtol`` command.  Each subcommand lives in its own module and registers itself
through ``add_parser(subparsers)``; every bad input ends as one line naming the argument and
the allowed values, with exit status 2 and no output file written."""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap

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
    "optimal": "optimal",
    "floor-table": "optimal",
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
#: the subcommands the workflow's rules run (one pipeline step each): listed apart from the
#: user's commands in ``privdtol --help``; a command not named here is a user command
PIPELINE_STEPS = frozenset(
    {
        "simulate-batch",
        "aggregate",
        "proof-table",
        "lower-bound-table",
        "searches-table",
        "audit-grid",
        "run-config",
        "notebook",
        "report-assets",
        "report-compile",
        "archive-name",
    }
)
#: subcommand modules, in the order ``privdtol --help`` lists them
SUBCOMMANDS = list(dict.fromkeys(COMMANDS.values()))


class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as one line (``<prog>: error: <message>``, exit 2) instead of the
    usage block: the message names the argument and, for choices, the allowed values."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


class HelpFormatter(argparse.HelpFormatter):
    """Every option's help with its default once: ``(default: X)`` appended when the help does
    not state a default itself and there is one (not None, False or a suppressed value)."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (
            "default" in text.lower()
            or default in (None, False, argparse.SUPPRESS)
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"


def _commands_epilog(helps: dict[str, str], unavailable: dict[str, str]) -> str:
    """The subcommands grouped: the user's, then the pipeline's steps (each with its help),
    then those a broken plugin made unavailable (with the one-line refusal)."""
    width = max(map(len, COMMANDS)) + 2
    user = [c for c in COMMANDS if c not in PIPELINE_STEPS]
    steps = [c for c in COMMANDS if c in PIPELINE_STEPS]

    def lines(names):  # each wrapped under 100 columns, continued under its help
        out = []
        for n in names:
            text = f"unavailable: {unavailable[n]}" if n in unavailable else helps[n]
            out += textwrap.wrap(
                text,
                width=99,
                initial_indent=f"  {n:<{width}}",
                subsequent_indent=" " * (width + 2),
            ) or [f"  {n}"]
        return out

    return "\n".join(
        [
            "commands:",
            *lines(user),
            "",
            "pipeline steps (run by the workflow's rules; usable by hand):",
            *lines(steps),
            "",
            "privdtol COMMAND --help: the command's options.",
        ]
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``command``'s module only.  Building every
    subcommand never fails on a broken plugin: a module whose import refuses one is listed
    as unavailable, with the refusal (``privdtol COMMAND`` of that module refuses it)."""
    from privdtol import __version__

    parser = OneLineParser(
        prog="privdtol",
        description="Simulate and check the private DTOL algorithms of Cesari & Colomboni "
        "(arXiv 2605.29148).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"privdtol {__version__}")
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        parser_class=OneLineParser,
        help=argparse.SUPPRESS,  # listed, grouped, by the epilog
    )
    helps: dict[str, str] = {}
    add = sub.add_parser

    def add_parser(name, **kwargs):
        helps[name] = kwargs.get("help") or ""
        kwargs["formatter_class"] = HelpFormatter  # every option documented once
        return add(name, **kwargs)

    sub.add_parser = add_parser
    unavailable: dict[str, str] = {}
    for name in [COMMANDS[command]] if command in COMMANDS else SUBCOMMANDS:
        try:
            importlib.import_module(f"{__name__}.{name}").add_parser(sub)
        except InputError as err:  # a broken plugin, refused when the registries are built
            if command in COMMANDS:
                raise
            for cmd in (c for c, m in COMMANDS.items() if m == name and c not in helps):
                unavailable[cmd] = str(err)
                add_parser(cmd, help=f"unavailable: {err}")
    if command not in COMMANDS:
        parser.epilog = _commands_epilog(helps, unavailable)
    return parser


#: the exit status of a command interrupted by SIGINT (Ctrl-C), as a shell reports it
INTERRUPTED = 130


def main(argv: list[str] | None = None) -> int:
    """The ``privdtol`` command: its exit status (0, 1 an output or environment failure, 2
    bad input, 130 interrupted); every failure is one line on stderr, never a traceback.  An
    interrupt (Ctrl-C, SIGINT) leaves no partial file: every output is written to a temporary
    file renamed into place when complete (:func:`privdtol.pipeline.io.atomic_path`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        name = f"privdtol {argv[0]}" if argv and argv[0] in COMMANDS else "privdtol"
        print(f"{name}: interrupted; no partial output is left", file=sys.stderr)
        return INTERRUPTED


def _main(argv: list[str]) -> int:
    command = argv[0] if argv and argv[0] in COMMANDS else None
    try:  # importing a subcommand builds the registries: a broken plugin is refused here
        parser = build_parser(command)
    except InputError as err:
        print(f"privdtol {command}: error: {err}", file=sys.stderr)
        return 2
    if not argv:  # help, not an error
        parser.print_help()
        return 0
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
