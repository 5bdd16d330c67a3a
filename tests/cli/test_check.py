"""Tests of :mod:`privdtol.cli.check`: ``privdtol check`` writes the registry's record of a claim
(byte for byte again), recomputes each verdict over the multiverse's declared ranges, and
refuses a bad threshold or output location in one line before it writes a verdict."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.cli import one_line_error, write_config
from support.paths import SMOKE

from privdtol.analysis import records
from privdtol.analysis.claims import c2_theorem1
from privdtol.analysis.registry import (
    CLAIMS,
)
from privdtol.cli import main
from privdtol.pipeline.config import load_config_files


# ----------------------------------------------------------------- a verdict changed by a bad value
@pytest.mark.parametrize(
    "checks, key",
    [
        ({"horizon_free_ratio_max": float("inf")}, "checks.horizon_free_ratio_max"),
        ({"confidence": float("nan")}, "checks.confidence"),
        ({"rate_form_factor": 1e300}, "checks.rate_form_factor"),
        ({"exponent_range": [float("-inf"), 1.2]}, "checks.exponent_range[0]"),
    ],
)
def test_bad_threshold_refused_before_a_verdict(tmp_path, capsys, checks, key):
    bad = write_config(tmp_path, {"checks": checks}, "thr.yaml")
    out = tmp_path / "c.json"
    args = ["check", "--claim", "C3", "--control", "ftl_egreedy", "--config", SMOKE]
    one_line_error(capsys, [*args, "--config", bad, "--out", out], key)
    assert not out.exists()


def test_check_out_in_a_missing_directory(tmp_path, capsys):
    out = tmp_path / "no" / "dir" / "a.json"
    args = ["check", "--claim", "C3", "--config", SMOKE, "--out", out]
    one_line_error(capsys, args, "does not exist")
    assert not (tmp_path / "no").exists()


def _check(claim, out, *extra, agg_dir=None):
    args = ["check", "--claim", claim, "--config", str(SMOKE), "--out", str(out), *extra]
    return main(args + (["--agg-dir", str(agg_dir)] if agg_dir else []))


def test_cli_check_merges_configs_in_order(tiny_agg, tmp_path):
    override = tmp_path / "override.yaml"
    override.write_text("checks:\n  confidence: 0.5\n")
    out = tmp_path / "C4.json"
    assert _check("C4", out, "--config", str(override), agg_dir=tiny_agg) == 0
    assert json.loads(out.read_text())["threshold"].startswith("every cell's 50% interval")


def test_cli_check_reads_the_config_agg_dir(tiny_agg, tmp_path, monkeypatch):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "agg").symlink_to(tiny_agg)
    monkeypatch.chdir(tmp_path)
    assert _check("C4a", "C4a.json") == 0
    assert json.loads(Path("C4a.json").read_text())["inputs"] == ["results/agg/gap.parquet"]


@pytest.mark.parametrize(
    "claim, name, flag",
    [
        ("C9", "C.json", "--claim"),
        ("c2", "C.json", "--claim"),
        ("C2", "C.txt", "--out"),
        ("C1", "C.json", "--agg-dir"),
    ],
)  # C1: no privacy.parquet in the agg dir
def test_cli_check_bad_input_one_line_exit_2_no_file(tiny_agg, tmp_path, capsys, claim, name, flag):
    out = tmp_path / name
    assert _check(claim, out, agg_dir=tiny_agg) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("privdtol check: error: ") and flag in err
    if flag == "--claim":
        assert "allowed: " + ", ".join(CLAIMS) in err
    assert not out.exists() and not list(tmp_path.iterdir())


def test_cli_check_missing_tables_exit_2(tmp_path, capsys):
    empty = tmp_path / "agg"
    empty.mkdir()
    out = tmp_path / "C3.json"
    assert _check("C3", out, agg_dir=empty) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--agg-dir" in err and "horizon.parquet" in err
    assert not out.exists()


# ------------------------------------------------------------ any claim asked of any algorithm
UNIFORM_PLUGIN = """
import numpy as np
from privdtol.algorithms import BlockAlgorithm, Privacy

class UniformPlayer(BlockAlgorithm):
    name = "uniform_player"
    display_name = "uniform player (plugin)"
    role = "competitor"
    source = "a test plugin: a uniform action on every block, whatever the data"
    privacy = Privacy("data-blind, 0-DP", lambda alg: 0.0)
    symmetric = True

    def law(self, sums, r):
        return np.full(sums.shape, 1.0 / sums.shape[1])

    def select(self, rng, sums, r):
        return rng.integers(0, sums.shape[1], size=sums.shape[0]), self.law(sums, r)
"""


def _agg_dir(tmp_path, regrets: dict) -> Path:
    """grid.parquet with each algorithm's regret(K, gap, eps, T) at every checkpoint to 2^20 - 1
    and a lower_bound.parquet of LB_T's shape (T gap (1 - 1/K), then 0.17 of the rate)."""
    import numpy as np
    import pandas as pd
    from support.tables import CORE, INTERVAL, agg_table

    from privdtol.core import clock
    from privdtol.pipeline.aggregate import COLUMNS

    hs = [int(h) for h in clock.checkpoints(2**20 - 1)[0]]
    grid = [(K, g, e) for K in (2, 8, 64, 512) for g in (0.5, 0.125, 1 / 32) for e in (4.0, 1 / 16)]

    def lb(K, g, e, T):
        return min(T * g * (1 - 1 / K), 0.17 * (np.log(K) / g + np.log(K) / e))

    tables = [
        agg_table(
            [
                {"algorithm": a, "K": K, "gap": g, "epsilon": e, "cell_id": f"{a}-{K}-{g}-{e}"}
                for K, g, e in grid
            ],
            hs,
            columns=(*CORE, *INTERVAL),
            estimator="exact",
            rel_se=0.0,
            mean=lambda c, h, f=f: f(c["K"], c["gap"], c["epsilon"], h, lb),
        )
        for a, f in regrets.items()
    ]
    agg = tmp_path / "agg"
    agg.mkdir()
    grid_table = pd.concat(tables, ignore_index=True)
    missing = {c: grid_table["mean"] for c in COLUMNS if c not in grid_table.columns}
    grid_table = grid_table.assign(**{**missing, "experiment": "grid", "eta": 0.125})
    grid_table[COLUMNS].to_parquet(agg / "grid.parquet")
    bounds = pd.DataFrame(
        [
            {
                "K": K,
                "mu": 0.5 + g / 2,
                "gap": g,
                "epsilon": e,
                "horizon": h,
                "best": lb(K, g, e, h),
            }
            for K, g, e in grid
            for h in hs
        ]
    )
    bounds = bounds.assign(best_error=0.0, statistical=bounds["best"], privacy=0.0, two_point=0.0)
    bounds.to_parquet(agg / "lower_bound.parquet")
    return agg


def test_a_uniform_player_plugin_fails_c7_and_a_better_one_does_not(tmp_path):
    from support.cli import run_cli
    from support.plugins import fake_plugin

    where = fake_plugin(
        tmp_path / "p",
        "uniform-dist",
        "uniform_plugin",
        UNIFORM_PLUGIN,
        {"privdtol.algorithms": {"uniform_player": "uniform_plugin:UniformPlayer"}},
    )
    agg = _agg_dir(
        tmp_path,
        {
            "uniform_player": lambda K, g, e, T, lb: T * g * (1 - 1 / K),
            "rnm_ftnl": lambda K, g, e, T, lb: 12 * lb(K, g, e, T),
        },
    )
    verdicts = {}
    for alg in ("uniform_player", "rnm_ftnl"):
        out = tmp_path / f"{alg}.json"
        args = ["check", "--claim", "C7", "--algorithm", alg, "--config", str(SMOKE)]
        res = run_cli(*args, "--agg-dir", str(agg), "--out", str(out), plugins=[where])
        assert res.returncode == 0, res.stderr
        record = json.loads(out.read_text())
        assert record["algorithm"] == alg and record["control_of"] is None
        verdicts[alg] = record["verdict"]
    assert verdicts == {"uniform_player": "FAIL", "rnm_ftnl": "PASS"}


def test_an_unknown_algorithm_is_one_line(tmp_path, capsys):
    out = tmp_path / "c.json"
    args = ["check", "--claim", "C7", "--algorithm", "nope", "--config", SMOKE, "--out", out]
    one_line_error(capsys, args, "unknown algorithm 'nope'")
    assert not out.exists()


def test_control_and_algorithm_exclude_each_other(tmp_path, capsys):
    args = ["check", "--claim", "C7", "--algorithm", "rps", "--control", "rps_eta_logk"]
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--config", str(SMOKE), "--out", str(tmp_path / "c.json")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "not allowed" in err


def test_by_algorithm_asks_every_rate_claim_of_every_private_algorithm(tmp_path):
    agg = _agg_dir(
        tmp_path,
        {
            "rps": lambda K, g, e, T, lb: 20 * lb(K, g, e, T),
            "rnm_ftnl": lambda K, g, e, T, lb: 300 * np.log2(K) * lb(K, g, e, T),
        },
    )
    cfg = write_config(
        tmp_path,
        {
            "experiments": [
                {
                    "name": "grid",
                    "algorithms": ["rps", "rnm_ftnl"],
                    "K": [2, 8],
                    "gap": [0.5],
                    "epsilon": [1.0],
                    "horizon": [1023],
                }
            ]
        },
    )
    out = tmp_path / "by.json"
    assert (
        main(
            [
                "check",
                "--by-algorithm",
                "--config",
                str(cfg),
                "--agg-dir",
                str(agg),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    rows = {(r["claim"], r["algorithm"]): r["verdict"] for r in json.loads(out.read_text())["rows"]}
    assert rows[("C7", "rps")] == "PASS"
    assert rows[("C7", "rnm_ftnl")] == "FAIL"
    assert {c for c, _ in rows} == {"C3", "C4", "C7"}  # the rate claims that read the grid


def _check(claim, out, *extra, agg_dir=None):
    args = ["check", "--claim", claim, "--config", str(SMOKE), "--out", str(out), *extra]
    return main(args + (["--agg-dir", str(agg_dir)] if agg_dir else []))


def test_cli_check_writes_the_registry_record(tiny_agg, tmp_path, thresholds, capsys):
    out = tmp_path / "checks" / "C2.json"
    out.parent.mkdir()  # check --out never creates directories (as simulate)
    assert _check("C2", out, agg_dir=tiny_agg) == 0
    rec = records.load_check(out)
    # only grid and gap exist: the other experiments of C2 are skipped
    assert rec["inputs"] == sorted(str(tiny_agg / f"{e}.parquet") for e in ("gap", "grid"))
    # RPS is far below Theorem 1's bound (ratio < 0.2 on these cells): C2 must PASS
    assert rec["verdict"] == "PASS" and rec["ci_high"] < 0.5
    tables = records.load_agg(tiny_agg, CLAIMS["C2"].experiments)
    expect = c2_theorem1.check(tables, thresholds, rec["inputs"])
    assert out.read_text() == records.check_json(expect)
    again = tmp_path / "again.json"
    assert _check("C2", again, agg_dir=tiny_agg) == 0
    assert again.read_bytes() == out.read_bytes()
    assert "check C2: PASS" in capsys.readouterr().err


def test_multiverse_recomputes_each_verdict_over_its_declared_range(tiny_agg, tmp_path):
    """privdtol check --multiverse: one row per (check, threshold, value) of the schema's
    pre-declared ranges; the configured value's row repeats the check's own verdict; a
    threshold outside any sensible range (rate_form_factor 1.0001) turns C4 into a FAIL."""
    from privdtol.analysis.multiverse import multiverse_table

    config = load_config_files([str(SMOKE)])
    out = tmp_path / "multiverse.json"
    args = ["check", "--multiverse", "--config", str(SMOKE), "--agg-dir", str(tiny_agg)]
    assert main([*args, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    ranges = config["checks"]["multiverse"]
    assert ranges["rate_form_factor"] == [1.25, 1.5, 2.0]  # the schema's declared default
    rows = {(r["claim"], r["threshold"], json.dumps(r["value"])): r for r in data["rows"]}
    for value in ranges["confidence"]:
        assert ("C2", "confidence", json.dumps(value)) in rows
    tables = records.load_agg(tiny_agg, CLAIMS["C2"].experiments)
    own = c2_theorem1.check(tables, config["checks"], [])["verdict"]
    assert rows[("C2", "confidence", "0.95")]["verdict"] == own
    assert rows[("C2", "confidence", "0.95")]["configured"]
    strict = {
        **config,
        "checks": {**config["checks"], "multiverse": {"rate_form_factor": [1.0001]}},
    }
    c4 = [r for r in multiverse_table(strict, tiny_agg)["rows"] if r["claim"] == "C4"]
    assert c4 and c4[0]["verdict"] == "FAIL" and c4[0]["base_verdict"] != "FAIL"
