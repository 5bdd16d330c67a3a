"""Two tables of the methods section that say how far the verdicts can be trusted beyond one
negative control each: the battery of known truths (``battery.tex``, from
``results/checks/battery.json``: every claim's rule on tables whose answer is known by
construction, with its size and power) and the rate claims asked of every private algorithm
(``by-algorithm.tex``, from ``results/checks/by_algorithm.json``).  A missing record is a
"not available" note."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from privdtol.report.latex import TeX, fmt_num, tex_escape
from privdtol.report.robustness import _load_record
from privdtol.report.tables import styler_table


def _claim(cid: str) -> str:
    return rf"\hyperref[claim:{cid}]{{{tex_escape(cid)}}}"


def _verdicts(counts: dict) -> str:
    return ", ".join(f"{n} {tex_escape(v)}" for v, n in sorted(counts.items()))


def battery_tex(results: Path) -> TeX:
    """The battery table: one row per case, one column per claim (the verdicts over the
    replicates, the expected answer in brackets), then each claim's size and power."""
    data = _load_record(results, "battery")
    if data is None or not data["rows"]:
        return TeX(
            r"\NotRun{battery of known truths: not available in this run "
            r"(results/checks/battery.json absent or empty)}" + "\n"
        )
    rows = data["rows"]
    claims = list(dict.fromkeys(r["claim"] for r in sorted(rows, key=lambda r: r["claim"])))
    cases = list(dict.fromkeys(r["case"] for r in rows))
    by = {(r["case"], r["claim"]): r for r in rows}
    table = []
    for case in cases:
        line = {"Case": tex_escape(case)}
        for c in claims:
            r = by.get((case, c))
            if r is None:
                line[_claim(c)] = "--"
                continue
            mark = "" if r["as_expected"] else r"\,$\times$"
            line[_claim(c)] = (
                ("true" if r["truth"] else r"\textbf{false}")
                + r": {\footnotesize "
                + _verdicts(r["verdicts"])
                + "}"
                + mark
            )
        table.append(line)
    sizes = data.get("claims") or {}
    table.append(
        {
            "Case": r"\emph{size}",
            **{_claim(c): fmt_num(sizes.get(c, {}).get("size")) for c in claims},
        }
    )
    table.append(
        {
            "Case": r"\emph{power}",
            **{_claim(c): fmt_num(sizes.get(c, {}).get("power")) for c in claims},
        }
    )
    words = {r["case"]: r["description"] for r in rows}
    described = "; ".join(
        rf"\texttt{{{tex_escape(case)}}}: {tex_escape(words[case])}" for case in cases
    )
    missed = sum(not r["as_expected"] for r in rows)
    intro = (
        rf"Each claim's own rule on {len(cases)} regret tables whose answer is known by "
        rf"construction ({int(data['replicates'])} replicates each, a new per-cell lack of fit "
        r"each; \texttt{privdtol.analysis.battery}), on this configuration's cells. A cell "
        r"gives whether the claim is true of the case and the verdicts; size is the largest "
        r"FAIL rate where the claim is true, power the smallest where it is false. "
        + (
            "Every rule FAILs every false case it speaks to and no true one."
            if missed == 0
            else rf"{missed} (case, claim) pairs are not as expected (marked $\times$)."
        )
        + " Cases: "
        + described
        + ".\n\n"
    )
    body = styler_table(pd.DataFrame(table), "@{}l" + "c" * len(claims) + "@{}")
    return TeX(intro + r"\begin{center}\scriptsize" + "\n" + body + r"\end{center}" + "\n")


def by_algorithm_tex(results: Path) -> TeX:
    """Each rate claim (rows) on each private algorithm (columns): its verdict and statistic."""
    data = _load_record(results, "by_algorithm")
    if data is None or not data["rows"]:
        return TeX(
            r"\NotRun{rate claims by algorithm: not available in this run "
            r"(results/checks/by\_algorithm.json absent or empty)}" + "\n"
        )
    rows = data["rows"]
    algs = list(dict.fromkeys(r["algorithm"] for r in rows))
    by = {(r["claim"], r["algorithm"]): r for r in rows}
    table = []
    for c in dict.fromkeys(r["claim"] for r in rows):
        line = {"Claim": _claim(c)}
        for a in algs:
            r = by.get((c, a))
            line[rf"\texttt{{{tex_escape(a)}}}"] = (
                "--"
                if r is None
                else rf"{tex_escape(r['verdict'])} ({fmt_num(r['statistic'])})"
                if r["statistic"] is not None
                else tex_escape(r["verdict"])
            )
        table.append(line)
    intro = (
        r"The rate claims asked of every private algorithm of the run (each claim's own rule, "
        r"its statistic in brackets; \texttt{privdtol check --claim ID --algorithm NAME} for "
        r"one). The paper proves them for RPS only." + "\n\n"
    )
    body = styler_table(pd.DataFrame(table), "@{}l" + "c" * len(algs) + "@{}")
    return TeX(intro + r"\begin{center}\footnotesize" + "\n" + body + r"\end{center}" + "\n")
