"""Config files through ``privdtol check-config``: configs made by mutating config/smoke.yaml
(wrong types, NaN and infinities, extremes, deleted, duplicated and unknown keys, huge lists,
YAML aliases, odd bytes), experiment and slice names of any text (control characters,
newlines, long, the pipeline's own tables), and privacy blocks at the schema's extremes, whose
audits are estimated, never run.  Every input ends in exit 0, or in exit 2 with exactly one
stderr line that names a key or the file; never a traceback, within a time limit (a
per-example alarm) and a memory limit (``resource.setrlimit(RLIMIT_AS)`` around the run): the
contract of :mod:`support.fuzz`.

Fixed seed (``derandomize``) and a bounded number of examples: a few dozen in the fast tier,
more in the slow tier.  Removing the NaN check of
:func:`privdtol.pipeline.config.check_values` makes ``test_fuzz_non_finite_numbers_refused``
fail (``batching.target_seconds: .nan`` is then accepted, exit 0).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import run_cli
from support.fuzz import FAST, SLOW, assert_contract
from support.paths import ROOT

from privdtol.errors import printable
from privdtol.pipeline.semantics import PIPELINE_TABLES

#: the smoke config, with a small size guard so that a fuzzed grid is refused, not planned,
#: when it grows beyond a second of planning (the size guard itself: tests/cli/test_config.py)
BASE = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text()) | {
    "limits": {"max_cells": 400, "max_cpu_hours": 1}
}


#: one experiment and no privacy block: planned in milliseconds, so most examples plan fully
SMALL = {k: v for k, v in BASE.items() if k != "privacy"} | {
    "experiments": [BASE["experiments"][0] | {"algorithms": ["rps", "ftl"]}]
}

#: the smoke config's first experiment alone, one algorithm and one cell, no privacy block
ONE_CELL = {k: v for k, v in BASE.items() if k not in ("privacy", "limits")} | {
    "experiments": [BASE["experiments"][0] | {"algorithms": ["rps"], "K": [2], "gap": [0.5]}]
}
ONE_CELL["experiments"][0].pop("slices", None)


# ----------------------------------------------------------------------------- configs
def paths(node, prefix=()):
    """Every path (tuple of keys and indices) into a config."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, (*prefix, i))


NASTY = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 0, -1, 0.0, 1e-300, 1e300, 2**63, 2**70]),
    st.sampled_from([None, True, False, "", "off", "auto", "x" * 5000, "{x}", "../..", "/tmp"]),
    st.integers(-(2**40), 2**41),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.lists(st.integers(1, 2**20), max_size=5),
    st.lists(st.floats(1e-9, 1), min_size=1, max_size=4),
    st.builds(lambda: list(range(2, 3000))),  # a huge list (a fresh one: mutations edit it)
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


#: replacements of a number: NaN and infinities first (they pass every range check)
NUMBERS = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf]),
    st.sampled_from([0, -1, 0.0, 1e-300, 1e-6, 1e300, 2**31, 2**63, 2**70, 0.5, 3]),
    st.floats(allow_nan=True, allow_infinity=True),
)


def numbers(node, prefix=()):
    """Paths to the numbers of a config (not booleans)."""
    return [
        p
        for p in paths(node, prefix)
        if isinstance(get(node, p), (int, float)) and not isinstance(get(node, p), bool)
    ]


def get(node, path):
    for p in path:
        node = node[p]
    return node


@st.composite
def mutated_config(draw):
    base = draw(st.sampled_from([BASE, SMALL]))
    cfg = yaml.safe_load(yaml.safe_dump(base))
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(["number", "number", "set", "delete", "unknown"]))
        candidates = numbers(cfg) if op == "number" else list(paths(cfg))[1:]
        if not candidates:
            break
        *head, last = draw(st.sampled_from(candidates))
        parent = get(cfg, head)
        if op == "number":
            parent[last] = draw(NUMBERS)
        elif op == "set":
            parent[last] = draw(NASTY)
        elif op == "delete":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=8))] = draw(NASTY)
        if not isinstance(cfg, dict) or not cfg:
            break
    text = yaml.safe_dump(cfg, allow_unicode=True, width=10**6)
    edits = ["none"] * 6 + ["duplicate", "alias", "bytes", "truncate"]
    edit = draw(st.sampled_from(edits))
    lines = text.splitlines(keepends=True)
    if edit == "duplicate" and lines:  # a top-level key twice
        top = [ln for ln in lines if ln[:1].isalpha()]
        text += top[draw(st.integers(0, len(top) - 1))] if top else ""
    elif edit == "alias":
        text = "seed: &s 0\nruns: *s\n" + "".join(
            ln for ln in lines if not ln.startswith(("seed", "runs"))
        )
    data = text.encode()
    if edit == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    elif edit == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    return data


def check_config_file(tmp_path, data: bytes):
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(data)
    run = run_cli("check-config", path, in_process=True, limited=True)
    code, err = run.returncode, run.stderr
    assert_contract(code, err, lambda line: names_key(line, path, data))
    if has_non_finite(data):  # NaN or an infinity anywhere is refused (they pass range checks)
        assert code == 2, err
    return err


def has_non_finite(data: bytes) -> bool:
    try:
        cfg = yaml.safe_load(data.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError):
        return False
    return any(
        isinstance(get(cfg, p), float) and not math.isfinite(get(cfg, p)) for p in paths(cfg)
    )


#: the top-level keys of a config (the schema's), and the field of a file-level problem
TOP_KEYS = set(
    yaml.safe_load((ROOT / "src/privdtol/pipeline/config.schema.yaml").read_text())["properties"]
) | {"--config", "config"}


def names_key(line: str, path: Path, data: bytes) -> bool:
    """The line's field is a key path under a top-level key of the schema or of the file (an
    unknown key, shown one-line by :func:`~privdtol.errors.printable`), or the file itself."""
    prefix = "privdtol check-config: error: "
    if not line.startswith(prefix):
        return False
    field = line[len(prefix) :].split(": ")[0]
    head = field.split(".")[0].split("[")[0]
    if field == "--config":
        return str(path) in line
    try:
        keys = {printable(str(k)) for k in yaml.safe_load(data.decode("utf-8"))}
    except (UnicodeDecodeError, yaml.YAMLError, TypeError):
        keys = set()
    return head in TOP_KEYS or head in keys or "unknown key" in line


@st.composite
def non_finite_config(draw):
    """A NaN or an infinity at any number of the smoke config (a threshold, a grid value, a
    privacy or batching parameter ...): what every range check of a JSON schema lets through."""
    cfg = yaml.safe_load(yaml.safe_dump(BASE))
    *head, last = path = draw(st.sampled_from(numbers(cfg)))
    get(cfg, head)[last] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    return yaml.safe_dump(cfg).encode(), path


@settings(FAST, max_examples=20)
@given(case=non_finite_config())
def test_fuzz_non_finite_numbers_refused(tmp_path_factory, case):
    data, path = case
    err = check_config_file(tmp_path_factory.mktemp("fuzz"), data)  # refused (has_non_finite)
    assert [k for k in path if isinstance(k, str)][-1] in err  # naming the key


@FAST
@given(data=mutated_config())
def test_fuzz_configs(tmp_path_factory, data):
    check_config_file(tmp_path_factory.mktemp("fuzz"), data)


@pytest.mark.slow
@SLOW
@given(data=mutated_config())
def test_fuzz_configs_more(tmp_path_factory, data):
    check_config_file(tmp_path_factory.mktemp("fuzz"), data)


def check_config(tmp_path, cfg: dict) -> tuple[int, str]:
    path = tmp_path / "fuzz.yaml"
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
    run = run_cli("check-config", path, in_process=True, limited=True)
    code, err = run.returncode, run.stderr
    assert_contract(code, err, lambda line: line.startswith("privdtol check-config: error: "))
    return code, err


# ----------------------------------------------------------------------------- names
NAMES = st.one_of(
    st.text(max_size=80),
    st.sampled_from([*PIPELINE_TABLES, "horizon\n", "a" * 65, "a" * 300, "x\x00", "é"]),
    st.from_regex(r"[a-z][a-z0-9_]{0,70}", fullmatch=True),
)


def bad_name(name: str) -> bool:
    return not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", name) or name in PIPELINE_TABLES


@FAST
@given(name=NAMES, slice_name=NAMES, which=st.sampled_from(["experiment", "slice"]))
def test_fuzz_names(tmp_path_factory, name, slice_name, which):
    cfg = yaml.safe_load(yaml.safe_dump(ONE_CELL))
    exp = cfg["experiments"][0]
    if which == "experiment":
        exp["name"] = name
    else:
        exp["slices"] = [{"name": slice_name}]
    code, err = check_config(tmp_path_factory.mktemp("fuzz"), cfg)
    if which == "experiment" and bad_name(name):
        assert code == 2 and "experiments[0].name" in err, err
    bad_slice = len(slice_name) > 64 or any(not c.isprintable() and c != " " for c in slice_name)
    if which == "slice" and bad_slice and any(ord(c) < 32 or ord(c) == 127 for c in slice_name):
        assert code == 2 and "slices[0].name" in err, err


# ----------------------------------------------------------------------------- privacy blocks
PRIVACY = st.fixed_dictionaries(
    {},
    optional={
        "K": st.lists(st.integers(2, 16), min_size=1, max_size=3),
        "blocks": st.lists(st.sampled_from([1, 16, 256, 1024]), min_size=1, max_size=2),
        "exact": st.fixed_dictionaries({"n_random": st.sampled_from([0, 1000, 1_000_000])}),
        "sequence": st.fixed_dictionaries(
            {
                "K": st.lists(st.integers(2, 4), min_size=1, max_size=2),
                "horizon": st.sampled_from([3, 63, 255, 1023]),
            }
        ),
        "statistical": st.fixed_dictionaries({"runs": st.sampled_from([10, 200_000, 10_000_000])}),
    },
)


@FAST
@given(privacy=PRIVACY)
def test_fuzz_privacy_blocks_are_refused_or_fit(tmp_path_factory, privacy):
    """check-config estimates the audits before any runs (it never runs them)."""
    cfg = yaml.safe_load(yaml.safe_dump(ONE_CELL)) | {"privacy": privacy}
    check_config(tmp_path_factory.mktemp("fuzz"), cfg)
