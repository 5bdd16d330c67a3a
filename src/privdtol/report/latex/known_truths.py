"""Two tables of the methods section that say how far the verdicts can be trusted beyond one
negative control each: the battery of known truths (``battery.tex``, from
``results/checks/battery.json``: every claim's rule on tables whose answer is known by
construction, with its size and power) and the rate claims asked of every private algorithm
(``by-algorithm.tex``, from ``results/checks/by_algorithm.json``).  A missing record is a
"not available" note."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from privdtol.report.latex.robustness import _load_record
from privdtol.report.latex.tables import latex_table
from privdtol.report.latex.text import TeX, fmt_num, mathify, tex_escape


def _claim(cid: str) -> str:
    return rf"\hyperref[claim:{cid}]{{{tex_escape(cid)}}}"


def _verdicts(counts: dict) -> str:
    return ", ".join(f"{n} {tex_escape(v)}" for v, n in sorted(counts.items()))


def _case_list(rows: list[dict]) -> str:
    """``case: verdicts`` for each row, ``$\times$`` where not as expected."""
    return "; ".join(
        rf"\texttt{{{tex_escape(r['case'])}}}: {_verdicts(r['verdicts'])}"
        + ("" if r["as_expected"] else r"\,$\times$")
        for r in rows
    )


def _elsewhere(covered: set) -> str:
    """Why the checks out of both size/power tables have none (:data:`privdtol.analysis.power.
    EXCLUDED`)."""
    from privdtol.analysis.power import EXCLUDED

    parts = [
        f"{tex_escape(c)}: {tex_escape(why)}" for c, why in EXCLUDED.items() if c not in covered
    ]
    return ("No size or power for " + "; ".join(parts) + ".") if parts else ""


def battery_tex(results: Path) -> TeX:
    """The battery table: one row per claim, the cases where it is true and where it is false
    with the verdicts over the replicates, then its size and power."""
    data = _load_record(results, "battery")
    if data is None or not data["rows"]:
        return TeX(
            r"\NotRun{battery of known truths: not available in this run "
            r"(results/checks/battery.json absent or empty)}" + "\n"
        )
    rows = data["rows"]
    sizes = data.get("claims") or {}
    table = []
    for c in sorted(dict.fromkeys(r["claim"] for r in rows)):
        mine = [r for r in rows if r["claim"] == c]
        true = [r for r in mine if r["truth"]]
        false = [r for r in mine if not r["truth"] and r["required"]]
        only = [r for r in mine if not r["required"]]
        table.append(
            {
                "Claim": _claim(c),
                "Where true (must not FAIL)": _case_list(true),
                "Where false (must FAIL)": _case_list(false)
                + (r"; \emph{power only:} " + _case_list(only) if only else ""),
                "Size": fmt_num(sizes.get(c, {}).get("size")),
                "Power": fmt_num(sizes.get(c, {}).get("power")),
            }
        )
    words = {r["case"]: r["description"] for r in rows}
    described = "; ".join(
        rf"\texttt{{{tex_escape(case)}}}: {mathify(words[case])}" for case in words
    )
    missed = sum(not r["as_expected"] for r in rows)
    intro = (
        rf"Each claim's own rule on {len(words)} regret tables whose answer is known by "
        rf"construction ({int(data['replicates'])} replicates each, a new per-cell lack of fit "
        r"each; \texttt{privdtol.analysis.battery}), on this configuration's cells. Size is the "
        r"largest FAIL rate where the claim is true, power the smallest over the false cases it "
        r"must FAIL; a \emph{power only} case is false but beyond what the rule states it "
        r"catches (C7, and the cited works' H1 and W1: a growth that stays below the ceiling on "
        r"the grid). "
        + (
            "Every rule FAILs every false case it must and no true one."
            if missed == 0
            else rf"{missed} (case, claim) pairs are not as expected (marked $\times$)."
        )
        + " Cases: "
        + described
        + ". "
        + _elsewhere(set(sizes))
        + "\n\n"
    )
    spec = r"@{}l>{\raggedright\arraybackslash}p{5.2cm}>{\raggedright\arraybackslash}p{6.2cm}rr@{}"
    return TeX(intro + latex_table(pd.DataFrame(table), spec, size="scriptsize"))


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
        r"its statistic in brackets; \texttt{privdtol check -{}-claim ID -{}-algorithm NAME} for "
        r"one). The paper proves them for RPS only." + "\n\n"
    )
    spec = "@{}l" + "c" * len(algs) + "@{}"
    return TeX(intro + latex_table(pd.DataFrame(table), spec, size="footnotesize"))
