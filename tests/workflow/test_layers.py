"""The package's import graph (read with :mod:`ast`, deferred and relative imports included):
no module imports, directly or through others, one that imports it back, and no module imports
a layer above its own (docs/architecture.md: core < algorithms, environments < engine <
pipeline < analysis < privacy < plotting < report, archive < cli), nor, within the report, a
product after its own (figure_order < latex < notebook < html < build).
``from privdtol.a import b`` is an edge to the module ``privdtol.a.b`` when that is a module,
else to ``privdtol.a``."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest
from support.paths import ROOT

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
    assert "privdtol.archive.layout" in graph["privdtol.report.latex.provenance"]
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


#: the layers of the package, low to high (docs/architecture.md): a module may import its own
#: layer and the layers below it, never one above.  ``errors`` is the package's error types
#: (below everything); plotting sits below report (report may use plotting's public style,
#: plotting imports nothing of the report) and archive beside report; ``__main__`` is the CLI.
LAYERS = {
    "errors": 0,
    "core": 0,
    "algorithms": 1,
    "environments": 1,
    "engine": 2,
    "pipeline": 3,
    "analysis": 4,
    "privacy": 5,
    "plotting": 6,
    "report": 7,
    "archive": 7,
    "cli": 8,
    "__main__": 8,
}


def layer_of(module: str) -> int | None:
    """The layer of ``privdtol.<subpackage>...`` (None for the package's own ``__init__``)."""
    parts = module.split(".")
    return LAYERS[parts[1]] if len(parts) > 1 else None


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every (module, imported module) whose imported module is in a higher layer."""
    out = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            low, high = layer_of(module), layer_of(target)
            if low is not None and high is not None and high > low:
                out.append((module, target))
    return out


def test_every_subpackage_has_a_layer():
    names = {m.split(".")[1] for m in import_graph(SRC) if m.count(".") >= 1}
    assert names <= set(LAYERS), sorted(names - set(LAYERS))


def test_no_module_imports_a_higher_layer():
    """Deferred imports (inside functions) count: they run up a layer all the same."""
    bad = upward_imports(import_graph(SRC))
    assert bad == [], "imports up a layer: " + ", ".join(f"{a} -> {b}" for a, b in bad)


@pytest.mark.parametrize(
    "files",
    [
        {"pipeline/__init__.py": "", "pipeline/a.py": "from privdtol.report import b\n"},
        {"pipeline/__init__.py": "", "pipeline/a.py": "def f():\n    import privdtol.report.b\n"},
        {"plotting/__init__.py": "", "plotting/a.py": "from ..report.b import g\n"},
    ],
    ids=["from-import", "deferred-import", "relative-import"],
)
def test_an_upward_import_is_found(tmp_path, files):
    package = tmp_path / "privdtol"
    (package / "report").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "report" / "__init__.py").write_text("")
    (package / "report" / "b.py").write_text("def g():\n    pass\n")
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    bad = upward_imports(import_graph(tmp_path))
    assert len(bad) == 1 and bad[0][1] == "privdtol.report.b", bad
    assert layer_of(bad[0][0]) < layer_of(bad[0][1])


#: the report layer's products, in the order they may import each other (a product imports
#: its own and those before it; :mod:`privdtol.report`): the figure numbers all four show, the
#: LaTeX pieces, what the notebooks import, the HTML pages, the workflow's build jobs
REPORT_PRODUCTS = {"figure_order": 0, "latex": 1, "notebook": 2, "html": 3, "build": 4}


def report_product(module: str) -> int | None:
    """The rank of ``privdtol.report.<product>...`` (None outside the report's products)."""
    parts = module.split(".")
    if parts[:2] != ["privdtol", "report"] or len(parts) < 3:
        return None
    return REPORT_PRODUCTS[parts[2]]


def later_product_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every (report module, imported report module) of a later product than its own."""
    out = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            low, high = report_product(module), report_product(target)
            if low is not None and high is not None and high > low:
                out.append((module, target))
    return out


def test_every_report_module_belongs_to_a_product():
    names = {m.split(".")[2] for m in import_graph(SRC) if m.startswith("privdtol.report.")}
    assert names == set(REPORT_PRODUCTS), sorted(names ^ set(REPORT_PRODUCTS))


def test_no_report_product_imports_a_later_one():
    """The LaTeX pieces know nothing of the notebooks, the notebooks nothing of the HTML
    pages, the pages nothing of the build jobs."""
    graph = import_graph(SRC)
    bad = later_product_imports(graph)
    assert bad == [], "imports of a later product: " + ", ".join(f"{a} -> {b}" for a, b in bad)
    # the order is used, not vacuous: each product imports the one before it
    assert "privdtol.report.latex.text" in graph["privdtol.report.notebook.narrative"]
    assert "privdtol.report.notebook.narrative" in graph["privdtol.report.html.notebook_index"]
    assert "privdtol.report.html.notebook_html" in graph["privdtol.report.build.notebook_run"]


@pytest.mark.parametrize(
    "files",
    [
        {"report/latex/a.py": "from privdtol.report.html import b\n"},
        {"report/notebook/a.py": "def f():\n    from ..html.b import g\n"},
    ],
    ids=["from-import", "deferred-relative-import"],
)
def test_an_import_of_a_later_product_is_found(tmp_path, files):
    package = tmp_path / "privdtol"
    for folder in ("", "report", "report/latex", "report/notebook", "report/html"):
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / "__init__.py").write_text("")
    (package / "report" / "html" / "b.py").write_text("def g():\n    pass\n")
    for name, text in files.items():
        (package / name).write_text(text)
    importer = "privdtol." + next(iter(files)).removesuffix(".py").replace("/", ".")
    assert later_product_imports(import_graph(tmp_path)) == [(importer, "privdtol.report.html.b")]
