"""Tests of where :func:`privdtol.report.assets.table_context` puts a notebook's table: the
main text holds short narrow tables; one longer than a page or of many columns (which the main
text's line would shrink past legibility) goes to the appendix, a wide one on a landscape page,
and the appendix template sets it there."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.report.assets import table_context
from privdtol.report.tables import MAX_ROWS, WIDE_LONGTABLE
from privdtol.report.templating import fill_template


def _write(results, name, rows, columns):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.random((rows, columns)), columns=[f"c{i}" for i in range(columns)])
    (results / "tables").mkdir(parents=True, exist_ok=True)
    df.to_csv(results / "tables" / f"{name}.csv", index=False)


def test_short_narrow_wide_and_long_tables(tmp_path):
    _write(tmp_path, "horizon", 3, 4)
    small = table_context(tmp_path, "horizon", "horizon")
    assert not small["appendix"] and not small["landscape"]
    _write(tmp_path, "horizon", 3, WIDE_LONGTABLE)
    wide = table_context(tmp_path, "horizon", "horizon")
    assert wide["appendix"] and wide["landscape"]
    _write(tmp_path, "horizon", MAX_ROWS + 1, 4)
    long = table_context(tmp_path, "horizon", "horizon")
    assert long["appendix"] and not long["landscape"]
    tex = fill_template("appendix-tables.tex.j2", tables=[wide, long])
    assert tex.count(r"\begin{landscape}") == 1 and tex.count(r"\end{landscape}") == 1
    begin, end = tex.index(r"\begin{landscape}"), tex.index(r"\end{landscape}")
    assert begin < tex.index("tab-horizon") < end
