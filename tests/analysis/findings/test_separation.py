"""Tests of the finding ``separation`` (:mod:`privdtol.analysis.findings.separation`) on tables
known by construction (tests/analysis/test_separation.py's synthetic table)."""

from __future__ import annotations

import numpy as np
from support.separation_tables import synthetic

from privdtol.analysis.findings.separation import separation


def test_the_finding_names_what_shows_and_where():
    got = separation(synthetic({"rnm_ftnl": "hu", "wu_wang": "wu_wang", "rps": "rate"}))
    assert got["available"]
    assert got["shown"] == [
        {"algorithm": "rnm_ftnl", "factor": "log T"},
        {"algorithm": "wu_wang", "factor": "log K"},
    ]
    assert "rnm_ftnl's regret shows a log T factor" in got["text"]
    none = separation(synthetic({"rps": "rate", "rnm_ftnl": "rate"}))
    assert none["shown"] == [] and none["text"].startswith(
        "No algorithm's regret shows the extra log T or log K factor of its bound up to "
        "K = 4096, T = 1099511627775"
    )
    assert separation({})["available"] is False
    assert np.isfinite(none["algorithms"]["rps"]["log_T"]["growth"])
