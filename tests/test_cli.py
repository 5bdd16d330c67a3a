"""Tests of :mod:`privdtol.cli`: the map from each subcommand to the module that registers it."""

from __future__ import annotations

import pytest

from privdtol.cli import COMMANDS, build_parser, main


def test_every_subcommand_is_registered_by_the_module_commands_names():
    """``privdtol COMMAND`` imports COMMANDS[COMMAND] only: the map must name, for every
    subcommand of the full parser, the module that registers it, and nothing else."""

    def choices(parser):
        return set(parser._subparsers._group_actions[0].choices)

    assert choices(build_parser()) == set(COMMANDS)
    for command in COMMANDS:
        assert command in choices(build_parser(command)), command


def test_an_argparse_error_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--algorithm", "rps", "--horizon", "x", "--out", "o.csv"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("privdtol simulate: error: argument"), err
    with pytest.raises(SystemExit) as exit_:
        main(["nosuchcommand"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "invalid choice" in err, err
