"""Tests of :mod:`privdtol.environments.instances`: the standard and staircase instances (means
by K and Delta_min), their refusals, and the exact engine's results on them: the law key that
separates them and the proof terms of Lemmas 4-5 (eqs. (4)-(6))."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from support import proof_reference as ref

from privdtol.engine.exact import expected_regret
from privdtol.engine.exact.proof import proof_terms
from privdtol.engine.exact.spec import _Spec
from privdtol.environments import (
    BernoulliProduct,
    instance_means,
    staircase_means,
    standard_means,
)
from privdtol.errors import InputError


def test_standard_and_staircase_instances():
    m = standard_means(5, 0.2)
    np.testing.assert_allclose(m, [0.4, 0.6, 0.6, 0.6, 0.6])
    s = staircase_means(5, 0.1, 0.2)
    assert s[0] == 0.2 and np.isclose(s[1] - s[0], 0.1) and np.isclose(s[-1], 1.0)
    assert np.all(np.diff(s[1:]) > 0)
    env = BernoulliProduct(m)
    assert env.best == 0 and np.isclose(env.delta_min, 0.2)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        (dict(K=1, gap=0.1), "K"),
        (dict(K=3, gap=0.0), "gap"),
        (dict(K=3, gap=1.2), "gap"),
        (dict(K=3, gap=0.5, mu_best=0.7), "mu_best"),
    ],
)
def test_bad_instances(kwargs, field):
    with pytest.raises(InputError) as err:
        standard_means(**kwargs)
    assert err.value.field == field


MEANS = instance_means(8, 1 / 8, None, "standard")


def key(algorithm, eps, env="bernoulli", means=MEANS):
    return _Spec(algorithm, means, eps, env).law_key()


def test_the_key_separates_instances():
    other = instance_means(8, 1 / 16, None, "standard")
    assert key("rps", 1.0) != key("rps", 1.0, means=other)
    assert key("rps", 1.0) != key("rps", 1.0, means=instance_means(9, 1 / 8, None, "standard"))


#: tolerances: exact values within the library's error bound + REL_EXACT relative; the regret
#: against Lemma 4's block accounting within its error bound + REL_IDENTITY relative
REL_EXACT, REL_IDENTITY = 1e-12, 1e-9


H40 = (1 << 40) - 1


@functools.cache
def terms(algorithm, means, eps, horizon=H40, env="bernoulli"):
    return proof_terms(algorithm, np.array(means), eps, horizon=horizon, env=env)


def _close(got, want, err, rel, what):
    got, want, err = (np.asarray(v, dtype=float) for v in (got, want, err))
    diff = np.abs(got - want)
    tol = err + rel * np.abs(want)
    bad = ~(diff <= tol)
    assert not bad.any(), "; ".join(
        f"{what}[{i}]: got {got[i]!r} want {want[i]!r} |diff| {diff[i]:.3e} "
        f"rel {diff[i] / max(abs(want[i]), 1e-300):.3e} tol {tol[i]:.3e} (err {err[i]:.3e})"
        for i in np.flatnonzero(bad)
    )


# ------------------------------------------------------------ Lemma 4's block accounting
IDENTITY_CASES = [("standard", 8, 0.1, 1.0), ("staircase", 8, 0.05, 0.2)]


@pytest.mark.slow
@pytest.mark.parametrize("instance, K, gap, eps", IDENTITY_CASES)
def test_regret_equals_block_accounting_of_lemma4(instance, K, gap, eps):
    means = instance_means(K, gap, None, instance)
    Rs = [8, 12, 20]
    reg, reg_e = expected_regret("rps", means, eps, [(1 << R) - 1 for R in Rs], "bernoulli")
    t = terms("rps", tuple(means), eps, (1 << 20) - 1)
    blocks = t["blocks"]
    assert [b["r"] for b in blocks] == list(range(len(blocks)))
    a0 = float(np.mean(means - means.min()))  # E[Delta_(A_0)], A_0 uniform
    for R, g, ge in zip(Rs, reg, reg_e, strict=True):
        used = blocks[: R - 1]  # r = 0 (m = 1) .. R - 2 (m up to 2^(R-2))
        want = a0 + 2 * used[0]["sum"] + 4 * sum(b["sum"] for b in used[1:])
        err = ge + 2 * used[0]["error_bound"] + 4 * sum(b["error_bound"] for b in used[1:])
        if len(used) < R - 1:  # the library stopped summing: the rest is its tail bound
            err += 4 * t.get("tail_bound", 0.0)
        _close([g], [want], [err], REL_IDENTITY, f"Reg_(2^{R}-1) vs block sums ({instance})")


# --------------------------------------------------------------- the paper's inequalities
INEQ_CASES = [
    ("standard", 8, 0.1, 1.0),
    ("staircase", 8, 0.05, 8.0),
    ("standard", 4, 2.0**-4, 1 / 16),
    ("staircase", 16, 2.0**-5, 0.5),
    ("standard", 8, 2.0**-7, 8.0),  # the control's instance: Lemma 4 holds with slack ~1
]


def _check_inequalities(t, means):
    b, eta = t["bounds"], t["eta"]
    want = ref.lemma5_bounds(means, eta)
    _close(
        [b["eq5"], b["eq6"], b["lemma5"], b["lemma4"]],
        [want["eq5"], want["eq6"], want["lemma5"], 1 + 4 * t["sum_F"]],
        [0, 0, 0, 0],
        REL_EXACT,
        "bounds (eq5, eq6, lemma5, lemma4)",
    )
    assert t["regret"] <= b["lemma4"], ("Lemma 4", t["regret"], b["lemma4"])
    if t.get("regret_limit") is not None:
        assert t["regret_limit"] <= b["lemma4"], ("Lemma 4 (limit)", t["regret_limit"])
    assert t["sum_F"] <= b["lemma5"], ("Lemma 5", t["sum_F"], b["lemma5"])
    assert t["small_gap"] <= b["eq5"], ("eq. (5)", t["small_gap"], b["eq5"])
    assert t["large_gap"] <= t["sum_V"] <= b["eq6"], ("eq. (6)", t["large_gap"], t["sum_V"])
    got = [(g["level"], g["size"]) for g in t["groups"]]
    assert got == [(g["level"], g["size"]) for g in want["groups"]], got
    for g, wg in zip(t["groups"], want["groups"], strict=True):
        _close([g["bound"]], [wg["bound"]], [0], REL_EXACT, f"group {g['level']} bound")
        assert g["sum"] <= g["bound"], ("group", g)
    if want["groups"]:
        assert t["max_ratio_eq4"] is not None and t["max_ratio_eq4"] <= 1.0
    else:
        assert t["max_ratio_eq4"] is None


@pytest.mark.slow
@pytest.mark.parametrize("instance, K, gap, eps", INEQ_CASES)
def test_lemma_inequalities_hold_for_rps(instance, K, gap, eps):
    means = instance_means(K, gap, None, instance)
    _check_inequalities(terms("rps", tuple(means), eps), means)


@pytest.mark.slow
def test_short_prefix_control_breaks_lemma4():
    """rps_short_prefix reads the fixed prefix ceil(2^(2r/3)) of block r, not M_r over the
    block's second half, so Lemma 4's accounting fails: Reg_T > 1 + 4 sum_m F_m."""
    means = instance_means(8, 2.0**-7, None, "standard")
    t = terms("rps_short_prefix", tuple(means), 8.0, (1 << 30) - 1)
    assert t["regret"] - t["error_bound"]["regret"] > t["bounds"]["lemma4"], (
        t["regret"],
        t["bounds"]["lemma4"],
    )
