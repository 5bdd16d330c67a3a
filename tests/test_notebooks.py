"""End to end on a tiny real agg directory (simulated with the library): a notebook executes with
papermill, writes its figure, table and check, and its metadata strip makes reruns identical;
a notebook that raises fails its Snakemake rule and leaves the partial copy under logs/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from privdtol.analysis import checks
from privdtol.pipeline.notebooks import strip_notebook_metadata

pytest.importorskip("papermill")
pytest.importorskip("jupytext")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from tiny_agg import build_tiny_agg  # noqa: E402

CHECKS_CFG = {"horizon_free_ratio_max": 1.05, "slope_range": [0.8, 1.2],
              "ratio_slope_range": [-0.2, 0.2], "confidence": 0.95,
              "horizon_free_pair": [1048575, 1073741823]}


@pytest.fixture(scope="module")
def agg_dir(tmp_path_factory):
    return build_tiny_agg(tmp_path_factory.mktemp("agg"), runs=30, experiments=("grid",))


def _env():
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _execute(name, workdir, params):
    import jupytext
    import papermill as pm

    src = workdir / f"{name}.input.ipynb"
    jupytext.write(jupytext.read(ROOT / "notebooks" / f"{name}.py"), src)
    out = workdir / f"{name}.ipynb"
    pm.execute_notebook(str(src), str(out), parameters=params, kernel_name="python3",
                        cwd=str(workdir), progress_bar=False)
    strip_notebook_metadata(out)
    return out


def test_heatmap_notebook_end_to_end(agg_dir, tmp_path):
    outs = []
    for run in ("a", "b"):
        work = tmp_path / run
        work.mkdir()
        nb = _execute("heatmap", work, {"agg_dir": str(agg_dir), "out_dir": str(work / "res")})
        outs.append((work, nb))
    work, nb = outs[0]
    res = work / "res"
    for f in ("figures/heatmap.pdf", "figures/heatmap.png", "tables/heatmap.tex",
              "checks/C4c.json"):
        assert (res / f).stat().st_size > 0, f
    check = json.loads((res / "checks/C4c.json").read_text())
    assert set(checks.CHECK_KEYS) <= set(check)
    assert check["verdict"] in ("PASS", "FAIL", "INCONCLUSIVE")
    assert "\\toprule" in (res / "tables/heatmap.tex").read_text()
    meta = json.loads(nb.read_text())
    assert "start_time" not in meta["metadata"]["papermill"]
    assert all("execution" not in c["metadata"] for c in meta["cells"])
    # identical reruns give identical bytes (figures, checks, and the executed notebook up to
    # the output directory parameter, which differs between the two runs here)
    other = outs[1][0] / "res"
    for f in ("figures/heatmap.pdf", "figures/heatmap.png", "checks/C4c.json",
              "tables/heatmap.tex"):
        assert (res / f).read_bytes() == (other / f).read_bytes(), f
    text_a = nb.read_text().replace(str(work), "W")
    text_b = outs[1][1].read_text().replace(str(outs[1][0]), "W")
    assert text_a == text_b


def test_raising_notebook_fails_rule_and_keeps_partial_copy(agg_dir, tmp_path):
    pytest.importorskip("snakemake")
    work = tmp_path / "wf"
    (work / "results/agg").mkdir(parents=True)
    empty = pd.read_parquet(agg_dir / "grid.parquet").iloc[:0]
    empty.to_parquet(work / "results/agg/grid.parquet")       # no cells: the notebook raises
    (work / "notebooks").symlink_to(ROOT / "notebooks")
    (work / "config.yaml").write_text(json.dumps({"checks": CHECKS_CFG}))
    (work / "Snakefile").write_text(
        'configfile: "config.yaml"\n'
        f'include: "{ROOT / "workflow/rules/notebooks.smk"}"\n')
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "fig_heatmap"],
                          cwd=work, env=_env(), capture_output=True, text=True, timeout=180)
    assert proc.returncode != 0
    partial = work / "logs/notebooks/heatmap.ipynb"
    assert partial.exists(), proc.stderr[-2000:]
    nb = json.loads(partial.read_text())
    assert nb["metadata"]["papermill"]["exception"] is True
    assert not (work / "results/notebooks/heatmap.ipynb").exists()
    assert not (work / "results/figures/heatmap.png").exists()
    shutil.rmtree(work / ".snakemake", ignore_errors=True)
