"""The whole pipeline on the smoke config, as a user runs it: simulations, aggregation, privacy
audit, checks, every notebook and the LaTeX report; the PDF's text must carry every claim's
verdict, every figure (numbered by its place in the report, privdtol.report.figure_order) and every
table; tests/workflow/test_report_pages.py reads the same build's pages."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

needs_tex = pytest.mark.skipif(
    shutil.which("latexmk") is None
    or shutil.which("pdftotext") is None
    or shutil.which("dot") is None,
    reason="needs latexmk, pdftotext and graphviz (make setup installs them)",
)


@pytest.mark.slow
@needs_tex
def test_report_pdf_states_every_verdict(smoke_run):
    from privdtol.analysis.registry import CLAIMS

    pdf = smoke_run / "results" / "report" / "replication_report.pdf"
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    # every check record (power.json, the size and power of the checks, and multiverse.json,
    # the verdicts over the threshold ranges, are not ones)
    checks = sorted(
        p
        for p in (smoke_run / "results" / "checks").glob("*.json")
        if p.stem not in ("power", "multiverse", "battery", "by_algorithm", "out_of_sample")
    )
    claims = {p.stem for p in checks if "--" not in p.stem}
    assert claims == set(CLAIMS)  # the smoke config checks every claim
    controls = {p.stem for p in checks if "--" in p.stem}
    assert {f"{c}--{a}" for c in CLAIMS for a in CLAIMS[c].controls} >= controls
    # every claim with controls has one in the smoke config (C1's: the audit's own controls)
    with_controls = {c for c in CLAIMS if CLAIMS[c].controls}
    assert {c.partition("--")[0] for c in controls} == with_controls
    # the verdict table (page 1) and the diagnostics table (section 1) have a row per claim,
    # starting with its id; a control's verdict is under its claim's statement in the claims
    # appendix ("Negative control <name> (...): estimate ..., verdict FAIL"; pdftotext may
    # render underscores as spaces and break a line anywhere)
    claims_appendix = text[re.search(r"^\s*B\s+The claims\s*$", text, re.M).end() :]
    # the diagnostics' and cited works' tables open the claims appendix, before its first claim
    first_claim = re.search(r"^\s*C0: ", claims_appendix, re.M)
    table = (
        text[: re.search(r"^\s*2\s+Evidence\s*$", text, re.M).start()]
        + claims_appendix[: first_claim.start() if first_claim else 5000]
    )
    for path in checks:
        check = json.loads(path.read_text())
        if check["control_of"]:
            name = r"[\s_]+".join(check["algorithm"].split("_"))
            start = re.search(rf"^\s*{check['claim']}: ", claims_appendix, re.M)
            assert start, check["claim"]
            row = re.search(
                rf"Negative\s+control\s+{name}\b.*?verdict\s+(PASS|FAIL|INCONCLUSIVE)",
                claims_appendix[start.end() :],
                re.S,
            )
        else:
            row = re.search(
                rf"^\s*{check['claim']}\b.*?(PASS|FAIL|INCONCLUSIVE|not run)", table, re.M | re.S
            )
        assert row and row.group(1) == check["verdict"], (path.name, check["verdict"])


@pytest.mark.slow
@needs_tex
def test_every_figure_table_and_executed_notebook_exists(smoke_run):
    from privdtol.analysis.registry import NOTEBOOKS
    from privdtol.report.figure_order import figure_number

    res = smoke_run / "results"
    pdf = res / "report" / "replication_report.pdf"
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    # every figure and table of every notebook is in the report
    assert "not run: figure" not in text and "not run: table" not in text
    for name, nb in NOTEBOOKS.items():
        assert (res / "figures" / f"{name}.pdf").stat().st_size > 0
        assert (res / "figures" / f"{name}.png").stat().st_size > 0
        assert f"Figure {figure_number(name)}:" in text
        for table in nb.tables:
            assert (res / "tables" / f"{table}.csv").stat().st_size > 0
        notebook = json.loads((res / "notebooks" / f"{name}.ipynb").read_text())
        assert "start_time" not in json.dumps(notebook.get("metadata", {}).get("papermill", {}))
        assert (res / "notebooks" / f"{name}.html").exists()


#: the direction of each worst-instance objective (+1 maximised, -1 minimised), by hand
OBJECTIVE_SIGN = {"theorem1": 1, "lower_max": 1, "lower_min": -1, "eq6": 1}
#: page 1's worst-instance sentence's wording of each objective
OBJECTIVE_WORDS = {
    "theorem1": r"over Theorem~1's bound",
    "lower_max": r"the largest $\mathrm{Reg}_T/\mathrm{LB}_T$",
    "lower_min": r"the smallest $\mathrm{Reg}_T/\mathrm{LB}_T$",
    "eq6": r"\texttt{eq6}",
}


def page_one_disagreements(results) -> list[str]:
    """Page 1's run counts (``numbers.tex``) and its searches beaten per objective
    (``summary-findings.tex``) against the same numbers recomputed with pandas from the
    aggregated tables a build wrote: distinct cells over the regret experiments, their runs,
    and per objective the searches whose value beats the standard instance's by more than the
    search's tolerance.  Returns what disagrees (nothing on a sound build)."""
    import pandas as pd

    from privdtol.report.latex.numbers import regret_experiments

    gen = results / "report" / "generated"
    numbers = (gen / "numbers.tex").read_text()
    page = (gen / "summary-findings.tex").read_text()
    frames = [
        pd.read_parquet(results / "agg" / f"{e}.parquet")
        for e in regret_experiments()
        if (results / "agg" / f"{e}.parquet").exists()
    ]
    cells = pd.concat([f[["cell_id", "runs", "estimator"]] for f in frames])
    per_cell = cells.groupby("cell_id").agg(runs=("runs", "max"), est=("estimator", "first"))
    want = {
        "AllCells": len(per_cell),
        "ExactCells": int((per_cell["est"] == "exact").sum()),
        "TotalRuns": int(per_cell["runs"].sum()),
    }
    wrong = []
    for name, value in want.items():
        got = re.search(rf"\\newcommand{{\\{name}}}{{\\num{{(\d+)}}}}", numbers)
        if not got or int(got.group(1)) != value:
            wrong.append(f"{name}: page 1 {got and got.group(1)}, tables {value}")
    searches = results / "agg" / "searches.parquet"
    if searches.exists():
        df = pd.read_parquet(searches)
        for objective, rows in df.groupby("objective"):
            gain = (rows["value"] / rows["standard_value"] - 1) * OBJECTIVE_SIGN[objective]
            beaten = int((gain > rows["tolerance"]).sum())
            said = f"{beaten} on {OBJECTIVE_WORDS[objective]}"
            if objective == "theorem1":
                said = f"{beaten} on $\\mathrm{{Reg}}_T$ {OBJECTIVE_WORDS[objective]}"
            if said not in " ".join(page.split()):
                wrong.append(f"{objective}: page 1 lacks '{said}'")
    return wrong


@pytest.mark.slow
def test_page_one_numbers_agree_with_the_tables(smoke_run):
    """No number of page 1 (runs, cells, searches beaten per objective) disagrees with the
    aggregated tables of the build, recomputed independently of the report's code."""
    assert page_one_disagreements(smoke_run / "results") == []
