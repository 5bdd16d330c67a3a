"""Tests of :mod:`privdtol.report.html.explorer`: the offline explorer page carries every cell of
the aggregated tables (exact and Monte Carlo, with Theorem 1's bound) and lists the check
records."""

from __future__ import annotations

import json
import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from support.explorer_tables import privacy_table, searches_table
from support.offline_pages import external_references
from support.records import check_json
from support.tables import CORE, INTERVAL, agg_table

from privdtol.errors import InputError
from privdtol.pipeline.aggregate import add_bounds
from privdtol.report.html.explorer import build_explorer


def _table() -> pd.DataFrame:
    """Two cells as privdtol aggregate writes them: an exact RPS cell (error bound 1e-9) and a
    Monte Carlo FTL cell (no ε)."""
    means = {1: 0.125, 3: 0.375, 1023: 7.5}
    cells = [
        {"cell_id": "aaaa", "algorithm": "rps", "epsilon": 1.0, "runs": 0, "estimator": "exact"},
        {"cell_id": "bbbb", "algorithm": "ftl", "epsilon": np.nan, "runs": 20,
         "estimator": "block_rb"},
    ]  # fmt: skip

    def err(cell):
        return 1e-9 if cell["estimator"] == "exact" else 0.25

    table = agg_table(
        cells,
        horizons=tuple(means),
        columns=(*CORE, "eta", *INTERVAL, "estimator"),
        drop=("se",),
        experiment="horizon",
        K=8,
        gap=0.25,
        eta=np.nan,
        mean=list(means.values()),
        ci_low=lambda c, h: means[h] - err(c),
        ci_high=lambda c, h: means[h] + err(c),
    )
    return add_bounds(table)


def _data(html: str) -> dict:
    m = re.search(r'<script id="explorer-data" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_explorer_page_carries_every_cell_of_the_table(tmp_path):
    _table().to_parquet(tmp_path / "horizon.parquet")
    (tmp_path / "checks").mkdir()
    out = build_explorer([tmp_path / "horizon.parquet"], tmp_path / "checks", tmp_path / "e.html")
    html = out.read_text()
    assert external_references(html) == []
    assert "Plotly" in html and 'href="../report/replication_report.pdf"' in html
    assert 'href="../notebooks/index.html"' in html
    cells = {c["id"]: c for c in _data(html)["cells"]}
    rps, ftl = cells["aaaa"], cells["bbbb"]
    assert rps["exact"] and not ftl["exact"] and ftl["runs"] == 20
    assert rps["T"] == [1, 3, 1023] and rps["mean"] == [0.125, 0.375, 7.5]
    assert ftl["lo"] == [-0.125, 0.125, 7.25] and ftl["hi"] == [0.375, 0.625, 7.75]
    assert ftl["epsilon"] is None and rps["epsilon"] == 1.0
    # Theorem 1 at K = 8, Δ = 1/4, ε = 1 (η = 1/8): 1 + 800 ln 8 / (1/4) + 16 ln 8 / (1/8)
    assert math.isclose(rps["bound_thm1"], 6921.38145, rel_tol=1e-8)
    # deterministic: the same tables give the same bytes
    again = build_explorer([tmp_path / "horizon.parquet"], tmp_path / "checks", tmp_path / "f.html")
    assert again.read_bytes() == out.read_bytes()


def test_explorer_lists_the_check_records(tmp_path):
    _table().to_parquet(tmp_path / "horizon.parquet")
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "C3.json").write_text(json.dumps(check_json("C3", "PASS")))
    control = {**check_json("C3", "FAIL"), "control_of": "C3", "algorithm": "ftl_egreedy"}
    (checks / "C3--ftl_egreedy.json").write_text(json.dumps(control))
    html = build_explorer([tmp_path / "horizon.parquet"], checks, tmp_path / "e.html").read_text()
    claims = {c["id"]: c for c in _data(html)["claims"]}
    assert {i for i, c in claims.items() if c["verdict"]} == {"C3", "C3--ftl_egreedy"}
    assert claims["C3"]["href"] == "../checks/C3.json" and claims["C3"]["verdict"] == "PASS"
    assert claims["C3--ftl_egreedy"]["control"] == "ftl_egreedy"
    assert claims["C3--ftl_egreedy"]["verdict"] == "FAIL"
    assert claims["C3--ftl_egreedy"]["expected"] == "FAIL"
    assert "horizon" in claims["C3"]["experiments"]
    # the registry's other claims and controls: listed, not run, no link
    assert claims["C0"]["verdict"] is None and claims["C0"]["href"] is None
    assert claims["C0"]["diagnostic"] and not claims["C3"]["diagnostic"]


def test_explorer_carries_the_views_or_says_they_were_not_run(tmp_path):
    _table().to_parquet(tmp_path / "horizon.parquet")
    (tmp_path / "checks").mkdir()
    privacy_table().to_parquet(tmp_path / "privacy.parquet")
    searches_table().to_parquet(tmp_path / "searches.parquet")
    views = {"privacy": tmp_path / "privacy.parquet", "searches": tmp_path / "searches.parquet"}
    out = build_explorer([tmp_path / "horizon.parquet"], tmp_path / "checks", tmp_path / "e.html",
                         views)  # fmt: skip
    html = out.read_text()
    data = _data(html)["views"]
    assert data["proof"] is None  # not given: the page says "not run"
    assert [a["algorithm"] for a in data["privacy"]["algorithms"]] == ["rps", "rps_eta_eps"]
    assert [s["id"] for s in data["searches"]["searches"]] == ["s0", "s1"]
    # the views' script is inline, and so is every tab's panel
    assert "privdtol.report.html.explorer_views" in html and external_references(html) == []
    for view in ("regret", "privacy", "proof", "searches", "claims"):
        assert f'id="view-{view}"' in html and f'data-view="{view}"' in html


def test_a_bad_view_table_fails_before_anything_is_written(tmp_path):
    _table().to_parquet(tmp_path / "horizon.parquet")
    (tmp_path / "checks").mkdir()
    (tmp_path / "proof.parquet").write_text("not parquet")
    out = tmp_path / "explorer" / "index.html"
    with pytest.raises(InputError, match=r"proof\.parquet: not a readable Parquet file"):
        build_explorer([tmp_path / "horizon.parquet"], tmp_path / "checks", out,
                       {"proof": tmp_path / "proof.parquet"})  # fmt: skip
    assert not out.exists() and not out.parent.exists()


# ----------------------------------------------------------------------------- hostile records
# (a past bug: a record whose verdict was markup was written into the page, one without a
# verdict crashed the explorer with KeyError)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"verdict": "<img src=x onerror=alert(1)>"}, "verdict"),
        ({"verdict": None}, "verdict"),
        ("drop verdict", "missing key 'verdict'"),
    ],
)
def test_a_bad_check_record_is_refused_in_one_line_before_the_page_is_written(
    tmp_path, change, says
):
    _table().to_parquet(tmp_path / "horizon.parquet")
    checks = tmp_path / "checks"
    checks.mkdir()
    record = check_json("C3", "PASS")
    if change == "drop verdict":
        del record["verdict"]
    else:
        record.update(change)
    (checks / "C3.json").write_text(json.dumps(record))
    with pytest.raises(InputError) as err:
        build_explorer([tmp_path / "horizon.parquet"], checks, tmp_path / "e.html")
    assert "\n" not in str(err.value) and "C3.json" in str(err.value) and says in str(err.value)
    assert not (tmp_path / "e.html").exists()


def test_the_page_scripts_build_text_nodes_not_markup():
    """The explorer's scripts set no string as HTML but the registry's titles (escaped with
    their MathML on the server): every row, verdict and label is a text node."""
    from privdtol.report.html.explorer import TEMPLATES

    for name in ("explorer.js", "explorer_views.js"):
        text = (TEMPLATES / name).read_text(encoding="utf-8")
        sets = [line.strip() for line in text.splitlines() if "innerHTML" in line and "=" in line]
        sets = [line for line in sets if not line.startswith("//")]
        assert sets == (["title.innerHTML = c.title;"] if name == "explorer_views.js" else [])
        assert "insertAdjacentHTML" not in text and "outerHTML" not in text


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's script")
def test_the_views_show_a_power_of_two_as_a_power():
    """2^-6 is "2⁻⁶" in the search selector, the filters and the cell labels, not a ratio's 4
    digits ("0.01563") nor "0.015625" (as the figures label it: style.pow2_label); 1, 2, 4, 8
    and 16 and every other number as themselves: the page's own formatter, run by node."""
    import subprocess

    from privdtol.report.html.explorer import TEMPLATES

    lines = (TEMPLATES / "explorer.js").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if "const fmt = " in line)
    end = next(i for i, line in enumerate(lines) if "window.privdtolExplorer = " in line)
    script = "const window = {};\n" + "\n".join(lines[start : end + 1])
    values = "[0.015625, 0.0009765625, 0.5, 0.125, 1, 4, 16, 32, 1024, 0.3, 0.75, null, 'x']"
    script += f"\nconsole.log({values}.map(window.privdtolExplorer.param).join(' '));"
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "2⁻⁶", "2⁻¹⁰", "2⁻¹", "2⁻³", "1", "4", "16", "2⁵", "2¹⁰", "0.3", "0.75", "–", "x"
    ]  # fmt: skip
    views = (TEMPLATES / "explorer_views.js").read_text(encoding="utf-8")
    assert "const param = window.privdtolExplorer.param;" in views
    assert "Δmin = ${param(s.gap)}" in views  # the searches' selector


def test_no_element_bears_a_view_s_name(tmp_path):
    """``index.html#claims`` opens the claims tab (the script reads the address); an element
    with the id ``claims`` made the browser scroll to it as well, taking the tab bar out of
    sight and leaving a blank band below the short view."""
    _table().to_parquet(tmp_path / "horizon.parquet")
    (tmp_path / "checks").mkdir()
    html = build_explorer(
        [tmp_path / "horizon.parquet"], tmp_path / "checks", tmp_path / "e.html"
    ).read_text()
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    views = set(re.findall(r'data-view="([^"]+)"', html))
    assert views == {"regret", "privacy", "proof", "searches", "claims"}
    assert {f"view-{v}" for v in views} <= ids and not views & ids, views & ids


def test_the_page_names_the_run_s_config_files(tmp_path):
    """The header says which config files the run was built from (the workflow passes them),
    escaped; without them it says they were not given."""
    _table().to_parquet(tmp_path / "horizon.parquet")
    (tmp_path / "checks").mkdir()
    agg, checks = [tmp_path / "horizon.parquet"], tmp_path / "checks"
    files = ["config/config.yaml", "config/my <b>smoke</b>.yaml"]
    html = build_explorer(agg, checks, tmp_path / "e.html", configfiles=files).read_text()
    run = re.search(r'<p id="run">(.*?)</p>', html, re.S)[1]
    assert " ".join(run.split()) == (
        "This run: config files <code>config/config.yaml</code>, "
        "<code>config/my &lt;b&gt;smoke&lt;/b&gt;.yaml</code> (merged in this order)."
    )
    html = build_explorer(agg, checks, tmp_path / "f.html").read_text()
    assert "its config files were not given" in html
