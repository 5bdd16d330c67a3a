"""Tests of :mod:`privdtol.report.build.rulegraph`: the generated rules of one family are drawn as
one node, named with their number, and the edges between families are kept once."""

from __future__ import annotations

from privdtol.report.build.rulegraph import collapse, family

DOT = """digraph snakemake_dag {
    graph[bgcolor=white, margin=0];
\t0[label = "all", color = "0.03 0.6 0.85", style="rounded"];
\t1[label = "aggregate", color = "0.1 0.6 0.85", style="rounded"];
\t2[label = "simulate_gap_000", color = "0.2 0.6 0.85", style="rounded"];
\t3[label = "simulate_grid_001", color = "0.3 0.6 0.85", style="rounded"];
\t4[label = "check_C4", color = "0.4 0.6 0.85", style="rounded"];
\t5[label = "check_C4__rps_eta_logk", color = "0.5 0.6 0.85", style="rounded"];
\t6[label = "search_5f9120cecc2c9836", color = "0.6 0.6 0.85", style="rounded"];
\t2 -> 1
\t3 -> 1
\t1 -> 4
\t1 -> 5
\t4 -> 0
\t5 -> 0
\t6 -> 0
}
"""


def test_families():
    assert family("simulate_dependent_001") == "simulate"
    assert family("check_C5__blocked") == "check, controls"
    assert family("check_L5b") == "check" and family("notebook_worst") == "notebook"
    assert family("aggregate_proof") is None and family("search_db1bec435bcfa3a9") == "search"


def test_collapse_merges_a_family_and_its_edges():
    out = collapse(DOT)
    assert 'label = "simulate (2 rules)"' in out and "simulate_grid_001" not in out
    assert 'label = "check_C4"' in out  # a family of one rule keeps its name
    assert 'label = "search_5f9120cecc2c9836"' in out
    edges = [ln.strip() for ln in out.splitlines() if "->" in ln]
    assert edges == ["1 -> 4", "1 -> 5", "2 -> 1", "4 -> 0", "5 -> 0", "6 -> 0"]
    assert out.rstrip().endswith("}") and out.count("[label") == 6


def test_the_edges_come_out_sorted_whatever_order_snakemake_lists_them_in():
    """Snakemake lists a graph's edges in another order from run to run; Graphviz lays the
    graph out by that order: the collapsed source is the same for any order."""
    head, rest = DOT.split("\t2 -> 1\n", 1)
    edges = ["\t2 -> 1\n", *rest.splitlines(keepends=True)[:-1]]
    shuffled = head + "".join(reversed(edges)) + "}\n"
    assert shuffled != DOT and collapse(shuffled) == collapse(DOT)
    assert collapse(DOT).splitlines()[-2:] == ["\t6 -> 0", "}"]
