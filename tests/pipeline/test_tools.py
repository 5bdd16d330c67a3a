"""Tests of :mod:`privdtol.pipeline.tools`: the commands a rule's shell string runs (with what its
privdtol subcommand runs), and a missing command named in one line with its rules and package,
before Snakemake starts a job."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import BIN
from support.workflow import copy_build, run_snakemake, snakemake_env

from privdtol.pipeline import staleness, tools

PACKAGE = staleness.package_root()


#: the shell strings of three rules, as workflow/rules/*.smk write them
RULEGRAPH = (
    "snakemake --snakefile {params.snakefile:q} --nolock --rulegraph {params.configs}"
    " 2> {log:q} | dot -Grankdir=LR -Tpdf -o {output:q} 2>> {log:q}"
)


COMPILE = (
    "privdtol report-compile --tex {input.tex:q} --generated {params.generated:q}"
    " --out {output.pdf:q} --repo . --verbose > {log:q} 2>&1"
)


NOTEBOOK = (
    "jupytext --to ipynb --output {log.source:q} {input.notebook:q} > {log.txt:q} 2>&1"
    " && papermill {log.source:q} {log.executed:q} --kernel python3 -y {params.parameters:q}"
    " && python -m privdtol.report.build.notebook_run strip {log.executed:q} >> {log.txt:q} 2>&1"
    " && cp {log.executed:q} {output.ipynb:q}"
    " && jupyter nbconvert --to html --output {params.name:q} {output.ipynb:q}"
)


def test_the_commands_of_a_rule_include_what_its_privdtol_subcommand_runs():
    assert tools.commands(RULEGRAPH) == ["snakemake", "dot"]
    assert tools.commands(COMPILE) == ["privdtol", "latexmk", "pdflatex"]
    assert tools.commands(NOTEBOOK) == ["jupytext", "papermill", "python", "cp", "jupyter"]
    assert tools.commands("OPENBLAS_NUM_THREADS=1 privdtol simulate --K 2") == ["privdtol"]
    assert tools.commands(None) == []


def test_only_the_rules_that_run_a_command_need_it():
    need = tools.required(
        {"draw_rulegraph": RULEGRAPH, "compile_report": COMPILE, "notebook_gap": NOTEBOOK}
    )
    assert need["dot"] == ["draw_rulegraph"]
    assert need["latexmk"] == need["pdflatex"] == ["compile_report"]
    assert "cp" not in need and "dot" not in tools.required({"notebook_gap": NOTEBOOK})


def _which_without(*absent):
    return lambda cmd: None if cmd in absent else shutil.which(cmd, path=f"{BIN}:/usr/bin:/bin")


def test_a_missing_command_is_one_line_naming_it_its_rules_and_its_package():
    need = tools.required({"draw_rulegraph": RULEGRAPH, "compile_report": COMPILE})
    line = tools.message(need, PACKAGE, which=_which_without("dot", "latexmk"))
    assert line is not None and "\n" not in line, line
    assert "dot (for draw_rulegraph)" in line and "latexmk (for compile_report)" in line
    assert "sudo apt-get install graphviz latexmk" in line and "make setup" in line
    assert "pdflatex" not in line.split("Install:")[0]


def test_nothing_is_said_when_every_command_is_there():
    need = tools.required({"only_cp": "cp {input:q} {output:q}"})
    assert tools.message(need, PACKAGE, which=lambda cmd: None) is None


def test_a_privdtol_that_imports_another_package_is_named(tmp_path):
    fake = tmp_path / "other-install"
    (fake / "privdtol").mkdir(parents=True)
    (fake / "privdtol" / "__init__.py").write_text("")
    script = tmp_path / "bin" / "privdtol"
    script.parent.mkdir()
    script.write_text(f"#!/usr/bin/env PYTHONPATH={fake} {sys.executable}\nraise SystemExit\n")
    script.chmod(0o755)
    assert tools.imported_from(tools.interpreter(str(script))) == fake / "privdtol"
    assert tools.imported_from([sys.executable]) == PACKAGE
    need = {"privdtol": ["aggregate"]}
    line = tools.message(need, PACKAGE, which=lambda cmd: str(script))
    assert line is not None and f"imports the package in {fake / 'privdtol'}" in line, line
    assert tools.message(need, PACKAGE, which=lambda cmd: str(BIN / "privdtol")) is None


def _path_without(tmp_path: Path, *absent: str, env_bin: bool = True) -> str:
    """A PATH with every command of this one but ``absent`` (the Python environment's bin
    directory first, as is, when ``env_bin``)."""
    links = tmp_path / "bin"
    links.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory) or Path(directory).resolve() == BIN.resolve():
            continue
        for name in os.listdir(directory):
            target = Path(directory) / name
            if name in absent or (links / name).exists() or not os.access(target, os.X_OK):
                continue
            if target.is_file():
                (links / name).symlink_to(target)
    return f"{BIN}{os.pathsep}{links}" if env_bin else str(links)


def _snakemake(wd: Path, path: str, *targets: str) -> subprocess.CompletedProcess:
    """``snakemake --cores 1 TARGETS`` on the smoke config in ``wd`` with ``path`` as PATH."""
    return run_snakemake(
        wd,
        "--cores",
        "1",
        *targets,
        "--configfile",
        "config/smoke.yaml",
        env=snakemake_env(path),
        check=False,
        timeout=600,
    )


@pytest.mark.pipeline
def test_without_dot_the_rule_graph_stops_in_one_line_and_aggregation_still_runs(
    smoke_run, tmp_path
):
    wd = copy_build(smoke_run, tmp_path / "run")  # modification times kept
    path = _path_without(tmp_path, "dot")
    rulegraph = wd / "results" / "report" / "generated" / "rulegraph.pdf"
    log = wd / "logs" / "report" / "draw_rulegraph.log"
    rulegraph.unlink()
    log_before = log.read_bytes()
    proc = _snakemake(wd, path, str(rulegraph.relative_to(wd)))
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("privdtol: the requested jobs need commands"), proc.stderr[-2000:]
    assert "dot (for draw_rulegraph)" in last and "graphviz" in last, last
    assert "Traceback" not in proc.stderr and "CalledProcessError" not in proc.stderr
    assert not rulegraph.exists() and log.read_bytes() == log_before, "a job ran"

    table = wd / "results" / "agg" / "gap.parquet"
    table.unlink()
    proc = _snakemake(wd, path, "aggregate_all")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert table.is_file()


@pytest.mark.pipeline
def test_snakemake_of_the_environment_without_it_on_path_names_privdtol(smoke_run, tmp_path):
    wd = copy_build(smoke_run, tmp_path / "run")
    (wd / "results" / "agg" / "gap.parquet").unlink()
    path = _path_without(tmp_path, "privdtol", "python", "snakemake", env_bin=False)
    proc = _snakemake(wd, path, "aggregate_all")
    assert proc.returncode == 1, proc.stderr[-3000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert "privdtol (for aggregate)" in last and f"source {BIN}/activate" in last, last
    assert not (wd / "results" / "agg" / "gap.parquet").exists()
