"""Tests of :mod:`privdtol.cli.listing`."""

from __future__ import annotations

import subprocess
import sys

# --- from tests/test_cli.py


def _run(args):
    return subprocess.run(
        [sys.executable, "-m", "privdtol.cli", *args], capture_output=True, text=True
    )


def test_list_names_everything():
    res = _run(["list"])
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
