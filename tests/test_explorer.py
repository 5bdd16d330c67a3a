"""The run's HTML pages without a browser: TeX to MathML, the offline notebook export, the
notebook index and the explorer's page (its inline data equal the aggregated table's values,
nothing fetched from the network, bad input one line and exit 2).  tests/test_browser.py opens
the smoke build's pages in headless Chromium."""

from __future__ import annotations

import json
import math
import re

import nbformat
import numpy as np
import pandas as pd
import pytest
from bs4 import BeautifulSoup
from support.offline_pages import external_references

from privdtol.cli import main
from privdtol.pipeline.aggregate import add_bounds
from privdtol.report.explorer import REQUIRED, build_explorer
from privdtol.report.mathml import render_math, tex_to_mathml, text_to_html
from privdtol.report.notebook_html import notebook_html
from privdtol.report.notebook_index import render_index

RAW_TEX = re.compile(r"(?<!\\)\$[^$]+\$")


# ----------------------------------------------------------------------------- MathML
def test_tex_becomes_mathml_and_text_is_escaped():
    html = str(text_to_html(r"Linear in $1/\Delta_{\min}$ & <b>, eq.~(5)"))
    assert "$" not in html and "<math" in html and "<msub>" in html
    assert "&amp; &lt;b&gt;" in html  # the text around the formula is escaped
    assert "eq.\u00a0(5)" in html  # TeX's tie
    # TeX's conventions: \log followed by a thin space, capital Greek upright, slash unspaced
    m = tex_to_mathml(r"\log K/\Delta")
    assert '<mi>log</mi><mspace width="0.1667em"></mspace><mi>K</mi>' in m
    assert '<mi mathvariant="normal">&#x00394;</mi>' in m
    assert '</msup><mspace width="0.1667em"></mspace><mi>K</mi>' in tex_to_mathml(r"\log^2 K")
    assert '<mo lspace="0em" rspace="0em">&#x0002F;</mo>' in m
    assert 'display="block"' in tex_to_mathml("x", display=True)


def test_render_math_converts_text_but_not_code_or_literal_dollars():
    page = (
        r"<p>regret $\mathrm{Reg}_T$ and $$\sum_m F_m$$ cost \$5</p>"
        r'<pre>ax.set_xlabel("$T$")</pre><code>$x$</code><script>var s = "$y$";</script>'
    )
    out = render_math(page)
    assert out.count("<math") == 2 and 'display="block"' in out
    assert r"\$5" in out  # a literal dollar stays
    assert '<pre>ax.set_xlabel("$T$")</pre>' in out and "<code>$x$</code>" in out
    assert 'var s = "$y$";' in out


# ----------------------------------------------------------------------------- notebook pages
def _visible_text(html: str) -> str:
    """The page's text outside code, scripts and styles (what MathJax would have typeset)."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["pre", "code", "script", "style"]):
        tag.decompose()
    return soup.get_text()


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(r"# Figure 2 — regret against $1/\Delta_{\min}$"),
        nbformat.v4.new_code_cell('label = r"$\\varepsilon$"', execution_count=1),
    ]
    nbformat.write(nb, path)
    return path


def test_notebook_page_has_mathml_and_no_remote_reference(tmp_path):
    html = notebook_html(_notebook(tmp_path / "tiny.ipynb"))
    assert external_references(html) == []
    assert "<math" in html and "Figure 2" in html
    assert not RAW_TEX.search(_visible_text(html))
    assert "varepsilon" in html  # the code cell shows its source as written


def test_the_reference_grep_flags_nbconvert_s_stock_page(tmp_path):
    """Negative control of the grep: the stock lab template loads require.js, MathJax and
    mermaid from CDNs, and external_references finds them."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_filename(str(_notebook(tmp_path / "t.ipynb")))
    found = " ".join(external_references(body))
    assert "require" in found and "mathjax" in found.lower()


def test_notebook_index_titles_are_mathml_and_it_links_the_explorer(tmp_path):
    (tmp_path / "notebooks").mkdir()
    html = render_index(tmp_path)
    assert external_references(html) == []
    assert "<script" not in html and "<math" in html
    assert not RAW_TEX.search(_visible_text(html))
    assert 'href="../explorer/index.html"' in html
    # diagnostics are marked as such (the report's verdict/diagnostics split), claims as claims
    from privdtol.analysis.registry import diagnostics, paper_claims

    for row in html.split("<tr>")[2:]:
        for cid in diagnostics():
            if f"{cid}: " in row:
                assert f"diagnostic</span> {cid}: " in row, cid
        for cid in paper_claims():
            if f" {cid}: " in row:
                assert f"claim {cid}: " in row, cid
    assert html.count('class="diagnostic" title=') == len(diagnostics())


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
    (checks / "C3.json").write_text(json.dumps({"verdict": "PASS"}))
    (checks / "C3--ftl_egreedy.json").write_text(json.dumps({"verdict": "FAIL"}))
    html = build_explorer([tmp_path / "horizon.parquet"], checks, tmp_path / "e.html").read_text()
    claims = {c["id"]: c for c in _data(html)["claims"]}
    assert set(claims) == {"C3", "C3--ftl_egreedy"}
    assert claims["C3"]["href"] == "../checks/C3.json" and claims["C3"]["verdict"] == "PASS"
    assert claims["C3--ftl_egreedy"]["control"] == "ftl_egreedy"
    assert "horizon" in claims["C3"]["experiments"]


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
