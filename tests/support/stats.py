"""Statistical assertions: tolerances come from standard errors, never guesses."""

from __future__ import annotations

import numpy as np
from scipy import stats

#: two-sided tolerance in standard errors for mean comparisons (false-alarm rate ~6e-5 each)
Z_TOL = 4.0
#: p-value below which a goodness-of-fit test fails (fixed seeds make each run deterministic)
P_MIN = 1e-4
#: false-alarm level of one test function as a whole: its m comparisons share it (Bonferroni),
#: each two-sided z test at ``z_familywise(m)`` and each goodness-of-fit test at ``ALPHA_FW / m``
ALPHA_FW = 1e-4


def z_familywise(m: int, alpha: float = ALPHA_FW) -> float:
    """Two-sided normal quantile for ``m`` comparisons at familywise level ``alpha``."""
    return float(stats.norm.isf(alpha / (2 * m)))


def assert_within_se(estimate, target, se, m: int, what: str = "estimate", alpha=ALPHA_FW):
    """Every ``|estimate - target| <= z_familywise(m) * se``, ``se`` being the exact standard
    error of the estimate (computed from the law under test, not from the sample)."""
    estimate, target, se = np.broadcast_arrays(
        *(np.asarray(v, float) for v in (estimate, target, se))
    )
    assert np.all(se > 0), f"{what}: standard errors must be positive"
    z = np.abs(estimate - target) / se
    limit = z_familywise(m, alpha)
    assert np.all(z <= limit), (
        f"{what}: {np.round(estimate, 8)} vs {np.round(target, 8)} is {np.round(z, 2)} SE "
        f"(limit {limit:.2f} SE for {m} comparisons at familywise level {alpha:g})"
    )


def assert_mean_close(samples, target, target_se=0.0, z=Z_TOL):
    samples = np.asarray(samples, dtype=float)
    se = np.hypot(samples.std(ddof=1) / np.sqrt(samples.size), target_se)
    assert abs(samples.mean() - target) <= z * se + 1e-12, (
        f"mean {samples.mean():.6g} vs {target:.6g}: {abs(samples.mean() - target) / se:.2f} SE"
    )


def assert_means_equal(a, b, z=Z_TOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    se = np.hypot(a.std(ddof=1) / np.sqrt(a.size), b.std(ddof=1) / np.sqrt(b.size))
    assert abs(a.mean() - b.mean()) <= z * se + 1e-12, (
        f"means {a.mean():.6g} vs {b.mean():.6g} differ by {abs(a.mean() - b.mean()) / se:.2f} SE"
    )


def chisquare_against(draws, probs, n_categories):
    """Chi-square goodness of fit of integer draws against a law; pools cells with E < 5."""
    counts = np.bincount(draws, minlength=n_categories).astype(float)
    expected = np.asarray(probs, float) * counts.sum()
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
        if expected[-1] == 0:
            assert counts[-1] == 0, "draws fell where the law puts no mass"
            counts, expected = counts[:-1], expected[:-1]
    if counts.size < 2:
        return 1.0
    return stats.chisquare(counts, expected).pvalue


def two_sample_chisquare(x, y):
    """Homogeneity test of two samples of discrete values (rows of tuples allowed)."""
    x = [tuple(np.atleast_1d(v)) for v in x]
    y = [tuple(np.atleast_1d(v)) for v in y]
    keys = sorted(set(x) | set(y))
    index = {k: i for i, k in enumerate(keys)}
    table = np.zeros((2, len(keys)))
    for row, sample in enumerate((x, y)):
        for v in sample:
            table[row, index[v]] += 1
    # pool sparse columns into one
    expected_min = table.sum(axis=0) * min(table.sum(axis=1)) / table.sum()
    sparse = expected_min < 5
    if sparse.any():
        table = np.column_stack([table[:, ~sparse], table[:, sparse].sum(axis=1)])
    if table.shape[1] < 2:
        return 1.0
    return stats.chi2_contingency(table)[1]
