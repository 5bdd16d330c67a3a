"""Tests of :mod:`privdtol.cli.config`: ``privdtol check-config`` accepts the shipped configs
and refuses, in one line naming the key, a broken file, a non-finite number, a grid beyond the
engine's limits or an output directory outside the working directory."""

from __future__ import annotations

import re

import pytest
import yaml
from support.cli import one_line_error, smoke_config, write_config
from support.paths import CONFIG, SMOKE

from privdtol.cli import main
from privdtol.errors import InputError
from privdtol.pipeline.config import load_config, load_config_files

T30 = (1 << 30) - 1


def test_paper_config_within_the_default_limits(capsys):
    """The paper's config passes: ``ok`` on stderr, the planned totals on stdout."""
    assert main(["check-config", str(CONFIG / "paper.yaml")]) == 0
    out, err = capsys.readouterr()
    assert err.strip().endswith("ok")
    assert "total" in out


def test_a_bad_value_is_named_with_what_is_allowed(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    experiment = {
        "name": "e",
        "algorithms": ["rps", "ftl"],
        "K": [1],
        "gap": [0.5, 0.25],
        "epsilon": [1.0, 0.5, 0.25],
        "horizon": [T30],
    }
    bad.write_text(yaml.safe_dump({"experiments": [experiment]}))
    assert main(["check-config", str(bad)]) == 2
    assert "experiments[0].K[0]: got 1 (allowed: integers >= 2" in capsys.readouterr().err


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize(
    "where",
    [
        lambda c, v: c["experiments"][0].update(epsilon=[v]),
        lambda c, v: c["experiments"][0].update(gap=[v], exact="off"),
        lambda c, v: c["batching"].update(target_seconds=v),
        lambda c, v: c["privacy"].update(epsilons=[v]),
    ],
)
def test_nan_and_inf_refused_everywhere(tmp_path, capsys, value, where):
    cfg = smoke_config()
    where(cfg, value)
    one_line_error(capsys, ["check-config", write_config(tmp_path, cfg)], "finite numbers")


# ----------------------------------------------------------------- broken files: one line each
@pytest.mark.parametrize(
    "text, naming",
    [
        (b"experiments: [1\n", "not valid YAML/JSON"),
        (b"- 1\n- 2\n", "top level is a list"),
        (b"seed: \xff\n", "not UTF-8"),
        (b"seed: 1\nseed: 2\n", "duplicate key 'seed'"),
        (b"a: &x [1]\nb: *x\n", "aliases are not allowed"),
    ],
)
def test_broken_config_files(tmp_path, capsys, text, naming):
    path = tmp_path / "bad.yaml"
    path.write_bytes(text)
    line = one_line_error(capsys, ["check-config", path], naming)
    assert str(path) in line
    with pytest.raises(InputError, match=re.escape(str(path))):
        load_config_files([SMOKE, path])


def test_missing_config_file(tmp_path, capsys):
    one_line_error(capsys, ["check-config", tmp_path / "nope.yaml"], "nope.yaml: cannot read")


def test_alias_bomb_refused_fast(tmp_path, capsys):
    """Nine levels of nine aliases (under 500 bytes, ~10^8 values when walked): refused by the
    loader, and, as a dict that already shares its lists, by the value count."""
    lines = ["privacy:", "  K: &a0 [2, 2, 2, 2, 2, 2, 2, 2, 2]"]
    lines += [f"  x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    text = "\n".join(lines) + "\n"
    assert len(text.encode()) < 500
    one_line_error(
        capsys, ["check-config", write_config(tmp_path, text)], "aliases are not allowed"
    )
    shared = yaml.safe_load(text)  # what Snakemake's own loader hands the workflow
    with pytest.raises(InputError, match="more than 100000 values"):
        load_config(shared)


# ----------------------------------------------------------------- the engine's limits up front
@pytest.mark.parametrize(
    "change, key",
    [
        (dict(epsilon=[1.0e-6]), "experiments[0].epsilon"),  # eta below the exact floor
        (dict(gap=[1.0e-300]), "experiments[0].gap"),  # best action not unique in float64
        (dict(K=[1048576], instance="staircase"), "experiments[0].K"),  # ~45 TB theta grid
        (dict(runs=10**9, exact="off"), "experiments[0].runs"),
    ],
)
def test_engine_limits_at_parse_time(tmp_path, capsys, change, key):
    cfg = smoke_config()
    cfg["experiments"][0].update(change)
    one_line_error(capsys, ["check-config", write_config(tmp_path, cfg)], key)


def test_grid_size_refused_before_planning(tmp_path, capsys):
    """A 330-byte config with 200 000 cells: counted from its list lengths, not planned."""
    cfg = smoke_config()
    exp = cfg["experiments"][0]
    exp.update(algorithms=["rps"], gap=[0.5 - i / 1000 for i in range(400)])
    exp.update(epsilon=[1 + i / 100 for i in range(500)])
    line = one_line_error(capsys, ["check-config", write_config(tmp_path, cfg)], "limits.max_cells")
    assert "'horizon'" in line and "200000" in line
    small = smoke_config() | {"limits": {"max_cpu_hours": 1e-4}}  # the planned CPU time
    line = one_line_error(
        capsys, ["check-config", write_config(tmp_path, small)], "limits.max_cpu_hours"
    )
    assert "CPU hours" in line and "experiment" in line


# ----------------------------------------------------------------- output locations
@pytest.mark.parametrize(
    "change, naming",
    [
        ({"sim_dir": "/tmp/elsewhere"}, "sim_dir"),
        ({"agg_dir": "../../up"}, "agg_dir"),
        ({"agg_dir": "results/{x}"}, "agg_dir"),
        ({"sim_dir": "results/a\nb"}, "sim_dir"),
    ],
)
def test_output_directories(tmp_path, capsys, change, naming):
    cfg = smoke_config() | change
    one_line_error(capsys, ["check-config", write_config(tmp_path, cfg)], naming)
    if "{" not in str(change) and "\n" not in str(change):
        cfg["allow_outside"] = True
        assert main(["check-config", str(write_config(tmp_path, cfg))]) == 0
        capsys.readouterr()


# ------------------------------------------------------- per-algorithm engines
ENGINES = {
    "experiments": [
        {
            "name": "e",
            "algorithms": ["rps", "rnm_ftnl", "ftl"],
            "K": [3],
            "gap": [0.25],
            "epsilon": [1.0],
            "horizon": [63],
        }
    ]
}


def engine_lines(out: str) -> dict[str, str]:
    """Algorithm -> its line of check-config's engine table."""
    head = out.index("engines (")
    return {ln.split()[0]: ln for ln in out[head:].splitlines()[1:] if ln.strip()}


def test_check_config_prints_each_algorithms_engine_and_why(tmp_path, capsys):
    assert main(["check-config", str(write_config(tmp_path, ENGINES))]) == 0
    lines = engine_lines(capsys.readouterr().out)
    assert "exact" in lines["rps"].split() and "declared law softmax" in lines["rps"]
    assert "declared law laplace_noisy_min" in lines["rnm_ftnl"]
    assert "monte carlo" in lines["ftl"] and "a per-round algorithm" in lines["ftl"]


def test_removing_a_declared_law_is_reported_never_a_silent_change_of_engine(
    tmp_path, capsys, monkeypatch
):
    """Without its ``exact_law`` rps is simulated by Monte Carlo, and check-config says so
    and why; a config that requires the exact engine is then refused in one line."""
    from privdtol.algorithms import ALGORITHMS

    monkeypatch.setattr(ALGORITHMS["rps"], "exact_law", None)
    path = write_config(tmp_path, ENGINES)
    assert main(["check-config", str(path)]) == 0
    line = engine_lines(capsys.readouterr().out)["rps"]
    assert "monte carlo" in line and "declares no exact selection law (exact_law)" in line
    required = write_config(tmp_path, {**ENGINES, "exact": "required"}, "required.yaml")
    err = one_line_error(capsys, ["check-config", str(required)], "experiments[0].exact")
    assert "rps on bernoulli cannot be computed exactly: declares no exact" in err


def test_exact_required_refuses_an_algorithm_without_an_exact_law(tmp_path, capsys):
    path = write_config(tmp_path, {**ENGINES, "exact": "required"})
    err = one_line_error(capsys, ["check-config", str(path)], "experiments[0].exact")
    assert "ftl on bernoulli cannot be computed exactly: a per-round algorithm" in err
    ok = {**ENGINES, "exact": "required"}
    ok["experiments"] = [{**ENGINES["experiments"][0], "algorithms": ["rps", "rnm_ftnl"]}]
    assert main(["check-config", str(write_config(tmp_path, ok, "ok.yaml"))]) == 0
