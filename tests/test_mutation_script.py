"""``make mutation``'s bookkeeping (scripts/mutation.py, tests/mutants/dispositions.yaml): every
equivalent mutant listed still matches a line of its function, every function listed as dead
really has no caller, and the score counts what it says (docs/testing.md)."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import mutation  # noqa: E402
import mutation_census  # noqa: E402

EQUIVALENT, _ = mutation.load_dispositions()
_DATA = yaml.safe_load(mutation.DISPOSITIONS.read_text())
DEAD = {e["function"] for e in _DATA["dead"]}
IMPORT_TIME = {e["function"] for e in _DATA.get("import_time") or []}


def _function_source(function: str) -> str:
    """The source of ``privdtol.a.b.f`` or ``privdtol.a.b.Class.method``."""
    parts = function.split(".")
    for cut in (len(parts) - 1, len(parts) - 2):
        path = ROOT / "src" / Path(*parts[:cut]).with_suffix(".py")
        if not path.exists():  # a package's __init__.py
            path = ROOT / "src" / Path(*parts[:cut]) / "__init__.py"
        if path.exists():
            break
    else:
        raise AssertionError(f"{function}: no module")
    text = path.read_text()
    node = ast.parse(text)
    for name in parts[cut:]:
        node = next(
            (
                n
                for n in ast.iter_child_nodes(node)
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name
            ),
            None,
        )
        assert node is not None, f"{function}: no {name} in {path.name}"
    return ast.get_source_segment(text, node)


@pytest.mark.parametrize(("function", "diff"), sorted(EQUIVALENT))
def test_each_equivalent_mutant_matches_its_function(function, diff):
    """The removed lines of the diff are lines of the function now: a stale entry (the line
    rewritten) fails here instead of silently matching nothing."""
    source = _function_source(function).splitlines()
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-")]
    assert removed, f"{function}: the diff removes no line"
    for line in removed:
        assert line.strip() in (s.strip() for s in source), f"{function}: {line.strip()!r}"


@pytest.mark.parametrize("function", sorted(DEAD))
def test_each_dead_function_has_no_caller(function):
    """No use of the name outside its own ``def`` line and string literals (a seed key's
    ``"what"``) in the package, the notebooks, the workflow or the Snakefile."""
    name = function.rsplit(".", 1)[1]
    _function_source(function)  # it exists
    use = re.compile(rf"(?<!def )(?<![\"'])\b{re.escape(name)}\b(?![\"'])")
    files = [ROOT / "Snakefile"] + [
        path
        for folder in ("src", "notebooks", "workflow")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in {".py", ".smk"}
    ]
    callers = [str(p.relative_to(ROOT)) for p in files if use.search(p.read_text())]
    assert callers == [], f"{function} is used in {callers}: not dead"


def test_function_of_mutmut_keys():
    assert mutation.function_of("privdtol.core.clock.x_checkpoints__mutmut_7") == (
        "privdtol.core.clock.checkpoints"
    )
    assert mutation.function_of("privdtol.engine.runner.xǁCellSpecǁseed_params__mutmut_12") == (
        "privdtol.engine.runner.CellSpec.seed_params"
    )


def test_score_counts_untested_mutants_against_and_leaves_out_equivalent_ones():
    counts = {"killed": 80, "timeout": 5, "survived": 10, "no tests": 5, "equivalent": 7}
    assert mutation.score(counts) == pytest.approx(85 / 100)
    assert mutation.score({"equivalent": 3, "dead": 4}) is None


def test_group_arguments_accept_commas_and_refuse_unknown_names(capsys):
    with pytest.raises(SystemExit) as err:
        mutation.main(["core,no_such_group", "--summary-only"])
    assert err.value.code == 2
    assert "unknown group 'no_such_group'; allowed: core, verdict" in capsys.readouterr().err


@pytest.mark.parametrize("function", sorted(IMPORT_TIME))
def test_each_import_time_function_exists(function):
    _function_source(function)


def _fake_group(tmp_path, monkeypatch, codes):
    """A scratch group ``g`` whose module ``privdtol.m`` has mutants with the given exit codes
    (mutant ``..._mutmut_1`` survives with a diff, the others carry no source)."""
    monkeypatch.setattr(mutation, "WORK", tmp_path / "work")
    monkeypatch.setattr(mutation, "OUT", tmp_path / "out")
    (tmp_path / "out").mkdir()
    src = tmp_path / "work" / "g" / "mutants" / "src" / "privdtol"
    src.mkdir(parents=True)
    (src / "m.py").write_text(
        "def x_f__mutmut_orig(a):\n    return a + 1\n\n\ndef x_f__mutmut_1(a):\n    return a - 1\n"
    )
    meta = {"exit_code_by_key": {f"privdtol.m.x_f__mutmut_{i}": c for i, c in codes.items()}}
    (src / "m.py.meta").write_text(json.dumps(meta))
    return src / "m.py.meta"


def test_a_fresh_sample_skips_every_mutant_an_earlier_run_has_run(tmp_path, monkeypatch):
    codes = {1: 0, 2: 1, 3: None} | dict.fromkeys(range(4, 24))
    meta = _fake_group(tmp_path, monkeypatch, codes)
    mutation.summarise("g", None)  # records mutants 1 and 2 as seen
    assert json.loads((tmp_path / "out" / "g-seen.json").read_text()) == [
        "privdtol.m.x_f__mutmut_1",
        "privdtol.m.x_f__mutmut_2",
    ]
    # mutmut resets every verdict when the group's test selection changes: seen survives that
    meta.write_text(
        json.dumps(
            {"exit_code_by_key": dict.fromkeys(json.loads(meta.read_text())["exit_code_by_key"])}
        )
    )
    unseen = sorted(f"privdtol.m.x_f__mutmut_{i}" for i in range(3, 24))
    out = tmp_path / "out" / "g-fresh.json"
    assert sorted(mutation.sample("g", 100, fresh=True)) == unseen  # all the unseen, only them
    out.unlink()
    drawn = mutation.sample("g", 5, fresh=True)
    assert len(set(drawn)) == 5 and set(drawn) <= set(unseen)
    assert mutation.sample("g", 5, fresh=True) == drawn  # seeded by the names: the same draw
    assert json.loads(out.read_text()) == {"mutants": sorted(drawn), "counts": None}
    # the plain sample draws with its own seed, so it is not the fresh one
    assert sorted(mutation.sample("g", 5)) != sorted(drawn)


def test_only_the_fresh_mutants_enter_the_fresh_score(tmp_path, monkeypatch):
    codes = {1: 0, 2: 1, 3: 1, 4: 1, 5: 0, 6: None}
    _fake_group(tmp_path, monkeypatch, codes)
    fresh = ["privdtol.m.x_f__mutmut_1", "privdtol.m.x_f__mutmut_2", "privdtol.m.x_f__mutmut_6"]
    (tmp_path / "out" / "g-fresh.json").write_text(json.dumps(fresh))
    record = mutation.summarise("g", None)
    assert record["modules"]["privdtol.m"]["killed"] == 3
    assert record["fresh"]["privdtol.m"] == dict.fromkeys(mutation.COLUMNS, 0) | {
        "killed": 1,
        "survived": 1,
        "not run": 1,
    }
    data = mutation.summary([record])
    assert data["fresh"]["g"]["score"] == pytest.approx(1 / 2)
    assert "| g | 1 | 1 | 0 | 0 | 0 | 50% ± 35 |" in mutation.markdown(data)


def test_a_fresh_round_is_measured_once_and_a_new_draw_starts_the_next(tmp_path, monkeypatch):
    """Once every mutant of the round has a verdict its counts are frozen: a later run (new
    tests killing the survivor) does not raise the round's score; a new draw replaces it."""
    meta = _fake_group(tmp_path, monkeypatch, {1: 0, 2: 1, 3: None, 4: None})
    out = tmp_path / "out" / "g-fresh.json"
    out.write_text(json.dumps({"mutants": [f"privdtol.m.x_f__mutmut_{i}" for i in (1, 2)]}))
    out.write_text(json.dumps({**json.loads(out.read_text()), "counts": None}))
    first = mutation.summarise("g", None)["fresh"]["privdtol.m"]
    assert (first["killed"], first["survived"]) == (1, 1)
    codes = json.loads(meta.read_text())
    codes["exit_code_by_key"]["privdtol.m.x_f__mutmut_1"] = 1  # killed by a new test
    meta.write_text(json.dumps(codes))
    assert mutation.summarise("g", None)["fresh"]["privdtol.m"] == first
    drawn = mutation.sample("g", 5, fresh=True)
    assert sorted(drawn) == ["privdtol.m.x_f__mutmut_3", "privdtol.m.x_f__mutmut_4"]
    assert json.loads(out.read_text()) == {"mutants": sorted(drawn), "counts": None}


def test_the_weighted_fresh_score_weights_each_module_by_its_size():
    zero = dict.fromkeys(mutation.COLUMNS, 0)
    # module a: 100 mutants (10 drawn, 9 killed) and 5 dead; module b: 10 (10 drawn, 5 killed)
    big = zero | {"killed": 9, "survived": 1, "not run": 90, "dead": 5, "score": 0.9}
    small = zero | {"killed": 5, "survived": 5, "score": 0.5}
    rec = {
        "group": "g",
        "commit": "c",
        "seconds": None,
        "modules": {"a": big, "b": small},
        "fresh": {
            "a": zero | {"killed": 9, "survived": 1},
            "b": zero | {"killed": 5, "survived": 5},
        },
    }
    got = mutation.summary([rec])["fresh"]["g"]
    assert got["score"] == pytest.approx(14 / 20)  # pooled
    assert got["weighted"] == pytest.approx((100 * 0.9 + 10 * 0.5) / 110)
    assert got["weighted_se"] == pytest.approx(
        (100**2 * 0.09 / 10 + 10**2 * 0.25 / 10) ** 0.5 / 110
    )


def test_the_test_selection_is_read_from_a_groups_tool_config(tmp_path):
    """The lines whose change makes mutmut forget a group's verdicts (and the commit stamp
    restart): the pytest arguments and the selection, not the timeouts."""
    groups = yaml.safe_load(mutation.GROUPS.read_text())
    path = tmp_path / "pyproject.toml"
    path.write_text("[project]\nname = 'x'\n\n" + mutation.tool_config(groups["core"]))
    lines = mutation._selection(path)
    assert [ln.split(" = ")[0] for ln in lines] == [
        "pytest_add_cli_args",
        "pytest_add_cli_args_test_selection",
    ]
    assert '"tests/test_paper_constants.py"' in lines[1]
    assert mutation._selection(tmp_path / "none.toml") == []


def test_a_census_is_frozen_when_complete_and_outlives_mutmuts_reset(tmp_path, monkeypatch):
    """Every mutant run (1 survived, 2 and 3 killed): the census is written; mutmut then forgets
    every verdict (a new test file in the selection) and ``--rerun`` kills the survivor: the
    counts now are 3 killed, the census's first measurement stays 2 of 3."""
    meta = _fake_group(tmp_path, monkeypatch, {1: 0, 2: 1, 3: 1})
    first = mutation.summarise("g", None)
    census = json.loads((tmp_path / "out" / "g-census.json").read_text())
    assert census["codes"] == {"privdtol.m": {f"privdtol.m.x_f__mutmut_{i}": c for i, c in
                                              {1: 0, 2: 1, 3: 1}.items()}}  # fmt: skip
    assert first["modules"]["privdtol.m"]["score"] == pytest.approx(2 / 3)
    reset = dict.fromkeys(census["codes"]["privdtol.m"]) | {"privdtol.m.x_f__mutmut_1": 1}
    meta.write_text(json.dumps({"exit_code_by_key": reset}))
    now = mutation.summarise("g", None)
    assert (now["modules"]["privdtol.m"]["killed"], now["modules"]["privdtol.m"]["not run"]) == (
        3,
        0,
    )
    assert now["survivors"] == {}
    assert now["census"]["modules"]["privdtol.m"]["score"] == pytest.approx(2 / 3)
    data = mutation.summary([now])["census"]["g"]
    assert (data["first"]["score"], data["now"]["score"]) == (pytest.approx(2 / 3), 1.0)
    assert "| g | **all** | unknown | 66.7% | 100.0% |" in mutation.markdown(
        mutation.summary([now])
    )


def test_an_incomplete_run_makes_no_census_and_other_sources_void_one(tmp_path):
    path = tmp_path / "c.json"
    codes = {"m": {"a": 1, "b": None}}
    assert mutation_census.merge(path, codes, "d1", "c1") == (codes, None)
    assert not path.exists()
    mutation_census.merge(path, {"m": {"a": 1, "b": 0}}, "d1", "c1")
    merged, census = mutation_census.merge(path, codes, "d1", "c2")
    assert merged == {"m": {"a": 1, "b": 0}} and census["commit"] == "c1"
    # the sources changed (another digest): the old verdicts are not theirs
    assert mutation_census.merge(path, codes, "d2", "c3") == (codes, None)


def test_the_source_digest_changes_with_a_file_of_the_group_only(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    before = mutation_census.source_digest(tmp_path, ["a.py"])
    (tmp_path / "b.py").write_text("y = 2\n")
    assert mutation_census.source_digest(tmp_path, ["a.py"]) == before
    (tmp_path / "a.py").write_text("x = 2\n")
    assert mutation_census.source_digest(tmp_path, ["a.py"]) != before


def test_a_measured_round_goes_to_the_history_when_the_next_is_drawn(tmp_path, monkeypatch):
    """Round 1 (mutant 1 survived, 2 killed) is frozen with its commit; the next draw moves it
    to ``g-rounds.json``, and the summary lists both rounds, the first at 50%."""
    _fake_group(tmp_path, monkeypatch, {1: 0, 2: 1, 3: None, 4: None})
    (tmp_path / "work" / "g" / "commit.txt").write_text("abc1234, then def5678\n")
    out = tmp_path / "out" / "g-fresh.json"
    out.write_text(json.dumps({"mutants": ["privdtol.m.x_f__mutmut_1", "privdtol.m.x_f__mutmut_2"],
                               "counts": None}))  # fmt: skip
    mutation.summarise("g", None)
    assert json.loads(out.read_text())["commit"] == "def5678"
    mutation.sample("g", 5, fresh=True)
    history = json.loads((tmp_path / "out" / "g-rounds.json").read_text())
    assert [r["mutants"] for r in history] == [
        ["privdtol.m.x_f__mutmut_1", "privdtol.m.x_f__mutmut_2"]
    ]
    rounds = mutation.summary([mutation.summarise("g", None)])["rounds"]["g"]
    assert [(r["commit"], r["score"]) for r in rounds] == [("def5678", 0.5)]  # round 2 not run
