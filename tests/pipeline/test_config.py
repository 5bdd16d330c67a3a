"""Tests of :mod:`privdtol.pipeline.config`: the schema's documented defaults, and every bad
config refused in one message naming the key and what it allows (values, limits, output
directories)."""

from __future__ import annotations

import copy

import pytest
import yaml
from support.configs import SMALL, exact_config, minimal, refusal_message, smoke_with_one

from privdtol.algorithms import ALGORITHMS
from privdtol.errors import InputError
from privdtol.pipeline import config
from privdtol.pipeline.config import load_config, load_schema


# --------------------------------------------------------------------------- schema
def test_schema_fills_documented_defaults():
    cfg = load_config(minimal())
    assert cfg["seed"] == 0 and cfg["runs"] == 200
    assert cfg["batching"] == {"target_seconds": 30, "max_cells": 500}
    assert cfg["checks"] == {
        "horizon_free_ratio_max": 1.05,
        "horizon_free_c": 16,
        "rate_form_factor": 1.5,
        "exponent_range": [0.8, 1.2],
        "plateau_octaves": 4,
        "optimality_ratio_max": 256,
        "optimality_growth_max": 0.25,
        "cited_ratio_max": 256,
        "cited_growth_max": 0.25,
        "battery_replicates": 3,
        "confidence": 0.95,
        "agreement_z_max": 4,
        "agreement_min_events": 10,
        "power_replicates": 40,
        "multiverse": {
            "confidence": [0.9, 0.95, 0.99],
            "agreement_z_max": [3, 4, 5],
            "agreement_min_events": [5, 10, 20],
            "horizon_free_ratio_max": [1.02, 1.05, 1.1],
            "horizon_free_c": [8, 16, 32],
            "plateau_octaves": [3, 4, 5],
            "rate_form_factor": [1.25, 1.5, 2.0],
            "exponent_range": [[0.9, 1.1], [0.8, 1.2], [0.7, 1.3]],
            "optimality_ratio_max": [64, 256, 1024],
            "cited_ratio_max": [64, 256, 1024],
            "cited_growth_max": [0.1, 0.25, 0.5],
            "optimality_growth_max": [0.1, 0.25, 0.5],
        },
    }
    exp = cfg["experiments"][0]
    assert exp["env"] == "bernoulli" and exp["instance"] == "standard"
    # the loss models' own defaults (written in their constructors alone)
    assert exp["rho"] == [0.5] and exp["kappa"] == [2.0]


def test_every_schema_key_is_documented():
    schema = load_schema()

    def walk(node, path):
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                assert "description" in sub or "$ref" in sub, f"{path}.{key} undocumented"
            for key, sub in node.items():
                walk(sub, f"{path}.{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, path)

    walk(schema, "schema")


def test_load_config_does_not_mutate_its_input():
    cfg = minimal()
    before = copy.deepcopy(cfg)
    load_config(cfg)
    assert cfg == before


@pytest.mark.parametrize(
    "mutate, key, allowed",
    [
        # a wrong (misspelt) key, at top level and inside an experiment
        (
            lambda c: c.update(seeds=1),
            "seeds",
            "seed, runs, exact, sim_dir, agg_dir, allow_outside, limits, batching, checks",
        ),
        (
            lambda c: c["experiments"][0].update(gaps=[0.5]),
            "experiments[0].gaps",
            "name, description, algorithms, env, instance, K, gap, epsilon, horizon",
        ),
        # a negative epsilon
        (
            lambda c: c["experiments"][0].update(epsilon=[1.0, -0.5]),
            "experiments[0].epsilon[1]",
            "numbers > 0",
        ),
        # a gap above 1
        (
            lambda c: c["experiments"][0].update(gap=[1.5]),
            "experiments[0].gap[0]",
            "numbers > 0 and <= 1",
        ),
        # K < 2
        (lambda c: c["experiments"][0].update(K=[1, 4]), "experiments[0].K[0]", "integers >= 2"),
        # an unknown algorithm
        (
            lambda c: c["experiments"][0].update(algorithms=["rps", "exp3"]),
            "experiments[0].algorithms[1]",
            ", ".join(ALGORITHMS),
        ),
        # an unknown loss model, a bad slice key, a bad check threshold
        (lambda c: c["experiments"][0].update(env="gaussian"), "experiments[0].env", "bernoulli"),
        (
            lambda c: c["experiments"][0].update(slices=[{"epsilons": [1.0]}]),
            "experiments[0].slices[0].epsilons",
            "algorithms",
        ),
        (lambda c: c.update(checks={"confidence": 1.5}), "checks.confidence", "< 1"),
        # a mapping or a list given as a scalar (the YAML `experiments: true`)
        (lambda c: c.update(experiments=True), "experiments", "type array"),
        (lambda c: c["experiments"][0].update(slices=True), "experiments[0].slices", "array"),
    ],
)
def test_bad_config_one_message_naming_key_and_allowed_values(mutate, key, allowed):
    cfg = minimal()
    mutate(cfg)
    with pytest.raises(InputError) as info:
        load_config(cfg)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(key + ":"), message
    assert "(allowed: " in message and allowed in message, message


def test_semantic_errors():
    with pytest.raises(InputError, match=r"experiments\[0\].epsilon: missing .* rps"):
        load_config(minimal(epsilon=[]))
    with pytest.raises(InputError, match=r"experiments\[0\].mu_best"):
        load_config(minimal(mu_best=0.9))
    with pytest.raises(InputError, match=r"experiments\[0\].gap: Beta losses"):
        load_config(minimal(env="beta", gap=[1.0]))
    cfg = minimal()
    cfg["experiments"].append(copy.deepcopy(cfg["experiments"][0]))
    with pytest.raises(InputError, match=r"experiments\[1\].name: duplicate"):
        load_config(cfg)


def test_config_messages_name_the_key_and_what_it_allows():
    cfg = smoke_with_one(**SMALL)
    del cfg["experiments"][0]["K"]
    assert refusal_message(cfg) == "experiments[0].K: missing (allowed: a value for it)"
    beta = smoke_with_one(**{**SMALL, "gap": [0.9], "mu_best": 0.1, "env": "beta"})
    assert refusal_message(beta) == (
        "experiments[0].gap: Beta losses need means inside (0, 1); gap 0.9 gives 0.1..1 "
        "(allowed: gap < 1 with mu_best > 0)"
    )
    sliced = smoke_with_one(**SMALL, slices=[{"name": "a"}, {"name": "b", "epsilon": []}])
    assert refusal_message(sliced) == (
        "experiments[0].slices[1].epsilon: missing for private algorithms rps "
        "(allowed: a list of numbers > 0)"
    )
    small_memory = smoke_with_one(**SMALL)
    small_memory["limits"] = {"max_memory_gb": 1e-9}
    assert refusal_message(small_memory).startswith(
        "experiments[0].horizon: rps at K=2, T=1023 needs"
    )


def test_max_cells_is_an_inclusive_limit():
    """rps at 2 K x 2 eps and ftl at 2 K (no eps): 6 cells."""
    cfg = smoke_with_one(
        **{**SMALL, "algorithms": ["rps", "ftl"], "K": [2, 4], "epsilon": [1.0, 0.5]}
    )
    cfg["limits"] = {"max_cells": 6}
    config.load_config(cfg)
    cfg["limits"] = {"max_cells": 5}
    assert refusal_message(cfg) == (
        "limits.max_cells: the grid has 6 cells (experiment 'x': 6) "
        "(allowed: <= 5; raise limits.max_cells or shrink the experiment)"
    )


def test_a_wrong_type_names_the_type_allowed():
    cfg = smoke_with_one(**SMALL)
    cfg["runs"] = "ten"
    assert refusal_message(cfg) == "runs: got 'ten' (allowed: type integer)"


def test_a_missing_epsilon_lists_every_private_algorithm():
    cfg = smoke_with_one(**{**SMALL, "algorithms": ["rps", "ftl", "rnm_ftnl"], "epsilon": []})
    assert refusal_message(cfg) == (
        "experiments[0].epsilon: missing for private algorithms rps, rnm_ftnl "
        "(allowed: a list of numbers > 0)"
    )


def test_the_privacy_block_is_validated_alone():
    grid = smoke_with_one(**SMALL)["privacy"]
    assert config.validate_privacy(grid) is grid
    with pytest.raises(InputError) as err:
        config.validate_privacy({**grid, "nope": 1})
    assert str(err.value).startswith("privacy.nope: ")


def test_the_privacy_blocks_defaults_are_the_schemas():
    """An empty block and a whole config's block carry the schema's defaults (the audited
    algorithms' lists excepted: the privacy layer's); a given value is kept."""
    assert config.validate_privacy({"K": [2]}) == {
        "K": [2],
        "seed": 0,
        "epsilons": [0.1, 0.25, 0.5, 1.0, 2.0],
        "blocks": [1, 4, 16, 64],
        "exact": {"n_random": 1000, "max_steps": 30, "laplace_max_K": 4},
        "sequence": {"K": [3], "horizon": 63, "n_random": 10},
        "statistical": {"K": [2, 4], "block": 16, "runs": 200000, "alpha": 0.05},
    }
    cfg = minimal()
    cfg["privacy"] = {"statistical": {"runs": 10}}
    privacy = load_config(cfg)["privacy"]
    assert privacy["statistical"] == {"runs": 10, "K": [2, 4], "block": 16, "alpha": 0.05}
    assert privacy["exact"]["n_random"] == 1000 and "algorithms" not in privacy


def test_an_empty_list_names_its_minimum_length_and_an_unknown_key_is_named():
    assert refusal_message(smoke_with_one(**{**SMALL, "algorithms": []})) == (
        "experiments[0].algorithms: got [] (allowed: lists with at least 1 items)"
    )
    assert refusal_message(smoke_with_one(**SMALL, nope=1)).startswith(
        "experiments[0].nope: unknown key (allowed: "
    )


def test_an_experiment_off_the_exact_engine_is_sized_as_monte_carlo():
    """rps at K = 2 is exact by default (its memory tiny); with ``exact: off`` its 10^9 runs
    are Monte Carlo runs, whose estimate exceeds the limit."""
    cfg = smoke_with_one(**SMALL, runs=10**9)
    config.load_config(cfg)
    off = smoke_with_one(**SMALL, runs=10**9, exact="off")
    assert refusal_message(off).startswith(
        "experiments[0].runs: rps at K=2, T=1023, runs=1000000000"
    )


def test_config_files_are_validated_against_the_schema_given(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(smoke_with_one(**SMALL)))
    schema = config.load_schema()
    schema["properties"]["runs"]["maximum"] = 10
    with pytest.raises(InputError) as err:
        config.load_config_files([path], schema)
    assert str(err.value) == "runs: got 20 (allowed: integers >= 1 and <= 10)"


def test_bad_exact_value_is_one_line_naming_the_key():
    with pytest.raises(InputError) as err:
        load_config(exact_config(exact="sometimes"))
    assert "exact" in str(err.value) and "auto" in str(err.value)


# ----------------------------------------------------------------- what will fail later
def _with(mutate) -> dict:
    cfg = smoke_with_one(**SMALL)
    mutate(cfg)
    return cfg


def _exp(**kw):
    return lambda c: c["experiments"][0].update(**kw)


def _checks(**kw):
    return lambda c: c.update(checks=kw)


SLICE = "experiments[0].slices[0].name: got"


@pytest.mark.parametrize(
    ("mutate", "starts"),
    [
        (_exp(name="horizon\n"), "experiments[0].name: got"),
        (_exp(name="a" * 65), "experiments[0].name: got"),
        (_exp(name="worst_case"), "experiments[0].name: 'worst_case' is the name"),
        (_exp(slices=[{"name": "a\n\nb"}]), SLICE),
        (_exp(slices=[{"name": "a\x07"}]), SLICE),
        (_exp(slices=[{"name": "s" * 65}]), SLICE),
        (lambda c: c.update(sim_dir="results/sim\n"), "sim_dir: got"),
        (_checks(exponent_range=[1.2, 0.8]), "checks.exponent_range: got"),
        (_checks(multiverse={"nope": [1]}), "checks.multiverse.nope: unknown key"),
        (_checks(multiverse={"confidence": [1.5]}), "checks.multiverse.confidence[0]"),
        (_checks(multiverse={"plateau_octaves": [0.5]}), "checks.multiverse.plateau_octaves[0]"),
        (_checks(multiverse={"exponent_range": [[1.3, 0.7]]}), "checks.multiverse.exponent_"),
    ],
)  # fmt: skip
def test_config_that_would_fail_later_is_refused_now(mutate, starts):
    """Before the fix each passed check-config and failed at job time (a file name with a
    newline, Errno 36, a never-simulated experiment, pdflatex, a traceback in the multiverse
    job) or made C4a impossible to pass."""
    assert refusal_message(_with(mutate)).startswith(starts)


def test_multiverse_keys_are_the_thresholds():
    props = load_schema()["properties"]["checks"]["properties"]
    multiverse = props["multiverse"]
    assert multiverse["additionalProperties"] is False
    assert set(multiverse["properties"]) == set(props) - set(config.MULTIVERSE_EXCLUDED)
    assert set(multiverse["default"]) <= set(multiverse["properties"])
