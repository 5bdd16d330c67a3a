"""Argument lists of the CLI: ``privdtol simulate`` and ``privdtol exact`` with values, flags
dropped and unknown flags added (NaN, infinities, extremes, text), and ``privdtol audit`` asked
for costly work, refused before it is spent.  Every list ends in exit 0, or in exit 2 with
exactly one stderr line naming the argument, no output file; never a traceback, within a time
and a memory limit: the contract of :mod:`support.fuzz`, itself shown to fail."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import run_cli
from support.fuzz import FAST, SLOW, assert_contract

# ----------------------------------------------------------------------------- CLI arguments
SIMULATE = ["simulate", "--algorithm", "rps", "--epsilon", "1", "--K", "4", "--gap", "0.25",
            "--horizon", "1023", "--runs", "20"]  # fmt: skip
EXACT = ["exact", "--algorithm", "rps", "--epsilon", "1", "--K", "4", "--gap", "0.25",
         "--horizon", "1023"]  # fmt: skip


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
    args = list(draw(st.sampled_from([SIMULATE, EXACT])))
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


# ----------------------------------------------------------------------------- audits
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


# ----------------------------------------------------------------------------- the contract
def test_contract_catches_a_traceback_and_two_lines():
    """The assertion itself can fail (its negative control)."""
    with pytest.raises(AssertionError):
        assert_contract(1, "Traceback (most recent call last):\n", ["x"])
    with pytest.raises(AssertionError):
        assert_contract(2, "usage: privdtol\nerror: --K\n", ["--K"])
    with pytest.raises(AssertionError):
        assert_contract(2, "error: nothing named\n", ["--K"])
    assert_contract(2, "privdtol simulate: error: --K: got 0\n", ["--K"])
