"""Tests of :mod:`privdtol.core.lower_bound_means`: the bound of any mean vector reduces to the
two-level values (pinned as literals from :mod:`privdtol.core.lower_bound`'s tests and docs),
agrees with the round-by-round reference of tests/support/lower_bound_means_reference.py on
instances seen nowhere else, keeps its sandwich around the reference's sum, and refuses bad
input naming its field."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from support import lower_bound_means_reference as ref

from privdtol.core import lower_bound as lb
from privdtol.core import lower_bound_means as lbm
from privdtol.errors import InputError

H40 = (1 << 40) - 1
PARTS = ("statistical", "privacy", "combined", "two_point", "best")


# ---------------------------------------------------------------- the two-level values, pinned
def test_the_two_level_instance_gives_the_documented_values():
    """K = 1024, mu = 1/2 + 2^-9, Delta = 2^-8, eps = 1/32, T = 2^40 - 1 (docs/lower-bound.md)."""
    mu, gap = 0.501953125, 0.00390625
    row = lbm.lower_bound_means([mu - gap] + [mu] * 1023, 0.03125, [H40]).iloc[0]
    want = {"statistical": 359.2386648507183, "privacy": 166.07791267960434}
    want |= {"combined": 378.8979120808392, "two_point": 15.997352600038447}
    want |= {"best": 378.89797291284765, "best_error": 0.184700814451853}
    for key, value in want.items():
        assert row[key] == pytest.approx(value, rel=1e-12), key
    assert not row["exact"]


@pytest.mark.parametrize(
    "K, eps, privacy, statistical",
    [(2, 0.5, 0.67563936464993593, 0.0), (4, 0.1, 6.7375361393937770, 0.5)],
)
def test_the_two_level_deterministic_values(K, eps, privacy, statistical):
    """mu_1 = 0, the others at 1: the geometric sums pinned in tests/core/test_lower_bound.py,
    the same under the Bernoulli and the deterministic model (Bernoulli(0), Bernoulli(1))."""
    for model in lbm.MODELS:
        row = lbm.lower_bound_means([0.0] + [1.0] * (K - 1), eps, [H40], model).iloc[0]
        assert row["privacy"] == pytest.approx(privacy, rel=1e-12), model
        assert row["statistical"] == pytest.approx(statistical, rel=1e-12, abs=1e-15), model
        assert row["exact"]


# -------------------------------------------------------- against the round-by-round reference
CASES = [
    ([F(1, 4), F(3, 8), F(1, 2), F(5, 8)], 0.5, 300, "bernoulli"),
    ([F(1, 8), F(1, 4), F(1, 4), F(3, 4), F(3, 4), F(7, 8)], 1.0, 200, "bernoulli"),
    ([F(3, 16), *[F(1, 4)] * 4, F(9, 32), F(5, 16), F(1, 2)], 0.25, 400, "bernoulli"),
    ([F(0), F(1, 2), F(1)], 0.5, 50, "bernoulli"),  # kl(0 || 1) = inf: one round reveals it
    ([F(1, 5), F(3, 10), F(9, 10)], 0.5, 50, "deterministic"),
]


@pytest.mark.parametrize("means, eps, T, model", CASES)
def test_the_bound_matches_the_reference(means, eps, T, model):
    want = ref.sums(means, eps, T, model)
    got = lbm.lower_bound_means([float(m) for m in means], eps, [T], model).iloc[0]
    for part in PARTS:
        assert got[part] == pytest.approx(want[part], rel=1e-6), part
        assert got[f"{part}_error"] == 0.0
    assert got["exact"]


def test_the_order_of_the_means_does_not_matter():
    means = [0.5, 0.25, 0.625, 0.375]
    a = lbm.lower_bound_means(means, 0.5, [10, 300])
    b = lbm.lower_bound_means(sorted(means), 0.5, [300, 10])
    assert a.equals(b)


def test_the_sandwich_contains_the_reference_sum(monkeypatch):
    """Summed exactly to round 50 only, the rest by ranges of ratio 1/16: the reference lies
    inside."""
    monkeypatch.setattr(lb, "RANGE_RATIO", 2.0**-4)
    means, eps, T, model = CASES[2]
    want = ref.sums(means, eps, T, model)
    got = lbm.lower_bound_means([float(m) for m in means], eps, [T], exact_limit=50).iloc[0]
    assert not got["exact"] and got["best_error"] > 0
    for part in PARTS:
        low, err = got[part], got[f"{part}_error"]
        assert low * (1 - 1e-12) <= want[part] <= (low + err) * (1 + 1e-12), part


def test_spread_gaps_lower_the_bound_below_the_two_level_one():
    """Moving the other actions away from mu_2 makes the instance easier to learn: each term
    is at most the two-level one of the same mu_1, mu_2 (Delta_min is still what a wrong pick
    costs at least)."""
    two = lbm.lower_bound_means([0.25] + [0.3125] * 7, 0.25, [H40]).iloc[0]
    spread = lbm.lower_bound_means([0.25, 0.3125, *np.linspace(0.5, 0.875, 6)], 0.25, [H40])
    for part in PARTS:
        assert spread.iloc[0][part] <= two[part] * (1 + 1e-12), part
    assert spread.iloc[0]["best"] < 0.9 * two["best"]


def test_many_groups_are_thinned_to_at_most_max_families():
    mu = np.linspace(0.25, 0.75, 200)
    sizes = lbm.family_sizes(mu)
    assert sizes.size <= lbm.MAX_FAMILIES + 1 and sizes[0] == 2 and sizes[-1] == 200
    assert lbm.family_sizes(np.array([0.1, 0.2, 0.2, 0.3])).tolist() == [3, 4]


def test_kl_bern_at_the_edges_and_both_sides():
    assert lbm.kl_bern(0.5, 0.5) == 0.0
    assert lbm.kl_bern(0.25, 1.0) == np.inf and lbm.kl_bern(0.5, 0.0) == np.inf
    assert lbm.kl_bern(0.0, 0.5) == pytest.approx(np.log(2))
    assert lbm.kl_bern(1.0, 0.25) == pytest.approx(np.log(4))
    # kl(3/4 || 1/2) = 3/4 log(3/2) + 1/4 log(1/2), by hand
    assert lbm.kl_bern(0.75, 0.5) == pytest.approx(0.75 * np.log(1.5) + 0.25 * np.log(0.5))


@pytest.mark.parametrize(
    "means, model, eps, T, field",
    [
        ([0.5], "bernoulli", 1.0, 10, "means"),
        ([0.25, 0.25, 0.5], "bernoulli", 1.0, 10, "means"),
        ([0.25, 1.5], "bernoulli", 1.0, 10, "means"),
        ([0.25, float("nan")], "bernoulli", 1.0, 10, "means"),
        (["a", 0.5], "bernoulli", 1.0, 10, "means"),
        ([0.25, 0.5], "gaussian", 1.0, 10, "model"),
        ([0.25, 0.5], "bernoulli", 0.0, 10, "epsilon"),
        ([0.25, 0.5], "bernoulli", 1.0, 0, "horizon"),
    ],
)
def test_bad_input_names_its_field(means, model, eps, T, field):
    with pytest.raises(InputError) as err:
        lbm.lower_bound_means(means, eps, [T], model)
    assert err.value.field == field and "\n" not in str(err.value)
