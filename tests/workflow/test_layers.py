"""Workflow-level tests (layers)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest
from support.paths import ROOT

# --- from tests/test_imports.py

SRC = ROOT / "src"


def modules(src: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's ``__init__``)."""
    out = {}
    for path in sorted((src / "privdtol").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def import_graph(src: Path) -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    mods = modules(src)
    graph: dict[str, set[str]] = {}
    for name, (path, is_pkg) in mods.items():
        package = name if is_pkg else name.rpartition(".")[0]
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [
                    f"{module}.{a.name}" if f"{module}.{a.name}" in mods else module
                    for a in node.names
                ]
            else:
                continue
            edges |= {t for t in targets if t in mods and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as err:
        return list(err.args[1])
    return None


def test_the_package_has_no_import_circle():
    graph = import_graph(SRC)
    assert len(graph) > 50, f"only {len(graph)} modules found under {SRC}"
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_the_engine_and_the_archive_import_in_one_direction():
    graph = import_graph(SRC)
    assert "privdtol.engine.explicit" in graph["privdtol.engine.fast"]
    assert "privdtol.engine.fast" not in graph["privdtol.engine.explicit"]
    assert "privdtol.archive.layout" in graph["privdtol.report.provenance"]
    assert not any(m.startswith("privdtol.report") for m in graph["privdtol.archive.build"])


@pytest.mark.parametrize(
    "files",
    [
        {"a.py": "from privdtol import b\n", "b.py": "def f():\n    from privdtol.a import x\n"},
        {"a.py": "from . import b\n", "b.py": "import privdtol.c\n", "c.py": "from .a import y\n"},
    ],
    ids=["deferred-import", "relative-three"],
)
def test_a_circle_is_found_also_through_deferred_and_relative_imports(tmp_path, files):
    package = tmp_path / "privdtol"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    cycle = find_cycle(import_graph(tmp_path))
    assert cycle is not None and cycle[0] == cycle[-1], cycle
    assert set(cycle) == {f"privdtol.{n.removesuffix('.py')}" for n in files}
