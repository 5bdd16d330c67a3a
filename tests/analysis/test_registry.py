"""Tests of :mod:`privdtol.analysis.registry`: the claims and findings it lists, their check
functions (each passes rps's regret model and fails its controls), the notebooks' claims and
thresholds, the controls a config simulates, and the workflow rules generated from it."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest
from support.paths import SMOKE
from support.tables import proof_row
from support.workflow import copy_workflow, run_snakemake

from privdtol.analysis import (
    registry,
)
from privdtol.analysis.claims.lemmas import STEPS
from privdtol.analysis.registry import (
    CLAIMS,
    NOTEBOOKS,
    claims_for,
    controls_for,
    notebook_claims,
    notebook_thresholds,
    proof_algorithms,
)
from privdtol.pipeline.config import check_defaults, load_config


def test_every_claim_resolves_to_a_registry_check(thresholds):
    for claim in CLAIMS.values():
        fn = claim.check_function()
        assert list(inspect.signature(fn).parameters)[:3] == ["tables", "thresholds", "inputs"]
        assert set(claim.thresholds) <= set(thresholds), claim.id
        assert claim.notebook in NOTEBOOKS and claim.id in notebook_claims(claim.notebook)


def test_claims_for_follows_the_experiments():
    assert claims_for(["gap"]) == ["C2", "C2b", "C3", "C4a", "C6"]
    assert "C1" not in claims_for(["horizon", "grid"]) and claims_for(["privacy"]) == ["C1"]


def test_controls_for_follows_the_config():
    algs = ["rps", "ftl_egreedy", "uniform", "rps_short_prefix"]
    cfg = {"experiments": [{"name": "gap", "algorithms": algs}]}
    assert controls_for(cfg) == [
        ("C2", "uniform"),
        ("C2b", "uniform"),
        ("C3", "ftl_egreedy"),
        ("C4a", "rps_short_prefix"),
        ("L4", "rps_short_prefix"),  # the proof claims read the gap experiment's cells too
    ]


@pytest.mark.pipeline
def test_rules_are_generated_from_the_registry(tmp_path):
    """One check_<ID> rule per claim of claims_for, one notebook_<name> per notebook of the
    config's experiments; without a privacy block neither C1 nor the privacy notebook."""
    import yaml

    pytest.importorskip("snakemake")
    copy_workflow(tmp_path, dirs=("workflow", "config", "notebooks", "paper"))
    cfg = yaml.safe_load(SMOKE.read_text())
    cfg.pop("privacy")
    # the Snakefile's default config file (merged under any --configfile) without privacy
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    from privdtol.analysis.registry import proof_algorithms
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.config import load_config
    from privdtol.pipeline.proof import proof_homes
    from privdtol.pipeline.worst_case import searches

    loaded = load_config(cfg)
    # the tables this config produces: its experiments, the proof terms of its exact rps cells
    # and the worst-instance searches of its worst_case block
    exps = [e["name"] for e in cfg["experiments"]]
    exps += ["proof"] if proof_homes(grid.plan(loaded), proof_algorithms()) else []
    exps += ["worst_case", "searches"] if searches(loaded) else []
    proc = run_snakemake(tmp_path, "-n", "checks_all", "notebooks_all", timeout=300)
    jobs = {
        line.split()[0]
        for line in proc.stdout.splitlines()
        if line[:6] in ("check_", "notebo") and len(line.split()) == 2
    }
    from privdtol.analysis.registry import controls_for

    expected_checks = {f"check_{c}" for c in claims_for(exps)} | {
        f"check_{c}__{a}" for c, a in controls_for(load_config(cfg))
    }
    assert {j for j in jobs if j.startswith("check_")} == expected_checks
    # C1 left out with the privacy block; C8a and C8b: the smoke config has no floor block
    assert "check_C1" not in jobs and len(claims_for(exps)) == len(CLAIMS) - 3
    expected_nbs = {
        f"notebook_{n}" for n, nb in NOTEBOOKS.items() if set(nb.experiments) & set(exps)
    }
    assert {j for j in jobs if j.startswith("notebook_")} == expected_nbs
    assert "notebook_privacy" not in jobs and len(expected_nbs) == len(NOTEBOOKS) - 2


def test_registry_reads_slices_and_a_config_without_experiments():
    assert registry.experiment_algorithms({}) == {} and registry.experiment_envs({}) == {}
    config = {
        "experiments": [
            {
                "name": "x",
                "algorithms": ["rps"],
                "env": "bernoulli",
                "slices": [{"algorithms": ["ftl"], "env": "beta"}, {"name": "plain"}],
            }
        ]
    }
    assert registry.experiment_algorithms(config) == {"x": {"rps", "ftl"}}
    assert registry.experiment_envs(config) == {"x": {"bernoulli", "beta"}}


def test_paper_claims_and_diagnostics_split_the_registry():
    paper = ["C1", "C2", "C2b", "C3", "C5", "C6", "C7", "L4", "L5", "L5a", "L5b"]
    assert registry.paper_claims() == paper
    assert registry.diagnostics() == ["C0", "C4", "C4a", "C4b", "C4c", "C8a", "C8b"]
    assert registry.cited_claims() == ["H1", "W1"]
    assert len(registry.CLAIMS) == 20
    assert not any(registry.CLAIMS[c].independent for c in registry.cited_claims())
    assert {registry.CLAIMS[c].subject for c in registry.cited_claims()} == {"rnm_ftnl", "wu_wang"}
    # the independent statements: the others follow from tested ones or are an identity
    independent = [c for c in paper if registry.CLAIMS[c].independent]
    # C6 is implied by C1 (LB_T is a theorem for every eps-DP algorithm)
    assert independent == ["C1", "C5", "C7", "L5a", "L5b"]
    implied = {c: registry.CLAIMS[c].implied_by for c in paper if registry.CLAIMS[c].implied_by}
    assert implied == {
        "C2": ("L4", "L5"),
        "C2b": ("C2",),
        "C3": ("C2",),
        "C6": ("C1",),
        "L5": ("L5a", "L5b"),
    }
    assert registry.CLAIMS["L4"].identity and not registry.CLAIMS["L4"].implied_by


def test_controls_for_finds_the_blocked_loss_model_of_a_slice():
    """C5's controls are ``uniform`` (an algorithm) and ``blocked`` (a loss model of
    ``ENV_CONTROLS``): a ``dependent`` experiment on Bernoulli losses with one slice on blocked
    losses and no uniform play simulates the loss-model control only; the ``horizon``
    experiment with rps alone simulates no control of C2, C2b or C3."""
    config = {
        "experiments": [
            {"name": "horizon", "algorithms": ["rps"], "env": "bernoulli"},
            {
                "name": "dependent",
                "algorithms": ["rps"],
                "env": "bernoulli",
                "slices": [{"name": "blocked", "env": "blocked"}],
            },
        ]
    }
    assert registry.controls_for(config) == [("C5", "blocked")]


def test_each_notebook_draws_the_thresholds_of_its_claims():
    """From the claim list: horizon shows C3, rates C4a and C4b, actions C4c, heatmap C4,
    bounds C2 and C2b, dependent C5, agreement C0; privacy (C1) and proof (L4, L5, ...) use
    no threshold, nor does floor (C8a, C8b); separation shows the cited works' claims (H1,
    W1); ablations and worst show no claim."""
    rate = ["confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"]
    expected = {
        "horizon": ["confidence", "horizon_free_ratio_max", "horizon_free_c"],
        "rates": rate,
        "actions": rate,
        "heatmap": ["confidence", "rate_form_factor"],
        "bounds": ["confidence"],
        "lower": ["confidence", "optimality_ratio_max", "optimality_growth_max"],
        "dependent": ["confidence"],
        "ablations": [],
        "privacy": [],
        "agreement": ["agreement_z_max", "agreement_min_events"],
        "proof": [],
        "worst": [],
        "floor": [],
        "separation": ["cited_ratio_max", "cited_growth_max", "confidence"],
    }
    assert {name: registry.notebook_thresholds(name) for name in registry.NOTEBOOKS} == expected
    assert {k for keys in expected.values() for k in keys} <= set(check_defaults())


def test_registry_wires_the_proof_claims_and_their_controls():
    assert {"L4", "L5", "L5a", "L5b"} <= set(CLAIMS) and set(STEPS) == {"L4", "L5", "L5a", "L5b"}
    for claim in STEPS:
        assert CLAIMS[claim].experiments == ("proof",)
        assert CLAIMS[claim].check_function()({"proof": pd.DataFrame([proof_row()])}, {}, [])
    # the paper's numbers, verbatim in the quotes
    assert "1 + 4 sum_(m>=1) F_m" in CLAIMS["L4"].quote
    assert "200 log K/Delta_min + 4 log K/eta" in CLAIMS["L5"].quote
    assert "(64 log(K+1) + 36)/Delta_min <= 200 log K/Delta_min, (5)" in CLAIMS["L5a"].quote
    assert "<= 4 log K/eta. (6)" in CLAIMS["L5b"].quote
    assert proof_algorithms() == ("rps", "rps_short_prefix", "rps_uniform_mix")
    cfg = {"experiments": [{"name": "grid", "algorithms": ["rps", "rps_uniform_mix"]}]}
    for claim in ("L5", "L5a", "L5b"):
        assert (claim, "rps_uniform_mix") in controls_for(cfg)
        assert CLAIMS[claim].controls == ("rps_uniform_mix",)


def _run(claim, tables, alg):
    th = {
        "confidence": 0.95,
        "horizon_free_ratio_max": 1.05,
        "horizon_free_c": 16,
        "rate_form_factor": 1.5,
        "exponent_range": [0.8, 1.2],
        "plateau_octaves": 4,
    }
    return CLAIMS[claim].check_function()(tables, th, [], algorithm=alg)


@pytest.mark.parametrize("claim", ["C2", "C3", "C4", "C4a", "C4b", "C4c"])
def test_rps_model_passes(synthetic, claim):
    out = _run(claim, synthetic["rps"], "rps")
    assert out["verdict"] == "PASS", out["summary"]
    assert out["control_of"] is None and out["algorithm"] == "rps"
    assert out["quote"] == CLAIMS[claim].quote and out["source"] == CLAIMS[claim].source
    assert out["interval"] == [out["ci_low"], out["ci_high"]]


#: every negative control of the regret checks, on the synthetic model of its regret
CAUGHT = [
    ("C2", "uniform"),
    ("C3", "ftl_egreedy"),
    ("C4", "rps_eta_logk"),
    ("C4a", "rps_short_prefix"),
    ("C4b", "rps_eta_sq"),
    ("C4c", "rps_eta_logk"),
]


@pytest.mark.parametrize("claim, control", CAUGHT)
def test_controls_fail(synthetic, claim, control):
    assert control in CLAIMS[claim].controls
    out = _run(claim, synthetic[control], control)
    assert out["verdict"] == "FAIL", out["summary"]
    assert out["algorithm"] == control


def test_notebooks_draw_their_claims_thresholds():
    """The notebook rule passes each notebook the config's thresholds of its claims (C0's limit
    and rare-event rule, the plateau rule of C4a-C4c); run by hand, a notebook falls back to
    the schema's defaults, which are the config loader's."""
    assert notebook_thresholds("agreement") == ["agreement_z_max", "agreement_min_events"]
    assert {"plateau_octaves", "horizon_free_ratio_max"} <= set(notebook_thresholds("rates"))
    minimal = {
        "experiments": [
            {
                "name": "e",
                "algorithms": ["rps"],
                "K": [2],
                "gap": [0.5],
                "epsilon": [1.0],
                "horizon": [7],
            }
        ]
    }
    assert check_defaults() == load_config(minimal)["checks"]
    for name in NOTEBOOKS:
        assert set(notebook_thresholds(name)) <= set(check_defaults())


def test_a_check_is_given_only_the_thresholds_its_record_declares():
    from privdtol.analysis.registry import claim_thresholds

    checks = {
        "confidence": 0.9,
        "optimality_ratio_max": 100,
        "optimality_growth_max": 0.05,
        "rate_form_factor": 1.5,
    }
    got = claim_thresholds("C7", checks)
    assert dict(got) == {"optimality_ratio_max": 100, "optimality_growth_max": 0.05}
    with pytest.raises(KeyError, match=r"claim C7 reads checks\.rate_form_factor"):
        got["rate_form_factor"]
    assert dict(claim_thresholds("C1", checks)) == {}


def test_findings_and_page_one_are_found_in_their_modules_in_declared_order():
    """Every module of the findings package is collected (none is listed by hand), the
    findings in the order their records declare, page 1's sentences in theirs."""
    assert list(registry.FINDINGS) == [
        "constants",
        "theta_band",
        "prefix_cost",
        "cap_cost",
        "dependent_rate",
        "proof_slack",
        "worst_case",
        "competitors",
        "lower_bound",
        "separation",
    ]
    assert [p.section for p in registry.PAGE_ONE] == [
        "sec:lower",
        "sec:floor",
        "sec:proof",
        "sec:worst",
        "sec:findings",
        "sec:separation",
        "sec:ablations",
        "sec:privacy",
    ]


def test_a_new_findings_module_is_found_by_its_folder(tmp_path, monkeypatch):
    """A module dropped in the findings package is collected with its records and page-1
    sentences; a module declaring neither (shared helpers) is not."""
    package = tmp_path / "extra_findings"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("X = 1\n")
    (package / "zeta.py").write_text(
        "from privdtol.analysis.claim_types import Finding, PageLine\n"
        "RECORDS = (Finding('zeta', 'Zeta', ('grid',), 'builtins:dict', order=1),)\n"
        "PAGE_ONE = (PageLine(5, 'sec:zeta', lambda found, checks, tex: 'Zeta.'),)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_FINDINGS_PACKAGE", "extra_findings")
    modules = registry._finding_modules()
    assert [m.__name__ for m in modules] == ["extra_findings.zeta"]
    assert modules[0].RECORDS[0].order == 1 and modules[0].PAGE_ONE[0].section == "sec:zeta"


def test_the_notebooks_are_the_figure_declarations_in_order():
    """One module of privdtol.analysis.figures per notebook of notebooks/, its FIGURE named
    like both; the registry lists them by their declared order."""
    import pkgutil

    from support.paths import ROOT

    from privdtol.analysis import figures

    modules = sorted(m.name for m in pkgutil.iter_modules(figures.__path__))
    assert sorted(NOTEBOOKS) == modules == sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))
    orders = [f.order for f in NOTEBOOKS.values()]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    assert all(f.tables and f.experiments for f in NOTEBOOKS.values())


def _module(name, figure):
    import types

    module = types.ModuleType(f"privdtol.analysis.figures.{name}")
    if figure is not None:
        module.FIGURE = figure
    return module


def _figure(name, order):
    return registry.Figure(name, order, ("grid",), (name,), "T", "c", "t", "p")


def test_collect_figures_orders_them_and_refuses_a_defective_declaration():
    found = registry.collect_figures([_module("b", _figure("b", 2)), _module("a", _figure("a", 1))])
    assert list(found) == ["a", "b"]
    with pytest.raises(ValueError, match=r"figures\.c declares no FIGURE"):
        registry.collect_figures([_module("c", None)])
    with pytest.raises(ValueError, match=r"figures\.c declares the figure 'd': name it 'c'"):
        registry.collect_figures([_module("c", _figure("d", 1))])
    with pytest.raises(ValueError, match=r"figures\.c_d: a figure's name is lowercase letters"):
        registry.collect_figures([_module("c_d", _figure("c_d", 1))])
    with pytest.raises(ValueError, match=r"figures\.b: order 1 is already the figure 'a'"):
        registry.collect_figures([_module("a", _figure("a", 1)), _module("b", _figure("b", 1))])


def test_notebooks_for_follows_the_experiments():
    # the grid is read by C4's residuals, Theorem 1's figure and the lower side's
    assert registry.notebooks_for(["grid"]) == ["heatmap", "bounds", "lower"]
    assert registry.notebooks_for(["privacy"]) == ["privacy"]
    assert registry.notebooks_for([]) == []
