"""A fabricated results tree for the report's tests (tests/report/latex/test_assets.py and
tests/workflow/test_report_text.py): every kind of input ``privdtol report-assets`` reads
(check records, figures, notebook tables, aggregated tables, benchmarks), the config it is run
with, and the text of a compiled PDF."""

from __future__ import annotations

import functools
import io
import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privdtol.analysis.registry import NOTEBOOKS
from privdtol.cli import main
from privdtol.pipeline import aggregate
from privdtol.pipeline.semantics import PIPELINE_TABLES
from privdtol.report.latex.numbers import regret_experiments
from support.paths import ROOT
from support.records import check_json
from support.tables import agg_table, table_frame

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


def run_assets(tmp_path: Path, results: Path, out: Path, config: dict | None = None) -> int:
    """``privdtol report-assets`` on ``results`` with ``config`` (default :data:`CONFIG`); its
    exit code."""
    config_file = tmp_path / "config.yaml"
    # the aggregated tables are read from the config's agg_dir (as every job reads them)
    config_file.write_text(yaml.safe_dump({**(config or CONFIG), "agg_dir": str(results / "agg")}))
    args = ["--config", str(config_file), "--results", str(results), "--out", str(out)]
    return main(["report-assets", *args, "--repo", str(ROOT)])


def pdf_text(pdf: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
