"""Tests of :mod:`privdtol.pipeline.staleness`: the code stamp of a layer of the package follows
its files' content (not their location or time), covers the report's templates, is written once
and names no absolute path."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import privdtol
from privdtol.errors import InputError
from privdtol.pipeline import staleness

PACKAGE = Path(privdtol.__file__).resolve().parent


@pytest.fixture
def copy(tmp_path):
    """The package copied elsewhere, every file with another modification time."""
    root = tmp_path / "other" / "privdtol"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    for path in root.rglob("*"):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    return root


def test_the_digest_follows_the_content_not_the_location_or_the_time(copy):
    layers = ("analysis", "core")
    assert staleness.layer_digest(layers, copy) == staleness.layer_digest(layers)
    (copy / "analysis" / "stats.py").write_text(
        (copy / "analysis" / "stats.py").read_text() + "\n# an edit\n"
    )
    assert staleness.layer_digest(layers, copy) != staleness.layer_digest(layers)
    assert staleness.layer_digest(("core",), copy) == staleness.layer_digest(("core",))


def test_the_report_stamp_covers_its_templates_and_no_cache(copy):
    files = [p.relative_to(copy).as_posix() for p in staleness.layer_files(["report"], copy)]
    assert "report/latex/templates/claims.tex.j2" in files and "report/latex/text.py" in files
    (copy / "report" / "__pycache__").mkdir(exist_ok=True)
    (copy / "report" / "__pycache__" / "latex.cpython-311.py").write_text("cache")
    before = staleness.layer_digest(["report"], copy)
    (copy / "report" / "latex" / "templates" / "claims.tex.j2").write_text("edited")
    assert staleness.layer_digest(["report"], copy) != before
    assert staleness.layer_digest(["report"]) == staleness.layer_digest(["report"], PACKAGE)


def test_a_stamp_is_written_once_and_names_no_absolute_path(copy, tmp_path):
    stamps = tmp_path / "results" / "code"
    first = Path(staleness.code_stamp(stamps, ["analysis", "core"], copy))
    assert first.name.startswith("analysis+core-") and first.suffix == ".sha256"
    os.utime(first, (1_000, 1_000))
    again = Path(staleness.code_stamp(stamps, ["analysis", "core"]))  # the installed package
    assert again == first and first.stat().st_mtime == 1_000, "an existing stamp was rewritten"
    text = first.read_text()
    assert "privdtol/analysis/stats.py" in text and str(tmp_path) not in text
    assert str(PACKAGE) not in text
    assert len(text.splitlines()) == len(staleness.layer_files(["analysis", "core"]))


def test_an_unknown_layer_is_one_clear_error(copy):
    with pytest.raises(InputError, match="'analysiz' is not a subpackage"):
        staleness.layer_files(["analysiz"], copy)


def test_the_plugins_pseudo_layer_adds_each_plugin_module_and_nothing_without_them(
    tmp_path, monkeypatch
):
    """A cell's code digest covers its plugin's module (an edit of the plugin's code or of its
    BibTeX recomputes its cells), and a run without plugins keeps its stamps."""
    import importlib.util

    from privdtol.algorithms import ALGORITHMS, PLUGINS

    assert staleness.manifest(["core", staleness.PLUGINS]) == staleness.manifest(["core"])
    module = tmp_path / "edited_plugin.py"
    module.write_text(
        "from privdtol.algorithms.rps import RandomizedPrefixSoftmax\n"
        "class Edited(RandomizedPrefixSoftmax):\n    name = 'edited'\n"
    )
    spec = importlib.util.spec_from_file_location("edited_plugin", module)
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(__import__("sys").modules, "edited_plugin", mod)
    spec.loader.exec_module(mod)
    monkeypatch.setitem(ALGORITHMS, "edited", mod.Edited)
    monkeypatch.setitem(PLUGINS, "edited", mod.Edited)
    before = staleness.cell_code("edited", "bernoulli")
    assert "plugins/edited_plugin.py" in staleness.manifest([staleness.PLUGINS])
    assert staleness.cell_code("rps", "bernoulli") != before  # a built-in's cells: layers only
    module.write_text(module.read_text() + "# bibtex = '@misc{...}' edited\n")
    assert staleness.cell_code("edited", "bernoulli") != before
    assert staleness.cell_code("rps", "bernoulli") == staleness.cell_code("rps", "bernoulli")
