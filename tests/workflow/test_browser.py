"""The run's browsable face in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium through /usr/bin/chromedriver, no browser download),
with networking disabled, opens the smoke build's notebook index, two executed notebooks and
the explorer, then the same pages from the unpacked run archive.

Asserted on every page: nothing fetched but the page's own files (the Resource Timing entries
are file:, data: or blob: URLs only), no console error, no raw ``$…$`` TeX in the rendered text
outside code, the mathematics laid out as MathML (``display: math``, non-empty boxes).  On the
explorer: choosing an algorithm and a K redraws the curves with exactly the aggregated table's
values for that cell (read back from Plotly's ``gd.data``), Monte Carlo cells with their
intervals, Theorem 1's bound for RPS.  On a notebook page the test exports itself: the code
hidden when the page opens, shown and hidden again by the button, one cell unfolded by its
"code" line.  Screenshots of the five pages (and of the explorer's hover) go to
``results/screenshots/`` of the checkout: look at them.

The explorer's helpers (reading back Plotly's traces, choosing a cell, opening a tab) are in
``support/explorer_browser.py``.

Cost: reuses the session's smoke build (``smoke_run``), one browser for the module: 26 s for
the four tests beyond that build on 2 cores, measured at a load average near 20 (the archive
test 12 s of it).
"""

from __future__ import annotations

import re
import shutil
import tarfile
from pathlib import Path

import pandas as pd
import pytest
from support.explorer_browser import (
    check_curves,
    choose,
    plot_data,
    plotted,
    read_agg,
    show_tab,
    table_cell,
)
from support.paths import ROOT

from privdtol.cli import main

CHROMIUM = Path("/usr/bin/chromium")


CHROMEDRIVER = Path("/usr/bin/chromedriver")


SHOTS = ROOT / "results" / "screenshots"


#: the two notebooks opened (both with formulas in text and tables)
NOTEBOOKS = ("horizon", "rates")


#: the page's text outside code, scripts and styles, and what of it looks like raw TeX
VISIBLE_TEXT_JS = """
const body = document.body.cloneNode(true);
body.querySelectorAll('pre, code, script, style, textarea').forEach(e => e.remove());
return body.innerText;
"""


RAW_TEX = re.compile(r"(?<!\\)\$[^$\n]{1,200}\$|\\(?:Delta|varepsilon|mathrm|log|frac)\b")


MATH_JS = """
return [...document.querySelectorAll('math')].map(m => {
  const r = m.getBoundingClientRect();
  return [getComputedStyle(m).display, r.width, r.height];
});
"""


RESOURCES_JS = "return performance.getEntriesByType('resource').map(e => e.name);"


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",  # root in CI
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,1400",
        # no network: every host unresolvable, every request through a proxy that is not there
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def open_page(driver, path: Path) -> None:
    """Load a page from file://, wait for it, and assert what every page must satisfy."""
    from selenium.webdriver.support.ui import WebDriverWait

    assert path.is_file(), path
    driver.get_log("browser")  # drop what an earlier page left
    driver.get(path.as_uri())
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    local = ("file:", "data:", "blob:")
    remote = [u for u in driver.execute_script(RESOURCES_JS) if not u.startswith(local)]
    assert remote == [], f"{path.name} fetched {remote}"
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"{path.name}: console errors {errors}"
    text = driver.execute_script(VISIBLE_TEXT_JS)
    raw = RAW_TEX.search(text)
    assert raw is None, f"{path.name} shows raw TeX: {text[max(raw.start() - 60, 0) :][:120]!r}"


def assert_rendered_math(driver, name: str, at_least: int) -> None:
    maths = driver.execute_script(MATH_JS)
    assert len(maths) >= at_least, f"{name}: {len(maths)} formulas"
    for display, width, height in maths:
        assert display in ("math", "inline math", "block math"), (name, display)
        assert width > 0 and height > 0, (name, width, height)


def screenshot(driver, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000  # not blank
    return path


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
# ----------------------------------------------------------------------------- tests
def test_no_generated_page_references_the_network(smoke_run):
    """The grep: no script, style sheet, font or image from an http(s) address in any page."""
    from support.offline_pages import external_references

    pages = sorted((smoke_run / "results").rglob("*.html"))
    assert {p.parent.name for p in pages} >= {"notebooks", "explorer"}
    found = {str(p.relative_to(smoke_run)): external_references(p.read_text()) for p in pages}
    assert not {k: v for k, v in found.items() if v}, found


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
def test_index_and_notebooks_render_their_mathematics_offline(browser, smoke_run):
    pages = smoke_run / "results" / "notebooks"
    open_page(browser, pages / "index.html")
    assert_rendered_math(browser, "index", at_least=5)
    links = browser.execute_script("return [...document.links].map(a => a.getAttribute('href'))")
    assert "../explorer/index.html" in links
    assert {f"{n}.html" for n in NOTEBOOKS} <= set(links)
    screenshot(browser, "notebook-index")
    for name in NOTEBOOKS:
        open_page(browser, pages / f"{name}.html")
        assert_rendered_math(browser, name, at_least=3)
        images = browser.execute_script(
            "return [...document.images].map(i => [i.complete, i.naturalWidth])"
        )
        assert images and all(done and width > 0 for done, width in images), name
        screenshot(browser, f"notebook-{name}")


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
def test_explorer_redraws_the_table_s_cells(browser, smoke_run):
    results = smoke_run / "results"
    agg = read_agg(results)
    open_page(browser, results / "explorer" / "index.html")
    assert [t for t in plotted(browser) if t["kind"] == "cell"]  # the first experiment's cells
    screenshot(browser, "explorer")
    show_tab(browser, "claims")
    assert_rendered_math(browser, "explorer", at_least=1)  # the claims' titles
    show_tab(browser, "regret")
    claims = browser.execute_script(
        "return [...document.querySelectorAll('#claims-table a')].map(a => a.getAttribute('href'))"
    )
    assert claims and all((results / "explorer" / h).resolve().is_file() for h in claims)
    for href in ("../report/replication_report.pdf", "../notebooks/index.html"):
        assert (results / "explorer" / href).resolve().is_file()

    # the K sweep: one algorithm and one K, then another algorithm and another K
    Ks = sorted(agg[agg.experiment == "actions"].K.unique())
    assert len(Ks) >= 2
    choose(browser, "actions", {"wu_wang"}, K=int(Ks[0]))
    first = check_curves(browser, agg, "actions", {"wu_wang"})
    assert first
    choose(browser, "actions", {"rps"}, K=int(Ks[-1]))
    second = check_curves(browser, agg, "actions", {"rps"})
    assert second and [t["y"] for t in second] != [t["y"] for t in first]
    bounds = [t for t in plotted(browser) if t["kind"] == "bound"]
    cell = table_cell(agg, experiment="actions", cell_id=second[0]["cell"]).iloc[0]
    assert bounds and bounds[0]["y"] == [cell.bound_thm1, cell.bound_thm1]
    # the hover of a curve: parameters, value and whether it is exact
    browser.execute_script(
        "Plotly.Fx.hover('plot', [{curveNumber: 0, pointNumber: arguments[0]}]);",
        len(second[0]["x"]) // 2,
    )
    hover = browser.execute_script(
        "return [...document.querySelectorAll('.hoverlayer text')].map(t => t.textContent)"
        ".join(' ')"
    )
    assert f"K = {int(Ks[-1])}" in hover and ("exact" in hover or "interval" in hover), hover
    screenshot(browser, "explorer-hover")

    # Monte Carlo cells (dependent losses): markers with their intervals
    mc = agg[(agg.experiment == "dependent") & (agg.estimator != "exact")].iloc[0]
    choose(browser, "dependent", {mc.algorithm}, env=mc.env, K=int(mc.K), gap=float(mc.gap),
           epsilon=float(mc.epsilon))  # fmt: skip
    curves = check_curves(browser, agg, "dependent", {mc.algorithm})
    assert any(t["err"] is not None for t in curves)


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
@pytest.mark.pipeline
def test_the_unpacked_run_archive_renders_offline(browser, smoke_run, tmp_path):
    """The archive of the smoke build, unpacked elsewhere: its notebook index and explorer
    load with nothing beside them but the archive's own files."""
    out = tmp_path / "archive"
    rc = main(
        ["archive", "--config", "config/smoke.yaml", "--repo", str(ROOT),
         "--workdir", str(smoke_run), "--out-dir", str(out)]
    )  # fmt: skip
    assert rc == 0
    (archive,) = out.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    shutil.rmtree(out)
    run = tmp_path / "unpacked" / archive.name.removesuffix(".tar.gz") / "run" / "results"
    open_page(browser, run / "notebooks" / "index.html")
    assert_rendered_math(browser, "archived index", at_least=5)
    open_page(browser, run / "explorer" / "index.html")
    traces = plotted(browser)
    assert any(t["kind"] == "cell" and t["y"] for t in traces)
    size = (run / "explorer" / "index.html").stat().st_size
    assert size <= 10 * 2**20, size


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
def test_notebook_code_is_hidden_until_shown(browser, tmp_path):
    """A notebook page opens with its text, check record and outputs in view and every code
    cell folded (the sources take no room); the button shows all of them, pressed again hides
    them, and a cell's own "code" line unfolds that cell alone.  A page exported here, so the
    test needs no smoke build."""
    import nbformat
    from selenium.webdriver.common.by import By

    from privdtol.report.html.notebook_html import notebook_html

    nb = nbformat.v4.new_notebook()
    long_cell = nbformat.v4.new_code_cell("\n".join(f"x{i} = {i}" for i in range(60)))
    long_cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="after the code")]
    nb.cells = [
        nbformat.v4.new_markdown_cell(r"# Figure 1 — regret against $1/\Delta_{\min}$"),
        nbformat.v4.new_code_cell('agg_dir = "results/agg"', metadata={"tags": ["parameters"]}),
        long_cell,
    ]
    nbformat.write(nb, tmp_path / "folded.ipynb")
    page = tmp_path / "folded.html"
    page.write_text(notebook_html(tmp_path / "folded.ipynb"), encoding="utf-8")
    open_page(browser, page)

    def shown_sources():
        areas = browser.find_elements(By.CSS_SELECTOR, ".jp-CodeCell .jp-InputArea")
        assert len(areas) == 2
        return [a.is_displayed() for a in areas]

    output = browser.find_element(By.CSS_SELECTOR, ".jp-OutputArea-output")
    assert shown_sources() == [False, False] and output.is_displayed()
    folded_top = output.rect["y"]
    screenshot(browser, "notebook-code-folded")
    button = browser.find_element(By.ID, "privdtol-toggle-code")
    button.click()
    assert shown_sources() == [True, True] and button.text == "Hide all code"
    assert output.rect["y"] > folded_top + 500  # the 60 lines were what folding kept away
    button.click()
    assert shown_sources() == [False, False] and button.text == "Show all code"
    browser.find_elements(By.CSS_SELECTOR, "details.privdtol-code > summary")[1].click()
    assert shown_sources() == [False, True]


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
def test_explorer_views_render_the_tables_offline(browser, smoke_run):
    """Each tab beside regret draws its table: the privacy audit (the largest loss per selection
    over ε, per algorithm), the proof's slack (one point per rps cell and step), each search's
    trace and instances; the claims tab labels the registry's diagnostics and lists the controls
    with their records' verdicts."""
    import json

    from privdtol.analysis.findings.slack import STEPS, slack_table
    from privdtol.analysis.registry import CLAIMS, control_id, diagnostics
    from privdtol.engine.worst_case import OBJECTIVES

    results = smoke_run / "results"
    open_page(browser, results / "explorer" / "index.html")

    show_tab(browser, "privacy")
    privacy = pd.read_parquet(results / "agg" / "privacy.parquet")
    drawn = [t for t in plot_data(browser, "privacy-plot") if t["kind"] == "exact_selection"]
    assert drawn
    for t in drawn:
        sel = privacy[(privacy.audit == "exact_selection") & (privacy.epsilon == t["epsilon"])]
        want = sel.groupby("algorithm").loss.max() / t["epsilon"]
        assert len([y for y in t["y"] if y is not None]) == len(want)
        assert sorted(y for y in t["y"] if y is not None) == pytest.approx(sorted(want))
    screenshot(browser, "explorer-privacy")

    show_tab(browser, "proof")
    slack = slack_table(pd.read_parquet(results / "agg" / "proof.parquet"))
    points = sum(len(t["y"]) for t in plot_data(browser, "proof-plot") if t["kind"] == "slack")
    assert points > 0 and points == int(slack[[s.key for s in STEPS]].notna().sum().sum())
    screenshot(browser, "explorer-proof")

    show_tab(browser, "searches")
    searches = pd.read_parquet(results / "agg" / "searches.parquet")
    first = browser.execute_script(
        "return JSON.parse(document.getElementById('explorer-data').textContent)"
        ".views.searches.searches[0].id"
    )
    rows = searches[searches.search_id == first]
    traces = {t["objective"]: t for t in plot_data(browser, "search-trace") if t["kind"] == "trace"}
    assert set(traces) == set(rows.objective) <= set(OBJECTIVES)
    for _, r in rows.iterrows():
        assert traces[r.objective]["y"] == [float(v) for v in r.trace_ratio.split()]
    instances = [t for t in plot_data(browser, "search-means") if t["kind"] == "instance"]
    assert {tuple(t["y"]) for t in instances} == {
        tuple(float(v) for v in m.split()) for m in rows["means"]
    }
    screenshot(browser, "explorer-searches")

    show_tab(browser, "claims")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#claims-table tbody tr')].map(r =>"
        " [r.cells[0].textContent, r.cells[1].textContent, r.cells[3].textContent])"
    )
    kind = {rid: k for rid, k, _ in shown}
    assert [rid for rid, k, _ in shown if k == "diagnostic"] == diagnostics()
    for c in CLAIMS.values():
        for a in c.controls:
            rid = control_id(c.id, a)
            assert kind[rid] == f"negative control of {c.id}"
            record = results / "checks" / f"{rid}.json"
            verdict = {r: v for r, _, v in shown}[rid]
            want = json.loads(record.read_text())["verdict"] if record.exists() else "not run"
            assert verdict == want, rid
    screenshot(browser, "explorer-claims")


#: the page's state once loaded: scroll, tab bar, selected tab, claims table, run header
TAB_STATE_JS = """
const box = (id) => document.getElementById(id).getBoundingClientRect();
return {scrollY: window.scrollY, inner: window.innerHeight, tabsTop: box('tabs').top,
  tabsBottom: box('tabs').bottom, tableTop: box('claims-table').top,
  tableHeight: box('claims-table').height, shown: !document.getElementById('view-claims').hidden,
  selected: document.querySelector('#tabs button[aria-selected=true]').dataset.view,
  run: document.getElementById('run').textContent};
"""


def pow2_text(v: float) -> str:
    """A power of two below 1 or above 16 as the page shows it (2⁻⁶), else the number."""
    import math

    k = round(math.log2(v)) if v > 0 else None
    if k is None or 2.0**k != v or 0 <= k <= 4:
        return f"{v:g}"
    return "2" + str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
def test_explorer_opened_at_a_tab_keeps_its_tab_bar_and_names_the_run(browser, smoke_run):
    """``index.html#claims`` opens the claims tab with the page at its top: the tab bar in
    view, the table below it (it used to scroll the tab bar away and leave a blank band); the
    header names the run's config files; the searches' selector shows Δmin and ε as powers of
    two (2⁻⁶, not 0.01563)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    page = smoke_run / "results" / "explorer" / "index.html"
    browser.get("about:blank")  # a new document: the fragment is the first load's
    browser.get(page.as_uri() + "#claims")
    WebDriverWait(browser, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    state = browser.execute_script(TAB_STATE_JS)
    assert state["selected"] == "claims" and state["shown"], state
    assert state["scrollY"] == 0, state
    assert 0 <= state["tabsTop"] < state["tabsBottom"] < state["tableTop"] < state["inner"], state
    assert state["tableHeight"] > 100, state  # the rows, not a blank band
    assert " ".join(state["run"].split()) == (
        "This run: config files config/config.yaml, config/smoke.yaml (merged in this order)."
    )
    screenshot(browser, "explorer-at-claims")

    show_tab(browser, "searches")
    searches = browser.execute_script(
        "return JSON.parse(document.getElementById('explorer-data').textContent)"
        ".views.searches.searches"
    )
    options = [o.text for o in Select(browser.find_element(By.ID, "search")).options]
    assert len(options) == len(searches) > 0
    for text, s in zip(options, searches, strict=True):
        assert f"Δmin = {pow2_text(s['gap'])}, ε = {pow2_text(s['epsilon'])}" in text, text
    assert not any("0.01563" in t or "0.015625" in t for t in options), options


@pytest.mark.slow
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (make setup installs them)",
)
def test_hostile_strings_stay_text_in_the_explorer(browser, tmp_path, monkeypatch):
    """A verdict ``<img src=x onerror=...>`` once ran in Chromium.  An explorer page whose
    records and tables hold markup (a claim's verdict and control, a cell id, an estimator, a
    search's description) shows it as text on every tab: no injected element in the DOM, no
    script run.  (The reader refuses such a record, privdtol.report.html.explorer_views; the page is
    built here past it, to hold the scripts themselves to text nodes.)"""
    from support.hostile import (
        INJECTED_JS,
        MARKUP,
        SCRIPT,
        hostile_agg,
        hostile_claims,
        hostile_searches,
    )

    from privdtol.report.html import explorer_views
    from privdtol.report.html.explorer import render_explorer

    real = explorer_views.claims
    monkeypatch.setattr(explorer_views, "claims", lambda *a: hostile_claims(real(*a)))
    (tmp_path / "checks").mkdir()
    searches = tmp_path / "searches.parquet"
    hostile_searches().to_parquet(searches)
    views = explorer_views.views({"searches": searches})
    page = tmp_path / "explorer" / "index.html"
    page.parent.mkdir()
    page.write_text(render_explorer([hostile_agg()], tmp_path / "checks", views), "utf-8")
    open_page(browser, page)
    for tab in ("regret", "searches", "claims"):
        show_tab(browser, tab)
        dom = browser.execute_script(INJECTED_JS)
        assert (dom["imgs"], dom["scripts"], dom["handlers"], dom["pwned"]) == (0, 0, 0, None), tab
    assert MARKUP in dom["text"] and SCRIPT in dom["text"]  # shown, as text
    screenshot(browser, "explorer-hostile")
