"""The algorithm registry: the built-in algorithms in display order, the plugins' (entry-point
group ``privdtol.algorithms``, checked against :mod:`privdtol.algorithms.contract` at load
time), and the lists derived from the algorithms' declarations (competitors, references).
tests/algorithms/test_registry.py holds every registered algorithm to the common contract."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from privdtol.algorithms.base import Algorithm
from privdtol.algorithms.contract import check_algorithm
from privdtol.algorithms.declarations import ROLES
from privdtol.core.plugins import load_plugins
from privdtol.errors import by_name, lookup

#: the entry-point group of plugin algorithms
ENTRY_POINT_GROUP = "privdtol.algorithms"
#: the modules of this package that define no algorithm
_NOT_ALGORITHMS = ("base", "contract", "declarations", "registry")


def built_in() -> list[type[Algorithm]]:
    """Every algorithm class defined in a module of this package (one that declares its own
    ``name``), in display order: by role (the order of
    :data:`~privdtol.algorithms.declarations.ROLES`: the paper's, competitors, ablations,
    baselines, controls), then module name, then order of definition in the module.  A new
    module is found by its folder: nothing else lists it."""
    package = __name__.rpartition(".")[0]
    found = []
    names = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]))
    for rank, module_name in enumerate(n for n in names if n not in _NOT_ALGORITHMS):
        module = importlib.import_module(f"{package}.{module_name}")
        for order, obj in enumerate(vars(module).values()):
            if (
                isinstance(obj, type)
                and issubclass(obj, Algorithm)
                and obj.__module__ == module.__name__
                and "name" in vars(obj)
            ):
                found.append(((ROLES.index(obj.role), rank, order), obj))
    return [cls for _, cls in sorted(found, key=lambda pair: pair[0])]


_BUILT_IN = by_name(*built_in())
#: the algorithms of installed plugins (checked against the contract at load time)
PLUGINS: dict[str, type[Algorithm]] = load_plugins(ENTRY_POINT_GROUP, _BUILT_IN, check_algorithm)

#: every algorithm, in display order (figures, tables and the report list them in this order):
#: the built-in ones, the plugins' (controls among them after the built-in controls), the
#: negative controls (``role == "control"``) last
ALGORITHMS: dict[str, type[Algorithm]] = {
    **{n: c for n, c in _BUILT_IN.items() if c.role != "control"},
    **{n: c for n, c in PLUGINS.items() if c.role != "control"},
    **{n: c for n, c in _BUILT_IN.items() if c.role == "control"},
    **{n: c for n, c in PLUGINS.items() if c.role == "control"},
}
#: the registered negative controls of the regret checks, in display order
CONTROL_NAMES: tuple[str, ...] = tuple(n for n, c in ALGORITHMS.items() if c.role == "control")
#: the private competitors of the paper's algorithm (the competitor finding's)
COMPETITORS: tuple[str, ...] = tuple(n for n, c in ALGORITHMS.items() if c.role == "competitor")
#: algorithm -> key in paper/references.bib of the work it is taken from (the ablations and
#: negative controls are this pipeline's own and cite nothing)
REFERENCES: dict[str, str] = {n: c.reference for n, c in ALGORITHMS.items() if c.reference}


def make_algorithm(name: str, epsilon: float | None) -> Algorithm:
    """Instantiate a registered algorithm; private ones need ``epsilon > 0``."""
    return lookup(ALGORITHMS, name, "algorithm", "algorithm")(epsilon)


__all__ = [
    "ALGORITHMS",
    "COMPETITORS",
    "CONTROL_NAMES",
    "ENTRY_POINT_GROUP",
    "PLUGINS",
    "REFERENCES",
    "make_algorithm",
]
