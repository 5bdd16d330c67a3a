"""Guards from the fresh mutation sample of ``privdtol.pipeline``'s config and plan
(docs/testing.md): the schema's type message, the memory limit's edge, ``allow_outside`` as
Snakemake's string ``"true"``, the private algorithms of a missing epsilon listed, the
privacy block validated alone, and the cells JSON's field error."""

from __future__ import annotations

import pytest
from test_mutants_pipeline import SMALL, _message, _one

from privdtol.errors import InputError
from privdtol.pipeline import config, limits, plan


def test_a_wrong_type_names_the_type_allowed():
    cfg = _one(**SMALL)
    cfg["runs"] = "ten"
    assert _message(cfg) == "runs: got 'ten' (allowed: type integer)"


def test_the_memory_limit_is_max_memory_gb_times_1e9_bytes():
    """A limit set 5e-10 below the cell's estimate refuses it; at the estimate it runs."""
    need = limits.exact_memory_bytes("rps", [0.25, 0.75], 1.0, 1023)
    cfg = _one(**SMALL)
    cfg["limits"] = {"max_memory_gb": need / 1e9}
    config.load_config(cfg)
    cfg["limits"] = {"max_memory_gb": need / 1.0000000005e9}
    assert _message(cfg).startswith("experiments[0].horizon: rps at K=2, T=1023 needs about")


@pytest.mark.parametrize("value", [True, "true"])
def test_allow_outside_accepts_snakemakes_string_true(tmp_path, value):
    cfg = {"sim_dir": "results/sim", "agg_dir": "../elsewhere", "allow_outside": value}
    config.check_out_dirs(cfg, cwd=tmp_path)
    with pytest.raises(InputError):
        config.check_out_dirs({**cfg, "allow_outside": "TRUE"}, cwd=tmp_path)


def test_a_missing_epsilon_lists_every_private_algorithm():
    cfg = _one(**{**SMALL, "algorithms": ["rps", "ftl", "rnm_ftnl"], "epsilon": []})
    assert _message(cfg) == (
        "experiments[0].epsilon: missing for private algorithms rps, rnm_ftnl "
        "(allowed: a list of numbers > 0)"
    )


def test_the_privacy_block_is_validated_alone():
    grid = _one(**SMALL)["privacy"]
    assert config.validate_privacy(grid) is grid
    with pytest.raises(InputError) as err:
        config.validate_privacy({**grid, "nope": 1})
    assert str(err.value).startswith("privacy.nope: ")


def test_cells_json_with_other_fields_names_them():
    with pytest.raises(ValueError) as err:
        plan.cells_from_json('{"K": [2], "gap": [0.5]}')
    assert str(err.value) == (
        "fields ['K', 'gap'] != ['K', 'algorithm', 'engine', 'env', 'epsilon', 'gap', "
        "'horizon', 'instance', 'kappa', 'mu_best', 'rho', 'runs', 'seed']"
    )


# ----------------------------------------------------------------------------- second sample


def test_an_empty_list_names_its_minimum_length_and_an_unknown_key_is_named():
    assert _message(_one(**{**SMALL, "algorithms": []})) == (
        "experiments[0].algorithms: got [] (allowed: lists with at least 1 items)"
    )
    assert _message(_one(**SMALL, nope=1)).startswith("experiments[0].nope: unknown key (allowed: ")


def test_an_experiment_off_the_exact_engine_is_sized_as_monte_carlo():
    """rps at K = 2 is exact by default (its memory tiny); with ``exact: off`` its 10^9 runs
    are Monte Carlo runs, whose estimate exceeds the limit."""
    cfg = _one(**SMALL, runs=10**9)
    config.load_config(cfg)
    off = _one(**SMALL, runs=10**9, exact="off")
    assert _message(off).startswith("experiments[0].runs: rps at K=2, T=1023, runs=1000000000")


def test_an_experiments_mu_best_reaches_its_cells():
    cfg = config.load_config(_one(**SMALL, mu_best=0.125))
    cells, _ = plan.plan(cfg)["x"]
    assert [c.mu_best for c in cells] == [0.125]


def test_config_files_are_validated_against_the_schema_given(tmp_path):
    import yaml

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_one(**SMALL)))
    schema = config.load_schema()
    schema["properties"]["runs"]["maximum"] = 10
    with pytest.raises(InputError) as err:
        config.load_config_files([path], schema)
    assert str(err.value) == "runs: got 20 (allowed: integers >= 1 and <= 10)"


def test_the_plan_summary_counts_cells_and_batches():
    cfg = config.load_config(_one(**{**SMALL, "epsilon": [1.0, 0.5]}))
    rows = plan.summary(cfg)
    assert [(r["experiment"], r["cells"], r["batches"], r["max_horizon"]) for r in rows] == [
        ("x", 2, 1, 1023)
    ]
