"""The explorer's page in a browser (tests/workflow/test_browser.py): read back what Plotly drew,
choose an experiment, algorithms and a cell as a user does, open a tab, and compare the curves
with the aggregated tables.  Each helper takes a Selenium driver on the explorer's page."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd


def plotted(driver) -> list[dict]:
    """The traces Plotly draws: cell curves and bound lines, read back from the page."""
    return driver.execute_script(
        "return document.getElementById('plot').data.map(t => ({kind: t.meta.kind,"
        " cell: t.meta.cell, name: t.name, x: Array.from(t.x), y: Array.from(t.y), mode: t.mode,"
        " err: t.error_y && t.error_y.visible !== false ? [Array.from(t.error_y.array),"
        " Array.from(t.error_y.arrayminus)] : null}));"
    )


def choose(driver, experiment: str, algorithms: set[str], **values) -> None:
    """Pick an experiment, tick exactly ``algorithms``, and choose K, gap, ... as a user does."""
    import json

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    def pick(key, value):  # the option whose (JSON) value is ``value``
        select = Select(driver.find_element(By.ID, key))
        values = [json.loads(o.get_attribute("value")) for o in select.options]
        assert value in values, (key, value, values)
        select.select_by_index(values.index(value))

    pick("experiment", experiment)
    for box in driver.find_elements(By.CSS_SELECTOR, "input[name=algorithm]"):
        if box.is_selected() != (box.get_attribute("value") in algorithms):
            box.click()
    for key, value in values.items():
        pick(key, value)


def selected(driver, key: str):
    import json

    return json.loads(driver.execute_script(f"return document.getElementById('{key}').value"))


def table_cell(agg: pd.DataFrame, **params) -> pd.DataFrame:
    sel = pd.Series(True, index=agg.index)
    for key, value in params.items():
        column = agg[key]
        sel &= column.isna() if value is None else (column == value)
    return agg[sel]


def check_curves(driver, agg: pd.DataFrame, experiment: str, algorithms: set[str]) -> list:
    """Every drawn cell curve is the table's cell: horizons and means exactly, Monte Carlo
    intervals as error bars, exact cells as lines; one drawn curve per matching table cell."""
    env, K, gap, eps = (selected(driver, k) for k in ("env", "K", "gap", "epsilon"))
    rows = agg[(agg.experiment == experiment) & agg.algorithm.isin(algorithms)]
    rows = rows[(rows.env == env) & (rows.K == K) & (rows.gap == gap)]
    rows = rows[(rows.epsilon == eps) | rows.epsilon.isna()]
    curves = [t for t in plotted(driver) if t["kind"] == "cell"]
    assert {t["cell"] for t in curves} == set(rows.cell_id), (experiment, algorithms, K)
    for t in curves:
        cell = rows[rows.cell_id == t["cell"]].sort_values("horizon")
        assert t["x"] == cell.horizon.tolist()
        assert t["y"] == cell["mean"].tolist()  # exactly: JSON carries the doubles
        if (cell.estimator == "exact").all():
            assert t["mode"] == "lines" and t["err"] is None
        else:
            up, down = t["err"]
            assert all(
                math.isclose(u, h - m, rel_tol=1e-12, abs_tol=1e-12)
                for u, h, m in zip(up, cell.ci_high, cell["mean"], strict=True)
            )
            assert all(
                math.isclose(d, m - lo, rel_tol=1e-12, abs_tol=1e-12)
                for d, lo, m in zip(down, cell.ci_low, cell["mean"], strict=True)
            )
    return curves


def show_tab(driver, view: str) -> None:
    """Click the explorer's tab ``view`` and wait until its panel is the one shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.find_element(By.CSS_SELECTOR, f'#tabs button[data-view="{view}"]').click()
    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script(f"return !document.getElementById('view-{view}').hidden")
    )


def plot_data(driver, div: str) -> list[dict]:
    """The traces Plotly drew in ``div``: kind (meta), x and y (nulls kept)."""
    return driver.execute_script(
        f"const gd = document.getElementById('{div}');"
        " return (gd.data || []).map(t => ({kind: t.meta ? t.meta.kind : null,"
        " objective: t.meta ? t.meta.objective : null, epsilon: t.meta ? t.meta.epsilon : null,"
        " x: Array.from(t.x || []), y: Array.from(t.y || [])}));"
    )


def read_agg(results: Path) -> pd.DataFrame:
    from privdtol.report.html.explorer import REQUIRED

    tables = [pd.read_parquet(p) for p in sorted((results / "agg").glob("*.parquet"))]
    return pd.concat([t for t in tables if set(REQUIRED) <= set(t.columns)], ignore_index=True)
