"""``make mutation``'s own logic (scripts/mutation.py): each equivalent mutant listed in
tests/workflow/mutants/equivalent.yaml still matches a line of its function, mutmut's names and
diffs are read right, the sample is seeded, and the stratified score and its error are right."""

from __future__ import annotations

import ast
import importlib.util
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("mutation", ROOT / "scripts" / "mutation.py")
mutation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutation)

EQUIVALENT = mutation.load_equivalent()


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
        kinds = (ast.FunctionDef, ast.ClassDef)
        node = next(
            (n for n in ast.iter_child_nodes(node) if isinstance(n, kinds) and n.name == name), None
        )
        assert node is not None, f"{function}: no {name} in {path.name}"
    return ast.get_source_segment(text, node)


@pytest.mark.parametrize("function", sorted(EQUIVALENT))
def test_each_equivalent_mutant_matches_its_function(function):
    """A stale entry (its function gone, its line rewritten) fails here instead of silently
    matching nothing; every entry has its reason."""
    lines = {line.strip() for line in _function_source(function).splitlines()}
    for removed, added, why in EQUIVALENT[function]:
        assert why.strip() and (removed == "*" or removed != added), function
        if removed != "*":
            assert set(removed.splitlines()) <= lines, f"{function}: {removed!r} is not its line"


def test_function_of_and_is_equivalent():
    key = "privdtol.core.clock.x_checkpoints__mutmut_7"
    assert mutation.function_of(key) == "privdtol.core.clock.checkpoints"
    method = "privdtol.engine.runner.xǁCellSpecǁseed_params__mutmut_12"
    assert mutation.function_of(method) == "privdtol.engine.runner.CellSpec.seed_params"
    entry = EQUIVALENT["privdtol.core.clock.checkpoints"][0]
    assert mutation.is_equivalent(key, tuple(entry[:2]), EQUIVALENT)
    assert not mutation.is_equivalent(key, ("a", "b"), EQUIVALENT)
    lemmas = "privdtol.analysis.claims.lemmas.x__check__mutmut_3"  # "*": every mutant
    assert mutation.is_equivalent(lemmas, ("x", "y"), EQUIVALENT)


def test_mutant_diff_reads_mutmuts_copies(tmp_path):
    src = tmp_path / "privdtol"
    src.mkdir()
    (src / "m.py").write_text(
        "def x_f__mutmut_orig(a):\n    b = a\n    return b > 1\n\n"
        "def x_f__mutmut_1(a):\n    b = a\n    return b >= 1\n"
    )
    assert mutation.mutant_diff(tmp_path, "privdtol.m.x_f__mutmut_1") == (
        "return b > 1",
        "return b >= 1",
    )
    assert mutation.mutant_diff(tmp_path, "privdtol.m.x_g__mutmut_1") == ("", "")


def test_the_sample_is_seeded_per_module():
    candidates = {"a": [f"a{i}" for i in range(50)], "b": ["b0", "b1"]}
    drawn = mutation.draw(candidates, 5, "seed")
    assert drawn == mutation.draw(candidates, 5, "seed")
    assert sum(k.startswith("a") for k in drawn) == 5 and {"b0", "b1"} <= set(drawn)
    assert drawn != mutation.draw(candidates, 5, "other seed")
    assert sorted(mutation.draw(candidates, 0, "seed")) == sorted(candidates["a"] + ["b0", "b1"])


def test_score_and_stratified_estimate_by_hand():
    assert mutation.score({"killed": 80, "timeout": 5, "survived": 10, "no tests": 5}) == 0.85
    assert mutation.score({"not checked": 3}) is None
    zero = dict.fromkeys(mutation.COUNTED, 0)
    modules = {
        # 10 of 100 mutants drawn, 8 caught; 4 of 4 (a census of the module), 2 caught
        "a": zero | {"killed": 7, "timeout": 1, "survived": 2, "size": 100},
        "b": zero | {"killed": 2, "no tests": 2, "size": 4},
    }
    est, se = mutation.stratified(modules)
    assert est == pytest.approx((100 * 0.8 + 4 * 0.5) / 104)
    assert se == pytest.approx(math.sqrt(100**2 * 0.8 * 0.2 / 10) / 104)
