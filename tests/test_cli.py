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
