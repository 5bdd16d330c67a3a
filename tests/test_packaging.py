"""environment.yml and pyproject.toml list the same pinned dependencies."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = set(project["dependencies"])
    for group in project["optional-dependencies"].values():
        pinned |= set(group)
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = {p for p in pip if not p.startswith("-e")}
    assert listed == pinned, f"only in pyproject: {pinned - listed}; only in environment.yml: {listed - pinned}"
    assert all("==" in p for p in pinned), "every dependency is pinned"
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert python == "python=3.11"
