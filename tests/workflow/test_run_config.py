"""The run states exactly what ran, on a tiny build of the workflow: with
``--config runs=7 agg_dir=results/aggX`` the simulations, the check records, the report's
generated tables and numbers, its provenance and the PDF all say 7 runs and read ``aggX``
(before, the jobs re-read the config files without the overrides and the report read a
hard-coded ``results/agg``: 20 runs and "Experiments aggregated 0"); and a deleted notebook
page is rebuilt by a plain ``snakemake``.

Cost: one build of a two-experiment config over the smoke config (K = 2, T = 1023; the smoke
config's privacy audit and worst-instance search, every notebook and the report; the default
config's audit and search, which this build read before, took about 10 min on 2 busy cores);
then one notebook rerun."""

from __future__ import annotations

import json
import subprocess

import pandas as pd
import pytest
import yaml
from support.workflow import copy_workflow, run_snakemake

from privdtol.archive.layout import config_hash
from privdtol.pipeline.config import load_config_files

TINY = {
    "runs": 20,
    "experiments": [
        {
            "name": "horizon",
            "description": "tiny",
            "algorithms": ["rps", "ftl"],
            "K": [2],
            "gap": [0.25],
            "epsilon": [1.0],
            "horizon": [1023],
        },
        # the report's figure captions refer to C0's table (Table~\ref{tab:agreement})
        {
            "name": "agreement",
            "description": "tiny C0",
            "algorithms": ["rps"],
            "K": [2],
            "gap": [0.25],
            "epsilon": [1.0],
            "horizon": [1023],
            "runs": 50,
            "slices": [
                {"name": "monte-carlo", "exact": "off"},
                {"name": "exact", "exact": "auto"},
            ],
        },
    ],
}
#: the smoke config's audits and search (seconds), the two tiny experiments
CONFIGS = ["config/config.yaml", "config/smoke.yaml", "config/tiny.yaml"]
ARGS = ("--cores", "2", "--configfile", *CONFIGS[1:])
OVERRIDES = ("--config", "runs=7", "agg_dir=results/aggX")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    wd = copy_workflow(tmp_path_factory.mktemp("tiny"))
    (wd / "config" / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    subprocess.run(["git", "init", "-q"], cwd=wd, check=True)
    run_snakemake(wd, *ARGS, *OVERRIDES, timeout=1800)
    return wd


def _plain(tex: str) -> str:
    return tex.replace(r"\allowbreak{}", "")


@pytest.mark.pipeline
def test_an_override_and_an_agg_dir_reach_every_job_and_the_report(tiny_run):
    results = tiny_run / "results"
    merged = load_config_files([results / "config.merged.yaml"])
    assert (merged["runs"], merged["agg_dir"]) == (7, "results/aggX")
    sources = json.loads((results / "config.sources.json").read_text())
    assert sources["overrides"] == {"runs": 7, "agg_dir": "results/aggX"}
    assert [f["path"] for f in sources["files"]] == CONFIGS
    # the simulations and the tables: 7 runs, in aggX, nothing in results/agg
    assert not (results / "agg").exists()
    agg = pd.read_parquet(results / "aggX" / "horizon.parquet")
    assert set(agg.loc[agg.estimator != "exact", "runs"]) == {7}
    record = json.loads((results / "checks" / "C3.json").read_text())
    assert all("results/aggX/" in p for p in record["inputs"])
    # the report: its numbers, its grid table and its provenance
    gen = results / "report" / "generated"
    numbers = (gen / "numbers.tex").read_text()
    assert r"\newcommand{\HorizonRuns}{exact or \num{7}}" in numbers
    assert r"\newcommand{\HorizonCells}{\NotRunText}" not in numbers
    grid = (gen / "grid.tex").read_text()
    assert r"& \num{7} &" in grid and r"\num{20}" not in grid
    provenance = _plain((gen / "provenance.tex").read_text())
    assert r"--config runs=7" in provenance and "agg\\_dir=" in provenance
    assert config_hash(merged) in provenance
    assert r"Experiments aggregated & 0" not in provenance
    text = subprocess.run(
        ["pdftotext", "-layout", str(results / "report" / "replication_report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "runs=7" in text and "Experiments aggregated 0" not in text


@pytest.mark.pipeline
def test_a_deleted_notebook_page_is_rebuilt_by_a_plain_snakemake(tiny_run):
    page = tiny_run / "results" / "notebooks" / "horizon.html"
    page.unlink()
    run_snakemake(tiny_run, *ARGS, *OVERRIDES)
    assert page.is_file() and "<html" in page.read_text()
    again = run_snakemake(tiny_run, *ARGS, *OVERRIDES, "-n")
    assert "Nothing to be done" in again.stdout + again.stderr
