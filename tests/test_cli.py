"""Tests of :mod:`privdtol.cli`: the map from each subcommand to the module that registers it."""

from __future__ import annotations

import argparse
import re

import pytest
from support.cli import run_cli
from support.plugins import fake_plugin

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


def _subparsers(parser):
    return parser._subparsers._group_actions[0].choices


def test_no_arguments_is_the_help_with_user_commands_apart_from_pipeline_steps(capsys):
    from privdtol.cli import PIPELINE_STEPS

    assert main([]) == 0
    out = capsys.readouterr().out
    head, _, steps = out.partition("pipeline steps")
    assert "commands:" in head and steps, out
    for name in COMMANDS:
        listed = re.search(
            rf"^  {re.escape(name)} ", steps if name in PIPELINE_STEPS else head, re.M
        )
        assert listed, f"{name} not listed in its group"
    assert max(map(len, out.splitlines())) < 100, "a help line runs past 99 columns"
    assert set(COMMANDS) > PIPELINE_STEPS


def test_version(capsys):
    import privdtol

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"privdtol {privdtol.__version__}\n"


def test_every_option_is_documented_and_its_default_said_once():
    for name, sub in _subparsers(build_parser()).items():
        for action in sub._actions:
            if action.option_strings and action.help != argparse.SUPPRESS:
                assert action.help, f"privdtol {name} {action.option_strings[0]}: no help"
        text = sub.format_help()
        assert "(default: None)" not in text, name
        for line in text.splitlines():
            assert line.lower().count("default") <= 1, f"privdtol {name}: {line.strip()}"


BROKEN = "raise RuntimeError('boom')\n"


def test_a_broken_plugin_is_refused_by_the_commands_that_use_it_not_by_help(tmp_path):
    where = fake_plugin(
        tmp_path / "p",
        "bad-dist",
        "bad_plugin",
        BROKEN,
        {"privdtol.algorithms": {"toy": "bad_plugin:Toy"}},
    )
    named = "plugin privdtol.algorithms 'toy' (bad_plugin:Toy, from bad-dist)"
    listing = run_cli("--help", plugins=[where])
    assert listing.returncode == 0 and not listing.stderr, listing.stderr
    assert re.search(rf"^  simulate +unavailable: {re.escape(named)}", listing.stdout, re.M)
    assert run_cli("run-config", "--help", plugins=[where]).returncode == 0
    out = run_cli("simulate", "--help", plugins=[where])
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert named in out.stderr and "boom" in out.stderr, out.stderr


def test_a_full_disk_is_one_line_naming_the_file(capsys, monkeypatch, tmp_path):
    """ENOSPC while writing ``simulate --out`` was an OSError traceback."""
    import errno

    import privdtol.cli.simulate as simulate

    out = tmp_path / "cell.csv"

    def full(table, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(simulate, "write_table", full)
    args = ["--algorithm", "rps", "--K", "2", "--gap", "0.25", "--epsilon", "1"]
    code = main(["simulate", *args, "--horizon", "7", "--runs", "2", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert err == f"privdtol simulate: error: No space left on device: {out}\n"


def test_a_closed_pipe_is_one_line():
    """``privdtol audit ... | head -1`` ended in a BrokenPipeError traceback."""
    import subprocess
    import sys

    args = [sys.executable, "-m", "privdtol.cli", "audit", "--algorithm", "rps", "--epsilon", "1"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader is gone before the command writes: EPIPE, every time
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert err == "privdtol audit: error: output pipe closed by its reader\n", err
