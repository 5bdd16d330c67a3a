"""Fake installed plugins for the tests: a directory holding a module and the
``<dist>.dist-info`` (METADATA, entry_points.txt) that :mod:`importlib.metadata` finds on
``sys.path``, and the environment of a child process that sees it (the registries are built at
import, so each plugin set needs a fresh interpreter: ``support.cli.run_cli(..., plugins=[d])``)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from support.paths import ROOT


def fake_plugin(where: Path, dist: str, module: str, source: str, entry_points: dict) -> Path:
    """Write ``module``.py (``source``) and a distribution ``dist`` whose entry points are
    ``{group: {name: "module:object"}}`` into ``where``; returns ``where``."""
    where.mkdir(parents=True, exist_ok=True)
    (where / f"{module}.py").write_text(textwrap.dedent(source))
    info = where / f"{dist}-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = []
    for group, eps in entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in eps.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return where


def plugin_env(*paths: Path) -> dict[str, str]:
    """The environment of a child that imports this checkout's privdtol, the tests' helpers
    and the plugins in ``paths``."""
    env = dict(os.environ)
    parts = [str(ROOT / "src"), str(ROOT / "tests"), *map(str, paths)]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    return env
