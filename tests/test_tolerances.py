"""The module-level tolerances and minimum sizes that decide a verdict, each at its edge
(docs/testing.md, "hidden mutants": mutmut does not mutate module constants, so a planted
``TOL = 1e-3`` or ``MIN_FORM_CELLS = 3`` survived every other test).

- C1 (Proposition 1, Lemma 3): an exact loss may exceed its bound 2 eta only by rounding
  (1e-9); 1e-7 over it is a FAIL.
- The privacy audits (``privacy.result.exact_verdict``): a loss 1e-7 over eps is a violation.
- C4's form fit ``a log K/gap + b log K/eta + c`` has three parameters: it needs four cells
  (one residual), and three are INCONCLUSIVE.
- The worst-case search ranks its candidates with regrets to 1e-6 relative (the module's
  docstring) and reports its best one computed to the engine's default accuracy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.synthetic_regret import GRID, table
from test_mutants_claims import _audit

from privdtol.algorithms import make_algorithm
from privdtol.analysis.claims import c1_privacy, c4_rate
from privdtol.privacy.result import exact_verdict

# ----------------------------------------------------------------------------- C1


@pytest.mark.parametrize(
    ("excess", "verdict"), [(0.0, "PASS"), (1e-12, "PASS"), (1e-7, "FAIL"), (1e-4, "FAIL")]
)
def test_c1_allows_only_rounding_over_lemma_3s_bound(excess, verdict):
    # the helper's cell: eps = 1, bound 2 eta = 0.25, no audit flagged a violation of eps
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.25 + excess, False),
            _audit("negative_control", "leaky", "exact_selection", 3.0, True),
        ]
    )
    rec = c1_privacy.check_c1(df)
    assert rec["verdict"] == verdict
    assert [c["verdict"] for c in rec["cells"]] == ["caught", verdict]


# ----------------------------------------------------------------------------- audits


@pytest.mark.parametrize(
    ("excess", "violation"), [(0.0, False), (1e-12, False), (1e-7, True), (1e-4, True)]
)
def test_an_exact_audit_flags_any_loss_beyond_rounding_over_eps(excess, violation):
    alg = make_algorithm("rnm_ftnl", 0.5)  # Laplace report-noisy-min: the bound is eps itself
    out = exact_verdict(alg, 0.5 + excess)
    assert out["violation"] is violation
    assert out["within_selection_bound"] is not violation
    assert out["verdict"] == ("violation" if violation else "within eps")
    rps = exact_verdict(make_algorithm("rps", 1.0), 0.25 + excess)  # 2 eta = 1/4 < eps = 1
    assert (rps["violation"], rps["within_selection_bound"]) == (False, not violation)


# ----------------------------------------------------------------------------- C4


def test_c4s_form_fit_needs_four_cells():
    cells = [c for c in GRID if c[1] == GRID[0][1]][:4]
    assert len(cells) == 4
    df = table("rps", cells, 0.0, 0, "grid")
    three = df[df["cell_id"] != "rps3"]
    rec = c4_rate.check_rate_form(three, 1.5, 0.95)
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["summary"] == "3 rps cells; the form fit needs 4."
    assert c4_rate.check_rate_form(df, 1.5, 0.95)["verdict"] == "PASS"


# ----------------------------------------------------------------------------- search


def test_the_search_ranks_at_1e_6_and_reports_its_best_accurately(monkeypatch):
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    calls, real = [], exact.expected_regret

    def spy(*args, **kw):
        calls.append(kw.get("tol"))
        return real(*args, **kw)

    monkeypatch.setattr(exact, "expected_regret", spy)
    res, _ = search("rps", 2, 0.5, 1.0, budget=4, horizon=1000, env="deterministic")
    assert calls[0] is None  # the standard instance, at the engine's default accuracy
    ranked = [t for t in calls[1:] if t is not None]
    assert ranked and set(ranked) == {1e-6}
    assert calls[-1] is None  # the best one, computed again accurately
    assert np.isfinite(res["value"])


# ----------------------------------------------------------------------------- proof sums


@pytest.mark.parametrize("k", [20, 40])
def test_lemma_5s_sum_reaches_its_tail_at_tiny_gaps(k):
    """sum_(m >= 1) F_m of rps at K = 2 on deterministic losses, eps = 1 (eta = 1/8), gap
    Delta = 2^-k: F_m = Delta / (1 + e^(c m)), c = eta Delta, and by Euler-Maclaurin
    sum_(m >= 1) f(m) = int_0^oo f - f(0)/2 - f'(0)/12 + O(Delta c^3)
                     = ln 2/eta - Delta/4 + Delta c/48 (to 1e-50 here).
    At Delta = 2^-40 the sum's mass lies near m ~ 1/c = 2^43: the m-sum must run through the
    blocks up to 2^62 (R_MAX) and stop only when its rest is below 1e-13 of it (STOP), so the
    error bound stays near 1e-9 of the sum."""
    from privdtol.engine.exact.proof import sum_terms

    gap = 2.0**-k
    s = sum_terms("rps", [0.5 - gap / 2, 0.5 + gap / 2], 1.0, "deterministic")
    ref = 8 * np.log(2) - gap / 4 + gap * (gap / 8) / 48
    err = s["error_bound"]["sum_F"]
    assert abs(s["sum_F"] - ref) <= err + 1e-12
    assert err <= 1e-8 * ref
    assert s["tail_bound"] <= 1e-12 * ref


# ----------------------------------------------------------------------------- C4's Bonferroni


def test_c4_fails_a_cell_only_when_its_bonferroni_interval_is_beyond_the_factor():
    """One cell of the grid at twice the form (the others on it): the form fit (relative least
    squares over the means only, so not moved by the standard errors; recomputed here with
    numpy) gives its fitted value F.  With se = (m - 1.5 F)/2.5 the cell's nominal 95%
    interval (z = 1.96) lies beyond the factor 1.5, but its Bonferroni interval over the n cells
    (z > 2.5 for n >= 10) does not: the cell, hence C4, is INCONCLUSIVE, not FAIL."""
    from privdtol.analysis.claims.c4_rate import form_columns

    df = table("rps", GRID, 0.0, 0, "grid")
    last = df["horizon"] == df["horizon"].max()
    odd = last & (df["cell_id"] == "rps0")
    df.loc[odd, "mean"] *= 2
    rows = form_columns(df[last].reset_index(drop=True))
    assert len(rows) >= 10
    X = np.column_stack([rows["x_gap"], rows["x_eta"], np.ones(len(rows))]) / rows[["mean"]].values
    coef = np.linalg.lstsq(X, np.ones(len(rows)), rcond=None)[0]
    i = int(np.flatnonzero(rows["cell_id"] == "rps0")[0])
    m = float(rows["mean"].iloc[i])
    F = float(coef @ [rows["x_gap"].iloc[i], rows["x_eta"].iloc[i], 1.0])
    assert m / F > 1.6
    df.loc[odd, "se"] = (m - 1.5 * F) / 2.5
    rec = c4_rate.check_rate_form(df, 1.5, 0.95)
    fit, *cells = rec["cells"]
    assert fit["kind"] == "fit" and fit["n"] == len(rows)
    by_cell = {(c["K"], c["gap"], c["epsilon"]): c for c in cells}
    K, gap, eps = GRID[0]
    cell = by_cell[(K, gap, eps)]
    assert cell["ratio"] == pytest.approx(m / F, rel=1e-5)  # the record's 6 digits
    assert cell["verdict"] == "INCONCLUSIVE"
    assert rec["verdict"] == "INCONCLUSIVE"
    df.loc[odd, "se"] = (m - 1.5 * F) / 4.0  # beyond the factor at the Bonferroni level too
    assert c4_rate.check_rate_form(df, 1.5, 0.95)["verdict"] == "FAIL"


# ----------------------------------------------------------------------------- chunk streams


@pytest.mark.parametrize("algorithm", ["rps", "hedge"])
def test_each_chunk_of_runs_draws_from_its_own_stream(monkeypatch, algorithm):
    """The runs of a cell are simulated in chunks of CHUNK_ELEMENTS / K runs, each chunk from
    its own spawned stream: with chunks of 2 runs, six runs are three chunks whose draws differ
    (one shared stream would repeat runs 0-1 in runs 2-3 and 4-5 exactly)."""
    from privdtol.engine import fast
    from privdtol.environments import BernoulliProduct

    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", 4)
    alg = make_algorithm(algorithm, 1.0 if algorithm == "rps" else None)
    res = fast.simulate(alg, BernoulliProduct([0.25, 0.75]), 255, 6, {"t": 1}, mode="fast")
    assert res.info["chunks"] == 3
    real = res.regret_realized
    for a, b in ((0, 2), (0, 4), (2, 4)):
        assert not np.array_equal(real[a : a + 2], real[b : b + 2])
