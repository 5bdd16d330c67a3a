"""Tests of :mod:`privdtol.cli.explorer`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privdtol.cli import main
from privdtol.pipeline.aggregate import add_bounds
from privdtol.report.explorer import REQUIRED

# --- from tests/test_explorer.py


# ----------------------------------------------------------------------------- explorer
def _table() -> pd.DataFrame:
    """Two cells as privdtol aggregate writes them: an exact RPS cell (error bound 1e-9) and a
    Monte Carlo FTL cell (no ε)."""
    rows = []
    for cell, alg, eps, runs, est in (
        ("aaaa", "rps", 1.0, 0, "exact"),
        ("bbbb", "ftl", np.nan, 20, "block_rb"),
    ):
        for T, mean in ((1, 0.125), (3, 0.375), (1023, 7.5)):
            err = 1e-9 if est == "exact" else 0.25
            rows.append(
                dict(experiment="horizon", cell_id=cell, algorithm=alg, env="bernoulli",
                     instance="standard", K=8, gap=0.25, epsilon=eps, eta=np.nan, rho=np.nan,
                     kappa=np.nan, mu_best=0.375, horizon=T, runs=runs, estimator=est,
                     mean=mean, ci_low=mean - err, ci_high=mean + err)
            )  # fmt: skip
    return add_bounds(pd.DataFrame(rows))


@pytest.mark.parametrize(
    ("damage", "message"),
    [("drop", "lacks the columns mean"), ("missing", "does not exist")],
)
def test_explorer_bad_table_is_one_line_exit_2(tmp_path, capsys, damage, message):
    path = tmp_path / "horizon.parquet"
    if damage == "drop":
        _table().drop(columns=["mean"]).to_parquet(path)
    out = tmp_path / "explorer" / "index.html"
    rc = main(["explorer", "--agg", str(path), "--checks", str(tmp_path), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and message in err and "--agg" in err
    assert not out.exists()
    assert "mean" in REQUIRED
