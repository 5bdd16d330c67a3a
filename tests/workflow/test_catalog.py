"""The Snakemake workflow catalog's view of the repository: it finds workflow/Snakefile and the
usage page, and both Snakefiles schedule the same jobs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support.paths import ROOT
from support.workflow import WORKFLOW_FILES, copy_workflow, job_stats, run_snakemake


def catalog_problems(repo: Path) -> list[str]:
    """Why the catalog would skip ``repo`` or leave it out of "standardized usage", by the
    generator's rules (the catalog's generate-catalog.py) and the catalog README's."""
    out = []
    readme = (
        (repo / "README.md").read_text(encoding="utf-8").lower()
        if (repo / "README.md").exists()
        else ""
    )
    if not ("snakemake" in readme and "workflow" in readme):
        out.append("README.md does not contain 'snakemake' and 'workflow'")
    workflow = repo / "workflow" if (repo / "workflow").exists() else repo
    if not (workflow / "Snakefile").is_file():
        out.append(f"missing Snakefile: {(workflow / 'Snakefile').relative_to(repo)}")
    rules = workflow / "rules"
    if rules.is_dir() and not any(f.suffix == ".smk" for f in rules.iterdir() if f.is_file()):
        out.append("rule modules are not using .smk extension")
    if not (repo / "workflow" / "Snakefile").is_file():
        out.append("standardized usage: the main workflow definition is not workflow/Snakefile")
    if not (repo / "config" / "README.md").is_file():
        out.append("standardized usage: no config/README.md")
    settings = repo / ".snakemake-workflow-catalog.yml"
    if not settings.is_file():
        out.append("standardized usage: no .snakemake-workflow-catalog.yml")
    elif not isinstance((yaml.safe_load(settings.read_text()) or {}).get("usage"), dict):
        out.append("standardized usage: .snakemake-workflow-catalog.yml has no usage mapping")
    return out


def layout_copy(dest: Path) -> Path:
    """The files a workflow run reads, as tests/conftest.py's smoke build copies them, plus the
    two the catalog reads."""
    files = (*WORKFLOW_FILES, "README.md", ".snakemake-workflow-catalog.yml")
    return copy_workflow(dest, files=files)


def test_the_catalog_finds_the_workflow_and_its_usage_page(tmp_path):
    assert catalog_problems(ROOT) == []
    # negative control: the layout before workflow/Snakefile existed, which the catalog skips
    old = layout_copy(tmp_path / "old")
    (old / "workflow" / "Snakefile").unlink()
    problems = catalog_problems(old)
    assert problems and problems[0] == "missing Snakefile: workflow/Snakefile", problems
    (old / "config" / "README.md").unlink()
    assert "standardized usage: no config/README.md" in catalog_problems(old)


def test_workflow_snakefile_only_includes_the_top_level_one():
    code = [
        ln
        for ln in (ROOT / "workflow" / "Snakefile").read_text().splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    assert code == ['workflow.include("../Snakefile", overwrite_default_target=True)']


def dry_run_jobs(wd: Path, *args: str) -> dict[str, int]:
    """The job counts of ``snakemake -n`` (its job stats table) on the smoke config."""
    proc = run_snakemake(
        wd, "-n", *args, "--cores", "1", "--configfile", "config/smoke.yaml", check=False
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return job_stats(proc.stdout + proc.stderr)


@pytest.mark.slow
def test_both_snakefiles_schedule_the_same_jobs(tmp_path):
    wd = layout_copy(tmp_path / "wd")
    top = dry_run_jobs(wd)
    assert top.get("all") == 1 and top.get("compile_report") == 1, top
    assert dry_run_jobs(wd, "-s", "workflow/Snakefile") == top
    assert dry_run_jobs(wd, "-s", "workflow/Snakefile", "aggregate_all") == dry_run_jobs(
        wd, "aggregate_all"
    )
