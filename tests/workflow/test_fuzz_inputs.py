"""Fuzzing the front ends: configs made by mutating config/smoke.yaml (wrong types, NaN and
infinities, extremes, deleted, duplicated and unknown keys, huge lists, YAML aliases, odd bytes)
and argument lists of the CLI.  Every input ends in exit 0, or in exit 2 with exactly one stderr
line that names a key, file or argument; never a traceback, within a time limit (a per-example
alarm) and a memory limit (``resource.setrlimit(RLIMIT_AS)`` around the run): the helpers of
:mod:`support.fuzz`, shared with the data-file, name and costly-block families of
tests/workflow/test_fuzz_data.py.

Fixed seed (``derandomize``) and a bounded number of examples: a few dozen in the fast tier
(about 15 s), more in the slow tier (about 60 s on the loaded 2-core machine).  Removing the
NaN check of :func:`privdtol.pipeline.config.check_values` makes
``test_fuzz_non_finite_numbers_refused`` fail (``batching.target_seconds: .nan`` is then
accepted, exit 0).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import run_cli
from support.fuzz import FAST, SLOW, assert_contract
from support.paths import ROOT

from privdtol.errors import printable

#: the smoke config, with a small size guard so that a fuzzed grid is refused, not planned,
#: when it grows beyond a second of planning (the size guard itself: tests/cli/test_config.py)
BASE = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text()) | {
    "limits": {"max_cells": 400, "max_cpu_hours": 1}
}


#: one experiment and no privacy block: planned in milliseconds, so most examples plan fully
SMALL = {k: v for k, v in BASE.items() if k != "privacy"} | {
    "experiments": [BASE["experiments"][0] | {"algorithms": ["rps", "ftl"]}]
}


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


# ----------------------------------------------------------------------------- CLI arguments
SIMULATE__fuzz_inputs = [
    "simulate",
    "--algorithm",
    "rps",
    "--epsilon",
    "1",
    "--K",
    "4",
    "--gap",
    "0.25",
]


SIMULATE__fuzz_inputs += ["--horizon", "1023", "--runs", "20"]


EXACT__fuzz_inputs = ["exact", "--algorithm", "rps", "--epsilon", "1", "--K", "4", "--gap", "0.25"]


EXACT__fuzz_inputs += ["--horizon", "1023"]


VALUES = st.one_of(
    st.sampled_from(["nan", "inf", "-inf", "0", "-1", "1e-300", "1e300", "1099511627776"]),
    st.sampled_from(["100000000000", "abc", "", "2", "0.5", "rps", "staircase", "fast"]),
    st.sampled_from(["explicit", "3,x", "0.4,0.6", "1e-9", "1e-6", "2147483648"]),
    st.integers(-(2**45), 2**45).map(str),
    st.text(max_size=8),
)


FLAGS = ["--mode", "--instance", "--mu-best", "--means", "--env", "--rho", "--seed", "--nope"]


@st.composite
def mutated_args(draw):
    args = list(draw(st.sampled_from([SIMULATE__fuzz_inputs, EXACT__fuzz_inputs])))
    for _ in range(draw(st.integers(1, 3))):
        flags = [i for i, a in enumerate(args) if a.startswith("--")]
        i = draw(st.sampled_from(flags))
        op = draw(st.sampled_from(["value", "value", "drop", "add"]))
        if op == "value" and i + 1 < len(args):
            args[i + 1] = draw(VALUES)
        elif op == "drop":
            del args[i : i + 2]
        else:
            args += [draw(st.sampled_from(FLAGS)), draw(VALUES)]
    return args


def check_args(tmp_path, args):
    out = tmp_path / "out.csv"
    run = run_cli(*args, "--out", out, in_process=True, limited=True)
    code, err = run.returncode, run.stderr
    names = [a for a in args if a.startswith("--")] + ["--out", "argument", "--runs", "--K"]
    names += ["--epsilon", "--means", "--gap", "--horizon", "--mu-best", "--algorithm"]
    assert_contract(code, err, names)
    if code != 0:
        assert not out.exists()


@FAST
@given(args=mutated_args())
def test_fuzz_cli_arguments(tmp_path_factory, args):
    check_args(tmp_path_factory.mktemp("fuzz"), args)


@pytest.mark.slow
@SLOW
@given(args=mutated_args())
def test_fuzz_cli_arguments_more(tmp_path_factory, args):
    check_args(tmp_path_factory.mktemp("fuzz"), args)


def test_contract_catches_a_traceback_and_two_lines():
    """The assertion itself can fail (its negative control)."""
    with pytest.raises(AssertionError):
        assert_contract(1, "Traceback (most recent call last):\n", ["x"])
    with pytest.raises(AssertionError):
        assert_contract(2, "usage: privdtol\nerror: --K\n", ["--K"])
    with pytest.raises(AssertionError):
        assert_contract(2, "error: nothing named\n", ["--K"])
    assert_contract(2, "privdtol simulate: error: --K: got 0\n", ["--K"])
