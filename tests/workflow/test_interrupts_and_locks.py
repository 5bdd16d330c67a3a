"""Interrupts and concurrent builds: Ctrl-C during a simulation and while a table is written
leaves no output and no temporary file (exit 130, one line saying so), and a second build in a
folder whose lock the first holds is refused before any job, saying why and what to do."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest
from support.cli import one_line
from support.paths import BIN
from support.workflow import copy_workflow, run_snakemake, snakemake_env

from privdtol.cli import INTERRUPTED

# ----------------------------------------------------------------------------- interrupts
#: a cell that takes tens of seconds (the explicit per-round simulator): interrupted long
#: before it ends
SLOW_CELL = ["--algorithm", "hedge", "--K", "64", "--gap", "0.1", "--horizon", "200000",
             "--runs", "2000", "--mode", "explicit"]  # fmt: skip


def test_sigint_during_a_simulation_leaves_no_output(tmp_path):
    """Ctrl-C (SIGINT) while ``privdtol simulate`` computes: exit 130, one line saying so, no
    output file and no temporary file beside it."""
    out = tmp_path / "out" / "cell.parquet"
    out.parent.mkdir()
    proc = subprocess.Popen(
        [str(BIN / "privdtol"), "simulate", *SLOW_CELL, "--out", str(out)],
        env=snakemake_env(),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    time.sleep(4)  # imported, computing
    assert proc.poll() is None, "the cell ended before the interrupt"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == INTERRUPTED, err
    assert one_line(err) == "privdtol simulate: interrupted; no partial output is left"
    assert list(out.parent.iterdir()) == []


def test_sigint_while_a_table_is_written_leaves_no_partial_file(tmp_path, monkeypatch):
    """The interrupt arriving while the table's bytes are written: the half-written temporary
    file is removed, the destination never appears."""
    import pandas as pd

    from privdtol.pipeline.io import write_table

    def half_written(self, path, **kwargs):
        with open(path, "wb") as fh:
            fh.write(b"PAR1 half a table")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_parquet", half_written)
    with pytest.raises(KeyboardInterrupt):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "t.parquet")
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- two builds
@pytest.mark.slow
def test_a_second_build_in_the_same_folder_is_refused_while_the_first_holds_it(tmp_path):
    """Two builds at once in one folder: while the first holds Snakemake's lock (here, its
    lock files as a running build leaves them), the second is refused before any job, saying
    why and what to do, and writes nothing."""
    wd = copy_workflow(tmp_path / "wd")
    locks = wd / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    # what the first build writes while it runs: the outputs of its jobs, one a line
    (locks / "0.output.lock").write_text("results/config.merged.yaml\n")
    proc = run_snakemake(
        wd, "--cores", "1", "write_config", "--configfile", "config/smoke.yaml", check=False
    )
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in text, text[-3000:]
    assert "cannot be locked" in text and "--unlock" in text, text[-3000:]
    assert not (wd / "results" / "config.merged.yaml").exists()
