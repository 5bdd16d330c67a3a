"""Tests of :mod:`privdtol.report.latex.assets`: ``privdtol report-assets`` on a fabricated results
tree writes every generated LaTeX file (verdicts, claims in their notebook sections, not-run
boxes for what is missing), refuses a defective input in one line, and the report compiled from
them shows every verdict and is reproducible."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.paths import ROOT
from support.records import check_json
from support.report_results import (
    CONFIG,
    TEX,
    VERDICT_OF,
    fabricate,
    needs_latex,
    pdf_text,
    regret_table,
    run_assets,
)

from privdtol.analysis.diagnosis import DEVIATIONS
from privdtol.analysis.registry import (
    CLAIMS,
    CLAIMS_TEX,
    NOTEBOOKS,
    cited_claims,
    diagnostics,
    paper_claims,
)
from privdtol.cli import main
from privdtol.report.build.compile import compile_pdf
from privdtol.report.figure_order import figure_number, notebooks_in_order
from privdtol.report.latex.assets import claim_prefix, generated_files, result_tables, table_context
from privdtol.report.latex.numbers import regret_experiments
from privdtol.report.latex.provenance import source_date_epoch
from privdtol.report.latex.tables import MAX_ROWS, WIDE_LONGTABLE
from privdtol.report.latex.templating import fill_template


def build(tmp_path: Path, **kw) -> tuple[Path, Path]:
    results = fabricate(tmp_path / "results", **kw)
    gen = results / "report" / "generated"
    assert run_assets(tmp_path, results, gen) == 0
    return results, gen


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """One report-assets build from :func:`fabricate`'s tree, shared by the tests that only
    read it: (results, generated)."""
    return build(tmp_path_factory.mktemp("built"))


def subsections(text: str) -> dict[str, str]:
    """experiment-sections.tex split by subsection, keyed by the label's notebook name."""
    out = {}
    for chunk in text.split(r"\subsection{")[1:]:
        label = chunk[chunk.index(r"\label{sec:") + len(r"\label{sec:") :]
        out[label[: label.index("}")]] = chunk
    return out


def test_assets_written(built):
    _, gen = built
    assert sorted(p.name for p in gen.iterdir()) == sorted(generated_files())
    numbers = (gen / "numbers.tex").read_text()
    assert r"\newcommand{\CtwoVerdict}{\VerdictPass}" in numbers
    assert r"\newcommand{\ConeVerdict}{\VerdictNotRun}" in numbers
    assert r"\newcommand{\CfourbVerdict}{\VerdictInconclusive}" in numbers
    assert r"\newcommand{\CfourcVerdict}{\VerdictFail}" in numbers
    assert r"\newcommand{\CfourVerdict}{\VerdictPass}" in numbers
    # the titles are the registry's LaTeX, written once
    assert r"\newcommand{\CtwoTitle}{" + CLAIMS_TEX["C2"].title + "}" in numbers
    assert r"\newcommand{\ConeTitle}{Event-level pure $\varepsilon$-DP}" in numbers
    assert r"\newcommand{\AblationsCells}{\NotRunText}" in numbers
    # the paper's claims only (C0 and the exponent fits C4a-C4c are diagnostics)
    assert paper_claims() == ["C1", "C2", "C2b", "C3", "C5", "C6", "C7", "L4", "L5", "L5a", "L5b"]
    assert diagnostics() == ["C0", "C4", "C4a", "C4b", "C4c", "C8a", "C8b"]
    assert r"\newcommand{\ClaimsTotal}{11}" in numbers and r"\newcommand{\ClaimsRun}{3}" in numbers
    assert r"\newcommand{\ClaimsFail}{0}" in numbers
    # independent: neither implied by another tested claim nor an identity
    assert r"\newcommand{\IndependentTotal}{5}" in numbers
    assert r"\newcommand{\IndependentList}{C1, C5, C7, L5a, L5b}" in numbers
    assert r"\newcommand{\DiagnosticsTotal}{7}" in numbers
    assert r"\newcommand{\DiagnosticsFail}{2}" in numbers
    # the claims of the cited works: their own table and count, out of the paper's
    assert r"\newcommand{\CitedTotal}{2}" in numbers
    assert r"\newcommand{\DeviationsTotal}{" + str(len(DEVIATIONS)) + "}" in numbers
    verdicts = (gen / "verdicts.tex").read_text()
    assert "booktabs" not in verdicts and r"\toprule" in verdicts  # a fragment, not a document
    tables = (
        ("verdicts.tex", paper_claims()),
        ("diagnostics.tex", diagnostics()),
        ("cited.tex", cited_claims()),
    )
    for name, ids in tables:
        rows = [ln.split(" & ")[0] for ln in (gen / name).read_text().splitlines()[4:-2]]
        assert rows == [rf"\hyperref[claim:{c}]{{\textbf{{{c}}}}}" for c in ids]  # in order
    labels = list(CLAIMS)
    claims = (gen / "claims.tex").read_text()
    assert [c for c in CLAIMS if rf"\label{{claim:{c}}}" in claims] == labels  # each once
    assert all(claims.count(rf"\label{{claim:{c}}}") == 1 for c in labels)
    assert (gen / "tab-ablations.tex").read_text().startswith("%")
    # the synthetic tables have 11 columns: in the appendix, on a landscape page
    assert r"\begin{longtable}" in (gen / "tab-rates.tex").read_text()
    assert r"\begin{landscape}" in (gen / "appendix-tables.tex").read_text()
    sections = (gen / "appendix-sections.tex").read_text()  # the ablations: an appendix section
    assert r"\NotRun{table \texttt{ablations}" in sections
    assert r"\NotRun{figure \texttt{ablations}" in sections
    failures = (gen / "failures.tex").read_text()
    assert r"\item \textbf{C1}" in failures and r"\item \textbf{C4c}" in failures
    assert r"\textbf{C2}" not in failures
    # the cells and follow-up of each are in the appendix, a follow-up said once
    diagnoses = (gen / "diagnoses.tex").read_text()
    assert "C4a: cells at $K = 2$" in diagnoses  # C4a's diagnosis
    assert r"\textit{Cells:}" not in failures
    assert "not available" in (gen / "power.tex").read_text()  # no power.json here
    prov = (gen / "provenance.tex").read_text()
    assert "simulate" in prov and "aggregate" in prov
    assert "horizon.ipynb" in prov.replace(r"\allowbreak{}", "")
    assert "SourceDateEpoch" not in prov  # the date is computed, never read back
    grid = (gen / "grid.tex").read_text()
    assert r"\texttt{dependent}" in grid and "rho" in grid
    assert "instance:" not in grid  # schema defaults the config did not set are not shown


def test_claims_are_shown_in_their_notebook_section(built):
    _, gen = built
    main = subsections((gen / "experiment-sections.tex").read_text())
    appendix = subsections((gen / "appendix-sections.tex").read_text())
    # the main text keeps the claims' notebooks, the appendix the diagnostics' and ablations'
    assert list(appendix) == [n for n in notebooks_in_order() if NOTEBOOKS[n].appendix]
    assert list(main) == [n for n in notebooks_in_order() if not NOTEBOOKS[n].appendix]
    assert set(appendix) == {
        "rates",
        "actions",
        "ablations",
        "agreement",
        "floor",
        "separation",
    }
    sections = {**main, **appendix}
    for claim in CLAIMS.values():
        ref = rf"\ClaimRef{{{claim.id}}}{{{claim_prefix(claim.id)}}}"
        homes = [n for n, text in sections.items() if ref in text]
        assert homes == [claim.notebook], (claim.id, homes)
    # C4 is the form fit on the grid, C4c the exponent of log K
    assert r"\ClaimRef{C4}{Cfour}" in sections["heatmap"]
    assert r"\ClaimRef{C4c}{Cfourc}" in sections["actions"]
    for name, text in sections.items():
        assert r"\setcounter{figure}" not in text  # LaTeX's counter numbers the figures
        assert rf"\NotebookLinks{{{name}}}" in text  # figure linked to its notebook


def drop_verdict(results: Path) -> None:
    path = results / "checks" / "C3.json"
    path.write_text(
        json.dumps({k: v for k, v in check_json("C3", "PASS").items() if k != "verdict"})
    )


def empty_table(results: Path) -> None:
    (results / "tables" / "rates.csv").write_text("")


@pytest.mark.parametrize(
    "defect, words", [(drop_verdict, ("C3.json", "'verdict'")), (empty_table, ("rates.csv",))]
)
def test_defective_input_is_one_line_error(tmp_path, capsys, defect, words):
    results = fabricate(tmp_path / "results")
    defect(results)
    assert run_assets(tmp_path, results, tmp_path / "gen") == 2
    msg = capsys.readouterr().err.strip()
    assert len(msg.splitlines()) == 1 and all(w in msg for w in words), msg
    assert not (tmp_path / "gen").exists()  # nothing written


@pytest.mark.slow
@needs_latex
def test_report_pdf_is_reproducible(tmp_path):
    """Two builds from the same inputs give the same PDF bytes (dates pinned to the commit)."""
    results, gen = build(tmp_path / "one")
    _, gen2 = build(tmp_path / "two")
    for name in generated_files():
        if name != "provenance.tex":  # holds the (identical) paths of the config files
            assert (gen / name).read_bytes() == (gen2 / name).read_bytes(), name
    epoch = source_date_epoch(ROOT)
    first = compile_pdf(
        TEX, gen, results, tmp_path / "a" / "report.pdf", source_date_epoch=epoch
    ).read_bytes()
    second = compile_pdf(
        TEX, gen, results, tmp_path / "b" / "report.pdf", source_date_epoch=epoch
    ).read_bytes()
    assert first == second
    assert b"CreationDate" not in first and b"ModDate" not in first
    assert result_tables() and all(f"tab-{t}.tex" in generated_files() for t in result_tables())


#: ASCII stand-ins for mathematics that must not reach the reader (outside code font)
ASCII_MATH = re.compile(r"\beps\b|\beta\b|\bmu_|\bkappa\b|<=|˜|\bDelta\b|\blog K/gap\b")


def code_font_texts(*folders: Path) -> set[str]:
    """What the LaTeX sources print in code font (``\\texttt{...}``), unescaped."""
    out = set()
    for folder in folders:
        for path in folder.rglob("*.tex"):
            for body in re.findall(r"\\texttt\{((?:[^{}]|\{[^{}]*\})*)\}", path.read_text()):
                out.add(re.sub(r"\\allowbreak\{\}|\\(?=[_&%#$])", "", body))
    return out


def ascii_math(pdf: Path, *sources: Path) -> list[str]:
    """The lines of the PDF's text with an ASCII stand-in for mathematics, once the code-font
    texts of ``sources`` (identifiers, paths, commands) are removed."""
    text = pdf_text(pdf)
    for code in sorted(code_font_texts(*sources), key=len, reverse=True):
        # OT1's typewriter "_" is a rule, which pdftotext reads as a space
        text = text.replace(code, "").replace(code.replace("_", " "), "")
    return [ln for ln in text.splitlines() if ASCII_MATH.search(ln)]


def link_annotations(pdf: Path) -> int:
    """The number of link annotations (``/Subtype/Link``) of a PDF, compressed object streams
    included."""
    data = pdf.read_bytes()
    found = data.count(b"/Subtype/Link") + data.count(b"/Subtype /Link")
    for chunk in re.findall(rb"stream\r?\n(.*?)endstream", data, flags=re.S):
        try:
            inflated = zlib.decompress(chunk)
        except zlib.error:
            continue
        found += inflated.count(b"/Subtype/Link") + inflated.count(b"/Subtype /Link")
    return found


@needs_latex
def test_report_pdf_has_every_verdict(built, tmp_path):
    results, gen = built
    pdf = tmp_path / "replication_report.pdf"
    args = ["--tex", str(TEX), "--generated", str(gen), "--results", str(results)]
    assert main(["report-compile", *args, "--out", str(pdf), "--repo", str(ROOT)]) == 0
    text = pdf_text(pdf)
    lines = text.splitlines()
    # the verdict table (page 1), and the diagnostics' and cited works' tables, which open the
    # claims appendix before its first claim's statement
    start = text.index("have their own tables.")
    first = text.find("\nC0:", start)
    table = text[: first if first > 0 else start + 4000]
    for claim, verdict in VERDICT_OF.items():
        label = claim
        assert any(ln.lstrip().startswith(label) and verdict in ln for ln in table.splitlines()), (
            claim,
            verdict,
        )
    assert any("C1" in ln and "not run" in ln for ln in table.splitlines())
    assert "What did not replicate" in text
    # the ablations notebook was not run: its figure and table are "not run" boxes
    assert "not run: figure ablations" in text and "not run: table ablations" in text
    # figure numbers are their places in the report (privdtol.report.figure_order)
    for name in NOTEBOOKS:
        caption = NOTEBOOKS[name].caption.split()[0]
        assert any(f"Figure {figure_number(name)}: {caption}" in ln for ln in lines), name
    # no ASCII stand-ins for mathematics outside code font
    assert not ascii_math(pdf, gen, ROOT / "paper"), ascii_math(pdf, gen, ROOT / "paper")
    # hyperlinks: at least one per figure (its notebook) plus the paper
    assert link_annotations(pdf) >= len(NOTEBOOKS) + 1
    # C4c's row is the exponent of log K (its registry title)
    diagnostics_table = table[table.index("Diagnostics") :]
    c4c = " ".join(diagnostics_table[diagnostics_table.index("C4c") :].split())
    assert "not log" in c4c[:200] and "FAIL" in c4c[:200]


# ----------------------------------------------------------------------------- placement
# the main text holds short narrow tables; one longer than a page or of many columns (which
# the main text's line would shrink past legibility) goes to the appendix, a wide one on a
# landscape page


def _write_table(results, name, rows, columns):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.random((rows, columns)), columns=[f"c{i}" for i in range(columns)])
    (results / "tables").mkdir(parents=True, exist_ok=True)
    df.to_csv(results / "tables" / f"{name}.csv", index=False)


def test_short_narrow_wide_and_long_tables(tmp_path):
    _write_table(tmp_path, "horizon", 3, 4)
    small = table_context(tmp_path, "horizon", "horizon")
    assert not small["appendix"] and not small["landscape"]
    _write_table(tmp_path, "horizon", 3, WIDE_LONGTABLE)
    wide = table_context(tmp_path, "horizon", "horizon")
    assert wide["appendix"] and wide["landscape"]
    _write_table(tmp_path, "horizon", MAX_ROWS + 1, 4)
    long = table_context(tmp_path, "horizon", "horizon")
    assert long["appendix"] and not long["landscape"]
    tex = fill_template("appendix-tables.tex.j2", tables=[wide, long])
    assert tex.count(r"\begin{landscape}") == 1 and tex.count(r"\end{landscape}") == 1
    begin, end = tex.index(r"\begin{landscape}"), tex.index(r"\end{landscape}")
    assert begin < tex.index("tab-horizon") < end


# ----------------------------------------------------------------------------- the run's config
# (a past bug: with agg_dir: results/aggX the report said "Experiments aggregated 0": it read a
# hard-coded results/agg, where a stale table would have been mixed in silently)


def test_the_aggregated_tables_are_read_from_the_config_s_agg_dir(tmp_path):
    import yaml

    results = fabricate(tmp_path / "results")
    (results / "agg").rename(results / "aggX")
    (results / "agg").mkdir()  # a stale table at the default place
    regret_table("horizon").head(1).to_parquet(results / "agg" / "horizon.parquet")
    config_file = tmp_path / "config.yaml"
    config_file.write_text(yaml.safe_dump({**CONFIG, "agg_dir": str(results / "aggX")}))
    gen = results / "report" / "generated"
    args = ["--config", str(config_file), "--results", str(results), "--out", str(gen)]
    assert main(["report-assets", *args, "--repo", str(ROOT)]) == 0
    numbers = (gen / "numbers.tex").read_text()
    assert r"\newcommand{\HorizonCells}{\num{3}}" in numbers  # aggX's three, not the stale one
    assert r"\newcommand{\HorizonRuns}{\num{20}}" in numbers
    provenance = (gen / "provenance.tex").read_text()
    assert rf"Experiments aggregated & {len(regret_experiments()) - 1} \\" in provenance
