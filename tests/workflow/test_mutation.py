"""``make mutation``'s own logic (scripts/mutation.py, scripts/equivalents.py): each equivalent
mutant listed in tests/workflow/mutants/equivalent.yaml still names a mutant of its function (by
its change, which reformatting or moving code does not alter), mutmut's names and diffs are read
right, the sample is seeded, and the stratified score and its error are right."""

from __future__ import annotations

import ast
import math
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import equivalents  # noqa: E402
import mutation  # noqa: E402

EQUIVALENT = equivalents.load_equivalent()


@pytest.mark.parametrize("function", sorted(EQUIVALENT))
def test_each_equivalent_mutant_names_code_of_its_function(function):
    """A stale entry (its function gone, its statement rewritten) fails here instead of
    silently matching nothing; every entry has its reason."""
    assert equivalents.stale_entries({function: EQUIVALENT[function]}) == []


def _change(before: str, after: str) -> tuple[str, str]:
    """mutation_of of two versions of one function's source."""
    parse = [ast.parse(textwrap.dedent(s)).body[0] for s in (before, after)]
    return equivalents.mutation_of(*parse)


F = """
def f(n, target, kinks):
    lo = kinks.min() - 50 * n
    while n ** 3 < target:
        n += 1
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.full(n, 1 << lo, dtype=np.int64)
"""


@pytest.mark.parametrize(
    "old, new, change",
    [
        # an operator in a compound statement's header: the header's expression
        ("n ** 3 < target", "n ** 3 <= target", ("n ** 3 < target", "n ** 3 <= target")),
        # a statement made another kind of statement: the statement
        ("n += 1", "n = 1", ("n += 1", "n = 1")),
        # a number in a simple statement: the statement, not the number alone
        ("50 * n", "51 * n", ("lo = kinks.min() - 50 * n", "lo = kinks.min() - 51 * n")),
        # a keyword dropped (mutmut leaves a trailing comma): ast.unparse's text
        (
            "dtype=np.int64)",
            ")",
            ("return np.full(n, 1 << lo, dtype=np.int64)", "return np.full(n, 1 << lo)"),
        ),
        (
            'invalid="ignore"',
            "invalid=None",
            (
                "np.errstate(divide='ignore', invalid='ignore')",
                "np.errstate(divide='ignore', invalid=None)",
            ),
        ),
    ],
)
def test_mutation_of_by_hand(old, new, change):
    assert F.count(old) == 1
    assert _change(F, F.replace(old, new)) == change
    assert _change(F, F) == ("", "")


def test_a_change_survives_reformatting_and_moving(tmp_path):
    """The same mutant of a function reformatted (quotes, line breaks, trailing commas,
    comments) and moved (below another function, a statement inserted before it) is named
    alike, and the entry naming it matches both trees."""
    moved = """
    def g():
        return 0


    def f(n, target, kinks):
        # a comment, and a statement before the mutated one
        kinks = kinks
        lo = (
            kinks.min()
            - 50 * n
        )
        while (n ** 3) < target:
            n += 1
        with np.errstate(
            divide='ignore',
            invalid='ignore',
        ):
            return np.full(n, 1 << lo, dtype=np.int64,)
    """
    mutant = ("lo = kinks.min() - 50 * n", "lo = kinks.min() - 51 * n")
    moved_mutant = moved.replace("- 50 * n", "- 51 * n")
    assert _change(F, F.replace("50 * n", "51 * n")) == mutant
    assert _change(moved, moved_mutant) == ("", "")  # g, the first function, is the same
    f_of = [ast.parse(textwrap.dedent(s)).body[1] for s in (moved, moved_mutant)]
    assert equivalents.mutation_of(*f_of) == mutant
    entry = {"privdtol.m.f": [(*mutant, "why")]}
    for text in (F, moved):
        (tmp_path / "privdtol").mkdir(exist_ok=True)
        (tmp_path / "privdtol" / "m.py").write_text(textwrap.dedent(text))
        assert equivalents.stale_entries(entry, tmp_path) == []


def test_a_stale_entry_is_reported(tmp_path):
    (tmp_path / "privdtol").mkdir()
    (tmp_path / "privdtol" / "m.py").write_text(textwrap.dedent(F).replace("50 * n", "60 * n"))
    entries = {
        "privdtol.m.f": [
            ("lo = kinks.min() - 50 * n", "lo = kinks.min() - 51 * n", "the statement rewritten"),
            ("n += 1", "n += 1", "before and after the same"),
            ("n += 1", "n += 2", " "),
            ("*", "*", "every mutant"),
        ],
        "privdtol.m.gone": [("*", "*", "its function gone")],
        "privdtol.nowhere.f": [("*", "*", "its module gone")],
    }
    assert equivalents.stale_entries(entries, tmp_path) == [
        "privdtol.m.f: 'lo = kinks.min() - 50 * n' -> 'lo = kinks.min() - 51 * n' matches no"
        " mutant",
        "privdtol.m.f: 'n += 1' -> 'n += 1' matches no mutant",
        "privdtol.m.f: 'n += 1' has no reason",
        "privdtol.m.gone: no such function",
        "privdtol.nowhere.f: no such function",
    ]


def test_canonical_reads_any_spelling():
    assert equivalents.canonical('np.errstate(divide="ignore",\n   invalid="ignore",)') == (
        "np.errstate(divide='ignore', invalid='ignore')"
    )
    assert equivalents.canonical("*") == "*"
    with pytest.raises(ValueError, match="not one statement"):
        equivalents.canonical("a = 1\nb = 2")


def test_function_of_and_is_equivalent():
    key = "privdtol.core.clock.x_checkpoints__mutmut_7"
    assert equivalents.function_of(key) == "privdtol.core.clock.checkpoints"
    method = "privdtol.engine.runner.xǁCellSpecǁseed_params__mutmut_12"
    assert equivalents.function_of(method) == "privdtol.engine.runner.CellSpec.seed_params"
    entry = EQUIVALENT["privdtol.core.clock.checkpoints"][0]
    assert equivalents.is_equivalent(key, tuple(entry[:2]), EQUIVALENT)
    assert not equivalents.is_equivalent(key, ("a", "b"), EQUIVALENT)
    lemmas = "privdtol.analysis.claims.lemmas.x__check__mutmut_3"  # "*": every mutant
    assert equivalents.is_equivalent(lemmas, ("x", "y"), EQUIVALENT)


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
    assert mutation.mutant_change(tmp_path, "privdtol.m.x_f__mutmut_1") == (
        "return b > 1",
        "return b >= 1",
    )
    assert mutation.mutant_change(tmp_path, "privdtol.m.x_g__mutmut_1") == ("", "")


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
