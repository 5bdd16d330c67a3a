"""The LaTeX replication report: generated assets from a fabricated results tree, the PDF's
text (every claim's verdict, "not run" for a missing claim), and one-line input errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privdtol.cli import main
from privdtol.errors import InputError
from privdtol.report.assets import CLAIMS, EXPERIMENTS, GENERATED, RESULTS, build_assets, load_check
from privdtol.report.latex import compile_pdf, log_problems, macro_name, tex_escape

ROOT = Path(__file__).resolve().parents[1]
TEX = ROOT / "paper" / "replication_report.tex"
VERDICT_OF = {"C2": "PASS", "C3": "PASS", "C4a": "FAIL", "C4b": "INCONCLUSIVE", "C4c": "PASS",
              "C4d": "PASS", "C5": "PASS", "constants": "INCONCLUSIVE"}  # C1: absent
EXPERIMENT_OF = {"C2": "grid", "C3": "horizon", "C4a": "gap", "C4b": "epsilon",
                 "C4c": "actions", "C4d": "grid", "C5": "dependent", "constants": "grid"}
CONFIG = {
    "runs": 20,
    "checks": {"slope_range": [0.8, 1.2], "confidence": 0.95},
    "experiments": [
        {"name": e, "description": f"the {e} experiment", "algorithms": ["rps", "wu_wang"],
         "K": [2, 8], "gap": [0.5, 0.125], "epsilon": [1.0], "horizon": [(1 << 30) - 1],
         **({"slices": [{"name": "correlated", "env": "correlated", "rho": [0.5]}]}
            if e == "dependent" else {})}
        for e in EXPERIMENTS],
}

latexmk_missing = pytest.mark.skipif(
    shutil.which("latexmk") is None or shutil.which("pdftotext") is None,
    reason="latexmk/pdftotext not installed (apt-get install latexmk texlive-latex-base "
           "texlive-latex-recommended texlive-science poppler-utils)")


def check_json(claim: str, verdict: str) -> dict:
    return {"claim": claim, "title": f"Claim {claim}: regret ≤ bound, 1/Δ & 1/ε_rate",
            "statistic_label": "slope of log regret vs log(1/Δ)", "statistic": 0.98,
            "ci_low": 0.91, "ci_high": 1.05, "threshold": "CI within [0.8, 1.2]",
            "verdict": verdict, "summary": f"The {claim} check gave {verdict} (50% of cells).",
            "cells": [{"cell_id": "a", "mean": 1.0}],
            "inputs": [f"results/agg/{EXPERIMENT_OF[claim]}.parquet"]}


def agg_table(experiment: str) -> pd.DataFrame:
    rows = []
    for i, (alg, K) in enumerate([("rps", 2), ("rps", 8), ("wu_wang", 8)]):
        for h in (1023, (1 << 30) - 1):
            mean = 10.0 * (i + 1) * (1 + h / 2**31)
            rows.append({"experiment": experiment, "cell_id": f"{experiment}-{i}",
                         "algorithm": alg, "env": "bernoulli", "instance": "standard", "K": K,
                         "gap": 0.25, "epsilon": 1.0, "eta": 0.125, "mu_best": 0.375,
                         "rho": np.nan, "kappa": np.nan, "horizon": h, "runs": 20,
                         "estimator": "rao_blackwell", "mean": mean, "se": 0.1,
                         "ci_low": mean - 0.2, "ci_high": mean + 0.2, "q05": mean, "q25": mean,
                         "q50": mean, "q75": mean, "q95": mean, "mean_realized": mean,
                         "se_realized": 0.2, "bound_thm1": 1000.0, "bound_corollary": 5000.0,
                         "rate": 5.0, "lower_shape": 3.0, "wu_wang_shape": 6.0})
    return pd.DataFrame(rows)


def fabricate(results: Path, missing=("C1",), skip_figures=("ablations",)) -> Path:
    """A results tree with every kind of input the report reads."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for sub in ("checks", "figures", "tables", "agg", "benchmarks/simulate",
                "benchmarks/aggregate", "notebooks"):
        (results / sub).mkdir(parents=True, exist_ok=True)
    for claim, verdict in VERDICT_OF.items():
        if claim not in missing:
            (results / "checks" / f"{claim}.json").write_text(json.dumps(check_json(claim,
                                                                                    verdict)))
    for name in RESULTS:
        if name in skip_figures:
            continue
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.plot([1, 2, 3], [1, 4, 9], label=name)
        ax.set_xlabel("horizon $T$")
        ax.legend()
        fig.savefig(results / "figures" / f"{name}.pdf", metadata={"CreationDate": None})
        plt.close(fig)
        table = pd.DataFrame({"algorithm": ["rps", "wu_wang"], "K": [2, 8],
                              "mean regret": [12.345, 0.000123]})
        styler = table.style.hide(axis="index").format(precision=3, escape="latex")
        caption = f"Fabricated {name} table" if name != "rates" else None
        (results / "tables" / f"{name}.tex").write_text(styler.to_latex(
            hrules=True, siunitx=True, caption=caption,
            position_float="centering" if caption else None))
    for exp in EXPERIMENTS:
        if exp != "ablations":
            agg_table(exp).to_parquet(results / "agg" / f"{exp}.parquet", index=False)
    bench = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for i in range(3):
        (results / "benchmarks/simulate" / f"cell{i}.tsv").write_text(
            bench + f"{1.5 + i}\t0:00:01\t120.5\t300\t100\t100\t0\t1\t50\t1.2\n")
    (results / "benchmarks/aggregate" / "horizon.tsv").write_text(
        bench + "0.7\t0:00:00\t80.0\t200\t70\t70\t0\t1\t40\t0.5\n")
    (results / "notebooks" / "horizon.ipynb").write_text("{}")
    return results


def build(tmp_path: Path, **kw) -> tuple[Path, str]:
    results = fabricate(tmp_path / "results", **kw)
    config_file = tmp_path / "config.yaml"
    config_file.write_text(yaml.safe_dump(CONFIG))
    gen = tmp_path / "results" / "report" / "generated"
    assert main(["report-assets", "--config", str(config_file), "--results", str(results),
                 "--out", str(gen), "--repo", str(ROOT)]) == 0
    return results, gen


# ----------------------------------------------------------------------------- no LaTeX

def test_macro_names_are_letters_only():
    for claim in CLAIMS:
        for key in ("Verdict", "CILow", "ci_high"):
            assert macro_name(claim, key).isalpha()
    assert macro_name("C4a", "Verdict") == "CfouraVerdict"
    assert macro_name("constants", "") == "Constants"


def test_escape_handles_specials_and_unicode():
    text = tex_escape("a_b & 50% ≤ Δ ε $x$ #1 ~{}^\\ Kotłowski")
    assert "\\_" in text and "\\&" in text and "\\%" in text and "$\\le$" in text
    assert text.isascii()


def test_assets_written(tmp_path):
    _, gen = build(tmp_path)
    assert sorted(p.name for p in gen.iterdir()) == sorted(GENERATED)
    numbers = (gen / "numbers.tex").read_text()
    assert r"\newcommand{\CtwoVerdict}{\VerdictPass}" in numbers
    assert r"\newcommand{\ConeVerdict}{\VerdictNotRun}" in numbers
    assert r"\newcommand{\CfourbVerdict}{\VerdictInconclusive}" in numbers
    assert r"\newcommand{\AblationsCells}{\NotRunText}" in numbers
    assert r"\NotRun{table" in (gen / "tab-ablations.tex").read_text()
    assert "booktabs" not in (gen / "verdicts.tex").read_text()  # a fragment, not a document
    assert r"\toprule" in (gen / "verdicts.tex").read_text()
    prov = (gen / "provenance.tex").read_text()
    assert "simulate" in prov and "aggregate" in prov and "horizon.ipynb" in prov.replace(r"\\allowbreak{}", "")


def test_malformed_check_is_one_line_error(tmp_path, capsys):
    results = fabricate(tmp_path / "results")
    bad = results / "checks" / "C3.json"
    data = check_json("C3", "PASS")
    del data["verdict"]
    bad.write_text(json.dumps(data))
    with pytest.raises(InputError) as err:
        load_check(bad)
    assert "C3.json" in str(err.value) and "'verdict'" in str(err.value)
    assert "\n" not in str(err.value)
    config_file = tmp_path / "config.yaml"
    config_file.write_text(yaml.safe_dump(CONFIG))
    code = main(["report-assets", "--config", str(config_file), "--results", str(results),
                 "--out", str(tmp_path / "gen")])
    assert code == 2
    msg = capsys.readouterr().err.strip()
    assert len(msg.splitlines()) == 1 and "C3.json" in msg and "'verdict'" in msg
    assert not (tmp_path / "gen" / "numbers.tex").exists()


@pytest.mark.parametrize("payload, key", [({"verdict": "MAYBE"}, "verdict"),
                                          ({"statistic": "high"}, "statistic"),
                                          ({"cells": {}}, "cells")])
def test_bad_values_name_the_key(tmp_path, payload, key):
    path = tmp_path / "C2.json"
    path.write_text(json.dumps({**check_json("C2", "PASS"), **payload}))
    with pytest.raises(InputError, match=rf"C2\.json: key '{key}'"):
        load_check(path)


def test_bad_config_is_one_line_error(tmp_path, capsys):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("experiments: [\n")
    assert main(["report-assets", "--config", str(cfg), "--results", str(tmp_path)]) == 2
    assert "bad.yaml" in capsys.readouterr().err


def test_log_problems_are_caught():
    log = ("LaTeX Warning: Reference `fig:x' on page 2 undefined on input line 4.\n"
           "LaTeX Warning: There were undefined references.\n"
           "! LaTeX Error: File `missing.tex' not found.\n")
    assert len(log_problems(log)) == 3
    assert log_problems("Output written on report.pdf (3 pages).") == []


# ----------------------------------------------------------------------------- the PDF

def pdf_text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout


@latexmk_missing
def test_report_pdf_has_every_verdict(tmp_path):
    results, gen = build(tmp_path)
    pdf = compile_pdf(TEX, gen, results, results / "report" / "replication_report.pdf")
    text = pdf_text(pdf)
    lines = text.splitlines()
    for claim, verdict in VERDICT_OF.items():
        label = "Constants" if claim == "constants" else claim
        assert any(label in ln and verdict in ln for ln in lines), (claim, verdict)
    assert any("C1" in ln and "not run" in ln for ln in lines)
    assert "not run" in text  # the ablations figure and table
    assert "What did not replicate" in text


@latexmk_missing
def test_report_pdf_is_reproducible(tmp_path):
    results, gen = build(tmp_path)
    first = compile_pdf(TEX, gen, results, tmp_path / "a" / "report.pdf").read_bytes()
    second = compile_pdf(TEX, gen, results, tmp_path / "b" / "report.pdf").read_bytes()
    assert first == second
    assert b"CreationDate" not in first and b"ModDate" not in first
