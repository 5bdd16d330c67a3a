"""Tests of :mod:`privdtol.report.latex.findings_prose`: a figure's caption ends with where the
verdicts of its claims are, never with the check itself.  Each page-1 finding (a sentence its
module of :mod:`privdtol.analysis.findings` declares, typeset with the report's kit) is one
sentence, from the numbers of the findings record (the default run's, as literals), linking its
section; and page 1's numbers (runs, cells, searches beaten per objective, ratios to the
competitor) recomputed by hand from small tables through the functions that write them."""

from __future__ import annotations

import re

import pandas as pd
from support.tables import agg_table, final_rows_table

from privdtol.analysis.findings.ablations import ablations_line
from privdtol.analysis.findings.competitors import competitors, competitors_line
from privdtol.analysis.findings.lower_bound import floor_line, lower_bound_line
from privdtol.analysis.findings.privacy import privacy_sentence
from privdtol.analysis.findings.slack import proof_line
from privdtol.analysis.findings.worst_case import worst_case, worst_case_line
from privdtol.analysis.registry import CLAIMS, NOTEBOOKS, notebook_claims
from privdtol.report.latex.findings_prose import (
    TYPESET,
    finding_label,
    finding_sentence,
    finding_tables,
    page_one_findings,
    page_one_tex,
    verdict_pointer,
)
from privdtol.report.latex.numbers import numbers_tex


def test_a_caption_points_to_the_verdict_table_of_its_claims():
    for name in NOTEBOOKS:
        pointer = verdict_pointer(name)
        claims = notebook_claims(name)
        for claim in claims:
            assert f"claim:{claim}" in pointer
        if claims and all(CLAIMS[c].diagnostic for c in claims):
            assert r"\ref{tab:diagnostics}" in pointer
        elif claims and all(CLAIMS[c].cited for c in claims):
            assert r"\ref{tab:cited}" in pointer
        elif claims:
            assert r"\ref{tab:verdicts}" in pointer
        else:  # no claim: its numbers are findings
            assert r"\ref{sec:findings}" in pointer
    # the pointer is short: it repeats no statistic, rule or estimate
    assert max(len(verdict_pointer(n).split()) for n in NOTEBOOKS) <= 12
    assert r"Table~\ref{tab:verdicts}" in verdict_pointer("horizon")
    assert r"Table~\ref{tab:diagnostics}" in verdict_pointer("rates")
    assert r"\S\ref{sec:findings}" in verdict_pointer("worst")
    assert r"Table~\ref{tab:cited}" in verdict_pointer("separation")


def test_a_finding_sentence_comes_from_its_numbers():
    found = {
        "prefix_cost": {
            "available": True,
            "n": 16,
            "median": 1.38492,
            "min": 1.37913,
            "max": 1.38876,
            "where": "",
        }
    }
    text = finding_sentence("prefix_cost", found)
    assert r"\num{1.38}" in text and "16 cells" in text and "rps\\_full\\_prefix" in text
    assert finding_sentence("prefix_cost", {}) is None


def test_a_finding_is_named_by_its_label_else_by_its_title_typeset():
    assert finding_label("theta_band") == r"The $\Theta$ band"
    assert finding_label("competitors") == "RPS against its competitors"
    # no label declared: the title, typeset (LB_T as mathematics)
    assert finding_label("lower_bound") == (
        r"regret over the explicit lower bound $\mathrm{LB}_T$, per algorithm"
    )


def test_a_findings_table_is_shown_only_when_its_numbers_are_there():
    row = {"regime": "privacy", "competitor": "best", "n": 3, "median": 1.5, "min": 1.25}
    found = {"competitors": {"table": [row | {"max": 2.0, "rps_better": 0}]}}
    (table,) = finding_tables(found)
    assert r"\label{tab:competitors}" in table
    assert r"privacy ($\varepsilon < \Delta_{\min}$) & best of them, per cell & 3" in table
    assert finding_tables({}) == [] and finding_tables(None) == []


# ----------------------------------------------------------------------------- page 1

FOUND = {
    "lower_bound": {
        "available": True,
        "best_competitor": "rnm_ftnl",
        "algorithms": {
            "rps": {"min": 8.49412, "max": 94.2917, "median": 18.0456, "n": 134, "private": True},
            "rnm_ftnl": {"min": 5.36915, "max": 45.4153, "median": 9.6, "n": 118, "private": True},
            "ftl": {"min": 0.025759, "max": 3.5, "median": 2.8, "n": 25, "private": False},
            "hedge": {"min": 0.0508164, "max": 13.2, "median": 4.9, "n": 25, "private": False},
        },
    },
    "proof_slack": {
        "available": True,
        "loosest": "eq5",
        "steps": [
            {"key": "eq5", "label": "eq. (5)", "median": 171.085, "n": 96},
            {"key": "theorem1", "label": "Theorem 1", "median": 172.395, "n": 120},
        ],
    },
    "worst_case": {
        "available": True,
        "searches": 6,
        "evaluations": {"total": 1200},
        "theorem1": {"beaten": 0, "value": 0.00355216},
        # as results/findings.json holds it (keys sorted): page 1 puts Theorem 1's first
        "beaten": {
            "lower_max": {"searches": 6, "beaten": 6},
            "lower_min": {"searches": 6, "beaten": 4},
            "theorem1": {"searches": 6, "beaten": 0},
        },
    },
    "competitors": {
        "regimes": {
            "statistical": {"n": 77, "median": 1.66195, "rps_best": 0},
            "privacy": {"n": 34, "median": 1.41973, "rps_best": 0},
            "balanced": {"n": 1, "median": 2.73579, "rps_best": 0},
        }
    },
    "prefix_cost": {"available": True, "median": 1.38492, "n": 16},
    "cap_cost": {"available": True, "median": 2.50851, "n": 8},
}
AUDIT = {
    "cells": [
        {"algorithm": "rps", "role": "private", "verdict": "PASS", "ratio_eps": 0.961},
        {"algorithm": "rnm_ftnl", "role": "private", "verdict": "PASS", "ratio_eps": 1.0},
        {"algorithm": "rps_eta_eps", "role": "control", "verdict": "caught", "ratio_eps": 2.0},
        {"algorithm": "rps_data_prefix", "role": "control", "verdict": "missed"},
    ]
}


def _one_sentence(text: str) -> bool:
    return text.endswith(".") and ". " not in text.replace("eq. ", "eq~")


def test_each_line_states_its_numbers_in_one_sentence():
    lower = lower_bound_line(FOUND, {}, TYPESET)
    assert r"\num{8.49}$\times$ to \num{94.3}$\times$" in lower
    assert r"\texttt{rnm\_ftnl} \num{5.37}$\times$ to \num{45.4}$\times$" in lower
    # the lowest non-private algorithm, ftl, not hedge
    assert r"non-private \texttt{ftl} falls to \num{0.0258}$\times$" in lower
    proof = proof_line(FOUND, {}, TYPESET)
    assert "eq. (5)" in proof and r"\num{171}" in proof and "96 RPS cells" in proof
    assert r"\num{172}$\times$" in proof
    worst = worst_case_line(FOUND, {}, TYPESET)
    assert worst == (
        "Of 6 worst-instance searches (1200 exact evaluations), the number that found an "
        "instance beyond the standard one (by more than the tolerance): 0 on "
        r"$\mathrm{Reg}_T$ over Theorem~1's bound (largest found: \num{0.00355} of the bound), "
        r"6 on the largest $\mathrm{Reg}_T/\mathrm{LB}_T$ and 4 on the smallest "
        r"$\mathrm{Reg}_T/\mathrm{LB}_T$."
    )
    comp = competitors_line(FOUND, {}, TYPESET)
    assert "in 112 of 112 cells" in comp and r"\num{1.66}" in comp and r"\num{1.42}" in comp
    assert r"\num{2.74}$\times$ in the balanced regime, \num{1.42}" in comp  # large to small eps
    abl = ablations_line(FOUND, {}, TYPESET)
    assert r"\num{1.38}" in abl and r"\num{2.51}" in abl
    audit = privacy_sentence(AUDIT, TYPESET)
    assert "finds all 2 private algorithms" in audit and "catches 1 of 2" in audit
    assert r"RPS \num{0.961}" in audit and r"largest loss \num{1}" in audit
    for line in (lower, proof, worst, comp, abl, audit):
        assert _one_sentence(str(line)), line


def test_a_record_without_counts_per_objective_states_theorem1_alone():
    """A findings record written before the per-objective counts: Theorem 1's alone."""
    old = {k: v for k, v in FOUND["worst_case"].items() if k != "beaten"}
    old["theorem1"] = {"beaten": 2, "value": 0.5}
    line = worst_case_line({"worst_case": old}, {}, TYPESET)
    assert r"tolerance): 2 on $\mathrm{Reg}_T$ over Theorem~1's bound" in line
    assert "LB" not in line


def test_the_list_links_each_finding_to_its_section_and_skips_what_is_missing():
    items = page_one_findings(FOUND, {"C1": AUDIT})
    labels = [label for _, label in items]
    assert labels == [
        "sec:lower",
        "sec:proof",
        "sec:worst",
        "sec:findings",
        "sec:ablations",
        "sec:privacy",
    ]
    tex = page_one_tex(FOUND, {"C1": AUDIT})
    assert tex.count(r"\item ") == 6 and r"(\S\ref{sec:lower})" in tex
    assert [label for _, label in page_one_findings({"worst_case": {}}, {})] == []
    assert page_one_tex(None, {}) == "No findings are available in this run.\n"


# ------------------------------------------------ page 1's numbers recomputed from the tables


def _macro(tex: str, name: str) -> str:
    """The body of ``\\newcommand{\\<name>}{...}`` in ``numbers.tex``."""
    return re.search(rf"\\newcommand{{\\{name}}}{{(.*)}}\n", tex).group(1)


def test_runs_and_cells_count_each_distinct_cell_once():
    """Two experiments sharing cell ``a`` (exact, 0 runs), two checkpoints per cell: the
    cells are a, b (200 runs), c (1000 runs): 3 cells, 1 exact, 1200 simulated runs, 2
    experiments; summing per experiment would count ``a`` twice."""
    grid = agg_table(
        [{"cell_id": "a", "runs": 0, "estimator": "exact"}, {"cell_id": "b", "runs": 200}],
        (511, 1023),
        experiment="grid",
        mean=1.0,
        bound_thm1=10.0,
    )
    gap = agg_table(
        [{"cell_id": "a", "runs": 0, "estimator": "exact"}, {"cell_id": "c", "runs": 1000}],
        (511, 1023),
        experiment="gap",
        mean=1.0,
        bound_thm1=10.0,
    )
    tex = numbers_tex([], {"grid": grid, "gap": gap})
    assert _macro(tex, "TotalRuns") == r"\num{1200}"
    assert _macro(tex, "AllCells") == r"\num{3}"
    assert _macro(tex, "ExactCells") == r"\num{1}"
    assert _macro(tex, "ExperimentsRun") == "2"


def _search_rows(search_id, algorithm, values):
    """One search (K = 4, gap 1/4, eps 1, 100 evaluations), its three objectives as
    ``objective: (value, standard)``."""
    return [
        {
            "search_id": search_id,
            "algorithm": algorithm,
            "K": 4,
            "gap": 0.25,
            "epsilon": 1.0,
            "objective": objective,
            "value": value,
            "standard_value": standard,
            "family": "standard",
            "description": "mu_1 0.25, gaps/Delta_min 1 x3",
            "means": "0.25 0.5 0.5 0.5",
            "evaluations": 100,
            "unseen": 0,
            "unseen_margin": -1.0,
            "unseen_beaten": False,
            "tolerance": 1e-3,
        }
        for objective, (value, standard) in values.items()
    ]


def test_searches_beaten_per_objective_follow_from_the_searches_table():
    """Three searches: on Theorem 1's ratio none beats its standard instance (0.01 = 0.01;
    0.0200001 is 5e-6 above 0.02, within the tolerance 1e-3); on the largest Reg_T/LB_T two
    of three (115 > 21.9, 30 > 20; 8 = 8); on the smallest one of three (5 < 20; 9 = 9, 21.9 =
    21.9).  Page 1 says 0, 2 and 1 of 3 searches (300 evaluations), the largest Theorem 1
    ratio 0.0200001."""
    rows = [
        *_search_rows(
            "s1",
            "rps",
            {"theorem1": (0.01, 0.01), "lower_max": (115.0, 21.9), "lower_min": (21.9, 21.9)},
        ),
        *_search_rows(
            "s2",
            "rps",
            {"theorem1": (0.0200001, 0.02), "lower_max": (30.0, 20.0), "lower_min": (5.0, 20.0)},
        ),
        *_search_rows(
            "s3",
            "rnm_ftnl",
            {"theorem1": (0.001, 0.001), "lower_max": (8.0, 8.0), "lower_min": (9.0, 9.0)},
        ),
    ]
    found = worst_case({"searches": pd.DataFrame(rows)})
    assert {o: b["beaten"] for o, b in found["beaten"].items()} == {
        "theorem1": 0,
        "lower_max": 2,
        "lower_min": 1,
    }
    line = worst_case_line({"worst_case": found}, {}, TYPESET)
    assert line.startswith("Of 3 worst-instance searches (300 exact evaluations)")
    assert r"0 on $\mathrm{Reg}_T$ over Theorem~1's bound (largest found: \num{0.0200} of" in line
    assert r"2 on the largest $\mathrm{Reg}_T/\mathrm{LB}_T$ and 1 on the smallest" in line


def test_competitor_counts_and_ratios_follow_from_the_rate_tables():
    """rps and rnm_ftnl (the only competitor) at three K = 2 cells of the grid experiment:
    statistical (gap 1/4, eps 1) 10 against 20, balanced (1/4, 1/4) 12 against 12, privacy
    (1/2, 1/4) 16 against 10: RPS has more regret in 1 of 3 cells (the balanced one is a tie),
    median ratio 0.5 (statistical), 1 (balanced) and 1.6 (privacy), in that order."""
    cells = [
        (alg, 2, gap, eps, mean)
        for alg, means in (("rnm_ftnl", (20.0, 12.0, 10.0)), ("rps", (10.0, 12.0, 16.0)))
        for (gap, eps), mean in zip(((0.25, 1.0), (0.25, 0.25), (0.5, 0.25)), means, strict=True)
    ]
    found = competitors({"grid": final_rows_table("grid", cells)})
    line = competitors_line({"competitors": found}, {}, TYPESET)
    assert line == (
        r"RPS has more regret than its best private competitor in 1 of 3 cells compared "
        r"(median ratio \num{0.5}$\times$ in the statistical regime, \num{1}$\times$ in the "
        r"balanced regime, \num{1.6}$\times$ in the privacy regime)."
    )


def test_floor_line_from_the_records():
    def cell(T, ratio, **kw):
        return {"K": 2, "gap": 0.5, "epsilon": 1.0, "horizon": T, "ratio": ratio} | kw

    bound = {"cells": [cell(1, 1.0), cell(3, 2.5), cell(2, 1.5)]}
    bound["cells"] += [cell(3, 1.2) | {"epsilon": 0.1}]
    algs = {"cells": [cell(3, 1.3, algorithm="rps"), cell(2, 9.0, algorithm="rps")]}
    text = floor_line({}, {"C8a": bound, "C8b": algs}, TYPESET)
    # the largest horizon of each cell: 2.5 and 1.2; RPS at T = 3 only
    assert r"$\mathrm{LB}_T$ is \num{1.2}$\times$ to \num{2.5}$\times$ below it" in text
    assert r"RPS pays \num{1.3}$\times$ $\mathrm{OPT}_T$ there." in text
    assert "$K = 2$" in text and r"$T \le 3$" in text
    assert floor_line({}, {}, TYPESET) is None
