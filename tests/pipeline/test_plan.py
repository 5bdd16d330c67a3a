"""Tests of :mod:`privdtol.pipeline.plan`: a config's experiments expanded into cells (stable
ids, slices, exact or Monte Carlo per cell), cells grouped into batches within their time, count
and JSON-size limits, and the shipped configs' scale."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
import yaml
from support.configs import (
    SMALL,
    T30,
    bernoulli_cell,
    exact_config,
    minimal,
    planned_cells,
    smoke_with_one,
)
from support.paths import CONFIG

from privdtol.errors import InputError
from privdtol.pipeline import config, plan
from privdtol.pipeline import plan as grid
from privdtol.pipeline.config import load_config


def test_the_planner_makes_same_law_cells_neighbours():
    cells = [
        bernoulli_cell(a, e, g)
        for a in ("rnm_ftnl", "rps", "wu_wang", "wu_wang_gumbel")
        for e in (0.5, 1.0)
        for g in (0.125, 0.25)
    ]
    order = sorted(cells, key=plan.Cell.sort_key)
    names = [(c.algorithm, c.gap, c.epsilon) for c in order]
    for gap in (0.125, 0.25):
        for eps in (0.5, 1.0):
            i = names.index(("rnm_ftnl", gap, eps))
            assert names[i + 1] == ("wu_wang", gap, eps)
    rps = [i for i, c in enumerate(order) if c.algorithm == "rps" and c.gap == 0.125]
    assert np.ptp(rps) <= 2  # eps 0.5 and 1 (eta 1/8 both), at most a Gumbel cell between


CONFIGS = {name: CONFIG / f"{name}.yaml" for name in ("config", "paper", "smoke")}


@pytest.fixture(scope="module")
def smoke():
    return load_config(CONFIGS["smoke"])


# --------------------------------------------------------------------------- expansion
def test_non_private_algorithms_are_not_multiplied_over_epsilon():
    cfg = load_config(minimal())
    cells = grid.expand_experiment(cfg["experiments"][0], cfg)
    rps = [c for c in cells if c.algorithm == "rps"]
    ftl = [c for c in cells if c.algorithm == "ftl"]
    assert len(rps) == 2 * 2 * 3
    assert len(ftl) == 2 * 2 and all(c.epsilon is None for c in ftl)


def test_slices_union_and_model_parameters():
    cfg = load_config(
        minimal(
            algorithms=["rps"],
            K=[4],
            gap=[0.5],
            epsilon=[1.0],
            slices=[
                {"env": "bernoulli"},
                {"env": "correlated", "rho": [0.5, 1.0]},
                {"env": "beta", "kappa": [2.0], "horizon": [1023], "runs": 5},
                {"env": "bernoulli"},  # duplicate: deduplicated
            ],
        )
    )
    cells = grid.expand_experiment(cfg["experiments"][0], cfg)
    assert len(cells) == 4
    by_env = {}
    for c in cells:
        by_env.setdefault(c.env, []).append(c)
    assert [c.rho for c in by_env["correlated"]] == [0.5, 1.0]
    assert all(c.kappa is None for c in by_env["correlated"])
    (beta,) = by_env["beta"]
    assert beta.kappa == 2.0 and beta.rho is None and beta.horizon == 1023 and beta.runs == 5
    (bern,) = by_env["bernoulli"]
    assert bern.rho is None and bern.kappa is None
    assert bern.runs == (0 if bern.algorithm == "rps" else 200)  # rps on Bernoulli: exact


def test_cell_ids_are_stable_and_parameter_determined():
    cfg = load_config(minimal())
    a = grid.expand_experiment(cfg["experiments"][0], cfg)
    b = grid.expand_experiment(copy.deepcopy(cfg)["experiments"][0], cfg)
    assert [c.cell_id for c in a] == [c.cell_id for c in b]
    assert len({c.cell_id for c in a}) == len(a)
    # a pinned id: changing it would orphan every computed cell file
    cell = grid.Cell("rps", "bernoulli", "standard", 2, 0.5, None, 1.0, T30, 200, None, None, 0)
    assert cell.cell_id == grid.Cell(**cell.params()).cell_id
    assert len(cell.cell_id) == grid.CELL_ID_LENGTH
    # the seed and the runs are part of the identity
    assert grid.Cell(**{**cell.params(), "seed": 1}).cell_id != cell.cell_id
    assert grid.Cell(**{**cell.params(), "runs": 201}).cell_id != cell.cell_id


def test_explicit_engine_cells(smoke):
    """``exact: explicit`` (C0's round-by-round reference): Monte Carlo cells simulated by
    privdtol.engine.explicit, with their own id and stream; every other cell keeps the id it
    had before the field existed (pinned: computed before Cell.engine was added)."""
    cell = grid.Cell("rps", "bernoulli", "standard", 2, 0.5, None, 1.0, T30, 200, None, None, 0)
    # the digest of the parameters is the one from before the field existed (engine version 1's
    # id); the id itself adds the engine version (2: the fixed exact Laplace law)
    assert grid.stable_digest(cell.params())[: grid.CELL_ID_LENGTH] == "572a69445aeb57dc"
    assert cell.cell_id == "27e52e27e3b8898e" and "engine" not in cell.params()
    ref = grid.Cell(**{**cell.params(), "engine": "explicit"})
    assert ref.cell_id != cell.cell_id and ref.params()["engine"] == "explicit"
    assert ref.spec().mode == "explicit" and cell.spec().mode == "auto"
    assert ref.spec().seed_params(ref.spec().build_env()) != cell.spec().seed_params(
        cell.spec().build_env()
    )
    exp = minimal(
        algorithms=["rps", "rnm_ftnl"],
        K=[1024],
        gap=[0.5],
        epsilon=[1.0],
        horizon=[1023],
        runs=20,
        slices=[{"name": "ref", "exact": "explicit"}, {"name": "exact", "exact": "auto"}],
    )
    cfg = load_config(exp)
    cells = grid.expand_experiment(cfg["experiments"][0], cfg)
    assert sorted((c.algorithm, c.runs, c.engine) for c in cells) == [
        ("rnm_ftnl", 0, "auto"),
        ("rnm_ftnl", 20, "explicit"),
        ("rps", 0, "auto"),
        ("rps", 20, "explicit"),
    ]
    # the batch JSON carries the engine only when a cell needs it, and round-trips
    assert grid.cells_from_json(grid.cells_to_json(cells)) == cells
    assert '"engine"' not in grid.cells_to_json([cell])
    assert grid.cells_from_json(grid.cells_to_json([cell])) == [cell]
    # costed as a per-round simulation, O(K T runs)
    explicit = next(c for c in cells if c.engine == "explicit")
    assert explicit.estimated_seconds() > 1024 * 1023 * 20 / 1e8


def test_growing_a_list_keeps_existing_cell_ids(smoke):
    grown = copy.deepcopy(smoke)
    grown["experiments"][4]["K"].append(16)
    old = {c.cell_id for c in grid.expand_experiment(smoke["experiments"][4], smoke)}
    new = {c.cell_id for c in grid.expand_experiment(grown["experiments"][4], grown)}
    assert old < new


def test_cell_spec_matches_the_library_instance():
    cell = grid.Cell("rps", "correlated", "staircase", 5, 0.1, None, 0.5, 1023, 3, 0.5, None, 7)
    spec = cell.spec()
    assert spec.rho == 0.5 and spec.seed == 7 and spec.env == "correlated"
    assert len(spec.means) == 5 and min(spec.means) == pytest.approx(0.45)
    assert spec.instance == "staircase" and spec.kappa is None and spec.mode == "auto"


# --------------------------------------------------------------------------- batching
def test_batches_partition_the_cells_deterministically(smoke):
    for name, (cells, batches) in grid.plan(smoke).items():
        flat = [c for b in batches for c in b.cells]
        assert flat == cells, name
        assert [b.index for b in batches] == list(range(len(batches)))
        assert grid.plan(copy.deepcopy(smoke))[name][1] == batches


@pytest.mark.parametrize("target, max_cells", [(1e-9, 100), (1e9, 3), (1e9, 10_000)])
def test_batch_limits(smoke, target, max_cells):
    cells = grid.expand_experiment(smoke["experiments"][3], smoke)
    batches = grid.make_batches(cells, "actions", target, max_cells)
    assert all(len(b.cells) <= max_cells for b in batches)
    if target < 1:
        assert len(batches) == len(cells)  # one cell per batch
    assert [c for b in batches for c in b.cells] == cells


def test_cells_json_round_trip_and_size(smoke):
    for _, (_, batches) in grid.plan(smoke).items():
        for b in batches:
            assert grid.cells_from_json(b.cells_json()) == list(b.cells)
    big = [
        grid.Cell(
            "wu_wang_gumbel",
            "correlated",
            "staircase",
            4096,
            0.0009765625,
            0.123456,
            0.0078125,
            T30,
            1000,
            0.9,
            None,
            123,
        )
        for _ in range(5000)
    ]
    for b in grid.make_batches(big, "x", 1e12, 10_000):
        assert len(b.cells_json()) < 128 * 1024


# --------------------------------------------------------------------------- shipped configs
def test_exact_switch_per_slice():
    """``exact`` set per experiment or slice overrides the global switch (claim C0 runs the
    same cells both ways); a bare YAML ``off`` reads as "off"."""
    cfg = minimal(algorithms=["rps"], epsilon=[1.0], slices=[{"exact": False}, {"exact": "auto"}])
    cfg = load_config(cfg)
    exp = cfg["experiments"][0]
    cells = grid.expand_experiment(exp, cfg)
    assert sorted(c.runs for c in cells)[0] == 0 and sorted(c.runs for c in cells)[-1] > 0
    assert len(cells) == 2 * len(exp["K"]) * len(exp["gap"]) * len(exp["horizon"])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_shipped_configs_are_valid(name):
    cfg = load_config(CONFIGS[name])
    names = grid.experiment_names(cfg)
    assert names == [
        "horizon",
        "gap",
        "epsilon",
        "actions",
        "grid",
        "dependent",
        "ablations",
        "agreement",
        "separation",
    ]
    for exp_name, (cells, _) in grid.plan(cfg).items():
        for c in cells:
            # every horizon reaches 2^30 - 1, except Beta losses (no exact block sums), the
            # engine-agreement cells (their Monte Carlo half) and the smoke separation (toy)
            toy = name == "smoke" and exp_name == "separation"
            ok = c.horizon >= T30 or c.env == "beta" or exp_name == "agreement" or toy
            assert ok, (name, exp_name, c)
        if exp_name != "agreement" and not (name == "smoke" and exp_name == "separation"):
            assert max(c.horizon for c in cells) >= T30
    checks = cfg["checks"]
    assert checks["horizon_free_c"] == 16 and checks["exponent_range"] == [0.8, 1.2]


def test_paper_config_scale_and_job_count():
    cfg = load_config(CONFIGS["paper"])
    plan = grid.plan(cfg)
    cells = [c for cs, _ in plan.values() for c in cs]
    exact = [c for c in cells if c.exact]
    assert max(c.K for c in exact) == 2**16 and max(c.horizon for c in exact) == 2**40 - 1
    assert min(c.gap for c in exact) == 2.0**-16
    assert min(c.epsilon for c in exact) == 2.0**-12
    mc = [c for c in cells if not c.exact]
    assert max(c.horizon for c in mc if c.env != "beta") == 2**30 - 1
    assert min(c.runs for c in cells if not c.exact) >= 200
    assert all(c.runs == 0 and c.seed == 0 for c in cells if c.exact)
    jobs = sum(len(b) for _, b in plan.values()) + len(plan) + 1  # simulate + aggregate + all
    assert jobs <= 500


def test_smoke_config_is_small():
    """CI builds the smoke config several times: its cells must stay well under a minute of
    CPU (its exact rps cells cost about a second each, measured)."""
    cfg = load_config(CONFIGS["smoke"])
    est = sum(c.estimated_seconds() for cs, _ in grid.plan(cfg).values() for c in cs)
    assert est < 45


def test_yaml_configs_parse_as_plain_yaml():
    for path in CONFIGS.values():
        assert isinstance(yaml.safe_load(path.read_text()), dict)


#: one Monte Carlo cell; its JSON estimate is, per value, len(json.dumps(value)) + 1:
#: "rps" 6, "bernoulli" 12, "standard" 11, 8 2, 0.5 4, null 5, 1.0 4, 1023 5, 100 4, null 5,
#: null 5, 0 2 (the "auto" engine is left out): 65, or 66 with a 5-digit horizon
CELL = plan.Cell(
    algorithm="rps",
    env="bernoulli",
    instance="standard",
    K=8,
    gap=0.5,
    mu_best=None,
    epsilon=1.0,
    horizon=1023,
    runs=100,
    rho=None,
    kappa=None,
    seed=0,
)


def _full_batch(seed: int, five_digit: int = 30) -> list[plan.Cell]:
    """1538 cells of 100 000 JSON characters with the default 30 five-digit horizons:
    1508 x 65 + 30 x 66 = 98 020 + 1 980."""
    short = [
        dataclasses.replace(CELL, horizon=1000 + i, seed=seed) for i in range(1538 - five_digit)
    ]
    long = [dataclasses.replace(CELL, horizon=10_000 + i, seed=seed) for i in range(five_digit)]
    return short + long


def test_batches_of_exactly_max_json_chars_stay_whole():
    assert plan.MAX_JSON_CHARS == 100_000
    assert plan._json_chars(CELL) == 65
    assert plan._json_chars(dataclasses.replace(CELL, horizon=10_000)) == 66
    cells = _full_batch(0) + _full_batch(1)
    batches = plan.make_batches(cells, "x", target_seconds=1e6, max_cells=10_000)
    assert [len(b.cells) for b in batches] == [1538, 1538]
    assert [b.name for b in batches] == ["x_000", "x_001"]
    assert batches[1].cells[0] == dataclasses.replace(CELL, horizon=1000, seed=1)
    # one character more in the second batch (a 31st five-digit horizon): its last cell moves on
    over = plan.make_batches(
        _full_batch(0) + _full_batch(1, five_digit=31), "x", target_seconds=1e6, max_cells=10_000
    )
    assert [len(b.cells) for b in over] == [1538, 1537, 1]


def test_plan_checks_the_limits_and_sorts_cells_by_epsilon():
    cfg = config.load_config(smoke_with_one(**{**SMALL, "epsilon": [1.0, 0.25, 0.5]}))
    cells, _ = plan.plan(cfg)["x"]
    assert [c.epsilon for c in cells] == [0.25, 0.5, 1.0]
    cfg["limits"]["max_jobs"] = 0.5  # fewer than the one batch
    with pytest.raises(InputError) as err:
        plan.plan(cfg)
    assert str(err.value).startswith("limits.max_jobs: the grid has about 1 simulation jobs")


def test_batches_close_only_past_their_target():
    """Two cells of estimated cost a and b: one batch at a target of exactly a + b, two below."""
    cfg = config.load_config(smoke_with_one(**{**SMALL, "epsilon": [1.0, 0.5]}))
    cells, _ = plan.plan(cfg)["x"]
    total = cells[0].estimated_seconds() + cells[1].estimated_seconds()
    assert len(plan.make_batches(cells, "x", total, 10)) == 1
    assert len(plan.make_batches(cells, "x", total * (1 - 1e-9), 10)) == 2


def test_cells_json_is_compact_and_canonical():
    import json

    cells, _ = plan.plan(config.load_config(smoke_with_one(**SMALL)))["x"]
    text = plan.cells_to_json(cells)
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    assert plan.cells_from_json(text) == cells


def test_cells_json_with_other_fields_names_them():
    with pytest.raises(ValueError) as err:
        plan.cells_from_json('{"K": [2], "gap": [0.5]}')
    assert str(err.value) == (
        "fields ['K', 'gap'] != ['K', 'algorithm', 'engine', 'env', 'epsilon', 'gap', "
        "'horizon', 'instance', 'kappa', 'mu_best', 'rho', 'runs', 'seed']"
    )


def test_an_unknown_experiment_lists_the_configured_ones():
    cfg = config.load_config(smoke_with_one(**SMALL))
    with pytest.raises(InputError) as err:
        plan.experiment(cfg, "nope")
    assert str(err.value) == "experiment: unknown experiment 'nope' (allowed: x)"


def test_an_experiments_mu_best_reaches_its_cells():
    cfg = config.load_config(smoke_with_one(**SMALL, mu_best=0.125))
    cells, _ = plan.plan(cfg)["x"]
    assert [c.mu_best for c in cells] == [0.125]


def test_the_plan_summary_counts_cells_and_batches():
    cfg = config.load_config(smoke_with_one(**{**SMALL, "epsilon": [1.0, 0.5]}))
    rows = plan.summary(cfg)
    assert [(r["experiment"], r["cells"], r["batches"], r["max_horizon"]) for r in rows] == [
        ("x", 2, 1, 1023)
    ]


def test_block_algorithms_on_bernoulli_are_exact_by_default():
    got = planned_cells(exact_config())
    assert got["rps"].exact and got["rnm_ftnl"].exact
    assert (got["rps"].runs, got["rps"].seed) == (0, 0)  # no runs, no seed
    assert not got["ftl"].exact and got["ftl"].runs == 50  # per-round: Monte Carlo


@pytest.mark.parametrize("env", ["correlated", "beta"])
def test_dependent_and_beta_losses_stay_monte_carlo(env):
    cells = planned_cells(exact_config(env=env, algorithms=["rps"]))
    assert not any(c.exact for c in cells.values())


def test_exact_off_gives_monte_carlo_everywhere_also_as_bare_yaml_off():
    cfg = yaml.safe_load("exact: off\n")  # YAML 1.1 reads a bare off as False
    assert cfg == {"exact": False}
    got = planned_cells({**exact_config(), **cfg})
    assert not any(c.exact for c in got.values())
    assert got["rps"].runs == 50


# ------------------------------------------- Lemma 4 and 5 verdicts of the proof terms' rows
