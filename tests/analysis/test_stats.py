"""Tests of :mod:`privdtol.analysis.stats`: the fits behind the claims (log-log slopes, the
rate's linear form, ratio intervals) and their confidence intervals, checked by hand."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

from privdtol.analysis import stats
from privdtol.analysis.claims import (
    c2_theorem1,
    c3_horizon_free,
    c4_rate,
    c4a_exponents,
    c5_dependent,
)


def test_loglog_slope_recovers_power_law():
    x = np.array([4.0, 8.0, 16.0])
    fit = stats.loglog_slope(x, 3 * x**1.0, 0.001 * x, 0.95)
    assert fit["slope"] == pytest.approx(1.0)
    assert fit["ci_low"] < 1.0 < fit["ci_high"]
    assert fit["ci_high"] - fit["ci_low"] < 0.01


def test_loglog_slope_needs_two_positive_points():
    fit = stats.loglog_slope([1.0, 2.0], [1.0, 0.0], [0.1, 0.1], 0.95)
    assert math.isnan(fit["slope"]) and fit["n"] == 1


def test_ratio_ci_delta_method():
    r, se, lo, hi = stats.ratio_ci(2.0, 0.0, 1.0, 0.1, 0.95)
    assert r == pytest.approx(2.0) and se == pytest.approx(0.2)
    assert (lo, hi) == pytest.approx((2 - 1.959964 * 0.2, 2 + 1.959964 * 0.2), rel=1e-5)


#: argument names that carry a threshold of the config's ``checks:`` block
THRESHOLD_ARGS = {"confidence", "exponent_range", "factor", "ratio_max", "c", "plateau"}


def test_threshold_arguments_have_no_default():
    """Threshold defaults live in the schema only: no function of the analysis layer has one."""
    modules = [stats, c2_theorem1, c3_horizon_free, c4_rate, c4a_exponents, c5_dependent]
    seen = 0
    for module in modules:
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ != module.__name__:
                continue
            for arg, p in inspect.signature(fn).parameters.items():
                if arg in THRESHOLD_ARGS:
                    seen += 1
                    assert p.default is inspect.Parameter.empty, f"{module.__name__}.{name}({arg})"
    assert seen >= 10


def test_logk_fit_floors_a_zero_standard_error_at_1e_9_below_a_mean_of_1():
    """se = 0 and every |mean| < 1: sigma = 1e-9 for every cell, so the WLS is ordinary least
    squares.  f = ln K = (0, 1, 2), mean = (0.1, 0.2, 0.4): a = 0.15, b = 0.7/3 - 0.15 = 1/12,
    residuals (1/60, -1/30, 1/60), chi2 = (1/600) / 1e-18; X'X = [[5, 3], [3, 3]] has inverse
    [[3, -3], [-3, 5]] / 6, so se_a = 1e-9 sqrt(1/2) and se_b = 1e-9 sqrt(5/6)."""
    K = np.exp([0.0, 1.0, 2.0])
    fit = stats.logk_fit(K, [0.1, 0.2, 0.4], [0.0, 0.0, 0.0], "log K")
    assert fit["a"] == pytest.approx(0.15, rel=1e-9)
    assert fit["b"] == pytest.approx(1 / 12, rel=1e-9)
    assert fit["chi2"] == pytest.approx(1e18 / 600, rel=1e-6)
    assert fit["se_a"] == pytest.approx(1e-9 * math.sqrt(0.5), rel=1e-9)
    assert fit["se_b"] == pytest.approx(1e-9 * math.sqrt(5 / 6), rel=1e-9)
    # above a mean of 1 the floor is relative: means (2, 4, 8) get sigma = 1e-9 |mean|
    big = stats.logk_fit(K, [2.0, 4.0, 8.0], [0.0, 0.0, 0.0], "log K")
    w = 1 / (1e-9 * np.array([2.0, 4.0, 8.0])) ** 2
    f = np.array([0.0, 1.0, 2.0])
    S, Sf, Sff = w.sum(), (w * f).sum(), (w * f * f).sum()
    assert big["se_a"] == pytest.approx(math.sqrt(S / (S * Sff - Sf**2)), rel=1e-9)


def test_offset_power_fit_recovers_a_law_of_tiny_values():
    """x = 1e-6 · 2^(k/2), k = 0..4, y = 1000 x^2 (1e-9 .. 1.6e-8): A = 1000, p = 2, B = 0.
    Each start puts A x^p at max y at the largest x (log A = log max y - p log max x)."""
    x = 1e-6 * 2.0 ** (np.arange(5) / 2)
    y = 1000.0 * x**2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fit = stats.offset_power_fit(x, y)
    assert fit["A"] == pytest.approx(1000.0, rel=1e-6)
    assert fit["p"] == pytest.approx(2.0, rel=1e-6)
    assert abs(fit["B"]) < 1e-6 * y.min()


Z95 = 1.959963984540054  # Phi^-1(0.975)


def _objects(values):
    return np.array(values, dtype=object)


#: one cell per edge of the domain "num > 0 and den > 0": a good cell, num = 0, den = 0,
#: num < 0, 0 < num < 1 (the edge is 0, not 1), num = den = 0
NUM = [2.0, 0.0, 3.0, -1.0, 0.5, 0.0]


SE_NUM = [0.1, 0.1, 0.1, 0.1, 0.05, 0.1]


DEN = [4.0, 2.0, 0.0, 2.0, 0.25, 0.0]


SE_DEN = [0.2, 0.2, 0.2, 0.2, 0.05, 0.2]


def test_ratio_ci_by_hand_at_the_edges_of_its_domain():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 and x/0 are silenced, not warned about
        ratio, se, low, high = stats.ratio_ci(NUM, SE_NUM, DEN, SE_DEN, 0.95)
    assert ratio.dtype == float
    # 2/4 with relative errors 0.1/2 and 0.2/4: se = 0.5 * sqrt(0.05^2 + 0.05^2)
    se0 = 0.5 * math.sqrt(0.05**2 + 0.05**2)
    # 0.5/0.25 = 2 with relative errors 0.1 and 0.2: se = 2 * sqrt(0.01 + 0.04)
    se4 = 2.0 * math.sqrt(0.01 + 0.04)
    expected = [0.5, np.nan, np.nan, np.nan, 2.0, np.nan]
    np.testing.assert_allclose(ratio, expected, rtol=1e-12)
    np.testing.assert_allclose(se[[0, 4]], [se0, se4], rtol=1e-12)
    assert np.isnan(se[[1, 2, 3, 5]]).all()
    np.testing.assert_allclose(low[[0, 4]], [0.5 - Z95 * se0, 2.0 - Z95 * se4], rtol=1e-12)
    np.testing.assert_allclose(high[[0, 4]], [0.5 + Z95 * se0, 2.0 + Z95 * se4], rtol=1e-12)


def test_ratio_ci_of_object_columns_equals_that_of_floats():
    floats = stats.ratio_ci(NUM, SE_NUM, DEN, SE_DEN, 0.95)
    for position in range(4):
        args = [NUM, SE_NUM, DEN, SE_DEN]
        args[position] = _objects(args[position])
        with np.errstate(divide="ignore", invalid="ignore"):
            out = stats.ratio_ci(*args, 0.95)
        for a, b in zip(out, floats, strict=True):
            assert np.asarray(a).dtype == float
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_loglog_slope_of_an_object_column_with_a_gap():
    """A missing mean (None in an object column) is left out like NaN."""
    fit = stats.loglog_slope(
        [1.0, 2.0, 4.0, 8.0], _objects([3.0, 6.0, 12.0, None]), [0.3, 0.6, 1.2, 1.0], 0.95
    )
    assert fit["n"] == 3
    assert fit["slope"] == pytest.approx(1.0, rel=1e-9)
    fit = stats.loglog_slope(_objects([1, 2, 4]), [3.0, 6.0, 12.0], _objects([0.3, 0.6, 1.2]), 0.95)
    assert fit["slope"] == pytest.approx(1.0, rel=1e-9)


X = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0])


@pytest.mark.parametrize(
    ("A", "p", "B"),
    [
        (2.0, 1.5, 3.0),  # values above 1
        (0.01, 1.2, 0.005),  # every value below 1: log y < 0 (the floor inside the model)
        (1.0, 0.5, -0.3),  # an exponent below 1, a negative offset
        (5.0, 2.5, 0.0),  # no offset, exponent above 2
    ],
)
def test_offset_power_fit_recovers_an_exact_law(A, p, B):
    fit = stats.offset_power_fit(X, A * X**p + B)
    assert fit["A"] == pytest.approx(A, rel=1e-5)
    assert fit["p"] == pytest.approx(p, rel=1e-5)
    assert fit["B"] == pytest.approx(B, abs=1e-5 * (abs(B) + A))


def test_offset_power_fit_leaves_out_unusable_points():
    """x <= 0, y <= 0 and non-finite y are left out; 0 < x < 1 and 0 < y < 1 are kept."""
    x = np.array([0.25, 0.5, 1.0, 2.0, 4.0])
    y = 0.4 * x + 0.1  # 0.2 .. 1.7: three values below 1
    clean = stats.offset_power_fit(x, y)
    assert clean["p"] == pytest.approx(1.0, rel=1e-5)
    assert clean["B"] == pytest.approx(0.1, abs=1e-5)
    noisy = stats.offset_power_fit(
        np.r_[x, 0.0, -1.0, 3.0, 5.0, 6.0], np.r_[y, 0.5, 0.5, 0.0, np.inf, -2.0]
    )
    for key in ("A", "p", "B"):
        assert noisy[key] == pytest.approx(clean[key], rel=1e-9, abs=1e-12)


def test_offset_power_fit_needs_four_usable_points():
    four = stats.offset_power_fit(X[:4], 2 * X[:4] + 1)
    assert four["p"] == pytest.approx(1.0, rel=1e-5)
    assert four["B"] == pytest.approx(1.0, rel=1e-4)
    three = stats.offset_power_fit(np.r_[X[:3], 0.0], np.r_[2 * X[:3] + 1, 5.0])
    assert set(three) == {"A", "p", "B"}
    assert all(math.isnan(v) for v in three.values())


def test_offset_power_fit_of_object_columns():
    y = 2 * X + 1
    for x_in, y_in in [(_objects(list(X)), y), (X, _objects(list(y)))]:
        fit = stats.offset_power_fit(x_in, y_in)
        assert fit["p"] == pytest.approx(1.0, rel=1e-5)


def test_offset_power_fit_stays_within_its_bounds():
    """The exponent lies in [0, 4] and the offset in [-10 min y, 0.999 min y]: a law outside
    is fitted at the nearest bound, not beyond it."""
    steep = stats.offset_power_fit(X, X**4.5)
    assert steep["p"] == pytest.approx(4.0, abs=1e-6)
    low = stats.offset_power_fit(X, X - 0.95)  # B = -0.95 = -19 min y
    assert low["B"] == pytest.approx(-10 * 0.05, rel=1e-6)
    high = stats.offset_power_fit(X, 1e-3 * X**2 + 5.0)  # B = 5 > 0.999 * 5.001
    assert high["B"] == pytest.approx(0.999 * 5.001, rel=1e-6)
    flat = stats.offset_power_fit(X, 3.0 * X**0.25 + 1.0)  # an exponent below 1 stays free
    assert flat["p"] == pytest.approx(0.25, rel=1e-4)


def test_logk_fit_by_hand():
    """Straight-line WLS in f(K): with S = sum w, Sf = sum w f, Sff = sum w f^2 and
    D = S Sff - Sf^2, var(a) = S / D and var(b) = Sff / D; an exact law has chi2 = 0."""
    K = np.array([2.0, 4.0, 8.0, 16.0])
    se = np.array([0.1, 0.1, 0.2, 0.2])
    for form, f in (("log K", np.log(K)), ("log² K", np.log(K) ** 2)):
        fit = stats.logk_fit(K, 3.0 * f + 2.0, se, form)
        w = 1 / se**2
        S, Sf, Sff = w.sum(), (w * f).sum(), (w * f * f).sum()
        D = S * Sff - Sf**2
        assert fit["form"] == form
        assert fit["a"] == pytest.approx(3.0, rel=1e-10)
        assert fit["b"] == pytest.approx(2.0, rel=1e-10)
        assert fit["se_a"] == pytest.approx(math.sqrt(S / D), rel=1e-10)
        assert fit["se_b"] == pytest.approx(math.sqrt(Sff / D), rel=1e-10)
        assert fit["chi2"] == pytest.approx(0.0, abs=1e-18)
        assert (fit["n"], fit["dof"]) == (4, 2)


def test_logk_fit_chi2_and_a_zero_standard_error():
    """chi2 = sum (resid/sigma)^2; a cell with se = 0 gets sigma = 1e-9 max(|mean|, 1) and the
    line passes through it."""
    K = np.array([2.0, 4.0, 8.0])
    mean = np.array([1.0, 2.5, 3.0])
    fit = stats.logk_fit(K, mean, [0.5, 0.5, 0.5], "log K")
    resid = mean - (fit["a"] * np.log(K) + fit["b"])
    assert fit["chi2"] == pytest.approx(float(np.sum((resid / 0.5) ** 2)), rel=1e-10)
    assert fit["chi2"] > 0.1
    pinned = stats.logk_fit(K, mean, [0.5, 0.0, 0.5], "log K")
    assert pinned["a"] * np.log(4.0) + pinned["b"] == pytest.approx(2.5, abs=1e-9)


#: usable cells on the exact law mean = 2 x_gap + 0.5 x_eta - 0.5 (one with mean < 1), then
#: cells it must leave out: x_gap infinite, x_eta NaN, mean = 0, mean < 0
GAPS = [1.0, 2.0, 3.0, 1.0, 0.3, np.inf, 1.0, 2.0, 1.0]


ETA = [1.0, 1.0, 2.0, 3.0, 0.4, 1.0, np.nan, 1.0, 1.0]


LAW = [2 * g + 0.5 * e - 0.5 for g, e in zip(GAPS[:5], ETA[:5], strict=True)]


MEAN = [*LAW, 4.0, 4.0, 0.0, -1.0]


def test_form_fit_by_hand():
    fit = stats.form_fit(GAPS, ETA, MEAN)
    assert LAW[4] == pytest.approx(0.3)  # a usable cell below 1
    assert fit["n"] == 5
    assert fit["a"] == pytest.approx(2.0, rel=1e-10)
    assert fit["b"] == pytest.approx(0.5, rel=1e-10)
    assert fit["c"] == pytest.approx(-0.5, rel=1e-10)
    fitted = fit["fitted"]
    np.testing.assert_allclose(fitted[:5], LAW, rtol=1e-10)
    assert fitted[5] == np.inf and np.isnan(fitted[6])
    np.testing.assert_allclose(fitted[7:], [4.0, 2.0], rtol=1e-10)  # computed, though left out
    ratio = fit["ratio"]
    assert ratio.dtype == float
    np.testing.assert_allclose(ratio[:5], 1.0, rtol=1e-10)
    assert np.isnan(ratio[5:]).all()


def test_form_fit_with_two_usable_cells_and_with_fewer():
    """Two cells: the minimum-norm solution fits both exactly (ratio 1); one cell: NaN
    coefficients and ratios, as floats."""
    two = stats.form_fit([1.0, 2.0, np.nan], [1.0, 3.0, 1.0], [2.0, 5.0, 1.0])
    assert two["n"] == 2
    assert np.isfinite([two["a"], two["b"], two["c"]]).all()
    np.testing.assert_allclose(two["ratio"][:2], 1.0, rtol=1e-10)
    one = stats.form_fit([1.0, np.nan], [1.0, 1.0], [2.0, 1.0])
    assert set(one) == {"a", "b", "c", "n", "fitted", "ratio"}
    assert one["n"] == 1
    assert all(isinstance(one[k], float) and math.isnan(one[k]) for k in "abc")
    assert one["fitted"].dtype == float and np.isnan(one["fitted"]).all()
    assert one["ratio"].dtype == float and np.isnan(one["ratio"]).all()


def test_form_fit_of_object_columns():
    fit = stats.form_fit(_objects(GAPS[:5]), ETA[:5], _objects(LAW))
    assert fit["a"] == pytest.approx(2.0, rel=1e-10)
    assert fit["ratio"].dtype == float
    with_gap = stats.form_fit([*GAPS[:5], None], [*ETA[:5], 1.0], [*LAW, 3.0])
    assert with_gap["n"] == 5 and np.isnan(with_gap["ratio"][5])


def test_normal_ci_of_object_columns():
    low, high = stats.normal_ci(_objects([1.0, None]), _objects([0.5, 0.5]), 0.95)
    assert low.dtype == float and high.dtype == float
    assert low[0] == pytest.approx(1.0 - Z95 * 0.5, rel=1e-12) and np.isnan(low[1])
    low, high = stats.normal_ci(_objects([1.0, 1.0]), _objects([0.5, None]), 0.95)
    assert high[0] == pytest.approx(1.0 + Z95 * 0.5, rel=1e-12) and np.isnan(high[1])


@pytest.mark.parametrize("confidence", [0.0, 1.0])
def test_z_value_refuses_the_ends(confidence):
    with pytest.raises(ValueError, match="confidence must be in"):
        stats.z_value(confidence)


def test_power_fit_of_an_object_column_with_a_gap():
    x = [1.0, 2.0, 4.0, 8.0]
    fit = stats.power_fit(x, _objects([1.0, 2.0, 4.0, None]), [0.01, 0.02, 0.04, 0.1], 0.95)
    assert fit["n"] == 3
    assert fit["slope"] == pytest.approx(1.0, rel=1e-9)


def test_form_fit_is_silent_about_the_cells_it_leaves_out():
    """A cell left out with infinite mean and x_gap has fitted = inf and mean/fitted = inf/inf:
    NaN, silently (no RuntimeWarning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = stats.form_fit([*GAPS[:5], np.inf], [*ETA[:5], 1.0], [*LAW, np.inf])
    assert fit["fitted"][5] == np.inf
    assert np.isnan(fit["ratio"][5])


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
