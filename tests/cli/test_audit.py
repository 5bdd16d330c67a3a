"""Tests of :mod:`privdtol.cli.audit`."""

from __future__ import annotations

import json

import pytest

from privdtol.cli import main

# --- from tests/test_privacy.py

# ------------------------------------------------------------------ CLI
#: a small exact audit (K = 4, one block of 16, 300 random pairs) at eps = 0.5
SMALL_AUDIT = ["--epsilon", "0.5", "--K", "4", "--block", "16", "--random", "300"]


@pytest.mark.parametrize(
    "name, as_json, violation, two_eta",
    [("rps", False, False, 0.25), ("rps_eta_eps", True, True, 1.0)],
)
def test_cli_text_and_json(capsys, name, as_json, violation, two_eta):
    """One audit printed as text, one as JSON: the loss found, the bound 2 eta, the verdict."""
    args = ["audit", "--algorithm", name, *SMALL_AUDIT, *(["--json"] if as_json else [])]
    assert main(args) == 0
    out = capsys.readouterr().out
    if as_json:
        d = json.loads(out)
        assert d["violation"] is violation and (d["loss"] > 0.5) is violation
        assert d["bound_selection"] == pytest.approx(two_eta) and d["witness"]["d"]
    else:
        verdict = "violation" if violation else "within eps"
        assert "largest privacy loss found" in out and f"verdict: {verdict}" in out
        assert f"2*eta (Lemma 3) = {two_eta:g}" in out
