"""Tests of :mod:`privdtol.cli`."""

from __future__ import annotations

import functools
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from support.paths import ROOT

from privdtol.algorithms.negative_controls import AUDIT_ONLY
from privdtol.analysis.registry import CLAIMS, NOTEBOOKS
from privdtol.cli import main
from privdtol.pipeline.config import load_config
from privdtol.pipeline.io import write_table
from privdtol.report.assets import (
    regret_experiments,
)
from privdtol.report.layout import SECTIONS

# --- from tests/test_aggregate.py


def test_cli_errors(tmp_path, capsys):
    assert (
        main(
            [
                "aggregate",
                "--experiment",
                "x",
                "--out",
                str(tmp_path / "a.txt"),
                str(tmp_path / "c.parquet"),
            ]
        )
        == 2
    )
    assert "--out" in capsys.readouterr().err


# --- from tests/test_archive.py


SMOKE = ROOT / "config" / "smoke.yaml"


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z"},
    )
    return proc.stdout.strip()


@pytest.fixture
def run(tmp_path) -> Path:
    """A tiny committed repository that is also the working directory of a 'built' run."""
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / "Snakefile").write_text("rule all:\n    input: []\n")
    (repo / "requirements.lock").write_text("x==1 --hash=sha256:00\n")
    (repo / "config" / "smoke.yaml").write_bytes(SMOKE.read_bytes())
    (repo / ".gitignore").write_text("results/\nlogs/\n")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    write_table(pd.DataFrame({"a": [1, 2]}), repo / "results" / "agg" / "horizon.parquet")
    write_table(pd.DataFrame({"a": [1, 2]}), repo / "results" / "agg" / "horizon.csv")
    (repo / "results" / "checks").mkdir(parents=True)
    (repo / "results" / "checks" / "C2.json").write_text('{"verdict": "PASS"}\n')
    (repo / "results" / "sim").mkdir()
    (repo / "results" / "sim" / "cell.parquet").write_bytes(b"not archived")
    (repo / "results" / "benchmarks" / "simulate").mkdir(parents=True)
    (repo / "results" / "benchmarks" / "simulate" / "b.tsv").write_text("s\tmax_rss\n2.5\t10\n")
    (repo / "logs" / "archive").mkdir(parents=True)
    (repo / "logs" / "archive" / "archive.log").write_text("being written\n")
    (repo / "logs" / "aggregate").mkdir()
    (repo / "logs" / "aggregate" / "horizon.log").write_text("ok\n")
    return repo


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda repo: (repo / "results" / "agg" / "horizon.parquet").unlink(), "no results/agg/"),
        (lambda repo: (repo / ".git").rename(repo / "git"), "is not a git checkout"),
    ],
    ids=["no-tables", "no-git"],
)
def test_bad_input_is_one_line(run, tmp_path, capsys, damage, message):
    damage(run)
    rc = main(
        ["archive", "--config", "config/smoke.yaml", "--repo", str(run), "--workdir", str(run),
         "--out-dir", str(tmp_path / "out")]
    )  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "\n" not in err and message in err, err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# --- from tests/test_bad_input.py

PAPER = ROOT / "config" / "paper.yaml"


def test_paper_config_within_the_default_limits(capsys):
    assert main(["check-config", str(PAPER)]) == 0
    assert capsys.readouterr().err.strip().endswith("ok")


def test_archive_compare_names_a_truncated_record(tmp_path, capsys):
    run, results = tmp_path / "run", tmp_path / "results"
    for base, text in ((run / "results", '{"verdict": "PASS"}'), (results, '{"verdict": "PA')):
        (base / "checks").mkdir(parents=True)
        (base / "checks" / "C3.json").write_text(text)
        (base / "agg").mkdir()
        (base / "agg" / "horizon.parquet").write_bytes(b"x")
    code = main(["archive-compare", "--run", str(run), "--results", str(results)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "results/checks/C3.json" in err[0], err


# --- from tests/test_cli.py

BASE = [
    "simulate",
    "--algorithm",
    "rps",
    "--epsilon",
    "1.0",
    "--horizon",
    "1023",
    "--runs",
    "200",
    "--seed",
    "3",
]


def _run(args):
    return subprocess.run(
        [sys.executable, "-m", "privdtol.cli", *args], capture_output=True, text=True
    )


def test_contract_command_writes_expected_columns(tmp_path):
    out = tmp_path / "runs.csv"
    assert main([*BASE, "--means", "0.4,0.6", "--out", str(out)]) == 0
    df = pd.read_csv(out)
    for col in [
        "algorithm",
        "K",
        "epsilon",
        "horizon",
        "run",
        "regret",
        "regret_realized",
        "estimator",
    ]:
        assert col in df.columns
    assert len(df) == 200 * 10 and set(df.horizon) == {2**k - 1 for k in range(1, 11)}
    assert (df.estimator == "block_rb").all()


def test_same_call_same_bytes_csv_and_parquet(tmp_path):
    for ext in ("csv", "parquet"):
        paths = [tmp_path / f"a.{ext}", tmp_path / f"b.{ext}"]
        for p in paths:
            assert main([*BASE, "--K", "8", "--gap", "0.1", "--out", str(p)]) == 0
        assert paths[0].read_bytes() == paths[1].read_bytes()


def test_generator_form_equals_explicit_means(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    main([*BASE, "--K", "3", "--gap", "0.2", "--out", str(a)])
    main([*BASE, "--means", "0.4,0.6,0.6", "--out", str(b)])
    pd.testing.assert_frame_equal(pd.read_csv(a), pd.read_csv(b))


def test_actions_out_and_replay(tmp_path):
    losses = tmp_path / "losses.csv"
    rng = np.random.default_rng(0)
    np.savetxt(
        losses, (rng.random((127, 3)) < [0.2, 0.5, 0.7]).astype(int), delimiter=",", fmt="%d"
    )
    out, acts = tmp_path / "r.parquet", tmp_path / "acts.csv"
    assert (
        main(
            [
                "simulate",
                "--algorithm",
                "rnm_ftnl",
                "--epsilon",
                "0.5",
                "--env",
                "replay",
                "--losses",
                str(losses),
                "--horizon",
                "127",
                "--runs",
                "50",
                "--out",
                str(out),
                "--actions-out",
                str(acts),
            ]
        )
        == 0
    )
    a = pd.read_csv(acts)
    assert list(a.columns) == ["run", "block", "action"] and len(a) == 50 * 7
    assert a.action.between(0, 2).all()


BAD = [
    (["--K", "1", "--gap", "0.1"], "--K"),
    (["--K", "4", "--gap", "0"], "--gap"),
    (["--K", "4", "--gap", "1.5"], "--gap"),
    (["--means", "0.4,1.2"], "--means"),
    (["--means", "0.4,0.4,0.6"], "--means"),
    (["--means", "0.4,abc"], "--means"),
    (["--means", "0.4,0.6", "--horizon", "0"], "--horizon"),
    (["--means", "0.4,0.6", "--runs", "0"], "--runs"),
    (["--means", "0.4,0.6", "--epsilon", "-1"], "--epsilon"),
    (["--means", "0.4,0.6", "--epsilon", "0"], "--epsilon"),
    ([], "--means"),
    (["--env", "replay"], "--losses"),
]


@pytest.mark.parametrize("extra,flag", BAD)
def test_bad_arguments_exit_nonzero_with_one_line_and_no_output(tmp_path, extra, flag):
    out = tmp_path / "out.csv"
    args = [*BASE, "--out", str(out), *extra]
    res = _run(args)
    assert res.returncode == 2
    lines = [line for line in res.stderr.strip().splitlines() if line]
    assert len(lines) == 1 and flag in lines[0] and "allowed" in lines[0], res.stderr
    assert not out.exists()


def test_every_subcommand_is_registered_by_the_module_commands_names():
    """``privdtol COMMAND`` imports COMMANDS[COMMAND] only: the map must name, for every
    subcommand of the full parser, the module that registers it, and nothing else."""
    from privdtol.cli import COMMANDS, build_parser

    def choices(parser):
        return set(parser._subparsers._group_actions[0].choices)

    assert choices(build_parser()) == set(COMMANDS)
    for command in COMMANDS:
        assert command in choices(build_parser(command)), command


# --- from tests/test_grid.py

CONFIGS = {name: ROOT / "config" / f"{name}.yaml" for name in ("config", "paper", "smoke")}


T30 = (1 << 30) - 1


def minimal(**exp) -> dict:
    base = {
        "name": "e",
        "algorithms": ["rps", "ftl"],
        "K": [2, 4],
        "gap": [0.5, 0.25],
        "epsilon": [1.0, 0.5, 0.25],
        "horizon": [T30],
    }
    base.update(exp)
    return {"experiments": [base]}


@pytest.fixture(scope="module")
def smoke():
    return load_config(CONFIGS["smoke"])


def test_cli_errors_name_the_argument(tmp_path, capsys):
    from privdtol.cli import main

    assert main(["simulate-batch", "--out-dir", str(tmp_path)]) == 2
    assert "--cells: no cells given" in capsys.readouterr().err
    assert (
        main(
            [
                "simulate-batch",
                "--config",
                str(CONFIGS["smoke"]),
                "--experiment",
                "nope",
                "--batch",
                "0",
                "--out-dir",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert (
        "--experiment: unknown experiment 'nope' (allowed: horizon, gap" in capsys.readouterr().err
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(minimal(K=[1])))
    assert main(["check-config", str(bad)]) == 2
    assert "experiments[0].K[0]: got 1 (allowed: integers >= 2" in capsys.readouterr().err
    assert main(["check-config", str(CONFIGS["paper"])]) == 0
    assert "total" in capsys.readouterr().out


# --- from tests/test_privacy.py

NEGATIVE_CONTROLS = list(AUDIT_ONLY)


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--algorithm", "ftl", "--epsilon", "1"], "--algorithm"),
        (["--algorithm", "rps", "--epsilon", "1", "--block", "12"], "--block"),
        (["--algorithm", "rps", "--epsilon", "-1"], "--epsilon"),
        (["--algorithm", "rps", "--epsilon", "1", "--method", "magic"], "--method"),
    ],
)
def test_cli_bad_input(capsys, args, flag):
    assert main(["audit", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "allowed" in err


# ------------------------------------------------------------------ grid and C1
SMALL_GRID = {
    "epsilons": [0.5],
    "K": [4],
    "blocks": [16],
    "algorithms": ["rps"],
    "negative_controls": NEGATIVE_CONTROLS,
    "exact": {"n_random": 100, "max_steps": 5},
    "sequence": {"K": [3], "horizon": 63, "n_random": 1},
    "statistical": {"algorithms": ["rps"], "K": [2], "runs": 2000},
}


def test_audit_grid_bytes_and_c1(tmp_path):

    from privdtol.analysis.claims.c1_privacy import check_c1

    (tmp_path / "agg").mkdir()
    paths = [tmp_path / "agg" / "privacy.parquet", tmp_path / "b.parquet"]
    for p in paths:
        assert main(["audit-grid", "--grid-json", json.dumps(SMALL_GRID), "--out", str(p)]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    import pandas as pd

    df = pd.read_parquet(paths[0])
    # C1 is a check like the others: privdtol check reads <agg-dir>/privacy.parquet
    out = tmp_path / "C1.json"
    config = ROOT / "config" / "smoke.yaml"
    assert (
        main(
            [
                "check",
                "--claim",
                "C1",
                "--config",
                str(config),
                "--agg-dir",
                str(tmp_path / "agg"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    c1 = json.loads(out.read_text())
    assert c1 == check_c1(df, inputs=[str(paths[0])])
    assert c1["verdict"] == "PASS" and c1["inputs"] == [str(paths[0])]
    assert {c["verdict"] for c in c1["cells"] if c["role"] == "negative_control"} == {"caught"}
    # a control that is not caught makes C1 FAIL
    weak = df.copy()
    weak.loc[weak.algorithm == "rps_data_prefix", "violation"] = False
    assert check_c1(weak)["verdict"] == "FAIL"
    assert (
        main(
            [
                "audit-grid",
                "--grid-json",
                json.dumps({"nope": 1}),
                "--out",
                str(tmp_path / "c.parquet"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "c.parquet").exists()


# --- from tests/test_report.py

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
    ],
}


needs_latex = pytest.mark.skipif(
    shutil.which("latexmk") is None or shutil.which("pdftotext") is None,
    reason="latexmk/pdftotext not installed (apt-get install latexmk texlive-latex-base "
    "texlive-latex-recommended texlive-science poppler-utils)",
)


def check_json(claim: str, verdict: str) -> dict:
    """A check record as privdtol check writes it, with text that needs escaping."""
    return {
        "claim": claim,
        "title": f"{CLAIMS[claim].title} & 1/ε_rate",
        "quote": CLAIMS[claim].quote,
        "source": CLAIMS[claim].source,
        "algorithm": "rps",
        "control_of": None,
        "interval": [0.91, 1.05],
        "statistic_label": "slope of log regret vs log(1/Δ)",
        "statistic": 0.98,
        "ci_low": 0.91,
        "ci_high": 1.05,
        "threshold": "CI within [0.8, 1.2]",
        "verdict": verdict,
        "summary": f"The {claim} check gave {verdict} (50% of cells).",
        "cells": [{"cell_id": "a", "mean": 1.0}],
        "inputs": [f"results/agg/{e}.parquet" for e in CLAIMS[claim].experiments],
        **(
            {"diagnosis": {"cells": "cells at K = 2", "cause": "eta <= 1/8", "follow_up": "x"}}
            if verdict == "FAIL" and claim == "C4a"
            else {}
        ),
    }


def table_frame(name: str) -> pd.DataFrame:
    """A small results table with the kinds of columns the notebooks write."""
    return pd.DataFrame(
        {
            "algorithm": ["rps", "wu_wang", "rps_data_prefix"],
            "K": [2, 8, 1024],
            "gap": [0.25, 0.0625, np.nan],
            "epsilon": [1.0, 0.125, 4.0],
            "horizon": [1023, (1 << 30) - 1, 16383],
            "role": ["private", "private", "negative_control"],
            "env": ["bernoulli", "correlated", "beta"],
            "slope": [12.345, 0.000123, -0.5],
            "ci_low": [1.0, np.nan, -1.0],
            "ci_high": [1.5, 2.0, np.inf],
            f"{name}_note": ["a_b & 50%", "ρ = 0.5", ""],
        }
    )


def agg_table(experiment: str) -> pd.DataFrame:
    rows = []
    for i, (alg, K) in enumerate([("rps", 2), ("rps", 8), ("wu_wang", 8)]):
        for h in (1023, (1 << 30) - 1):
            mean = 10.0 * (i + 1) * (1 + h / 2**31)
            rows.append(
                {
                    "experiment": experiment,
                    "cell_id": f"{experiment}-{i}",
                    "algorithm": alg,
                    "env": "bernoulli",
                    "instance": "standard",
                    "K": K,
                    "gap": 0.25,
                    "epsilon": 1.0,
                    "eta": 0.125,
                    "mu_best": 0.375,
                    "rho": np.nan,
                    "kappa": np.nan,
                    "horizon": h,
                    "runs": 20,
                    "estimator": "rao_blackwell",
                    "mean": mean,
                    "se": 0.1,
                    "ci_low": mean - 0.2,
                    "ci_high": mean + 0.2,
                    "q05": mean,
                    "q25": mean,
                    "q50": mean,
                    "q75": mean,
                    "q95": mean,
                    "mean_realized": mean,
                    "se_realized": 0.2,
                    "bound_thm1": 1000.0,
                    "bound_corollary": 5000.0,
                    "rate": 5.0,
                    "lower_shape": 3.0,
                    "wu_wang_shape": 6.0,
                }
            )
    return pd.DataFrame(rows)


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
            agg_table(exp).to_parquet(results / "agg" / f"{exp}.parquet", index=False)
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


def test_bad_config_is_one_line_error(tmp_path, capsys):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("experiments: [\n")
    assert main(["report-assets", "--config", str(cfg), "--results", str(tmp_path)]) == 2
    assert "bad.yaml" in capsys.readouterr().err


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
    # figure numbers are the registry's
    for name in NOTEBOOKS:
        caption = SECTIONS[name].figure_caption.split()[0]
        assert any(f"Figure {NOTEBOOKS[name].figure}: {caption}" in ln for ln in lines), name
    # no ASCII stand-ins for mathematics outside code font
    assert not ascii_math(pdf, gen, ROOT / "paper"), ascii_math(pdf, gen, ROOT / "paper")
    # hyperlinks: at least one per figure (its notebook) plus the paper
    assert link_annotations(pdf) >= len(NOTEBOOKS) + 1
    # C4c's row is the exponent of log K (its registry title)
    diagnostics_table = table[table.index("Diagnostics") :]
    c4c = " ".join(diagnostics_table[diagnostics_table.index("C4c") :].split())
    assert "not log" in c4c[:200] and "FAIL" in c4c[:200]
