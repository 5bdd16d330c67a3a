"""The pipeline's configuration schema, grid expansion and batching (privdtol.pipeline.plan)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from privdtol.algorithms import ALGORITHMS
from privdtol.errors import InputError
from privdtol.pipeline import plan as grid
from privdtol.pipeline.config import load_config, load_schema

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {name: ROOT / "config" / f"{name}.yaml" for name in ("config", "paper", "smoke")}
T30 = (1 << 30) - 1


def minimal(**exp) -> dict:
    base = {
        "name": "e",
        "algorithms": ["rps", "ftl"],
        "K": [2, 4],
        "gap": [0.5, 0.25],
        "epsilon": [1.0, 0.5, 0.25],
        "horizon": [T30],
    }
    base.update(exp)
    return {"experiments": [base]}


@pytest.fixture(scope="module")
def smoke():
    return load_config(CONFIGS["smoke"])


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
        },
    }
    exp = cfg["experiments"][0]
    assert exp["env"] == "bernoulli" and exp["instance"] == "standard"


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
    ]
    for exp_name, (cells, _) in grid.plan(cfg).items():
        for c in cells:
            # every horizon reaches 2^30 - 1, except Beta losses (no exact block sums) and the
            # engine-agreement cells (their Monte Carlo half)
            ok = c.horizon >= T30 or c.env == "beta" or exp_name == "agreement"
            assert ok, (name, exp_name, c)
        if exp_name != "agreement":
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


# --------------------------------------------------------------------------- CLI
def test_simulate_batch_cli_writes_skips_and_forces(tmp_path, capsys):
    from privdtol.cli import main

    out = tmp_path / "sim"
    args = [
        "simulate-batch",
        "--config",
        str(CONFIGS["smoke"]),
        "--experiment",
        "horizon",
        "--batch",
        "0",
        "--out-dir",
        str(out),
    ]
    assert main(args) == 0
    files = sorted(out.glob("*.parquet"))
    cfg = load_config(CONFIGS["smoke"])
    cells = grid.plan(cfg)["horizon"][1][0].cells
    assert [f.stem for f in files] == sorted(c.cell_id for c in cells)
    first = {f: f.read_bytes() for f in files}
    assert f"{len(cells)} cells computed, 0 skipped" in capsys.readouterr().err
    assert main(args) == 0  # everything exists: skipped
    assert f"0 cells computed, {len(cells)} skipped" in capsys.readouterr().err
    files[0].write_bytes(b"PAR1 truncated")  # an untrustworthy file
    assert main(args) == 0
    assert f"1 cells computed, {len(cells) - 1} skipped" in capsys.readouterr().err
    assert main([*args, "--force"]) == 0
    assert {f: f.read_bytes() for f in files} == first  # same bytes, recomputed
    # the pipeline's --cells form gives the same files
    other = tmp_path / "other"
    batch = grid.plan(cfg)["horizon"][1][0]
    assert main(["simulate-batch", "--cells", batch.cells_json(), "--out-dir", str(other)]) == 0
    assert {f.name: f.read_bytes() for f in files} == {
        f.name: f.read_bytes() for f in sorted(other.glob("*.parquet"))
    }


def test_cli_errors_name_the_argument(tmp_path, capsys):
    from privdtol.cli import main

    assert main(["simulate-batch", "--out-dir", str(tmp_path)]) == 2
    assert "--cells: no cells given" in capsys.readouterr().err
    assert (
        main(
            [
                "simulate-batch",
                "--config",
                str(CONFIGS["smoke"]),
                "--experiment",
                "nope",
                "--batch",
                "0",
                "--out-dir",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert (
        "--experiment: unknown experiment 'nope' (allowed: horizon, gap" in capsys.readouterr().err
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(minimal(K=[1])))
    assert main(["check-config", str(bad)]) == 2
    assert "experiments[0].K[0]: got 1 (allowed: integers >= 2" in capsys.readouterr().err
    assert main(["check-config", str(CONFIGS["paper"])]) == 0
    assert "total" in capsys.readouterr().out
