"""Tests placed at the boundaries that mutation testing found unguarded (issue 24).

Each test sits where a plausible one-line bug changes the outcome: the edge of an interval
verdict, one cell of many whose FAIL only the Bonferroni widening prevents, a cell whose
plateau horizon T0 lies between T_max/2^8 and T_max/2^4, two seeds that must give different
draws.  tests/test_mutants.py (slow tier) plants those bugs and checks that these tests fail.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis import stats, verdict
from privdtol.analysis.claims import c2_theorem1, c3_horizon_free
from privdtol.core import bounds, clock, seeding
from privdtol.engine.runner import make_spec, run_cell
from privdtol.errors import InputError

# ----------------------------------------------------------------------------- verdict edges


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (0.9, 1.2, "PASS"),  # high == hi: inside [lo, hi]
        (0.8, 1.0, "PASS"),  # low == lo: inside
        (0.8, 1.2, "PASS"),  # the interval is [lo, hi] itself
        (0.5, 0.8, "INCONCLUSIVE"),  # touches lo from below: not disjoint
        (1.2, 1.5, "INCONCLUSIVE"),  # touches hi from above: not disjoint
        (0.5, 0.7999999, "FAIL"),
        (1.2000001, 1.5, "FAIL"),
        (0.9, 1.2000001, "INCONCLUSIVE"),
        (0.7999999, 1.0, "INCONCLUSIVE"),
    ],
)
def test_interval_verdict_edges(low, high, expected):
    assert verdict.interval_verdict(low, high, 0.8, 1.2) == expected


def test_upper_verdict_edge():
    """ "At most 1": an upper limit of exactly 1 PASSes, a lower limit of exactly 1 does not
    FAIL."""
    assert verdict.upper_verdict(0.5, 1.0, 1.0) == "PASS"
    assert verdict.upper_verdict(1.0, 2.0, 1.0) == "INCONCLUSIVE"
    assert verdict.upper_verdict(1.0000001, 2.0, 1.0) == "FAIL"


def test_bonferroni_confidence_by_hand():
    assert verdict.bonferroni_confidence(0.95, 20) == pytest.approx(0.9975, rel=1e-12)
    assert verdict.bonferroni_confidence(0.95, 1) == 0.95
    assert verdict.bonferroni_confidence(0.95, 0) == 0.95


# ----------------------------------------------------------------------------- C2 Bonferroni

#: Theorem 1 at K=2, Delta=1/2, eps=1 (eta = 1/8): 1 + 1600 log 2 + 128 log 2 = 1 + 1728 log 2
BOUND = 1198.7583280075855
#: two-sided normal quantiles: 95% and 1 - 0.05/20 = 99.75% (20 rows, Bonferroni)
Z95, Z_BONF20 = 1.959963984540054, 3.023341439739154


def _c2_table(n_cells: int, mean: float, se: float) -> pd.DataFrame:
    """``n_cells`` distinct rps cells at K=2, gap=1/2, eps=1 (their best means differ, so C2
    does not merge them as one cell shared by experiments), one horizon each; the first has
    regret ``mean`` ± ``se``, the others 100 ± 1 (far below the bound)."""
    rows = []
    for i in range(n_cells):
        m, s = (mean, se) if i == 0 else (100.0, 1.0)
        rows.append(
            {
                "experiment": "x",
                "cell_id": f"c{i}",
                "algorithm": "rps",
                "env": "bernoulli",
                "instance": "standard",
                "K": 2,
                "gap": 0.5,
                "epsilon": 1.0,
                "mu_best": 0.25 + i / 1000,
                "horizon": 1023,
                "runs": 100,
                "mean": m,
                "se": s,
            }
        )
    return pd.DataFrame(rows)


def test_c2_one_cell_of_many_needs_the_bonferroni_widening():
    """One cell of 20 lies 2.5 se above the bound: its nominal 95% lower limit
    (BOUND + 0.54 se) is above the bound, its Bonferroni lower limit (BOUND - 0.52 se) is not,
    so C2 is INCONCLUSIVE, not FAIL; alone (no multiplicity) the same cell FAILs."""
    se = 10.0
    mean = BOUND + 2.5 * se
    many = _c2_table(20, mean, se)
    tab = c2_theorem1.bound_table(many, 0.95)
    assert tab["bound"].iloc[0] == pytest.approx(BOUND, rel=1e-12)
    assert tab["lower_adj"].iloc[0] == pytest.approx(mean - Z_BONF20 * se, rel=1e-9)
    assert tab["upper"].iloc[0] == pytest.approx(mean + Z95 * se, rel=1e-9)
    out = c2_theorem1.check_theorem1(many, 0.95)
    assert out["verdict"] == "INCONCLUSIVE"
    assert [c["verdict"] for c in out["cells"]].count("PASS") == 19
    assert c2_theorem1.check_theorem1(_c2_table(1, mean, se), 0.95)["verdict"] == "FAIL"
    # 3.5 se above the bound is beyond the Bonferroni quantile too: FAIL among 20
    far = c2_theorem1.check_theorem1(_c2_table(20, BOUND + 3.5 * se, se), 0.95)
    assert far["verdict"] == "FAIL"


def test_c2_upper_limit_at_the_bound():
    """Upper 95% limit just below / above the bound: PASS / INCONCLUSIVE."""
    se = 1.0
    below = c2_theorem1.check_theorem1(_c2_table(3, BOUND - Z95 * se - 1e-6, se), 0.95)
    above = c2_theorem1.check_theorem1(_c2_table(3, BOUND - Z95 * se + 1e-3, se), 0.95)
    assert below["verdict"] == "PASS"
    assert above["verdict"] == "INCONCLUSIVE"


# ----------------------------------------------------------------------------- C3 margin

#: C3's plateau target at K=2, gap=1/2, eps=1, c=16: 16 (1 + log 2)/(eta gap) = 433.445678...
#: (the eta term dominates: (1 + log 2)/gap² = 6.77), so T0 = 511 = 2^9 - 1
TARGET, T0 = 433.445678223346, 511


def _flat_cell(k_max: int) -> pd.DataFrame:
    """One rps cell with a flat regret (10 ± 0.01) at the checkpoints 2^k - 1, k = 1..k_max."""
    hs = [(1 << k) - 1 for k in range(1, k_max + 1)]
    return pd.DataFrame(
        {
            "experiment": "x",
            "cell_id": "c0",
            "algorithm": "rps",
            "env": "bernoulli",
            "instance": "standard",
            "K": 2,
            "gap": 0.5,
            "epsilon": 1.0,
            "horizon": hs,
            "runs": 100,
            "mean": 10.0,
            "se": 0.01,
        }
    )


def test_c3_plateau_target_by_hand():
    assert c3_horizon_free.plateau_target(2, 0.5, 1.0, 16) == pytest.approx(TARGET, rel=1e-12)
    # first design (L = log K): 16 log 2/(eta gap) = 177.445678...
    assert c3_horizon_free.plateau_target(2, 0.5, 1.0, 16, 0.0) == pytest.approx(
        177.445678223346, rel=1e-12
    )
    # the statistical term dominates at small gap and large eps: 16 (1 + log 2)/0.01
    assert c3_horizon_free.plateau_target(2, 0.1, np.nan, 16) == pytest.approx(
        2709.0354888959127, rel=1e-12
    )


@pytest.mark.parametrize(
    ("k_max", "reached", "expected"),
    [
        (16, False, "INCONCLUSIVE"),  # T_max = 65535: T_max/T0 = 128.2, between 2^4 and 2^8
        (17, True, "PASS"),  # T_max = 131071: T_max/T0 = 256.5 >= 2^8
    ],
)
def test_c3_cell_between_the_margins(k_max, reached, expected):
    """T0 = 511: reached only when T_max >= 2^8 T0 = 130816, not already at 2^4 T0 (or 2^7)."""
    tab = c3_horizon_free.plateau_table(_flat_cell(k_max), 16, 0.95)
    assert int(tab["h_low"].iloc[0]) == T0
    assert bool(tab["reached"].iloc[0]) is reached
    out = c3_horizon_free.check_horizon_free(_flat_cell(k_max), 1.05, 16, 0.95)
    assert out["verdict"] == expected
    assert out["cells"][0]["verdict"] == ("PASS" if reached else "NOT REACHED")


# ----------------------------------------------------------------------------- seeds


def _table_bytes(seed: int) -> bytes:
    spec = make_spec("rps", 1.0, 63, 50, K=4, gap=0.25, seed=seed, mode="fast")
    table, _, _ = run_cell(spec)
    buf = io.BytesIO()
    table.to_parquet(buf, index=False)
    return buf.getvalue()


def test_two_seeds_give_different_draws_and_one_seed_the_same_bytes():
    """The seed is part of the random stream's key (engine/runner.py CellSpec.seed_params):
    replicates with another seed must not repeat the same draws."""
    a, b = _table_bytes(0), _table_bytes(1)
    assert a == _table_bytes(0)
    assert a != b
    ra = pd.read_parquet(io.BytesIO(a))["regret"].to_numpy()
    rb = pd.read_parquet(io.BytesIO(b))["regret"].to_numpy()
    assert not np.array_equal(ra, rb)


def test_seed_key_holds_every_parameter_of_the_stream():
    spec = make_spec("rps", 1.0, 63, 50, K=4, gap=0.25, seed=7)
    key = spec.seed_params(spec.build_env())
    for field, value in [
        ("algorithm", "rps"),
        ("epsilon", 1.0),
        ("horizon", 63),
        ("runs", 50),
        ("seed", 7),
    ]:
        assert key[field] == value
    other = make_spec("rps", 0.5, 63, 50, K=4, gap=0.25, seed=7)
    assert other.seed_params(other.build_env()) != key


def test_stable_digest_is_sha256_of_canonical_json():
    """sha256 of '{"K":4,"gap":"0.25","seed":1}' (sorted keys, floats as repr, no spaces),
    computed by hand with hashlib."""
    digest = seeding.stable_digest({"seed": 1, "gap": 0.25, "K": np.int64(4)})
    assert digest == "0ac7481c975bcc42a1d6cc8ff99245fdd0b1af6a3a696102e2306e2d8a09c538"


def test_generator_streams_follow_their_key():
    """The audits' and bootstraps' generators: same key, same draws; another key, others."""
    a = seeding.generator({"K": 4, "seed": 1}).random(8)
    np.testing.assert_array_equal(a, seeding.generator({"K": 4, "seed": 1}).random(8))
    assert not np.array_equal(a, seeding.generator({"K": 4, "seed": 2}).random(8))


# ----------------------------------------------------------------------------- bound inputs

#: each bound of core/bounds.py with scalar arguments (values pinned in test_paper_constants)
BOUND_ARGS = {
    "eta": (0.5,),
    "theorem1": (10, 0.5, 0.1),
    "corollary": (10, 0.5, 0.1),
    "rate": (10, 0.5, 0.1),
    "lower_shape": (10,),  # K only: its gap and eps are tested in test_mutants_core
    "wu_wang_shape": (10, 0.5, 0.1),
    "small_gap": (0.3, 0.125),
    "lemma4": (2.5,),
    "lemma5": (10, 0.5, 0.05),
    "eq4": (8, 0.5),
    "group_bound": (3, 2, 0.1),
    "eq5_groups": (10, 0.5),
    "eq5": (10, 0.5),
    "eq6": (10, 0.05),
    "drift": (9, 0.05),
}
FULL_ARGS = {"lower_shape": (10, 0.5, 0.1)}


@pytest.mark.parametrize(
    ("name", "position"), [(n, i) for n, args in BOUND_ARGS.items() for i in range(len(args))]
)
def test_bounds_accept_object_columns_with_missing_values(name, position):
    """A table column of dtype object (Python numbers and None, as pandas gives for a column
    with gaps) is converted to float: None becomes NaN, not a TypeError."""
    args = list(FULL_ARGS.get(name, BOUND_ARGS[name]))
    scalar = getattr(bounds, name)(*args)
    args[position] = np.array([args[position], None], dtype=object)
    out = np.asarray(getattr(bounds, name)(*args), dtype=float)
    assert out[0] == pytest.approx(float(scalar), rel=1e-12)
    if name == "small_gap":
        assert out[1] == 0.0  # NaN <= x is False
    else:
        assert np.isnan(out[1])


# ----------------------------------------------------------------------------- clock and seeds


@pytest.mark.parametrize("horizon", [0, -3, 1.5, 1099511627777])
def test_check_horizon_refuses_in_one_line(horizon):
    with pytest.raises(InputError) as err:
        clock.check_horizon(horizon)
    assert str(err.value) == (
        f"horizon: got {horizon} (allowed: integers 1 .. 2^40 = 1099511627776)"
    )


def test_check_horizon_accepts_the_range_ends():
    assert clock.check_horizon(1) == 1
    assert clock.check_horizon(1099511627776) == 1099511627776
    assert clock.check_horizon(7.0) == 7


def test_clock_arrays_are_int64():
    """Block lengths and checkpoints index arrays and key cells: integers, not floats."""
    assert clock.block_lengths(10).dtype == np.int64
    horizons, covered = clock.checkpoints(10)
    assert horizons.dtype == np.int64
    np.testing.assert_array_equal(covered, [1, 2, 3, 4])


def test_seed_sequence_entropy_is_the_digest():
    """The random stream of a cell is SeedSequence(int(sha256 hex digest, 16)): changing this
    would silently change every published table."""
    params = {"seed": 1, "gap": 0.25, "K": 4}
    digest = "0ac7481c975bcc42a1d6cc8ff99245fdd0b1af6a3a696102e2306e2d8a09c538"
    assert seeding.seed_sequence(params).entropy == int(digest, 16)


def test_digest_reads_every_element_of_tuples_and_arrays():
    """Instance means are tuples or arrays in the key: each element counts."""
    base = seeding.stable_digest({"means": (0.1, 0.2)})
    assert base != seeding.stable_digest({"means": (0.1, 0.3)})
    assert base == seeding.stable_digest({"means": np.array([0.1, 0.2])})
    assert base != seeding.stable_digest({"means": np.array([0.1, 0.3])})


# ----------------------------------------------------------------------------- fits


def test_loglog_slope_by_hand():
    """x = 1, 2, 4; mean = 3, 5, 12, relative se 0.1 (equal weights): ordinary least squares on
    the logs, by hand: slope 1, intercept log(3·5·12)/3 - log 2 = 1.0378..., slope se
    0.1/sqrt(Sxx) with Sxx = 2 log² 2, chi2 = sum of squared residuals / 0.01, dof 1."""
    fit = stats.loglog_slope([1.0, 2.0, 4.0], [3.0, 5.0, 12.0], [0.3, 0.5, 1.2], 0.95)
    assert fit["slope"] == pytest.approx(1.0, rel=1e-12)
    assert fit["intercept"] == pytest.approx(1.037838436403458, rel=1e-12)
    assert fit["se"] == pytest.approx(0.10201394465967896, rel=1e-12)
    assert fit["chi2"] == pytest.approx(2.2160766714514186, rel=1e-10)
    assert fit["ci_low"] == pytest.approx(0.8000563425461671, rel=1e-12)
    assert fit["ci_high"] == pytest.approx(1.199943657453833, rel=1e-12)
    assert (fit["n"], fit["dof"]) == (3, 1)


KEYS = {"slope", "se", "ci_low", "ci_high", "intercept", "n", "chi2", "dof"}


@pytest.mark.parametrize(
    ("x", "mean", "n"),
    [
        ([2.0], [1.0], 1),  # one point
        ([2.0, 2.0, 2.0], [1.0, 2.0, 3.0], 3),  # one distinct x
        ([0.0, 2.0], [1.0, 2.0], 1),  # x = 0 is not usable
        ([1.0, 2.0], [0.0, 2.0], 1),  # nor a zero mean
    ],
)
def test_loglog_slope_without_two_usable_points_is_nan(x, mean, n):
    fit = stats.loglog_slope(x, mean, [0.1] * len(x), 0.95)
    assert set(fit) == KEYS
    assert (fit["n"], fit["dof"]) == (n, n - 2)
    assert all(np.isnan(fit[k]) for k in KEYS - {"n", "dof"})


def test_loglog_slope_two_points_and_a_list_input():
    fit = stats.loglog_slope([1, 4], [2, 8], [0.2, 0.8], 0.95)  # integers: converted
    assert fit["slope"] == pytest.approx(1.0, rel=1e-12) and fit["dof"] == 0


def test_t_value_by_hand_and_its_domain():
    assert stats.t_value(0.95, 1) == pytest.approx(12.706204736174694, rel=1e-10)
    assert stats.t_value(0.95, 10) == pytest.approx(2.228138851986274, rel=1e-10)
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError) as err:
            stats.t_value(bad, 5)
        assert str(err.value) == f"confidence must be in (0, 1), got {bad}"


#: x = 1, 2, 4, 8 and y = 3, 5, 12, 20: OLS on the logs by hand (Sxx = 5 log² 2)
PX, PY = [1.0, 2.0, 4.0, 8.0], [3.0, 5.0, 12.0, 20.0]
P_SLOPE, P_INTERCEPT, P_SE_RESID = 0.9473931188332412, 1.0621479773093188, 0.07439736482018006


@pytest.mark.parametrize(
    ("rel", "se_meas", "ci"),
    [
        # small cell errors: the residual scatter (lack of fit, 2 dof) sets the interval
        (0.01, 0.006451928364459123, (0.6272870940035269, 1.2674991436629555)),
        # large cell errors (se/y = 0.5): the known variances set it
        (0.5, 0.3225964182229561, (-0.44062724064116, 2.3354134783076423)),
    ],
)
def test_power_fit_by_hand(rel, se_meas, ci):
    """C4's exponent fit: slope se = max(residual, measured), t quantile on n - 2 = 2 dof."""
    fit = stats.power_fit(PX, PY, [rel * v for v in PY], 0.95)
    assert fit["slope"] == pytest.approx(P_SLOPE, rel=1e-12)
    assert fit["intercept"] == pytest.approx(P_INTERCEPT, rel=1e-12)
    assert fit["se_resid"] == pytest.approx(P_SE_RESID, rel=1e-10)
    assert fit["se_meas"] == pytest.approx(se_meas, rel=1e-10)
    assert fit["se"] == pytest.approx(max(P_SE_RESID, se_meas), rel=1e-10)
    assert (fit["ci_low"], fit["ci_high"]) == pytest.approx(ci, rel=1e-10)
    assert (fit["n"], fit["dof"]) == (4, 2)


POWER_KEYS = {"slope", "se", "ci_low", "ci_high", "intercept", "n", "se_resid", "se_meas", "dof"}


@pytest.mark.parametrize(
    ("x", "y", "se", "n"),
    [
        ([1.0, 2.0], [3.0, 5.0], [0.1, 0.1], 2),  # two points always fit
        ([1.0, 2.0, 2.0, 2.0], [3.0, 5.0, 6.0, 7.0], [0.1] * 4, 4),  # two distinct x
        ([0.0, 1.0, 2.0, 4.0], [1.0, 3.0, 5.0, 12.0], [0.1] * 4, 3),  # x = 0 left out
        ([0.5, 1.0, 2.0, 4.0], [0.0, 3.0, 5.0, 12.0], [0.1] * 4, 3),  # y = 0 left out
        ([0.5, 1.0, 2.0, 4.0], [np.inf, 3.0, 5.0, 12.0], [0.1] * 4, 3),  # y not finite
        ([0.5, 1.0, 2.0, 4.0], [2.0, 3.0, 5.0, 12.0], [np.nan, 0.1, 0.1, 0.1], 3),  # se NaN
    ],
)
def test_power_fit_usable_points(x, y, se, n):
    fit = stats.power_fit(x, y, se, 0.95)
    assert set(fit) == POWER_KEYS
    assert (fit["n"], fit["dof"]) == (n, n - 2)
    if n >= 3 and len(set(np.asarray(x)[np.asarray(x) > 0])) >= 3:
        assert np.isfinite(fit["slope"])
    else:
        assert all(np.isnan(fit[k]) for k in POWER_KEYS - {"n", "dof"})


def test_power_fit_three_points_fit():
    """Three usable points with distinct x are enough (y = x exactly: slope 1)."""
    fit = stats.power_fit([1.0, 2.0, 4.0], [1.0, 2.0, 4.0], [0.01, 0.02, 0.04], 0.95)
    assert fit["slope"] == pytest.approx(1.0, rel=1e-12) and fit["dof"] == 1
