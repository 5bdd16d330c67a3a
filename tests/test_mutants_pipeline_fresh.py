"""Guards from the fresh mutation sample of ``privdtol.pipeline``'s config and plan
(docs/testing.md): the schema's type message, the memory limit's edge, ``allow_outside`` as
Snakemake's string ``"true"``, the private algorithms of a missing epsilon listed, the
checks' defaults, the privacy block validated alone, and the cells JSON's field error."""

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


def test_the_checks_defaults_are_the_schemas():
    """The pre-registered thresholds of config.schema.yaml's ``checks:`` block, by hand."""
    defaults = config.check_defaults()
    assert {k: v for k, v in defaults.items() if k != "multiverse"} == {
        "power_replicates": 40,
        "agreement_z_max": 4,
        "agreement_min_events": 10,
        "horizon_free_ratio_max": 1.05,
        "horizon_free_c": 16,
        "plateau_octaves": 4,
        "rate_form_factor": 1.5,
        "exponent_range": [0.8, 1.2],
        "confidence": 0.95,
    }
    assert defaults["multiverse"]["confidence"] == [0.9, 0.95, 0.99]


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
