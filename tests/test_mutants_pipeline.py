"""Guards found by mutation testing of ``privdtol.pipeline``'s config and plan
(``make mutation GROUPS=pipeline``, docs/testing.md): messages word for word, boundaries."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from privdtol.errors import InputError
from privdtol.pipeline import config

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_check_values_refuses_a_non_finite_number_in_one_line(value):
    with pytest.raises(InputError) as err:
        config.check_values({"thresholds": {"z_max": value}})
    assert str(err.value) == f"thresholds.z_max: got {value!r} (allowed: finite numbers)"


def test_check_values_counts_every_value_once():
    """The root mapping, the list and its values: MAX_VALUES in all passes, one more fails,
    naming the first value over the limit."""
    n = config.MAX_VALUES
    config.check_values({"a": [0] * (n - 2)})
    with pytest.raises(InputError) as err:
        config.check_values({"a": [0] * (n - 1)})
    assert str(err.value) == (
        f"a[{n - 2}]: the config holds more than {n} values (allowed: a small config)"
    )


def test_check_values_refuses_a_key_that_is_not_a_string():
    with pytest.raises(InputError) as err:
        config.check_values({"a": {2: 2}})
    assert str(err.value) == "a: key 2 is not a string (allowed: names)"


def _one(**exp) -> dict:
    """The smoke config with one experiment ``x`` of the keys given."""
    cfg = config.read_config_files([ROOT / "config" / "smoke.yaml"])
    cfg["experiments"] = [{"name": "x", **exp}]
    return cfg


SMALL = {"algorithms": ["rps"], "K": [2], "gap": [0.5], "epsilon": [1.0], "horizon": [1023]}


def _message(cfg) -> str:
    with pytest.raises(InputError) as err:
        config.load_config(cfg)
    return str(err.value)


def test_config_messages_name_the_key_and_what_it_allows():
    cfg = _one(**SMALL)
    del cfg["experiments"][0]["K"]
    assert _message(cfg) == "experiments[0].K: missing (allowed: a value for it)"
    beta = _one(**{**SMALL, "gap": [0.9], "mu_best": 0.1, "env": "beta"})
    assert _message(beta) == (
        "experiments[0].gap: Beta losses need means inside (0, 1); gap 0.9 gives 0.1..1 "
        "(allowed: gap < 1 with mu_best > 0)"
    )
    sliced = _one(**SMALL, slices=[{"name": "a"}, {"name": "b", "epsilon": []}])
    assert _message(sliced) == (
        "experiments[0].slices[1].epsilon: missing for private algorithms rps "
        "(allowed: a list of numbers > 0)"
    )
    small_memory = _one(**SMALL)
    small_memory["limits"] = {"max_memory_gb": 1e-9}
    assert _message(small_memory).startswith("experiments[0].horizon: rps at K=2, T=1023 needs")


def test_max_cells_is_an_inclusive_limit():
    """rps at 2 K x 2 eps and ftl at 2 K (no eps): 6 cells."""
    cfg = _one(**{**SMALL, "algorithms": ["rps", "ftl"], "K": [2, 4], "epsilon": [1.0, 0.5]})
    cfg["limits"] = {"max_cells": 6}
    config.load_config(cfg)
    cfg["limits"] = {"max_cells": 5}
    assert _message(cfg) == (
        "limits.max_cells: the grid has 6 cells (experiment 'x': 6) "
        "(allowed: <= 5; raise limits.max_cells or shrink the experiment)"
    )


def test_plan_checks_the_limits_and_sorts_cells_by_epsilon():
    from privdtol.pipeline import plan

    cfg = config.load_config(_one(**{**SMALL, "epsilon": [1.0, 0.25, 0.5]}))
    cells, _ = plan.plan(cfg)["x"]
    assert [c.epsilon for c in cells] == [0.25, 0.5, 1.0]
    cfg["limits"]["max_jobs"] = 0.5  # fewer than the one batch
    with pytest.raises(InputError) as err:
        plan.plan(cfg)
    assert str(err.value).startswith("limits.max_jobs: the grid has about 1 simulation jobs")


def test_batches_close_only_past_their_target():
    """Two cells of estimated cost a and b: one batch at a target of exactly a + b, two below."""
    from privdtol.pipeline import plan

    cfg = config.load_config(_one(**{**SMALL, "epsilon": [1.0, 0.5]}))
    cells, _ = plan.plan(cfg)["x"]
    total = cells[0].estimated_seconds() + cells[1].estimated_seconds()
    assert len(plan.make_batches(cells, "x", total, 10)) == 1
    assert len(plan.make_batches(cells, "x", total * (1 - 1e-9), 10)) == 2


def test_cells_json_is_compact_and_canonical():
    import json

    from privdtol.pipeline import plan

    cells, _ = plan.plan(config.load_config(_one(**SMALL)))["x"]
    text = plan.cells_to_json(cells)
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    assert plan.cells_from_json(text) == cells


def test_output_directories_stay_inside_the_working_directory(tmp_path):
    cfg = {"sim_dir": "results/sim", "agg_dir": "../elsewhere"}
    with pytest.raises(InputError) as err:
        config.check_out_dirs(cfg, cwd=tmp_path)
    assert str(err.value) == (
        f"agg_dir: '../elsewhere' lies outside the working directory {tmp_path.resolve()} "
        "(allowed: a path inside it, or allow_outside: true (--config allow_outside=true))"
    )
    config.check_out_dirs({**cfg, "allow_outside": True}, cwd=tmp_path)
    config.check_out_dirs({**cfg, "agg_dir": "results/agg"}, cwd=tmp_path)


def test_an_unknown_experiment_lists_the_configured_ones():
    from privdtol.pipeline import plan

    cfg = config.load_config(_one(**SMALL))
    with pytest.raises(InputError) as err:
        plan.experiment(cfg, "nope")
    assert str(err.value) == "experiment: unknown experiment 'nope' (allowed: x)"
