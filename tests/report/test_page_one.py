"""Tests of :mod:`privdtol.report.page_one`: each page-1 finding is one sentence, from the
numbers of the findings record (the default run's, as literals), linking its section."""

from __future__ import annotations

from privdtol.report.page_one import (
    ablations_line,
    competitors_line,
    lower_bound_line,
    page_one_findings,
    page_one_tex,
    privacy_line,
    proof_line,
    worst_case_line,
)

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
    lower = lower_bound_line(FOUND["lower_bound"])
    assert r"\num{8.49}$\times$ to \num{94.3}$\times$" in lower
    assert r"\texttt{rnm\_ftnl} \num{5.37}$\times$ to \num{45.4}$\times$" in lower
    # the lowest non-private algorithm, ftl, not hedge
    assert r"non-private \texttt{ftl} falls to \num{0.0258}$\times$" in lower
    proof = proof_line(FOUND["proof_slack"])
    assert "eq. (5)" in proof and r"\num{171}" in proof and "96 RPS cells" in proof
    assert r"\num{172}$\times$" in proof
    worst = worst_case_line(FOUND["worst_case"])
    assert "Of 6 worst-instance searches (1200 exact evaluations), none beat" in worst
    assert r"\num{0.00355}" in worst
    comp = competitors_line(FOUND["competitors"])
    assert "in 112 of 112 cells" in comp and r"\num{1.66}" in comp and r"\num{1.42}" in comp
    abl = ablations_line(FOUND["prefix_cost"], FOUND["cap_cost"])
    assert r"\num{1.38}" in abl and r"\num{2.51}" in abl
    audit = privacy_line(AUDIT)
    assert "finds all 2 private algorithms" in audit and "catches 1 of 2" in audit
    assert r"RPS \num{0.961}" in audit and r"largest loss \num{1}" in audit
    for line in (lower, proof, worst, comp, abl, audit):
        assert _one_sentence(str(line)), line


def test_a_search_that_beat_the_standard_instance_says_so():
    beaten = {**FOUND["worst_case"], "theorem1": {"beaten": 2, "value": 0.5}}
    assert "2 beat the standard instance" in worst_case_line(beaten)


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


def test_floor_line_from_the_records():
    from privdtol.report.page_one import floor_line

    def cell(T, ratio, **kw):
        return {"K": 2, "gap": 0.5, "epsilon": 1.0, "horizon": T, "ratio": ratio} | kw

    bound = {"cells": [cell(1, 1.0), cell(3, 2.5), cell(2, 1.5)]}
    bound["cells"] += [cell(3, 1.2) | {"epsilon": 0.1}]
    algs = {"cells": [cell(3, 1.3, algorithm="rps"), cell(2, 9.0, algorithm="rps")]}
    text = floor_line(bound, algs)
    # the largest horizon of each cell: 2.5 and 1.2; RPS at T = 3 only
    assert r"$\mathrm{LB}_T$ is \num{1.2}$\times$ to \num{2.5}$\times$ below it" in text
    assert r"RPS pays \num{1.3}$\times$ $\mathrm{OPT}_T$ there." in text
    assert "$K = 2$" in text and r"$T \le 3$" in text
    assert floor_line(None, None) is None
