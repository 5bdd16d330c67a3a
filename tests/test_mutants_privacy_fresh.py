"""Guards found by a second, random sample of mutation testing of ``privdtol.privacy``
(docs/testing.md "Mutation testing"): the Clopper-Pearson bounds against the textbook beta
quantiles, the exact verdict at its tolerance, the statistical audit's refusals and fields word
for word, and the privacy table's rows filled by hand (claim C1, Proposition 1 / Lemma 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privdtol.errors import InputError
from privdtol.privacy import audit_grid, mechanisms, result, statistical

# ------------------------------------------------------------------ Clopper-Pearson

LEVEL = 0.025
CASES = [(0, 10), (1, 10), (3, 10), (9, 10), (10, 10), (0, 1), (1, 1), (7, 20)]


@pytest.mark.parametrize(("k", "n"), CASES)
def test_clopper_pearson_is_the_textbook_pair_of_beta_quantiles(k, n):
    """Clopper & Pearson (1934): lower = Beta(k, n - k + 1).ppf(level) (0 at k = 0), upper =
    Beta(k + 1, n - k).ppf(1 - level) (1 at k = n)."""
    lower = 0.0 if k == 0 else stats.beta.ppf(LEVEL, k, n - k + 1)
    upper = 1.0 if k == n else stats.beta.ppf(1 - LEVEL, k + 1, n - k)
    lo, up = statistical.clopper_pearson(np.array([k]), n, LEVEL)
    assert lo[0] == pytest.approx(lower, rel=1e-12, abs=1e-300)
    assert up[0] == pytest.approx(upper, rel=1e-12)


@pytest.mark.parametrize(("k", "n"), [(k, n) for k, n in CASES if 0 < k < n])
def test_clopper_pearson_bounds_are_where_the_binomial_tails_equal_the_level(k, n):
    """The definition: the lower bound is the p with P(X >= k | p) = level, the upper bound
    the p with P(X <= k | p) = level, X ~ Binomial(n, p)."""
    lo, up = statistical.clopper_pearson(np.array([k]), n, LEVEL)
    assert stats.binom.sf(k - 1, n, lo[0]) == pytest.approx(LEVEL, rel=1e-9)
    assert stats.binom.cdf(k, n, up[0]) == pytest.approx(LEVEL, rel=1e-9)


def test_clopper_pearson_at_the_ends_in_closed_form():
    """k = n: P(X >= n | p) = p^n, so lower = level^(1/n); k = 0: P(X <= 0 | p) = (1 - p)^n,
    so upper = 1 - level^(1/n); the other side is the trivial 1 or 0."""
    lo, up = statistical.clopper_pearson(np.array([0, 20]), 20, 0.05)
    np.testing.assert_allclose(lo, [0.0, 0.05 ** (1 / 20)], rtol=1e-12)
    np.testing.assert_allclose(up, [1 - 0.05 ** (1 / 20), 1.0], rtol=1e-12)


# ------------------------------------------------------------------ exact verdict


@pytest.mark.parametrize(
    ("loss", "violation"), [(1.0, False), (1.0 + 1e-9, False), (1.0 + 3e-9, True)]
)
def test_an_exact_verdict_at_eps_and_at_eps_plus_its_tolerance(loss, violation):
    """rps at eps = 1 (bound 2 eta = 1/4): a loss of exactly eps, or eps + TOL (1e-9), is not a
    violation; 3e-9 over eps is."""
    assert result.TOL == 1e-9
    out = result.exact_verdict(mechanisms.make_audited("rps", 1.0), loss)
    assert out["violation"] is violation
    assert out["verdict"] == ("violation" if violation else "within eps")
    assert (out["bound_selection"], out["bound_eps"]) == (0.25, 1.0)


# ------------------------------------------------------------------ mechanisms


def test_the_temperature_of_a_laplace_selection_is_refused_in_one_line():
    with pytest.raises(InputError) as err:
        mechanisms.temperature(mechanisms.make_audited("rnm_ftnl", 1.0))
    assert str(err.value) == (
        "algorithm: 'rnm_ftnl' is not a softmax selection (allowed: softmax laws)"
    )
    assert err.value.field == "algorithm"


# ------------------------------------------------------------------ statistical audit


def test_the_statistical_audit_refuses_the_data_chosen_prefix():
    with pytest.raises(InputError) as err:
        statistical.audit_statistical("rps_data_prefix", 1.0, K=2, block=1, runs=10)
    assert str(err.value) == (
        "method: rps_data_prefix cannot run in the simulator (its prefix depends on the data) "
        "(allowed: exact, sequence)"
    )
    assert err.value.field == "method"


@pytest.mark.parametrize("runs", [5, 9, 10.5, 20000.5])
def test_the_statistical_audit_refuses_too_few_or_fractional_runs(runs):
    with pytest.raises(InputError) as err:
        statistical.audit_statistical("rps", 1.0, K=2, block=1, runs=runs)
    assert str(err.value) == f"runs: got {runs} (allowed: integers >= 10)"


@pytest.mark.parametrize(
    ("name", "law"), [("rps", "softmax_mixture"), ("rnm_ftnl", "laplace_quadrature")]
)
def test_the_statistical_audit_names_its_law_and_witness(name, law):
    """block 4 (r = 2): the changed row is row 3 (time 4), from (0, 1) to (1, 0); the event
    audited is the first action after it, A_3."""
    res = statistical.audit_statistical(name, 1.0, K=2, block=4, runs=10)
    assert res.law == law
    assert res.event in (0, 1)
    assert res.witness_text == f"time 4 (block 2): (0, 1) -> (1, 0); event A_3 = {res.event}"


# ------------------------------------------------------------------ the privacy table


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
