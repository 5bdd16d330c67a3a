"""Tests of :mod:`privdtol.cli.audit`: ``privdtol audit`` (one exact privacy audit, text or
JSON, against the bound 2 eta of Lemma 3) and ``privdtol audit-grid`` (the audit table that claim
C1 is checked on)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from support.cli import one_line_error, run_cli, smoke_config, write_config
from support.paths import SMOKE

from privdtol.analysis.claims.c1_privacy import check_c1
from privdtol.cli import main
from privdtol.privacy.audit_controls import AUDIT_ONLY

#: a small exact audit (K = 4, one block of 16, 300 random pairs) at eps = 0.5
SMALL_AUDIT = ["--epsilon", "0.5", "--K", "4", "--block", "16", "--random", "300"]

#: a small audit grid, every negative control included
SMALL_GRID = {
    "epsilons": [0.5],
    "K": [4],
    "blocks": [16],
    "algorithms": ["rps"],
    "negative_controls": list(AUDIT_ONLY),
    "exact": {"n_random": 100, "max_steps": 5},
    "sequence": {"K": [3], "horizon": 63, "n_random": 1},
    "statistical": {"algorithms": ["rps"], "K": [2], "runs": 2000},
}


@pytest.mark.parametrize(
    "name, as_json, violation, two_eta",
    [("rps", False, False, 0.25), ("rps_eta_eps", True, True, 1.0)],
)
def test_cli_text_and_json(capsys, name, as_json, violation, two_eta):
    """One audit printed as text, one as JSON: the loss found, the bound 2 eta, the verdict."""
    args = ["audit", "--algorithm", name, *SMALL_AUDIT, *(["--json"] if as_json else [])]
    assert main(args) == 0
    out = capsys.readouterr().out
    if as_json:
        d = json.loads(out)
        assert d["violation"] is violation and (d["loss"] > 0.5) is violation
        assert d["bound_selection"] == pytest.approx(two_eta) and d["witness"]["d"]
    else:
        verdict = "violation" if violation else "within eps"
        assert "largest privacy loss found" in out and f"verdict: {verdict}" in out
        assert f"2*eta (Lemma 3) = {two_eta:g}" in out


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--algorithm", "ftl", "--epsilon", "1"], "--algorithm"),
        (["--algorithm", "rps", "--epsilon", "1", "--block", "12"], "--block"),
        (["--algorithm", "rps", "--epsilon", "-1"], "--epsilon"),
        (["--algorithm", "rps", "--epsilon", "1", "--method", "magic"], "--method"),
    ],
)
def test_cli_bad_input(capsys, args, flag):
    assert main(["audit", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "allowed" in err


def test_audit_grid_bytes_and_c1(tmp_path):
    """``audit-grid`` writes the same bytes twice; ``privdtol check --claim C1`` reads its table
    from ``<agg-dir>/privacy.parquet`` and gives check_c1's record (every negative control
    caught); a control not caught fails C1; a bad grid writes nothing."""
    (tmp_path / "agg").mkdir()
    paths = [tmp_path / "agg" / "privacy.parquet", tmp_path / "b.parquet"]
    for p in paths:
        assert main(["audit-grid", "--grid-json", json.dumps(SMALL_GRID), "--out", str(p)]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    df = pd.read_parquet(paths[0])
    out = tmp_path / "C1.json"
    assert (
        main(
            [
                "check",
                "--claim",
                "C1",
                "--config",
                str(SMOKE),
                "--agg-dir",
                str(tmp_path / "agg"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    c1 = json.loads(out.read_text())
    assert c1 == check_c1(df, inputs=[str(paths[0])])
    assert c1["verdict"] == "PASS" and c1["inputs"] == [str(paths[0])]
    assert {c["verdict"] for c in c1["cells"] if c["role"] == "negative_control"} == {"caught"}
    # a control that is not caught makes C1 FAIL
    weak = df.copy()
    weak.loc[weak.algorithm == "rps_data_prefix", "violation"] = False
    assert check_c1(weak)["verdict"] == "FAIL"
    assert (
        main(
            [
                "audit-grid",
                "--grid-json",
                json.dumps({"nope": 1}),
                "--out",
                str(tmp_path / "c.parquet"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "c.parquet").exists()


@pytest.mark.parametrize(
    "privacy, key",
    [
        ({"K": [100000000]}, "privacy.K[0]"),
        ({"statistical": {"runs": 1e14}}, "privacy.statistical.runs"),
        ({"statistical": {"alpha": 7}}, "privacy.statistical.alpha"),
        ({"exact": {"n_random": -5}}, "privacy.exact.n_random"),
        ({"algorithms": ["nope"]}, "privacy.algorithms[0]"),
        ({"sequence": {"horizon": "abc"}}, "privacy.sequence.horizon"),
        ({"sequence": {"typo": 1}}, "privacy.sequence.typo"),
    ],
)
def test_privacy_block_validated(tmp_path, capsys, privacy, key):
    """A bad privacy block is named by ``check-config`` in the config and by ``audit-grid`` in
    its grid JSON, which then writes nothing."""
    cfg = smoke_config()
    cfg["privacy"].update(privacy)
    one_line_error(capsys, ["check-config", write_config(tmp_path, cfg)], key)
    out = tmp_path / "p.parquet"
    one_line_error(capsys, ["audit-grid", "--grid-json", json.dumps(privacy), "--out", out], key)
    assert not out.exists()


# ----------------------------------------------------------------- cost refused before it is spent
COSTLY = [  # each once reached gigabytes and tens of seconds before refusing (or never did)
    (["--method", "statistical", "--runs", "100000000000"], "--runs"),
    (["--method", "exact", "--random", "100000000000"], "--random"),
    (["--method", "exact", "--K", "16", "--block", "1024"], "--block"),
    (["--method", "sequence", "--K", "16", "--horizon", "1023"], "--horizon"),
    (["--method", "sequence", "--K", "4", "--horizon", "1023"], "--horizon"),
]


@pytest.mark.parametrize(("args", "flag"), COSTLY)
def test_costly_audit_refused_in_one_line_under_a_memory_limit(args, flag):
    """Under 1.5 GB of address space and a timeout: exit 2, one line naming the flag, fast
    (before the fix: 8.8 GB for --runs 1e11, a MemoryError traceback under the limit)."""
    proc = run_cli("audit", "--algorithm", "rps", "--epsilon", "1", *args, limited=True)
    seconds = proc.seconds
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"privdtol audit: error: {flag}: "), lines[0]
    assert seconds < 15


def test_costly_sequence_block_refused_by_audit_grid_naming_the_config_key(tmp_path):
    """audit-grid names privacy.sequence.horizon, not --horizon, before any audit runs."""
    cfg = write_config(tmp_path, {"privacy": {"sequence": {"K": [4], "horizon": 1023}}})
    out = tmp_path / "g.parquet"
    proc = run_cli("audit-grid", "--config", str(cfg), "--out", str(out), limited=True)
    seconds = proc.seconds
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("privdtol audit-grid: error: privacy.sequence.horizon: ")
    assert seconds < 15 and not out.exists()


def test_a_small_audit_still_runs_under_the_memory_limit():
    proc = run_cli(
        "audit", "--algorithm", "rps", "--epsilon", "1", "--method", "sequence", "--K", "3",
        "--horizon", "15",
        limited=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def test_audit_refuses_a_negative_seed(capsys):
    one_line_error(
        capsys, ["audit", "--algorithm", "rps", "--epsilon", "1", "--seed", "-1"], "--seed"
    )


def test_the_bound_is_described_by_the_algorithm_s_declared_mechanism(monkeypatch):
    """Every algorithm without a softmax law was described as "Laplace(2/eps) noisy-min",
    a plugin's permute-and-flip included."""
    from privdtol.algorithms import ALGORITHMS, Privacy
    from privdtol.algorithms.rps import RandomizedPrefixSoftmax
    from privdtol.cli.audit import _text

    plugin = type(
        "PF", (RandomizedPrefixSoftmax,),
        {"name": "pf", "privacy": Privacy("permute-and-flip, 2 eta-DP", lambda alg: 2 * alg.eta)},
    )  # fmt: skip
    monkeypatch.setitem(ALGORITHMS, "pf", plugin)
    record = {
        "algorithm": "pf", "negative_control": False, "block": 4, "epsilon": 1.0, "K": 2,
        "audit": "exact_selection", "loss": 0.5, "pairs_evaluated": 3, "law": "exact",
        "bound_selection": 1.0, "verdict": "PASS", "violation": False,
    }  # fmt: skip
    text = _text(record)
    assert "bound: per-selection bound of permute-and-flip, 2 eta-DP = 1" in text, text
    assert "Laplace" not in text
