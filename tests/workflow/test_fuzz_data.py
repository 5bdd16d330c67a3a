"""Fuzzing names, data files and costly blocks with the contract of
tests/workflow/test_fuzz_inputs.py (:mod:`support.fuzz`: exit 0, or exit 2 with one line naming
the key, file or argument; never a traceback; within a time and a memory limit):

- names: experiment and slice names of any text (control characters, newlines, long, the
  pipeline's own tables) through ``check-config``; a bad one is refused;
- data files: a real cell file with values set to NaN, infinities or extremes, rows dropped or
  duplicated, through ``privdtol aggregate``; a non-finite or out-of-range regret is refused;
- costly blocks: a privacy block at the schema's extremes through ``check-config``, and
  ``privdtol audit`` arguments of every method, refused before they are spent.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import run_cli
from support.fuzz import FAST, assert_contract
from support.paths import SMOKE

from privdtol.cli.batch import cell_table
from privdtol.pipeline import plan as grid
from privdtol.pipeline.semantics import PIPELINE_TABLES

#: the smoke config's first experiment alone, no privacy block (planned in milliseconds)
BASE = yaml.safe_load(SMOKE.read_text())
SMALL = {k: v for k, v in BASE.items() if k != "privacy"} | {
    "experiments": [BASE["experiments"][0] | {"algorithms": ["rps"], "K": [2], "gap": [0.5]}]
}
SMALL["experiments"][0].pop("slices", None)


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
    import re

    return not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", name) or name in PIPELINE_TABLES


@FAST
@given(name=NAMES, slice_name=NAMES, which=st.sampled_from(["experiment", "slice"]))
def test_fuzz_names(tmp_path_factory, name, slice_name, which):
    cfg = yaml.safe_load(yaml.safe_dump(SMALL))
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


# ----------------------------------------------------------------------------- data files
CELL = grid.Cell("rps", "bernoulli", "standard", 2, 0.5, None, 1.0, 255, 10, None, None, 0)
VALUES = st.sampled_from([math.nan, math.inf, -math.inf, -1e300, 1e300, -1.0, 0.0, 1e6])


@st.composite
def corruption(draw):
    kind = draw(st.sampled_from(["value", "value", "drop", "duplicate", "column"]))
    column = draw(st.sampled_from(["regret", "regret_realized", "K", "gap", "horizon", "run"]))
    return kind, column, draw(VALUES), draw(st.integers(0, 10**6))


@pytest.fixture(scope="module")
def cell_bytes(tmp_path_factory):
    path = tmp_path_factory.mktemp("cell") / f"{CELL.cell_id}.parquet"
    cell_table(CELL).to_parquet(path, index=False)
    return path.read_bytes()


@settings(FAST, max_examples=30)
@given(case=corruption())
def test_fuzz_cell_files(tmp_path_factory, cell_bytes, case):
    kind, column, value, seed = case
    tmp = tmp_path_factory.mktemp("fuzz")
    path = tmp / f"{CELL.cell_id}.parquet"
    path.write_bytes(cell_bytes)
    df = pd.read_parquet(path)
    row = seed % len(df)
    if kind == "value":
        df[column] = df[column].astype(float)
        df.loc[row, column] = value
    elif kind == "drop":
        df = df.drop(index=row)
    elif kind == "duplicate":
        df = pd.concat([df, df.iloc[[row]]])
    else:
        df = df.drop(columns=[column])
    df.to_parquet(path, index=False)
    out = tmp / "agg.parquet"
    run = run_cli(
        "aggregate", "--experiment", "x", "--out", out, path, in_process=True, limited=True
    )
    code, err = run.returncode, run.stderr
    assert_contract(code, err, [str(path)])
    regret_bad = kind == "value" and column == "regret" and not 0 <= value <= 255
    regret_bad |= kind == "value" and column == "regret_realized" and not abs(value) <= 255
    if regret_bad or kind in ("drop", "duplicate", "column"):
        assert code == 2 and not out.exists(), err


# ----------------------------------------------------------------------------- costly blocks
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
    cfg = yaml.safe_load(yaml.safe_dump(SMALL)) | {"privacy": privacy}
    check_config(tmp_path_factory.mktemp("fuzz"), cfg)


AUDIT_ARGS = st.tuples(
    st.sampled_from(["exact", "sequence", "statistical"]),
    st.sampled_from(["2", "4", "16"]),
    st.sampled_from(["1", "16", "1024"]),
    st.sampled_from(["7", "1023", "1048575"]),
    st.sampled_from(["10", "100000000000"]),
    st.sampled_from(["0", "100000000000"]),
)


@settings(FAST, max_examples=15)
@given(args=AUDIT_ARGS)
def test_fuzz_costly_audits(args):
    """Only the refusals run to completion here: an accepted audit would take seconds."""
    method, K, block, horizon, runs, random = args
    flags = ["--method", method, "--K", K, "--block", block, "--horizon", horizon]
    flags += ["--runs", runs, "--random", random]
    costly = (
        (method == "statistical" and runs != "10")
        or (method == "exact" and (random != "0" or (K == "16" and block == "1024")))
        or (method == "sequence" and horizon != "7")
    )
    if not costly:
        return
    run = run_cli(
        "audit", "--algorithm", "rps", "--epsilon", "1", *flags, in_process=True, limited=True
    )
    code, err = run.returncode, run.stderr
    assert_contract(code, err, ["--runs", "--random", "--block", "--horizon", "--K"])
    assert code == 2, err
