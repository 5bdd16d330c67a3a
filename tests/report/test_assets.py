"""Tests of :mod:`privdtol.report.assets`: ``privdtol report-assets`` on a fabricated results
tree writes every generated LaTeX file (verdicts, claims in their notebook sections, not-run
boxes for what is missing), refuses a defective input in one line, and the report compiled from
them shows every verdict and is reproducible."""

from __future__ import annotations

import functools
import io
import json
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from support.paths import ROOT
from support.records import check_json
from support.tables import agg_table, table_frame

from privdtol.analysis.diagnosis import DEVIATIONS
from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, NOTEBOOKS, diagnostics, paper_claims
from privdtol.cli import main
from privdtol.pipeline import aggregate
from privdtol.pipeline.aggregate import PIPELINE_TABLES
from privdtol.report.assets import (
    claim_prefix,
    generated_files,
    regret_experiments,
    result_tables,
    table_context,
)
from privdtol.report.compile import compile_pdf
from privdtol.report.figure_order import figure_number, notebooks_in_order
from privdtol.report.layout import APPENDIX_SECTIONS, SECTIONS
from privdtol.report.provenance import source_date_epoch
from privdtol.report.tables import MAX_ROWS, WIDE_LONGTABLE
from privdtol.report.templating import fill_template

TEX = ROOT / "paper" / "replication_report.tex"


#: C1 is absent (not run); C4 and C4c get different verdicts so a swap shows
VERDICT_OF = {
    "C2": "PASS",
    "C3": "PASS",
    "C4": "PASS",
    "C4a": "FAIL",
    "C4b": "INCONCLUSIVE",
    "C4c": "FAIL",
    "C5": "PASS",
}


SKIPPED_NOTEBOOK = "ablations"  # its figure, table and aggregated table are absent


CONFIG = {
    "runs": 20,
    "checks": {"exponent_range": [0.8, 1.2], "confidence": 0.95},
    "experiments": [
        {
            "name": e,
            "description": f"the {e} experiment",
            "algorithms": ["rps", "wu_wang"],
            "K": [2, 8],
            "gap": [0.5, 0.125],
            "epsilon": [1.0],
            "horizon": [(1 << 30) - 1],
            **(
                {
                    "env": "correlated",
                    "rho": [0.5],
                    "slices": [{"name": "correlated", "env": "correlated", "rho": [0.5]}],
                }
                if e == "dependent"
                else {}
            ),
        }
        for e in regret_experiments()
        if e not in PIPELINE_TABLES  # worst_case: the searches' table, not an experiment's
    ],
}


needs_latex = pytest.mark.skipif(
    shutil.which("latexmk") is None or shutil.which("pdftotext") is None,
    reason="latexmk/pdftotext not installed (apt-get install latexmk texlive-latex-base "
    "texlive-latex-recommended texlive-science poppler-utils)",
)


def regret_table(experiment: str) -> pd.DataFrame:
    """The aggregated table of ``experiment``: rps at K = 2 and 8, wu_wang at K = 8, each at
    two horizons, every column of the contract filled (the reader requires them all)."""

    def mean(cell, horizon):
        return 10.0 * (int(cell["cell_id"].rsplit("-", 1)[1]) + 1) * (1 + horizon / 2**31)

    cells = [
        {"cell_id": f"{experiment}-{i}", "algorithm": alg, "K": K}
        for i, (alg, K) in enumerate([("rps", 2), ("rps", 8), ("wu_wang", 8)])
    ]
    return agg_table(
        cells,
        horizons=(1023, (1 << 30) - 1),
        columns=aggregate.COLUMNS,
        experiment=experiment,
        tail_mean=0.0,
        tail_se=0.0,
        gap=0.25,
        eta=0.125,
        mu_best=0.375,
        runs=20,
        estimator="rao_blackwell",
        mean=mean,
        se=0.1,
        ci_low=lambda c, h: mean(c, h) - 0.2,
        ci_high=lambda c, h: mean(c, h) + 0.2,
        **dict.fromkeys(("q05", "q25", "q50", "q75", "q95", "mean_realized"), mean),
        se_realized=0.2,
        bound_thm1=1000.0,
        bound_corollary=5000.0,
        rate=5.0,
        lower_shape=3.0,
        wu_wang_shape=6.0,
    )


@functools.cache
def figure_pdf() -> bytes:
    """One small matplotlib figure as PDF bytes (every fabricated figure is a copy)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot([1, 2, 3], [1, 4, 9], label="regret")
    ax.set_xlabel("horizon $T$")
    ax.legend()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="pdf", metadata={"CreationDate": None})
    plt.close(fig)
    return buffer.getvalue()


def fabricate(results: Path, missing=("C1",), skip=(SKIPPED_NOTEBOOK,)) -> Path:
    """A results tree with every kind of input the report reads."""
    for sub in (
        "checks",
        "figures",
        "tables",
        "agg",
        "benchmarks/simulate",
        "benchmarks/aggregate",
        "notebooks",
    ):
        (results / sub).mkdir(parents=True, exist_ok=True)
    for claim, verdict in VERDICT_OF.items():
        if claim not in missing:
            (results / "checks" / f"{claim}.json").write_text(
                json.dumps(check_json(claim, verdict))
            )
    for name, nb in NOTEBOOKS.items():
        if name in skip:
            continue
        (results / "figures" / f"{name}.pdf").write_bytes(figure_pdf())
        for table in nb.tables:
            table_frame(table).to_csv(results / "tables" / f"{table}.csv", index=False)
    skipped = {e for n in skip for e in NOTEBOOKS[n].experiments}
    for exp in regret_experiments():
        if exp not in skipped:
            regret_table(exp).to_parquet(results / "agg" / f"{exp}.parquet", index=False)
    bench = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for i in range(3):
        (results / "benchmarks/simulate" / f"cell{i}.tsv").write_text(
            bench + f"{1.5 + i}\t0:00:01\t120.5\t300\t100\t100\t0\t1\t50\t1.2\n"
        )
    (results / "benchmarks/aggregate" / "horizon.tsv").write_text(
        bench + "0.7\t0:00:00\t80.0\t200\t70\t70\t0\t1\t40\t0.5\n"
    )
    (results / "notebooks" / "horizon.ipynb").write_text("{}")
    return results


def run_assets(tmp_path: Path, results: Path, out: Path) -> int:
    """``privdtol report-assets`` on ``results`` with :data:`CONFIG`; its exit code."""
    config_file = tmp_path / "config.yaml"
    config_file.write_text(yaml.safe_dump(CONFIG))
    args = ["--config", str(config_file), "--results", str(results), "--out", str(out)]
    return main(["report-assets", *args, "--repo", str(ROOT)])


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
    assert diagnostics() == ["C0", "C4", "C4a", "C4b", "C4c"]
    assert r"\newcommand{\ClaimsTotal}{11}" in numbers and r"\newcommand{\ClaimsRun}{3}" in numbers
    assert r"\newcommand{\ClaimsFail}{0}" in numbers
    # independent: neither implied by another tested claim nor an identity
    assert r"\newcommand{\IndependentTotal}{6}" in numbers
    assert r"\newcommand{\IndependentList}{C1, C5, C6, C7, L5a, L5b}" in numbers
    assert r"\newcommand{\DiagnosticsTotal}{5}" in numbers
    assert r"\newcommand{\DiagnosticsFail}{2}" in numbers
    assert r"\newcommand{\DeviationsTotal}{" + str(len(DEVIATIONS)) + "}" in numbers
    verdicts = (gen / "verdicts.tex").read_text()
    assert "booktabs" not in verdicts and r"\toprule" in verdicts  # a fragment, not a document
    for name, ids in (("verdicts.tex", paper_claims()), ("diagnostics.tex", diagnostics())):
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
    assert r"\paragraph{C1:" in failures and r"\paragraph{C4c:" in failures
    assert r"\paragraph{C2:" not in failures
    assert "Cells] cells at $K = 2$" in failures  # C4a's diagnosis
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
    assert list(appendix) == [n for n in notebooks_in_order() if n in APPENDIX_SECTIONS]
    assert list(main) == [n for n in notebooks_in_order() if n not in APPENDIX_SECTIONS]
    assert set(APPENDIX_SECTIONS) == {"rates", "actions", "ablations", "agreement"}
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


def test_estimator_counts_name_block_cells_simulated_by_monte_carlo():
    """The methods paragraph states how many cells were exact and which block-algorithm cells
    (on a loss model the exact engine covers) were simulated instead, by experiment; a cell
    shared by two experiments counts once."""
    import pandas as pd

    from privdtol.report.assets import estimator_counts

    def rows(exp, specs):
        return pd.DataFrame(
            [
                {"experiment": exp, "cell_id": c, "algorithm": a, "env": e, "estimator": s}
                for c, a, e, s in specs
            ]
        )

    agg = {
        "gap": rows("gap", [("a", "rps", "bernoulli", "exact"), ("b", "ftl", "bernoulli", "mc")]),
        "grid": rows("grid", [("a", "rps", "bernoulli", "exact")]),  # shared with gap
        "dependent": rows("dependent", [("c", "rps", "correlated", "block_sums")]),
        "agreement": rows("agreement", [("d", "rnm_ftnl", "bernoulli", "block_sums")]),
    }
    got = estimator_counts(agg)
    assert (got["ExactCells"], got["AllCells"], got["BlockMonteCarloCells"]) == (1, 4, 1)
    assert "agreement" in got["exps"] and "dependent" not in got["exps"]


def pdf_text(pdf: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout


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
    table = text[: text.index("The claims")]
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
        caption = SECTIONS[name].figure_caption.split()[0]
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
