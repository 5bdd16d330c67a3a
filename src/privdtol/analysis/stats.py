"""Fits behind the claim checks: log-log slopes and ``log K`` (or ``log^2 K``) fits.  Pure
numpy/scipy functions of arrays; the claim modules of :mod:`privdtol.analysis.claims` turn them
into verdicts (:mod:`privdtol.analysis.verdict`).

Statistical conventions (used throughout :mod:`privdtol.analysis.claims`):

- Cell means come with their Monte-Carlo standard errors ``se`` (independent runs, so the means
  of different cells are independent).  Confidence intervals are normal: ``estimate ± z·se`` with
  ``z = Φ^-1(1/2 + confidence/2)``.
- A log-log slope is a *weighted least-squares* fit of ``log(mean)`` on ``log(x)`` with the
  delta-method standard error ``se(log m) ≈ se/m`` and weights ``1/se(log m)^2``.  The slope's
  standard error treats those variances as known (``(X'WX)^-1``), i.e. it measures Monte-Carlo
  noise only, not lack of fit; the residual chi-square is reported alongside so a curved
  relation can be seen.
"""

from __future__ import annotations

import numpy as np
from scipy import special  # its quantiles import in a fraction of scipy.stats' time

#: smallest relative standard error used as a weight (a cell with se = 0 is not infinitely sure)
MIN_REL_SE = 1e-9


def z_value(confidence: float) -> float:
    """Two-sided normal quantile: 1.96 for ``confidence = 0.95``."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(special.ndtri(0.5 + confidence / 2))


def normal_ci(estimate, se, confidence: float):
    """``(low, high)`` of the normal interval ``estimate ± z·se`` (arrays broadcast)."""
    z = z_value(confidence)
    estimate, se = np.asarray(estimate, dtype=float), np.asarray(se, dtype=float)
    return estimate - z * se, estimate + z * se


def ratio_ci(num, se_num, den, se_den, confidence: float):
    """Ratio ``num/den`` with a delta-method normal interval, treating the two means as
    independent.  When they are positively correlated (e.g. regret of the same runs at two
    horizons) the true variance is smaller, so the interval is conservative (too wide).

    Returns ``(ratio, se, low, high)``; NaN where ``num`` or ``den`` is not positive.
    """
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    se_num, se_den = np.asarray(se_num, dtype=float), np.asarray(se_den, dtype=float)
    ok = (num > 0) & (den > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ok, num / den, np.nan)
        se = ratio * np.sqrt((se_num / num) ** 2 + (se_den / den) ** 2)
    low, high = normal_ci(ratio, se, confidence)
    return ratio, se, low, high


def loglog_slope(x, mean, se, confidence: float) -> dict:
    """Weighted least-squares slope of ``log(mean)`` against ``log(x)``.

    Returns a dict with ``slope``, ``se``, ``ci_low``, ``ci_high``, ``intercept``, ``n`` and the
    residual ``chi2`` (``dof = n - 2``).  With fewer than two usable points (``x > 0``,
    ``mean > 0``, finite ``se``) every number is NaN.
    """
    x, mean, se = (np.asarray(v, dtype=float) for v in (x, mean, se))
    ok = (x > 0) & (mean > 0) & np.isfinite(se) & np.isfinite(mean)
    n = int(ok.sum())
    out = {
        "slope": np.nan,
        "se": np.nan,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "intercept": np.nan,
        "n": n,
        "chi2": np.nan,
        "dof": n - 2,
    }
    if n < 2 or np.unique(x[ok]).size < 2:
        return out
    lx, ly = np.log(x[ok]), np.log(mean[ok])
    s = np.maximum(se[ok] / mean[ok], MIN_REL_SE)
    coef, cov, chi2 = _wls(np.column_stack([np.ones(n), lx]), ly, s)
    slope_se = float(np.sqrt(cov[1, 1]))
    low, high = normal_ci(coef[1], slope_se, confidence)
    out.update(
        slope=float(coef[1]),
        se=slope_se,
        ci_low=float(low),
        ci_high=float(high),
        intercept=float(coef[0]),
        chi2=float(chi2),
    )
    return out


def _wls(X: np.ndarray, y: np.ndarray, sigma: np.ndarray):
    """Weighted least squares with known standard deviations: (coef, cov, chi2)."""
    w = 1.0 / sigma
    Xw, yw = X * w[:, None], y * w
    coef, *_ = np.linalg.lstsq(Xw, yw, rcond=None)
    cov = np.linalg.pinv(Xw.T @ Xw)
    resid = yw - Xw @ coef
    return coef, cov, float(resid @ resid)


LOGK_FORMS = {"log K": lambda K: np.log(K), "log² K": lambda K: np.log(K) ** 2}


def logk_fit(K, mean, se, form: str) -> dict:
    """WLS fit ``mean ≈ a·f(K) + b`` with ``f`` = ``log K`` or ``log² K`` (see LOGK_FORMS):
    ``a``, ``b``, their standard errors and the residual ``chi2`` (weights ``1/se²``)."""
    K, mean, se = (np.asarray(v, dtype=float) for v in (K, mean, se))
    f = LOGK_FORMS[form](K)
    sigma = np.maximum(se, MIN_REL_SE * np.maximum(np.abs(mean), 1.0))
    coef, cov, chi2 = _wls(np.column_stack([f, np.ones_like(f)]), mean, sigma)
    return {
        "form": form,
        "a": float(coef[0]),
        "b": float(coef[1]),
        "se_a": float(np.sqrt(cov[0, 0])),
        "se_b": float(np.sqrt(cov[1, 1])),
        "chi2": chi2,
        "n": int(K.size),
        "dof": int(K.size) - 2,
    }


def t_value(confidence: float, dof: int) -> float:
    """Two-sided Student-t quantile with ``dof`` degrees of freedom (normal if ``dof`` is
    infinite)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(special.stdtrit(dof, 0.5 + confidence / 2))


def form_fit(x_gap, x_eta, mean) -> dict:
    """Fit of Corollary 1's form with the paper's eta: ``mean ≈ a·x_gap + b·x_eta + c``
    (``x_gap = log K/gap``, ``x_eta = log K/eta``), least squares on the *relative* scale (each
    equation divided by its mean, so cells spanning orders of magnitude weigh alike, and the
    criterion matches "within a factor").  Collinear columns (a series where a term is constant)
    get the minimum-norm solution: the fitted values, hence the "other term" of a series, are
    still determined.  Returns ``a``, ``b``, ``c``, ``fitted``, ``ratio = mean/fitted`` and
    ``n``; NaN with fewer than two cells."""
    x_gap, x_eta, mean = (np.asarray(v, dtype=float) for v in (x_gap, x_eta, mean))
    ok = np.isfinite(x_gap) & np.isfinite(x_eta) & (mean > 0)
    n = int(ok.sum())
    nan = float("nan")
    out = {"a": nan, "b": nan, "c": nan, "n": n}
    fitted = np.full(mean.shape, np.nan)
    if n >= 2:
        X = np.column_stack([x_gap, x_eta, np.ones_like(x_gap)])[ok] / mean[ok, None]
        coef, *_ = np.linalg.lstsq(X, np.ones(n), rcond=None)
        out.update(a=float(coef[0]), b=float(coef[1]), c=float(coef[2]))
        fitted = coef[0] * x_gap + coef[1] * x_eta + coef[2]
    with np.errstate(divide="ignore", invalid="ignore"):
        out["fitted"] = fitted
        out["ratio"] = np.where(ok & (fitted > 0), mean / fitted, np.nan)
    return out


def power_fit(x, y, se, confidence: float) -> dict:
    """Exponent ``p`` of ``y ≈ A·x^p``: ordinary least squares of ``log y`` on ``log x`` over
    the points with ``x, y > 0``.  The slope's standard error is the larger of the one from the
    residual scatter (lack of fit, ``n − 2`` degrees of freedom) and the one from the cells'
    own standard errors (``se/y``, known variances), and the interval uses the t quantile on
    ``n − 2`` degrees of freedom: an exact (zero-noise) table is judged by how well the power
    law fits it, never by its numerical error alone.  With fewer than three usable points every
    number is NaN (two points always fit a line: no lack of fit can be seen)."""
    x, y, se = (np.asarray(v, dtype=float) for v in (x, y, se))
    ok = (x > 0) & (y > 0) & np.isfinite(y) & np.isfinite(se)
    n = int(ok.sum())
    nan = float("nan")
    out = {"slope": nan, "se": nan, "ci_low": nan, "ci_high": nan, "intercept": nan, "n": n}
    out.update(se_resid=nan, se_meas=nan, dof=n - 2)
    if n < 3 or np.unique(x[ok]).size < 3:
        return out
    lx, ly = np.log(x[ok]), np.log(y[ok])
    X = np.column_stack([np.ones(n), lx])
    coef, *_ = np.linalg.lstsq(X, ly, rcond=None)
    resid = ly - X @ coef
    xtx_inv = np.linalg.inv(X.T @ X)
    s2 = float(resid @ resid) / (n - 2)
    se_resid = float(np.sqrt(s2 * xtx_inv[1, 1]))
    sl = np.maximum(se[ok] / y[ok], MIN_REL_SE)
    _, cov, _ = _wls(X, ly, sl)
    se_meas = float(np.sqrt(cov[1, 1]))
    slope_se = max(se_resid, se_meas)
    t = t_value(confidence, n - 2)
    out.update(
        slope=float(coef[1]),
        intercept=float(coef[0]),
        se=slope_se,
        se_resid=se_resid,
        se_meas=se_meas,
        ci_low=float(coef[1] - t * slope_se),
        ci_high=float(coef[1] + t * slope_se),
    )
    return out


def offset_power_fit(x, y) -> dict:
    """Least-squares fit of ``log y ≈ log(A·x^p + B)`` (three parameters, ``B < min y``): the
    fitted offset ``B`` is "the other term" of a series in which one term of the rate varies
    (``x``) and the others are constant.  Returns ``A``, ``p``, ``B`` (NaN with fewer than four
    usable points or if no start converges)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    nan = float("nan")
    out = {"A": nan, "p": nan, "B": nan}
    if ok.sum() < 4:
        return out
    from scipy.optimize import curve_fit

    lx, ly = np.log(x[ok]), np.log(y[ok])
    ymin = float(np.exp(ly.min()))

    def model(lx, la, p, b):
        return np.log(np.maximum(np.exp(la + p * lx) + b, 1e-300))

    best = None
    for p0 in (0.5, 1.0, 2.0):
        start = [ly.max() - p0 * lx.max(), p0, 0.0]
        try:
            popt, _ = curve_fit(
                model,
                lx,
                ly,
                p0=start,
                bounds=([-np.inf, 0.0, -10 * ymin], [np.inf, 4.0, 0.999 * ymin]),
                maxfev=20000,
            )
        except (RuntimeError, ValueError):
            continue
        ss = float(np.sum((ly - model(lx, *popt)) ** 2))
        if best is None or ss < best[0]:
            best = (ss, popt)
    if best is not None:
        la, p, b = best[1]
        out.update(A=float(np.exp(la)), p=float(p), B=float(b))
    return out
