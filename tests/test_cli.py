"""Tests of :mod:`privdtol.cli`: the map from each subcommand to the module that registers it."""

from __future__ import annotations

from privdtol.cli import COMMANDS, build_parser


def test_every_subcommand_is_registered_by_the_module_commands_names():
    """``privdtol COMMAND`` imports COMMANDS[COMMAND] only: the map must name, for every
    subcommand of the full parser, the module that registers it, and nothing else."""

    def choices(parser):
        return set(parser._subparsers._group_actions[0].choices)

    assert choices(build_parser()) == set(COMMANDS)
    for command in COMMANDS:
        assert command in choices(build_parser(command)), command
