"""The example plugin (examples/privdtol_pf, docs/extending.md) through the whole pipeline
(slow tier): pip installs it into a temporary directory, the commands of docs/extending.md run
with it on the path (``privdtol list``, ``privdtol check-config``, the smoke pipeline with the
example's config after config/smoke.yaml), and its algorithm ``rps_pf`` must appear in the
registry listing, the engine table (Monte Carlo, and why), the aggregated tables, the privacy
audit (exact per selection, whole sequence and statistical, within its declared bound), the
competitor finding, the explorer and the report.  No file of the checkout changes.

Cost: one pip install (seconds) and one pipeline build of two tiny experiments beside the
smoke config's audits, searches and report (about the smoke build's).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from support.paths import BIN, ROOT
from support.stats import P_MIN, chisquare_against
from support.workflow import WORKFLOW_DIRS, copy_workflow, run_snakemake, snakemake_env

EXAMPLE = ROOT / "examples" / "privdtol_pf"
PAGE = ROOT / "docs" / "extending.md"
FENCE = re.compile(r"^```bash\s*\n(.*?)^```", re.S | re.M)
NAME, SHOWN = "rps_pf", "RP permute-and-flip (plugin)"


def page_commands() -> list[str]:
    """The commands of docs/extending.md's bash blocks, comments dropped."""
    out = []
    for block in FENCE.findall(PAGE.read_text()):
        for line in block.splitlines():
            command = line.partition(" #")[0].strip()
            if command:
                out.append(command)
    return out


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """Run the page's commands with the example installed; (work dir, outputs by command)."""
    tmp = tmp_path_factory.mktemp("plugin")
    site = tmp / "site"
    wd = copy_workflow(tmp / "wd", dirs=(*WORKFLOW_DIRS, "examples"))
    env = snakemake_env(
        PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    )
    outputs = {}
    for command in page_commands():
        argv = shlex.split(command)
        if argv[:2] == ["pip", "install"]:  # into a temporary directory, not the venv
            argv = [sys.executable, "-m", "pip", "install", "-q", "--no-deps"]
            argv += ["--target", str(site), str(wd / "examples" / "privdtol_pf")]  # a copy
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        elif argv[0] == "snakemake":
            proc = run_snakemake(wd, *argv[1:], env=env, check=False, timeout=1500)
        else:
            proc = subprocess.run(
                [str(BIN / argv[0]), *argv[1:]], cwd=wd, env=env, capture_output=True, text=True
            )
        assert proc.returncode == 0, f"{command}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        outputs[command] = proc.stdout
    return wd, outputs


def example_module():
    """The example's module, imported from its file (fast tier: no install)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("privdtol_pf", EXAMPLE / "privdtol_pf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_permute_and_flip_law_is_the_average_over_every_order():
    """The closed form against the mechanism's definition enumerated exactly: over all K!
    orders, j is selected with prob. p_j prod (1 - p_i) over the actions before it."""
    pf = example_module()
    rng = np.random.default_rng(0)
    for K in (2, 3, 5):
        sums = rng.integers(0, 30, size=(4, K)).astype(float)
        p = pf.acceptance(sums, 0.125)
        brute = np.zeros_like(p)
        orders = list(itertools.permutations(range(K)))
        for order in orders:
            reject = np.ones(len(p))
            for j in order:
                brute[:, j] += reject * p[:, j] / len(orders)
                reject = reject * (1 - p[:, j])
        np.testing.assert_allclose(pf.permute_and_flip_law(sums, 0.125), brute, rtol=1e-12)


def test_permute_and_flip_draws_follow_its_law():
    pf = example_module()
    sums = np.array([[5.0, 0.0, 9.0, 2.0, 14.0]])
    draws = pf.permute_and_flip(np.random.default_rng(4), np.repeat(sums, 40_000, 0), 0.125)
    assert chisquare_against(draws, pf.permute_and_flip_law(sums, 0.125)[0], 5) > P_MIN


def test_the_page_runs_the_install_the_listing_the_check_and_the_build():
    firsts = [shlex.split(c)[0] for c in page_commands()]
    assert firsts == ["pip", "privdtol", "privdtol", "snakemake"], firsts


@pytest.mark.pipeline
def test_the_plugin_is_listed_and_its_engine_explained(build):
    _, out = build
    listing = out["privdtol list"].splitlines()
    assert any(ln.split()[:1] == [NAME] for ln in listing), listing
    check = out["privdtol check-config examples/privdtol_pf/config.yaml"]
    line = next(ln for ln in check.splitlines() if ln.split()[:1] == [NAME])
    assert "monte carlo" in line and "declares no exact selection law" in line


@pytest.mark.pipeline
def test_the_plugin_is_in_the_tables_the_audit_and_the_competitor_finding(build):
    wd, _ = build
    for exp in ("horizon", "epsilon"):
        agg = pd.read_parquet(wd / "results" / "agg" / f"{exp}.parquet")
        assert NAME in set(agg["algorithm"]), exp
    privacy = pd.read_parquet(wd / "results" / "agg" / "privacy.parquet")
    mine = privacy[privacy["algorithm"] == NAME]
    assert set(mine["audit"]) == {"exact_selection", "whole_sequence", "statistical"}
    assert not mine["violation"].any()
    assert (mine["loss"] <= mine["bound_selection"] * (1 + 1e-9)).all()
    findings = json.loads((wd / "results" / "findings.json").read_text())
    rows = findings["competitors"]["table"]
    assert NAME in {r["competitor"] for r in rows}


@pytest.mark.pipeline
def test_the_plugin_is_in_the_explorer_and_the_report(build):
    wd, _ = build
    assert NAME in (wd / "results" / "explorer" / "index.html").read_text()
    generated = wd / "results" / "report" / "generated" / "algorithms.tex"
    assert "permute-and-flip" in generated.read_text()
    pdf = wd / "results" / "report" / "replication_report.pdf"
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "permute-and-flip" in " ".join(text.split())
    # its declared BibTeX entry is in the report's bibliography, cited in the algorithms table
    bib = wd / "results" / "report" / "generated" / "plugins.bib"
    assert "@inproceedings{mckenna2020," in bib.read_text()
    assert "McKenna and Sheldon" in " ".join(text.split())


@pytest.mark.pipeline
def test_the_checkout_is_untouched(build):
    status = subprocess.run(
        ["git", "status", "--porcelain", "--", "examples", "src", "workflow", "notebooks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    assert not [ln for ln in status.splitlines() if "__pycache__" not in ln], status
