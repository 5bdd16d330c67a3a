"""The test tree's own layout: no file is named after how a test was found (a mutation run, a
census, a sample, fuzzing, hostile input), every test module outside tests/workflow/ and
tests/support/ mirrors a module or package of src/privdtol/, and no test module imports another
one (shared helpers live in tests/support/).  Each check is a function of a repository root,
shown to fail on a planted bad tree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from support.paths import ROOT

#: names that tell a test's history instead of what it tests: how its bugs were found (a
#: mutation run, a census, a sample, a round, fuzzing, hostile input), not its subject
PROCESS_NAME = re.compile(
    r"mutants_|_fresh|_round\d|_r\d[a-z]|census|_sample|^test_(?:fuzz|hostile)", re.IGNORECASE
)
#: folders of tests/ whose modules do not mirror the package (workflow-level tests, helpers)
NOT_MIRRORED = ("workflow", "support")


def _tests(root: Path) -> Path:
    return root / "tests"


def _python_files(root: Path) -> list[Path]:
    return sorted(p for p in _tests(root).rglob("*.py") if "__pycache__" not in p.parts)


def process_names(root: Path) -> list[str]:
    """Files and folders under ``root``/tests whose name is one of a mutation run, census or
    sample (paths relative to ``root``)."""
    tests = _tests(root)
    return sorted(
        str(p.relative_to(root))
        for p in tests.rglob("*")
        if "__pycache__" not in p.parts and PROCESS_NAME.search(p.name)
    )


def unmirrored_test_modules(root: Path) -> list[str]:
    """Test modules ``tests/<path>/test_<m>.py`` (outside tests/workflow/ and tests/support/)
    for which neither ``src/privdtol/<path>/<m>.py`` nor the package ``src/privdtol/<path>/<m>/``
    (with its ``__init__.py``; at the top level, any folder) exists."""
    tests, package = _tests(root), root / "src" / "privdtol"
    out = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if rel.parts[0] in NOT_MIRRORED or "__pycache__" in rel.parts:
            continue
        where = package.joinpath(*rel.parts[:-1])
        name = rel.stem.removeprefix("test_")
        top = len(rel.parts) == 1
        if (where / f"{name}.py").is_file():
            continue
        if (where / name).is_dir() and (top or (where / name / "__init__.py").is_file()):
            continue
        out.append(str(path.relative_to(root)))
    return out


def _names_a_test_module(dotted: str, folders: set[str]) -> bool:
    """Whether the import of ``dotted`` (relative when it starts with a dot) reaches into the
    test tree: a module ``test_*`` or ``conftest`` anywhere in it, or a path under tests/ other
    than tests/support/ (``tests.engine``, or ``engine`` itself: tests/ is on ``sys.path``)."""
    parts = dotted.lstrip(".").split(".") if dotted.strip(".") else []
    if any(p.startswith("test_") or p == "conftest" for p in parts):
        return True
    if dotted.startswith(".") or not parts:
        return False
    if parts[0] == "tests":
        return parts[1:2] != ["support"]
    return parts[0] in folders


def imports_of_test_modules(root: Path) -> list[str]:
    """``file: module`` for every import, in a Python file under ``root``/tests, of a test
    module or of a path under tests/ other than tests/support/ (relative imports included)."""
    tests = _tests(root)
    folders = {
        p.name for p in tests.iterdir() if p.is_dir() and p.name not in ("support", "__pycache__")
    }
    out = []
    for path in _python_files(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                names = [module]
                if node.level:  # ``from . import test_x``: the names may be modules
                    sep = "" if module.endswith(".") else "."
                    names += [f"{module}{sep}{alias.name}" for alias in node.names]
            else:
                continue
            out += [
                f"{path.relative_to(root)}: {name}"
                for name in names
                if _names_a_test_module(name, folders)
            ]
    return out


# ------------------------------------------------------------------------- the real test tree
def test_no_test_file_is_named_after_a_mutation_run_census_or_sample():
    assert process_names(ROOT) == []


def test_every_test_module_mirrors_a_package_module():
    assert unmirrored_test_modules(ROOT) == []


def test_no_test_module_imports_another():
    assert imports_of_test_modules(ROOT) == []


# --------------------------------------------------------------- the checks on a planted tree
def _plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


GOOD = {
    "src/privdtol/__init__.py": "",
    "src/privdtol/cli.py": "",
    "src/privdtol/engine/__init__.py": "",
    "src/privdtol/engine/exact/__init__.py": "",
    "src/privdtol/engine/exact/softmax.py": "",
    "tests/conftest.py": "from support.paths import ROOT\n",
    "tests/support/paths.py": "",
    "tests/test_cli.py": "import ast\nfrom privdtol.cli import main\n",
    "tests/test_engine.py": "",
    "tests/engine/test_exact.py": "from support import paths\n",
    "tests/engine/exact/test_softmax.py": "from privdtol.engine.exact import softmax\n",
    "tests/workflow/test_pipeline.py": "",
    "tests/workflow/mutants/equivalent.yaml": "",
}


def test_checks_pass_on_a_planted_good_tree(tmp_path):
    root = _plant(tmp_path, GOOD)
    assert process_names(root) == []
    assert unmirrored_test_modules(root) == []
    assert imports_of_test_modules(root) == []


@pytest.mark.parametrize(
    "name, found",
    [
        ("tests/engine/test_mutants_softmax.py", "tests/engine/test_mutants_softmax.py"),
        ("tests/engine/test_softmax_fresh.py", "tests/engine/test_softmax_fresh.py"),
        ("tests/engine/test_exact_round4.py", "tests/engine/test_exact_round4.py"),
        ("tests/engine/test_softmax_r4d.py", "tests/engine/test_softmax_r4d.py"),
        ("tests/test_census_power.py", "tests/test_census_power.py"),
        ("tests/engine/test_exact_sample.py", "tests/engine/test_exact_sample.py"),
        ("tests/workflow/test_fuzz_inputs.py", "tests/workflow/test_fuzz_inputs.py"),
        ("tests/workflow/test_hostile_use.py", "tests/workflow/test_hostile_use.py"),
        ("tests/data/census/notes.txt", "tests/data/census"),  # a folder's name too
    ],
)
def test_a_file_named_after_the_process_is_found(tmp_path, name, found):
    root = _plant(tmp_path, {**GOOD, name: ""})
    assert process_names(root) == [found]


@pytest.mark.parametrize(
    "name",
    [
        "tests/test_nothing.py",  # no module privdtol.nothing, no package either
        "tests/engine/test_softmax.py",  # softmax is in engine/exact/, not engine/
        "tests/engine/exact/test_explicit.py",
        "tests/report/test_latex.py",  # no src/privdtol/report/ at all
    ],
)
def test_a_test_module_without_its_package_module_is_found(tmp_path, name):
    root = _plant(tmp_path, {**GOOD, name: ""})
    assert unmirrored_test_modules(root) == [name]


def test_a_folder_without_init_is_not_a_package_below_the_top(tmp_path):
    root = _plant(tmp_path, {**GOOD, "src/privdtol/engine/data/x.txt": ""})
    root = _plant(root, {"tests/engine/test_data.py": ""})
    assert unmirrored_test_modules(root) == ["tests/engine/test_data.py"]


@pytest.mark.parametrize(
    "text, found",
    [
        ("import test_softmax\n", "test_softmax"),
        ("from test_cli import helper\n", "test_cli"),
        ("from engine.exact.test_softmax import helper\n", "engine.exact.test_softmax"),
        ("from conftest import smoke_run\n", "conftest"),
        ("import tests.engine.exact\n", "tests.engine.exact"),
        ("from tests import conftest\n", "tests"),
        ("from . import test_softmax\n", ".test_softmax"),
        ("from engine.exact import helper\n", "engine.exact"),
        ("import workflow\n", "workflow"),
        ("from .test_softmax import helper\n", ".test_softmax"),
    ],
)
def test_an_import_of_a_test_module_is_found(tmp_path, text, found):
    root = _plant(tmp_path, {**GOOD, "tests/engine/exact/test_softmax.py": text})
    problems = imports_of_test_modules(root)
    assert problems and all(p.startswith("tests/engine/exact/test_softmax.py: ") for p in problems)
    assert any(p.endswith(f": {found}") for p in problems), problems
