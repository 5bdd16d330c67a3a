"""Tests of :mod:`privdtol.pipeline.worst_case`: the config's ``worst_case:`` block gives one
search per (algorithm, K, gap, epsilon); a search's files (result JSON, trace CSV, the worst
instances' regret table, the proof terms); the searches' table, one row per search and
objective."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest
from support.paths import CONFIG, SMOKE

from privdtol.errors import InputError
from privdtol.pipeline.config import load_config, load_config_files
from privdtol.pipeline.worst_case import (
    MAX_SECONDS,
    Search,
    searches,
    searches_table,
    write_search,
)

T = (1 << 10) - 1  # short horizon: every evaluation is a few milliseconds
OBJECTIVES = ["theorem1", "lower_max", "lower_min"]


def test_smoke_config_gives_its_one_search_with_the_schema_defaults():
    """smoke.yaml: rps, K = 3, gap 1/4, eps = 1, budget 12, 2 unseen; the horizon (the engine's
    largest, 2^40 - 1), the seed (0) and the tolerance (0.001) from the schema's defaults."""
    got = searches(load_config_files([SMOKE]))
    assert got == [Search("rps", 3, 0.25, 1.0, 2**40 - 1, 12, 0, 2, 0.001)]


def test_config_block_gives_one_search_per_algorithm_k_gap_and_epsilon():
    cfg = load_config(CONFIG / "config.yaml")
    block = cfg["worst_case"]
    got = [s for s in searches(cfg) if s.objectives == Search.objectives and s.K == 4]
    n = len(block["algorithms"]) * len(block["K"]) * len(block["gap"]) * len(block["epsilon"])
    assert len(got) == n and len({s.search_id for s in got}) == n
    assert {(s.algorithm, s.K, s.gap, s.epsilon) for s in got} == {
        (a, K, g, e)
        for a in block["algorithms"]
        for K in block["K"]
        for g in block["gap"]
        for e in block["epsilon"]
    }
    assert got == sorted(got, key=lambda s: (s.algorithm, s.K, s.gap, s.epsilon))
    for s in got:
        assert (s.budget, s.seed, s.unseen, s.tolerance) == (
            block["budget"],
            block["seed"],
            block["unseen"],
            block["tolerance"],
        )
    assert searches(load_config({"experiments": cfg["experiments"][:1]})) == []


def test_cells_add_searches_with_their_own_budget_and_objectives():
    cfg = load_config(CONFIG / "config.yaml")
    block = dict(cfg["worst_case"], K=[4], algorithms=["rps"], epsilon=[1.0])
    block["cells"] = [
        {"algorithms": ["rps", "rnm_ftnl"], "K": 64, "gap": 0.5, "epsilon": 0.015625,
         "budget": 20, "unseen": 0},
        {"algorithms": ["rps"], "K": 16, "gap": 0.0625, "epsilon": 0.25,
         "objectives": ["theorem1", "eq6"]},
    ]  # fmt: skip
    got = searches({"worst_case": block})
    assert [(s.algorithm, s.K, s.budget, s.unseen, s.objectives) for s in got] == [
        ("rnm_ftnl", 64, 20, 0, ("theorem1", "lower_max", "lower_min")),
        ("rps", 4, block["budget"], block["unseen"], ("theorem1", "lower_max", "lower_min")),
        ("rps", 16, block["budget"], block["unseen"], ("theorem1", "eq6")),
        ("rps", 64, 20, 0, ("theorem1", "lower_max", "lower_min")),
    ]
    block["cells"][1]["algorithms"] = ["rnm_ftnl"]  # eq6 of a rule that is no softmax
    with pytest.raises(InputError, match=r"worst_case\.cells\.objectives"):
        searches({"worst_case": block})


def test_the_default_objectives_keep_the_search_id():
    """A search of the three default objectives has the id it had before objectives were a
    field (a digest of the other fields), read back with a list or given as a tuple."""
    s = Search("rnm_ftnl", 3, 0.25, 1.0, T, 12, 0, 2, 0.001)
    assert s.search_id == "590c21110b56a707"  # computed before the field existed
    again = Search(**{**vars(s), "objectives": ["theorem1", "lower_max", "lower_min"]})
    assert again == s and again.search_id == s.search_id
    assert replace(s, objectives=("theorem1", "eq6")).search_id != s.search_id


def test_search_id_names_every_field():
    s = Search("rnm_ftnl", 3, 0.25, 1.0, T, 12, 0, 2, 0.001)
    assert len(s.search_id) == 16 and s.search_id == Search(*vars(s).values()).search_id
    changed = [
        replace(s, **{k: v})
        for k, v in dict(
            algorithm="rps", K=4, gap=0.125, epsilon=0.5, horizon=255, budget=13, seed=1,
            unseen=3, tolerance=0.01,
        ).items()
    ]  # fmt: skip
    assert len({c.search_id for c in [s, *changed]}) == 10


def test_has_proof_for_the_softmax_rules_only():
    assert Search("rps", 3, 0.25, 1.0, T, 12, 0, 0, 0.0).has_proof
    assert not Search("rnm_ftnl", 3, 0.25, 1.0, T, 12, 0, 0, 0.0).has_proof


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Two small searches written as the pipeline writes them (wu_wang_gumbel, a softmax rule,
    with its regret table and proof terms; rnm_ftnl with its result and trace only)."""
    d = tmp_path_factory.mktemp("worst")
    out = {}
    for s in (
        Search("wu_wang_gumbel", 2, 0.25, 1.0, T, 12, 0, 2, 0.001),
        Search("rnm_ftnl", 3, 0.25, 1.0, T, 12, 0, 2, 0.001),
    ):
        sid = s.search_id
        files = {
            "out": d / f"{sid}.json",
            "trace": d / f"{sid}.trace.csv",
            "table": d / f"{sid}.parquet" if s.has_proof else None,
            "proof": d / f"{sid}.proof.json" if s.has_proof else None,
        }
        result = write_search(s, files["out"], files["trace"], files["table"], files["proof"])
        out[s.algorithm] = (s, result, files)
    return out


def test_write_search_writes_the_result_and_its_trace(written):
    for s, result, files in written.values():
        on_disk = json.loads(files["out"].read_text())
        assert on_disk["search_id"] == s.search_id and on_disk["search"]["K"] == s.K
        assert on_disk["search"] == {
            "algorithm": s.algorithm,
            "K": s.K,
            "gap": 0.25,
            "epsilon": 1.0,
            "horizon": T,
            "budget": 12,
            "seed": 0,
            "unseen": 2,
            "tolerance": 0.001,
            "objectives": OBJECTIVES,
        }
        assert on_disk == result  # what write_search returned, as written
        trace = pd.read_csv(files["trace"])
        assert len(trace) == 12 + 2 and list(trace["phase"])[-2:] == ["unseen"] * 2
        assert list(trace["evaluation"]) == list(range(1, 15))


def test_write_search_writes_each_objectives_regret_and_the_proof_terms(written):
    s, result, files = written["wu_wang_gumbel"]
    table = pd.read_parquet(files["table"])
    assert sorted(table["instance"].unique()) == sorted(f"worst_{o}" for o in OBJECTIVES)
    assert set(table["cell_id"]) == {f"{s.search_id}-{o}" for o in OBJECTIVES}
    for o in OBJECTIVES:
        rows = table[table["instance"] == f"worst_{o}"]
        at_t = rows[rows["horizon"] == T]
        assert len(at_t) == 1
        assert at_t["regret"].iloc[0] == pytest.approx(result["objectives"][o]["regret"], rel=1e-9)
    proof = json.loads(files["proof"].read_text())
    assert proof["cell_id"] == f"{s.search_id}-theorem1"
    assert proof["cell"] == {
        "instance": "worst_theorem1",
        "mu_best": result["objectives"]["theorem1"]["means"][0],
    }


def test_searches_table_has_one_row_per_search_and_objective(written):
    paths = [files["out"] for _, _, files in written.values()]
    table = searches_table(paths)
    assert len(table) == 6
    assert list(table["objective"]) == sorted(OBJECTIVES * 2)  # sorted by objective first
    for _, row in table.iterrows():
        s, result, files = written[row["algorithm"]]
        found = result["objectives"][row["objective"]]
        assert row["search_id"] == s.search_id and row["K"] == s.K
        assert row["value"] == found["value"]
        assert row["standard_value"] == found["standard_value"]
        assert row["evaluations"] == 12 and row["unseen"] == 2
        assert [float(v) for v in row["means"].split()] == found["means"]
        ratio = "theorem1" if row["objective"] == "theorem1" else "lower"
        trace = pd.read_csv(files["trace"])
        counted = trace[trace["phase"] != "unseen"][ratio]
        assert [float(v) for v in row["trace_ratio"].split()] == list(counted)
        check = result["unseen"]["objectives"][row["objective"]]
        assert row["unseen_value"] == check["value"] and row["unseen_beaten"] == check["beaten"]


def test_searches_table_refuses_a_file_that_is_not_a_search_result(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"algorithm": "rps"}')
    with pytest.raises(InputError, match="not a search result"):
        searches_table([bad])


def test_a_search_table_is_read_by_the_cell_reader_and_another_search_s_refused(written, tmp_path):
    """``privdtol aggregate`` reads the searches' tables (experiment worst_case) through
    read_cell: the search's parameters travel in the file; a copy under another search's
    name is refused."""
    from privdtol.errors import InputError
    from privdtol.pipeline.aggregate import read_cell

    s, _, files = written["wu_wang_gumbel"]
    assert set(read_cell(files["table"])["cell_id"]) == {f"{s.search_id}-{o}" for o in OBJECTIVES}
    copy = tmp_path / "0123456789abcdef.parquet"
    copy.write_bytes(files["table"].read_bytes())
    with pytest.raises(InputError, match="another search's bytes"):
        read_cell(copy)


def test_a_search_past_its_time_limit_is_refused_before_it_starts():
    """``worst-case --K 3 --gap 1e-6 --epsilon 1`` ran for hours: the exact engine's cost model
    (its evaluations x the standard instance's cost) refuses it first, in one line naming the
    limit and how to raise it."""
    tiny = Search("rps", 3, 1e-6, 1.0, 2**40 - 1, 250, 0, 40, 0.001)
    assert tiny.estimated_seconds() > MAX_SECONDS
    with pytest.raises(InputError) as err:
        tiny.run()
    text = str(err.value)
    assert text.startswith("max-seconds: the search of rps at K=3, gap=1e-06, epsilon=1 (250 + 40")
    assert f"past the limit of {MAX_SECONDS:g} s (allowed: raise --max-seconds" in text
    assert "\n" not in text
    with pytest.raises(InputError, match=r"^max-seconds: got 0"):
        Search("rps", 3, 0.25, 1.0, T, 12, 0, 0, 0.001).check_cost(0)


def test_a_search_past_the_lower_bound_s_memory_is_refused_before_it_starts():
    """At epsilon 1e-9 the lower bound's privacy term would allocate ~12 GB: with the time
    limit raised, the lower bound's own limit (MAX_WINDOW) refuses the search first."""
    search = Search("rps", 4, 0.25, 1e-9, 2**40 - 1, 12, 0, 0, 0.001)
    with pytest.raises(InputError, match=r"MAX_WINDOW") as err:
        search.check_cost(1e300)
    assert "\n" not in str(err.value)


def test_every_search_of_the_shipped_configs_is_within_the_time_limit():
    """The default limit admits the searches of every shipped config (the paper's too)."""
    for path in (SMOKE, CONFIG / "config.yaml", CONFIG / "paper.yaml"):
        for s in searches(load_config_files([path])):
            assert s.estimated_seconds() < MAX_SECONDS / 4, (path.name, s)
