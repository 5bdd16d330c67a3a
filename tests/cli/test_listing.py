"""Tests of :mod:`privdtol.cli.listing`: ``privdtol list`` names every algorithm and loss
model."""

from __future__ import annotations

from support.cli import run_cli

from privdtol.cli import main


def test_list_names_everything():
    res = run_cli("list")
    assert res.returncode == 0
    for name in [
        "rps",
        "rnm_ftnl",
        "wu_wang",
        "wu_wang_gumbel",
        "rps_full_prefix",
        "rps_uncapped",
        "ftl",
        "hedge",
        "bernoulli",
        "correlated",
        "beta",
        "deterministic",
        "replay",
    ]:
        assert name in res.stdout


def test_privdtol_list_prints_whole_sentences(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    models = lines[lines.index("loss models:") + 1 :]
    assert models and all(line.rstrip().endswith((".", ")")) for line in models), models
    assert not any("(issue " in line for line in lines), "user-facing text names an issue"
