"""Tests of :mod:`privdtol.pipeline.worst_case`: the config's worst-case block gives one search
per point and objective, and the searches' table yields the worst-case finding."""

from __future__ import annotations

import pytest
from support.paths import CONFIG

from privdtol.analysis.findings.worst_case import worst_case
from privdtol.pipeline.config import load_config
from privdtol.pipeline.worst_case import Search, searches, searches_table, write_search

T = (1 << 10) - 1  # short horizon: every evaluation is a few milliseconds


def test_searches_table_and_finding(tmp_path):
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


def test_config_block_gives_one_search_per_point_and_objective():
    cfg = load_config(CONFIG / "config.yaml")
    got = searches(cfg)
    block = cfg["worst_case"]
    n = len(block["K"]) * len(block["gap"]) * len(block["epsilon"]) * len(block["objectives"])
    assert len(got) == n and len({s.search_id for s in got}) == n
    minimal = {"experiments": cfg["experiments"][:1]}
    assert searches(load_config(minimal)) == []
