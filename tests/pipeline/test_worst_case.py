"""Tests of :mod:`privdtol.pipeline.worst_case`."""

from __future__ import annotations

import pytest

from privdtol.analysis.worst import worst_case
from privdtol.pipeline.worst_case import searches_table

# --- from tests/test_worst_case.py

T = (1 << 10) - 1  # short horizon: every evaluation is a few milliseconds


def test_searches_table_and_finding(tmp_path):
    from privdtol.pipeline.worst_case import Search, write_search

    for obj in ("theorem1", "rate_min"):
        s = Search("rps", 3, 0.25, 1.0, obj, T, 8, 0, "auto")
        write_search(s, tmp_path / f"{s.search_id}.json", tmp_path / f"{s.search_id}.trace.csv")
    table = searches_table(sorted(tmp_path.glob("*.json")))
    assert list(table["objective"]) == ["rate_min", "theorem1"]
    found = worst_case({"searches": table})
    t1 = table[table["objective"] == "theorem1"].iloc[0]
    assert found["theorem1"]["value"] == pytest.approx(t1["value"], rel=1e-6)
    assert found["rate"]["value"] >= found["rate_min"]["value"]
    assert "not a supremum" in found["text"] and "Theorem 1's bound" in found["text"]
    assert not worst_case({})["available"]
