"""What a user of the package gets: pinned dependencies that agree between pyproject.toml,
environment.yml and the lockfiles (every package, transitive ones included, at one version with
its hashes), the locked install that refuses a tampered hash, data files shipped with the
package, output files with ordinary permissions, and (slow) a working ``privdtol`` from
``pip install .`` into a clean virtual environment."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support.paths import BIN, ROOT, SRC

PACKAGE = ROOT / "src" / "privdtol"


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    return requirement.split("==")[0].split("[")[0].strip().lower()


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


LOCK = ROOT / "requirements.lock"


DOCS_LOCK = ROOT / "requirements-docs.lock"


def read_lock(path: Path) -> dict[str, tuple[str, list[str]]]:
    """``name -> (version, sha256 hashes)`` of a pip requirements file with hashes; every
    requirement must be ``name==version`` followed by at least one ``--hash=sha256:``."""
    text = path.read_text()
    entries = {}
    for block in re.split(r"\n(?=\S)", text):
        line = block.split("\n", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(\s*;[^\\]*)?\s*\\?", line)
        assert m, f"{path.name}: not pinned with ==: {line!r}"
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
        assert hashes, f"{path.name}: {m[1]}=={m[2]} has no sha256 hash"
        assert _canon(m[1]) not in entries, f"{path.name}: {m[1]} pinned twice"
        entries[_canon(m[1])] = (m[2], hashes)
    return entries


def _pinned_requirements() -> list[str]:
    project = _project()["project"]
    return project["dependencies"] + [
        r for extra in ("pipeline", "test") for r in project["optional-dependencies"][extra]
    ]


# ----------------------------------------------------------------------------- dependencies
def test_environment_yml_matches_pyproject():
    project = _project()["project"]
    pinned = set(project["dependencies"])
    for group in project["optional-dependencies"].values():
        pinned |= set(group)
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = {p for p in pip if not p.startswith("-e")}
    assert listed == pinned, (
        f"only in pyproject: {pinned - listed}; only in environment.yml: {listed - pinned}"
    )
    assert all("==" in p for p in pinned), "every dependency is pinned"
    assert len({_name(p) for p in pinned}) == len(pinned), "a package is pinned twice"
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert python == "python=3.11"


def test_lock_pins_every_dependency_of_pyproject_with_hashes():
    """requirements.lock (``make lock``) holds every direct dependency of the core and the
    pipeline and test extras at a version its specifier allows, every line pinned and hashed,
    and not the project itself (installed editable, --no-deps, after the lock)."""
    from packaging.requirements import Requirement

    lock = read_lock(LOCK)
    assert len(lock) > 50, "the lock holds transitive dependencies too"
    for text in _pinned_requirements():
        req = Requirement(text)
        assert _canon(req.name) in lock, f"{req.name} missing from requirements.lock (make lock)"
        version = lock[_canon(req.name)][0]
        assert req.specifier.contains(version, prereleases=True), (
            f"requirements.lock pins {req.name}=={version}, pyproject.toml asks {req.specifier}"
            " (make lock)"
        )
    assert "privdtol" not in lock
    assert "make lock" in LOCK.read_text().split("\n", 3)[1], "the header names make lock"


def test_docs_lock_extends_the_lock_with_the_same_pins():
    from packaging.requirements import Requirement

    lock, docs = read_lock(LOCK), read_lock(DOCS_LOCK)
    assert {n: v for n, (v, _) in docs.items() if n in lock} == {n: v for n, (v, _) in lock.items()}
    for text in _project()["project"]["optional-dependencies"]["docs"]:
        req = Requirement(text)
        assert req.specifier.contains(docs[_canon(req.name)][0]), req.name


def test_environment_files_agree_with_the_lock():
    """environment.yml and the rules' workflow/envs/privdtol.yaml pin what the lock pins."""
    lock = read_lock(DOCS_LOCK)
    for path in (ROOT / "environment.yml", ROOT / "workflow" / "envs" / "privdtol.yaml"):
        env = yaml.safe_load(path.read_text())
        pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
        for line in (p for p in pip if not p.startswith("-e")):
            name, version = line.split("==")
            assert lock[_canon(name)][0] == version, f"{path.name}: {line} vs the lock"


def test_installed_environment_is_the_lock():
    """A venv made by ``make setup`` (its stamp holds the sha256 of the lock it installed)
    holds exactly the lock's pins (the docs lock's when ``make docs`` ran): ``pip freeze``
    minus the editable project equals them."""
    stamp = Path(sys.prefix) / ".installed"
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text().split()[:1] != [digest]:
        pytest.skip(f"{sys.prefix} was not installed from this requirements.lock by make setup")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    frozen = {
        _canon(line.split("==")[0]): line.split("==")[1]
        for line in proc.stdout.splitlines()
        if "==" in line and not line.startswith("privdtol==")  # the project: editable, no-deps
    }
    lock = {n: v for n, (v, _) in read_lock(LOCK).items()}
    docs = {n: v for n, (v, _) in read_lock(DOCS_LOCK).items()}
    expected = docs if (Path(sys.prefix) / ".docs-installed").exists() else lock
    assert frozen == expected, (
        f"not in the lock: {sorted(set(frozen.items()) - set(expected.items()))}; "
        f"missing: {sorted(set(expected.items()) - set(frozen.items()))} "
        "(rm -rf .venv && make setup)"
    )


@pytest.mark.slow
def test_locked_install_refuses_a_tampered_hash(tmp_path):
    """``make install-lock`` (the step of ``make setup``) into a throwaway venv: one small
    package of the lock installs with its hashes, the same line with one hash digit changed
    is refused, and so is a line without hashes."""
    lock = read_lock(LOCK)
    name = "annotated-types"  # no dependencies, a few kB
    version, hashes = lock[name]
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], tmp_path)

    def install(text: str) -> subprocess.CompletedProcess:
        (tmp_path / "x.lock").write_text(text)
        return subprocess.run(
            ["make", "-s", "-C", ROOT, "install-lock", f"PY={venv}/bin/python",
             f"LOCK={tmp_path / 'x.lock'}"],
            env=_clean_env(), capture_output=True, text=True, timeout=600,
        )  # fmt: skip

    def line(hs):
        return f"{name}=={version}" + "".join(f" --hash=sha256:{h}" for h in hs) + "\n"

    bad = [h[:-1] + ("0" if h[-1] != "0" else "1") for h in hashes]
    proc = install(line(bad))
    assert proc.returncode != 0 and "DO NOT MATCH THE HASHES" in proc.stderr, proc.stderr
    proc = install(f"{name}=={version}\n")
    assert proc.returncode != 0 and "Hashes are required" in proc.stderr, proc.stderr
    proc = install(line(hashes))
    assert proc.returncode == 0, proc.stderr
    freeze = _run([venv / "bin" / "python", "-m", "pip", "freeze"], tmp_path).stdout
    assert f"annotated_types=={version}" in freeze.replace("-", "_"), freeze


def test_runtime_imports_are_core_dependencies():
    """``privdtol check-config`` validates with jsonschema and reads YAML: those must be core
    dependencies (installed by a plain ``pip install .``), not optional ones."""
    core = {_name(p) for p in _project()["project"]["dependencies"]}
    assert {"jsonschema", "pyyaml", "numpy", "scipy", "pandas", "pyarrow"} <= core


# ----------------------------------------------------------------------------- package data
def _package_data_globs() -> list[str]:
    return _project()["tool"]["setuptools"]["package-data"]["privdtol"]


def test_every_data_file_of_the_package_is_declared_package_data():
    """A non-Python file under src/privdtol (schema, templates) that no package-data glob
    matches would be missing from a non-editable install."""
    globs = _package_data_globs()
    files = [
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert "pipeline/config.schema.yaml" in files
    undeclared = [f for f in files if not any(fnmatch.fnmatch(f, g) for g in globs)]
    assert not undeclared, f"not in [tool.setuptools.package-data] of pyproject.toml: {undeclared}"
    for g in globs:
        assert any(fnmatch.fnmatch(f, g) for f in files), f"package-data glob {g!r} matches nothing"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ----------------------------------------------------------------------------- pip install .
def _clean_env(**extra) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_USER", "PIP_TARGET", "PIP_PREFIX")
    }
    return {**env, **extra}


def _run(cmd, cwd, timeout=900, **kw):
    proc = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env=kw.pop("env", _clean_env()),
        capture_output=True,
        text=True,
        timeout=timeout,
        umask=0o022,
        **kw,
    )
    assert proc.returncode == 0, (
        f"{cmd} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    return proc


@pytest.mark.slow
def test_pip_install_into_a_clean_venv_gives_a_working_privdtol(tmp_path):
    """``pip install .`` (not editable) into a fresh venv: the ``privdtol`` command validates
    the shipped config with the schema shipped as package data, and simulates from a directory
    outside the repository, with the same bytes as the development install."""
    # build from a copy: an in-tree setuptools build would leave build/ and *.egg-info in ROOT
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(
        SRC,
        source / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"),
    )
    venv = tmp_path / "venv"
    started = time.monotonic()
    _run([sys.executable, "-m", "venv", venv], tmp_path)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", source], tmp_path)
    print(f"venv + pip install: {time.monotonic() - started:.1f} s")

    work = tmp_path / "elsewhere"  # no repository, no src/ on any path
    shutil.copytree(ROOT / "config", work / "config")
    where = _run(
        [venv / "bin" / "python", "-c", "import privdtol; print(privdtol.__file__)"], work
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), f"privdtol imported from {where}"
    assert (Path(where).parent / "pipeline" / "config.schema.yaml").is_file()

    proc = _run([venv / "bin" / "privdtol", "check-config", "config/config.yaml"], work)
    assert "config/config.yaml: ok" in proc.stderr
    assert "total" in proc.stdout
    bad = work / "bad.yaml"
    bad.write_text((work / "config" / "config.yaml").read_text() + "\nunknown_key: 1\n")
    proc = subprocess.run(
        [venv / "bin" / "privdtol", "check-config", bad],
        cwd=work,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0 and "unknown key (allowed: description, seed" in proc.stderr, (
        proc.stderr
    )

    args = [
        "simulate",
        "--algorithm",
        "rps",
        "--epsilon",
        "1",
        "--K",
        "4",
        "--gap",
        "0.25",
        "--horizon",
        "4095",
        "--runs",
        "5",
        "--seed",
        "3",
    ]
    _run([venv / "bin" / "privdtol", *args, "--out", "x.csv"], work)
    table = pd.read_csv(work / "x.csv")
    assert len(table) > 0 and set(table["run"]) == set(range(5))
    assert _mode(work / "x.csv") == 0o644
    # the development install (this test's interpreter) writes the same bytes
    dev = BIN / "privdtol"
    _run([dev, *args, "--out", "dev.csv"], work, env=os.environ.copy())
    assert (work / "x.csv").read_bytes() == (work / "dev.csv").read_bytes()
