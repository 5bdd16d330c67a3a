"""The report's rule graph, legible on a page: ``snakemake --rulegraph`` draws one node per rule,
and the workflow defines one rule per experiment batch, claim, negative control, worst-case
search and notebook (78 nodes on the default config, more on the paper's), which no page holds
at a readable size.  :func:`collapse` draws each such family of rules as one node, named after
the family with its number of rules, and keeps the edges between families.

    snakemake --rulegraph | python -m privdtol.report.build.rulegraph | dot -Grankdir=LR -Tpdf
"""

from __future__ import annotations

import re
import sys

#: (family label, rule names it holds), first match wins: the rules the workflow generates
#: per item (``workflow/rules/*.smk``)
FAMILIES = (
    ("simulate", re.compile(r"^simulate_\w+_\d+$")),
    ("search", re.compile(r"^search_[0-9a-f]+$")),
    ("check, controls", re.compile(r"^check_\w+__\w+$")),
    ("check", re.compile(r"^check_\w+$")),
    ("notebook", re.compile(r"^notebook_\w+$")),
)
_NODE = re.compile(r'^\s*(\d+)\[label = "([^"]*)"(.*)\];\s*$')
_EDGE = re.compile(r"^\s*(\d+) -> (\d+)\s*$")


def family(rule: str) -> str | None:
    """The family a rule belongs to (None: a rule of its own)."""
    return next((name for name, pattern in FAMILIES if pattern.match(rule)), None)


def collapse(dot: str) -> str:
    """The Graphviz source ``dot`` of ``snakemake --rulegraph`` with each family of
    :data:`FAMILIES` drawn as one node ("simulate (11 rules)"; a family of one rule keeps the
    rule's name) and its edges merged, in sorted order before the graph's closing brace
    (Snakemake lists the same edges in a different order from run to run, and Graphviz lays
    out a graph by the order of its edges); other lines unchanged."""
    lines = dot.splitlines()
    nodes = {m.group(1): m for ln in lines if (m := _NODE.match(ln))}
    members: dict[str, list[str]] = {}
    for node_id, m in nodes.items():
        members.setdefault(family(m.group(2)) or f"rule {node_id}", []).append(node_id)
    head: dict[str, str] = {}  # node -> the node that stands for its family
    for ids in members.values():
        for node_id in ids:
            head[node_id] = ids[0]
    out, edges = [], []
    for ln in lines:
        if (m := _NODE.match(ln)) is not None:
            group = members[family(m.group(2)) or f"rule {m.group(1)}"]
            if group[0] != m.group(1):
                continue
            label = m.group(2) if len(group) == 1 else f"{family(m.group(2))} ({len(group)} rules)"
            out.append(f'\t{m.group(1)}[label = "{label}"{m.group(3)}];')
        elif (m := _EDGE.match(ln)) is not None:
            edge = (head.get(m.group(1), m.group(1)), head.get(m.group(2), m.group(2)))
            if edge[0] != edge[1] and edge not in edges:
                edges.append(edge)
        else:
            out.append(ln)
    close = max((i for i, ln in enumerate(out) if ln.strip() == "}"), default=len(out))
    ordered = sorted(edges, key=lambda e: tuple(int(x) if x.isdigit() else x for x in e))
    out[close:close] = [f"\t{a} -> {b}" for a, b in ordered]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(collapse(sys.stdin.read()))
