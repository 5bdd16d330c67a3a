"""Notebooks on a tiny real agg directory (simulated with the library): a notebook executes with
papermill, writes its figure and its tables as data, shows the verdict of the check record it
is given (it never decides one), and its metadata strip makes reruns identical; a notebook that
raises fails its Snakemake rule and leaves the partial copy under logs/."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from support.paths import ROOT, SMOKE
from support.records import HAND_CHECK, HEATMAP_CLAIM
from support.tiny_agg import build_tiny_agg
from support.workflow import run_snakemake

from privdtol.analysis.cells import select
from privdtol.analysis.claims import c4_rate
from privdtol.analysis.claims.c4_rate import rate_ratio_table
from privdtol.analysis.records import read_check, write_check
from privdtol.analysis.registry import CLAIMS, NOTEBOOKS, notebook_claims
from privdtol.cli import main
from privdtol.report.build.notebook_run import read_source, strip_notebook_metadata
from privdtol.report.figure_order import figure_number
from privdtol.report.notebook.narrative import check_markdown

pytest.importorskip("papermill")


pytest.importorskip("jupytext")


#: plain ASCII column names: snake_case, plus K
COLUMN = re.compile(r"^(K|[a-z][a-z0-9_]*)$")


@pytest.fixture(scope="module")
def agg_dir(tmp_path_factory):
    return build_tiny_agg(tmp_path_factory.mktemp("agg"), runs=30, experiments=("grid",))


def _execute(name, workdir, params):
    import jupytext
    import papermill as pm

    src = workdir / f"{name}.input.ipynb"
    jupytext.write(read_source(ROOT / "notebooks" / f"{name}.py"), src)
    out = workdir / f"{name}.ipynb"
    pm.execute_notebook(
        str(src),
        str(out),
        parameters=params,
        kernel_name="python3",
        cwd=str(workdir),
        progress_bar=False,
    )
    strip_notebook_metadata(out)
    return out


def _markdown(nb_path: Path) -> str:
    """The Markdown the notebook displayed (``IPython.display.Markdown`` outputs)."""
    nb = json.loads(nb_path.read_text())
    return "\n".join(
        "".join(o["data"]["text/markdown"])
        for c in nb["cells"]
        for o in c.get("outputs", [])
        if "text/markdown" in o.get("data", {})
    )


@pytest.fixture(scope="module")
def heatmap_run(agg_dir, tmp_path_factory):
    """The heatmap notebook executed once on the tiny grid, with a hand-written record."""
    base = tmp_path_factory.mktemp("heatmap")
    checks_dir = base / "checks"
    write_check(HAND_CHECK, checks_dir / f"{HEATMAP_CLAIM}.json")

    def run(name):
        work = base / name
        work.mkdir()
        nb = _execute(
            "heatmap",
            work,
            {"agg_dir": str(agg_dir), "checks_dir": str(checks_dir), "out_dir": str(work / "res")},
        )
        return work, nb

    return run, run("a"), checks_dir


@pytest.mark.notebook
def test_heatmap_notebook_shows_its_check_and_writes_data(agg_dir, heatmap_run):
    _, (work, nb), checks_dir = heatmap_run
    res = work / "res"
    for f in ("figures/heatmap.pdf", "figures/heatmap.png", "tables/heatmap.csv"):
        assert (res / f).stat().st_size > 0, f
    # the notebook displays the record it was given, as Markdown, and writes no check
    assert check_markdown(HEATMAP_CLAIM, HAND_CHECK) in _markdown(nb)
    assert not (res / "checks").exists()
    assert read_check(checks_dir / f"{HEATMAP_CLAIM}.json") == HAND_CHECK
    # the table is data: raw numbers under plain column names
    table = pd.read_csv(res / "tables/heatmap.csv")
    assert list(table.columns) == [
        "K",
        "form_min",
        "form_max",
        "ratio_min",
        "ratio_median",
        "ratio_max",
    ]
    rps = select(pd.read_parquet(agg_dir / "grid.parquet"), "rps", "bernoulli", "standard")
    tab = rate_ratio_table(rps)
    expect = tab.groupby("K")["ratio"].agg(["min", "median", "max"]).reset_index()
    assert table["K"].tolist() == expect["K"].tolist()
    assert table["ratio_max"].tolist() == expect["max"].tolist()  # shortest round-trip floats
    # the residuals are C4's: regret over the form fitted by its check, per cell
    c4 = c4_rate.check_rate_form(rps, 1.5, 0.95)
    residuals = [c["ratio"] for c in c4["cells"] if "ratio" in c]
    assert max(table["form_max"]) == pytest.approx(max(residuals), rel=1e-4)  # record: 5 digits
    assert min(table["form_min"]) == pytest.approx(min(residuals), rel=1e-4)
    meta = json.loads(nb.read_text())
    assert "start_time" not in meta["metadata"]["papermill"]
    assert all("execution" not in c["metadata"] for c in meta["cells"])
    assert meta["cells"][0]["source"][0].startswith(f"# Figure {figure_number('heatmap')} ")


@pytest.mark.notebook
def test_heatmap_page_for_a_reviewer(heatmap_run):
    """The page of a notebook papermill ran: one parameters cell with the run's values, every
    code cell folded, the check record rendered (bold verdict, MathML, no Markdown asterisks)."""
    from bs4 import BeautifulSoup

    from privdtol.report.html.notebook_html import notebook_html

    _, (_, nb), checks_dir = heatmap_run
    soup = BeautifulSoup(notebook_html(nb), "html.parser")
    (parameters,) = soup.select("details.privdtol-parameters")
    assert str(checks_dir) in parameters.get_text()
    assert all(a.find_parent("details") for a in soup.select(".jp-CodeCell .jp-InputArea"))
    verdict = soup.find("strong", string=f"{HEATMAP_CLAIM}: FAIL")
    assert verdict is not None
    shown = verdict.find_parent(class_="jp-OutputArea-output")
    assert "hand-written summary 7f3a9c" in shown.get_text() and "**" not in shown.get_text()
    assert shown.find("math") is not None  # the registry's typeset statement


@pytest.mark.notebook
def test_heatmap_notebook_rerun_gives_identical_bytes(heatmap_run):
    """Figures, tables, and the executed notebook up to the output directory parameter (which
    differs between the two runs here) are byte-identical across reruns."""
    run, (work, nb), _ = heatmap_run
    other, nb_b = run("b")
    for f in ("figures/heatmap.pdf", "figures/heatmap.png", "tables/heatmap.csv"):
        assert (work / "res" / f).read_bytes() == (other / "res" / f).read_bytes(), f
    assert nb.read_text().replace(str(work), "W") == nb_b.read_text().replace(str(other), "W")


@pytest.mark.pipeline
@pytest.mark.notebook
def test_raising_notebook_fails_rule_and_keeps_partial_copy(agg_dir, tmp_path):
    pytest.importorskip("snakemake")
    work = tmp_path / "wf"
    (work / "results/agg").mkdir(parents=True)
    shutil.copy(SMOKE, work / "config.yaml")
    empty = pd.read_parquet(agg_dir / "grid.parquet").iloc[:0]
    empty.to_parquet(work / "results/agg/grid.parquet")  # no cells: the notebook raises
    write_check(HAND_CHECK, work / "results/checks/C4c.json")  # newer than its inputs
    (work / "notebooks").symlink_to(ROOT / "notebooks")
    rules = ROOT / "workflow/rules"
    (work / "Snakefile").write_text(
        'configfile: "config.yaml"\n'
        + "".join(
            f'include: "{rules / f}.smk"\n'
            for f in ("common", "config", "worst_case", "proof", "checks", "notebooks")
        )
    )
    proc = run_snakemake(work, "--cores", "1", "fig_heatmap", check=False, timeout=300)
    assert proc.returncode != 0
    partial = work / "logs/notebooks/heatmap.ipynb"
    assert partial.exists(), proc.stderr[-2000:]
    nb = json.loads(partial.read_text())
    assert nb["metadata"]["papermill"]["exception"] is True
    assert not (work / "results/notebooks/heatmap.ipynb").exists()
    assert not (work / "results/figures/heatmap.png").exists()
    shutil.rmtree(work / ".snakemake", ignore_errors=True)


PRIVACY_GRID = {
    "epsilons": [0.5],
    "K": [2],
    "blocks": [1, 16],
    "algorithms": ["rps"],
    "negative_controls": ["rps_eta_eps", "rps_data_prefix"],
    "exact": {"n_random": 20, "max_steps": 3},
    "sequence": {"K": [2], "horizon": 7, "n_random": 1},
    "statistical": {"algorithms": ["rps"], "K": [2], "runs": 500},
}


@pytest.mark.notebook
def test_every_notebook_reads_its_checks_and_writes_its_registry_tables(tmp_path):
    agg = build_tiny_agg(tmp_path / "agg", runs=20)
    build_tiny_agg(agg, runs=20, experiments=["agreement"])
    assert (
        main(
            [
                "audit-grid",
                "--grid-json",
                json.dumps(PRIVACY_GRID),
                "--out",
                str(agg / "privacy.parquet"),
            ]
        )
        == 0
    )
    floor = {"K": [2], "gap": [0.5], "epsilon": [0.5, 2.0], "max_rows": 200}
    out = str(agg / "floor.parquet")
    assert main(["floor-table", "--grid-json", json.dumps(floor), "--out", out]) == 0
    checks_dir = tmp_path / "checks"
    checks_dir.mkdir()  # privdtol check --out needs an existing directory
    for claim in CLAIMS:
        assert (
            main(
                [
                    "check",
                    "--claim",
                    claim,
                    "--config",
                    str(ROOT / "config/smoke.yaml"),
                    "--agg-dir",
                    str(agg),
                    "--out",
                    str(checks_dir / f"{claim}.json"),
                ]
            )
            == 0
        )
    for name, spec in NOTEBOOKS.items():
        work = tmp_path / name
        work.mkdir()
        nb = _execute(
            name, work, {"agg_dir": str(agg), "checks_dir": str(checks_dir), "out_dir": str(work)}
        )
        for ext in ("pdf", "png"):
            assert (work / "figures" / f"{name}.{ext}").stat().st_size > 0
        for table in spec.tables:
            df = pd.read_csv(work / "tables" / f"{table}.csv")
            assert len(df) > 0, table
            assert all(COLUMN.match(c) for c in df.columns), (table, list(df.columns))
        assert sorted(p.stem for p in (work / "tables").iterdir()) == sorted(spec.tables)
        shown = _markdown(nb)
        for claim in notebook_claims(name):
            assert check_markdown(claim, read_check(checks_dir / f"{claim}.json")) in shown
        title = json.loads(nb.read_text())["cells"][0]["source"][0]
        assert title.startswith(f"# Figure {figure_number(name)} "), title


@pytest.mark.notebook
def test_the_privacy_figure_shows_an_infinite_loss_bound_instead_of_failing(tmp_path):
    """A plugin in the statistical audit far from its bound gave loss_upper = inf, and the
    privacy notebook failed ("Axis limits cannot be NaN or Inf"): every other result lost its
    report.  Now the axes span the finite values and the panel says a bound is infinite."""
    grid = {
        **PRIVACY_GRID,
        "blocks": [1],
        "statistical": {**PRIVACY_GRID["statistical"], "runs": 50},
    }
    table = tmp_path / "privacy.parquet"
    assert main(["audit-grid", "--grid-json", json.dumps(grid), "--out", str(table)]) == 0
    from privdtol.pipeline.io import read_table, write_table

    df = read_table(table)
    df.loc[df.audit == "statistical", "loss_upper"] = float("inf")
    write_table(df, table)
    (tmp_path / "checks").mkdir()
    params = {"agg_dir": str(tmp_path), "checks_dir": str(tmp_path / "checks")}
    _execute("privacy", tmp_path, {**params, "out_dir": str(tmp_path)})
    pdf = tmp_path / "figures" / "privacy.pdf"
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "a loss bound is infinite" in text
