"""Tests of :mod:`privdtol.cli.listing`: ``privdtol list`` names every algorithm and loss
model."""

from __future__ import annotations

from support.cli import run_cli


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
