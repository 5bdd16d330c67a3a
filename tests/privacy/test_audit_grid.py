"""Tests of :mod:`privdtol.privacy.audit_grid`: the grid of privacy audits (exact selection,
whole sequence, statistical), its configuration, its progress notes and its table's rows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privdtol.errors import InputError
from privdtol.privacy import audit_grid


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        (
            {"nope": 1},
            "privacy.nope: unknown key (allowed: seed, epsilons, K, blocks, algorithms, "
            "negative_controls, exact, sequence, statistical)",
        ),
        ({"exact": 3}, "privacy.exact: got 3 (allowed: a mapping)"),
        (
            {"exact": {"bad": 1}},
            "privacy.exact.bad: unknown key (allowed: n_random, max_steps, laplace_max_K)",
        ),
        ({"epsilons": [0.5, -1]}, "privacy.epsilons: got -1 (allowed: numbers > 0)"),
    ],
)
def test_merge_grid_refuses_in_one_line(grid, message):
    with pytest.raises(InputError) as err:
        audit_grid.merge_grid(grid)
    assert str(err.value) == message


def test_the_default_grid_is_the_schemas_with_the_audited_lists():
    """The grid of an empty block, in the schema's order of keys: the schema's defaults and the
    privacy layer's algorithm lists; a validated block (the schema's defaults filled) gains only
    the lists it leaves out."""
    from privdtol.pipeline.config import validate_privacy

    private = ["rps", "rps_full_prefix", "rps_uncapped", "wu_wang_gumbel", "rnm_ftnl", "wu_wang"]
    expected = {
        "seed": 0,
        "epsilons": [0.1, 0.25, 0.5, 1.0, 2.0],
        "K": [2, 4, 8],
        "blocks": [1, 4, 16, 64],
        "algorithms": private,
        "negative_controls": ["rps_eta_eps", "rps_data_prefix"],
        "exact": {"n_random": 1000, "max_steps": 30, "laplace_max_K": 4},
        "sequence": {"K": [3], "horizon": 63, "n_random": 10},
        "statistical": {
            "algorithms": ["rnm_ftnl", "wu_wang", "rps", "rps_eta_eps"],
            "K": [2, 4],
            "block": 16,
            "runs": 200000,
            "alpha": 0.05,
        },
    }
    assert audit_grid.default_grid() == expected == audit_grid.merge_grid({})
    assert list(audit_grid.DEFAULT_GRID) == list(expected)
    order = audit_grid.DISPLAY_ORDER
    assert order == [*private, "rps_eta_eps", "rps_data_prefix"]
    merged = audit_grid.merge_grid(
        validate_privacy({"K": [2], "negative_controls": ["rps_eta_eps"]})
    )
    assert merged == {**expected, "K": [2], "negative_controls": ["rps_eta_eps"]}


def test_grid_notes_its_progress_and_passes_the_sequence_budget():
    """The smallest grid: rps at eps = 1, K = 2, block 1, T = 3 with 1 random pair."""
    notes = []
    df = audit_grid.run_grid(
        {
            "algorithms": ["rps"],
            "negative_controls": [],
            "epsilons": [1.0],
            "K": [2],
            "blocks": [1],
            "exact": {"n_random": 0, "max_steps": 1},
            "sequence": {"K": [2], "horizon": 3, "n_random": 1},
            "statistical": {"algorithms": []},
        },
        progress=notes.append,
    )
    assert notes == ["exact_selection rps eps=1.0 K=2 block=1", "whole_sequence rps eps=1.0 K=2"]
    assert df["pairs_evaluated"].tolist() == [52, 2]


class _Result:
    """An audit result as the table reads it: its ``to_dict``."""

    def __init__(self, **fields):
        self.fields = fields

    def to_dict(self):
        return dict(self.fields)


def test_a_table_row_by_hand():
    """The result's own columns, witness_text as "witness", the role, ratio_eps = loss / eps
    (0.25 / 0.5), the extra columns, and NaN in every other column."""
    res = _Result(
        audit="whole_sequence",
        algorithm="rps",
        negative_control=False,
        epsilon=0.5,
        K=3,
        loss=0.25,
        witness_text="time 1 (block 0)",
        not_a_column=1,
    )
    row = audit_grid._row(res, seed=7, block=np.nan)
    assert list(row) == audit_grid.COLUMNS
    given = {
        "audit": "whole_sequence",
        "algorithm": "rps",
        "role": "private",
        "epsilon": 0.5,
        "K": 3,
        "loss": 0.25,
        "ratio_eps": 0.5,
        "witness": "time 1 (block 0)",
        "seed": 7,
    }
    assert {c: row[c] for c in given} == given
    rest = [row[c] for c in audit_grid.COLUMNS if c not in given]
    assert len(rest) == len(audit_grid.COLUMNS) - len(given)
    assert all(isinstance(v, float) and math.isnan(v) for v in rest)


def test_a_table_row_without_a_witness():
    res = _Result(audit="a", algorithm="rps_eta_eps", negative_control=True, epsilon=2.0, loss=3.0)
    row = audit_grid._row(res)
    assert (row["witness"], row["role"], row["ratio_eps"]) == ("", "negative_control", 1.5)


def test_the_grid_records_its_seed_and_notes_every_audit():
    """The smallest grid with all three audits, at seed 3: every row records the seed; the
    statistical row (block 1) has horizon 4 * 1 - 1 = 3 and eta = 1/8 (rps at eps = 1)."""
    notes = []
    df = audit_grid.run_grid(
        {
            "seed": 3,
            "algorithms": ["rps"],
            "negative_controls": [],
            "epsilons": [1.0],
            "K": [2],
            "blocks": [1],
            "exact": {"n_random": 0, "max_steps": 1},
            "sequence": {"K": [2], "horizon": 3, "n_random": 1},
            "statistical": {"algorithms": ["rps"], "K": [2], "block": 1, "runs": 10},
        },
        progress=notes.append,
    )
    assert notes == [
        "exact_selection rps eps=1.0 K=2 block=1",
        "whole_sequence rps eps=1.0 K=2",
        "statistical rps eps=1.0 K=2",
    ]
    assert df["audit"].tolist() == ["exact_selection", "whole_sequence", "statistical"]
    assert df["seed"].notna().all() and df["seed"].tolist() == [3, 3, 3]
    assert df["horizon"].tolist()[1:] == [3, 3] and df["horizon"].isna().tolist()[0]
    assert df["eta"].tolist() == [0.125, 0.125, 0.125]


#: a grid with every audit switched off; tests switch on the part they need
_NOTHING = {
    "algorithms": [],
    "negative_controls": [],
    "epsilons": [1.0],
    "K": [2],
    "blocks": [1],
    "exact": {"n_random": 0, "max_steps": 1},
    "sequence": {"K": []},
    "statistical": {"algorithms": []},
}


def test_the_grid_caps_K_for_laplace_algorithms_only():
    """laplace_max_K = 4 < K = 8: the exact audit of rnm_ftnl (K quadratures per law) is
    skipped, that of rps (closed-form softmax) is not."""
    grid = {**_NOTHING, "algorithms": ["rps", "rnm_ftnl"], "K": [8]}
    grid["exact"] = {"n_random": 0, "max_steps": 1, "laplace_max_K": 4}
    df = audit_grid.run_grid(grid)
    assert df[["audit", "algorithm"]].values.tolist() == [["exact_selection", "rps"]]
    assert df["K"].tolist() == [8]


def test_an_empty_grid_is_an_empty_table_with_the_privacy_columns():
    df = audit_grid.run_grid(_NOTHING)
    assert len(df) == 0
    assert list(df.columns) == audit_grid.COLUMNS


def test_the_grid_passes_its_statistical_runs():
    grid = {**_NOTHING, "statistical": {"algorithms": ["rps"], "K": [2], "block": 1, "runs": 10}}
    df = audit_grid.run_grid(grid)
    assert df["audit"].tolist() == ["statistical"]
    assert df["runs"].tolist() == [10]


def test_the_default_audit_follows_the_algorithms_declarations(monkeypatch):
    """The private algorithms whose laws the audits compute, controls left out, grouped
    softmax, Gumbel, Laplace (registry order within a group); then the audit's own controls.
    A private algorithm declaring a Laplace law, added first in the registry, joins the
    Laplace group, after the softmax and Gumbel ones."""
    assert audit_grid.DEFAULT_GRID["algorithms"] == [
        "rps",
        "rps_full_prefix",
        "rps_uncapped",
        "wu_wang_gumbel",
        "rnm_ftnl",
        "wu_wang",
    ]
    assert audit_grid.DISPLAY_ORDER[-2:] == ["rps_eta_eps", "rps_data_prefix"]
    from privdtol.algorithms import ALGORITHMS

    monkeypatch.setattr(audit_grid, "ALGORITHMS", {"zeta": ALGORITHMS["rnm_ftnl"], **ALGORITHMS})
    ranks = [audit_grid._family_rank(n) for n in ("zeta", "rps", "wu_wang_gumbel")]
    assert ranks == [2, 0, 1]
