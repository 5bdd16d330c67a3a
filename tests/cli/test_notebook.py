"""Tests of :mod:`privdtol.cli.notebook`: ``privdtol notebook`` runs a jupytext notebook with
its parameters and writes its stripped copy and offline HTML page, or, when it raises, no
result; bad arguments are one line and start no kernel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privdtol.cli import main

pytest.importorskip("papermill")
pytest.importorskip("jupytext")


GOOD = """# %% tags=["parameters"]
value = 1

# %%
print("value is", value * 7)
"""


BAD = """# %% tags=["parameters"]
value = 1

# %%
raise RuntimeError("planted failure 5b1e")
"""


def _paths(tmp_path: Path, name: str) -> dict[str, Path]:
    return {
        "converted": tmp_path / "logs" / f"{name}.input.ipynb",
        "executed": tmp_path / "logs" / f"{name}.ipynb",
        "ipynb": tmp_path / "results" / f"{name}.ipynb",
        "html": tmp_path / "results" / f"{name}.html",
    }


def run_notebook(source: Path, paths: dict[str, Path], parameters: str) -> int:
    args = [str(source), f"--parameters={parameters}"]
    for key, path in paths.items():
        args += [f"--{key}", str(path)]
    return main(["notebook", *args])


@pytest.mark.notebook
def test_a_notebook_that_runs_gives_its_stripped_copy_and_its_offline_page(tmp_path):
    source = tmp_path / "good.py"
    source.write_text(GOOD)
    paths = _paths(tmp_path, "good")
    assert run_notebook(source, paths, "{value: 6}") == 0
    nb = json.loads(paths["ipynb"].read_text())
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert "value is 42" in text  # the parameter reached the kernel
    assert "start_time" not in paths["ipynb"].read_text()  # stripped
    assert [c["id"] for c in nb["cells"]][:2] == ["cell-0", "cell-1"]
    assert paths["ipynb"].read_text() == paths["executed"].read_text()
    page = paths["html"].read_text()
    assert "value is 42" in page and "cdn.jsdelivr" not in page and "<script src=" not in page


@pytest.mark.notebook
def test_a_notebook_that_raises_leaves_no_result_and_its_partial_copy(tmp_path):
    from papermill.exceptions import PapermillExecutionError

    source = tmp_path / "bad.py"
    source.write_text(BAD)
    paths = _paths(tmp_path, "bad")
    with pytest.raises(PapermillExecutionError, match="planted failure 5b1e"):
        run_notebook(source, paths, "{}")
    assert not paths["ipynb"].exists() and not paths["html"].exists()
    assert "planted failure 5b1e" in paths["executed"].read_text()


@pytest.mark.parametrize(
    "source, parameters, field",
    [
        ("missing.py", "{}", "source"),
        ("notebook.ipynb", "{}", "source"),
        ("good.py", "[1, 2]", "parameters"),
        ("good.py", "{a: [1", "parameters"),
    ],
)
def test_bad_arguments_are_one_line_and_start_no_kernel(
    tmp_path, capsys, source, parameters, field
):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "notebook.ipynb").write_text("{}")
    paths = _paths(tmp_path, "x")
    assert run_notebook(tmp_path / source, paths, parameters) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"privdtol notebook: error: --{field}:"), err
    assert not any(p.exists() for p in paths.values())


@pytest.mark.parametrize("defect", ["missing agg_dir", "truncated check"])
def test_bad_data_is_one_line_before_papermill(tmp_path, capsys, defect):
    """Before the fix: a papermill traceback of about 40 lines from inside the notebook."""
    (tmp_path / "good.py").write_text(GOOD)
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "C3.json").write_text('{"claim": "C3", "verd')
    if defect == "missing agg_dir":
        parameters = f"{{agg_dir: {tmp_path / 'nope'}}}"
    else:
        parameters = f"{{checks_dir: {checks}}}"
    paths = _paths(tmp_path, "x")
    assert run_notebook(tmp_path / "good.py", paths, parameters) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("privdtol notebook: error: --parameters:"), err
    assert ("nope" if defect == "missing agg_dir" else "C3.json") in err
    assert not any(p.exists() for p in paths.values())


@pytest.mark.parametrize(
    ("source", "corrupt", "refused"),
    [("horizon", "horizon", True), ("horizon", "grid", False), ("mine", "grid", True)],
)
def test_a_notebook_checks_the_tables_it_reads(tmp_path, capsys, source, corrupt, refused):
    """A registered notebook's tables (``horizon`` reads ``horizon``) are checked before
    papermill, the others are not its concern; a notebook the registry does not list has
    every table checked.  (The kernel reads the same files again: ``refused`` False runs it.)"""
    agg = tmp_path / "agg"
    agg.mkdir()
    (agg / f"{corrupt}.parquet").write_bytes(b"PAR1 truncated")
    (tmp_path / f"{source}.py").write_text(GOOD.replace("value = 1", 'value = 1\nagg_dir = ""'))
    paths = _paths(tmp_path, source)
    rc = run_notebook(tmp_path / f"{source}.py", paths, f"{{agg_dir: {agg}}}")
    err = capsys.readouterr().err.strip()
    if refused:
        assert rc == 2 and err.startswith("privdtol notebook: error: --parameters:"), err
        assert f"{corrupt}.parquet" in err and "\n" not in err
        assert not any(p.exists() for p in paths.values())
    else:
        assert rc == 0 and paths["html"].exists(), err
