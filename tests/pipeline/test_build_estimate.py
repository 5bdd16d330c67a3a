"""Tests of :mod:`privdtol.pipeline.build_estimate`: the job stats of a dry run, each rule's
modelled time (hand-computed from the module's constants), the families, the wall time on N
cores, and ``privdtol check-config --cores`` where no Snakefile is (the simulations only)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from privdtol.cli import main
from privdtol.errors import InputError
from privdtol.pipeline import build_estimate as est

DRY_RUN = """Building DAG of jobs...
Job stats:
job                  count
-----------------  -------
all                      1
check_C2                 1
check_C2__uniform        1
simulate_grid_000        1
total                    4

Reasons:
"""


def test_the_job_stats_of_a_dry_run():
    assert est.parse_job_stats(DRY_RUN) == {
        "all": 1,
        "check_C2": 1,
        "check_C2__uniform": 1,
        "simulate_grid_000": 1,
    }
    assert est.parse_job_stats("Nothing to be done.") == {}


def test_the_modelled_seconds_of_a_search_and_the_privacy_audit():
    # (200 + 20) evaluations x 0.0075 s x K = 4 -> 6.6 s
    search = SimpleNamespace(budget=200, unseen=20, K=4)
    assert est.search_seconds(search) == pytest.approx(6.6)
    # the default config's statistical audit: 4 algorithms x 1 K x 100000 runs x 4 epsilons
    # = 1.6e6 runs -> 28 + 3e-6 x 1.6e6 = 32.8 s
    block = {
        "epsilons": [0.01, 0.1, 0.5, 2.0],
        "statistical": {"algorithms": ["a", "b", "c", "d"], "K": [2], "runs": 100000},
    }
    assert est.privacy_seconds(block) == pytest.approx(32.8)
    assert est.privacy_seconds({}) == pytest.approx(28.0)


def test_rules_by_name_and_prefix_and_an_unknown_rule():
    assert est.job_seconds("check_C2__uniform", {}, {}) == 0.9
    assert est.job_seconds("notebook_rates", {}, {}) == 7.0
    assert est.job_seconds("compile_report", {}, {}) == 20.0
    assert est.job_seconds("a_rule_added_later", {}, {}) == est.DEFAULT_SECONDS
    assert est.job_seconds("simulate_gone_000", {}, {}) == est.DEFAULT_SECONDS
    assert [est.family(r) for r in ("simulate_grid_000", "check_C2__uniform", "power")] == [
        "simulate",
        "check",
        "power",
    ]


def test_the_wall_time_shares_the_jobs_and_runs_the_report_alone():
    rows = est.estimate(
        {"check_C2": 2, "compile_report": 1, "build_report_assets": 1, "all": 1}, {}, {}
    )
    assert rows == {
        "check": (2, pytest.approx(1.8)),
        "compile_report": (1, 20.0),
        "build_report_assets": (1, 8.0),
        "all": (1, 0.0),
    }
    # (1.8 + 28 - 28) / 2 + 28 = 28.9
    assert est.wall_seconds(rows, 2) == pytest.approx(28.9)
    assert est.wall_seconds(rows, 1) == pytest.approx(29.8)
    with pytest.raises(InputError, match=r"^cores: "):
        est.wall_seconds(rows, 0)
    assert [est.minutes(s) for s in (150, 59.6, 442)] == ["2 min 30 s", "1 min 0 s", "7 min 22 s"]


def test_check_config_without_a_snakefile_says_so(tmp_path, capsys, monkeypatch):
    from support.paths import SMOKE

    monkeypatch.chdir(tmp_path)
    assert main(["check-config", str(SMOKE), "--cores", "2"]) == 0
    out = capsys.readouterr().out
    assert "build: no Snakefile here" in out, out
    assert max(map(len, out.splitlines())) < 100
    assert main(["check-config", str(SMOKE)]) == 0
    assert "with --cores N" in capsys.readouterr().out
