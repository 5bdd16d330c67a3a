"""Page 1's findings: one sentence each, from the numbers of ``results/findings.json`` and the
privacy audit's record, each with the label of the section that shows it.

The long forms (every number of a finding, its disclosures) are in the findings appendix
(:mod:`privdtol.report.findings_prose`); these sentences say only the headline, so that no
sentence of the report is said twice.
"""

from __future__ import annotations

from privdtol.analysis.registry import CLAIMS
from privdtol.report.findings_prose import competitor_counts
from privdtol.report.latex import TeX, fmt_num, tex_escape, texttt
from privdtol.report.layout import REGIME_TEX


def _x(value) -> str:
    return rf"{fmt_num(value)}$\times$"


def _alg(name: str) -> str:
    return rf"\texttt{{{tex_escape(name)}}}"


def lower_bound_line(item: dict) -> TeX | None:
    """RPS's and its best private competitor's range over the lower bound; the lowest
    non-private algorithm."""
    algs = item.get("algorithms") or {}
    rps = algs.get("rps")
    if not item.get("available") or not rps or not rps.get("n"):
        return None
    best = item.get("best_competitor")
    rival = (
        rf", its best private competitor {_alg(best)} {_x(algs[best]['min'])} to "
        rf"{_x(algs[best]['max'])}"
        if best in algs
        else ""
    )
    public = [(v["min"], a) for a, v in algs.items() if not v.get("private") and v.get("n")]
    below = rf"; non-private {_alg(min(public)[1])} falls to {_x(min(public)[0])}" if public else ""
    return TeX(
        rf"RPS pays {_x(rps['min'])} to {_x(rps['max'])} the lower bound $\mathrm{{LB}}_T$ "
        rf"(median {_x(rps['median'])})"
        rf"{rival}{below}."
    )


def floor_line(bound: dict | None, algorithms: dict | None) -> TeX | None:
    """How far LB_T is from the true floor OPT_T where it is computed (C8a's cells at each
    cell's largest horizon), and how far RPS is from it (C8b's)."""
    cells = (bound or {}).get("cells") or []
    if not cells:
        return None
    last: dict = {}
    for c in cells:
        key = (c["K"], c["gap"], c["epsilon"])
        if c.get("ratio") is not None and c["horizon"] >= last.get(key, {}).get("horizon", 0):
            last[key] = c
    if not last:
        return None
    ratios = [c["ratio"] for c in last.values()]
    Ks = sorted({k for k, _, _ in last})
    tops = sorted({c["horizon"] for c in last.values()})
    rps = [
        c["ratio"]
        for c in (algorithms or {}).get("cells") or []
        if c.get("algorithm") == "rps"
        and (c["K"], c["gap"], c["epsilon"]) in last
        and c["horizon"] == last[(c["K"], c["gap"], c["epsilon"])]["horizon"]
    ]
    span = (
        _x(min(rps))
        if rps and min(rps) == max(rps)
        else f"{_x(min(rps or [0]))} to {_x(max(rps or [0]))}"
    )
    rps_part = rf"; RPS pays {span} $\mathrm{{OPT}}_T$ there" if rps else ""
    return TeX(
        rf"Where the true floor $\mathrm{{OPT}}_T$ (the best regret of any $\varepsilon$-DP "
        rf"algorithm, an exact linear program) is known ($K = {', '.join(map(str, Ks))}$, "
        rf"$T \le {max(tops)}$), the explicit bound $\mathrm{{LB}}_T$ is {_x(min(ratios))} to "
        rf"{_x(max(ratios))} below it at the largest horizon{rps_part}."
    )


def proof_line(item: dict) -> TeX | None:
    """The loosest step of the proof and Theorem 1's overall factor."""
    steps = {s["key"]: s for s in item.get("steps") or []}
    loosest = steps.get(item.get("loosest"))
    if not item.get("available") or loosest is None:
        return None
    overall = (
        rf"; Theorem~1's bound is a median {_x(steps['theorem1']['median'])} the exact regret"
        if "theorem1" in steps
        else ""
    )
    return TeX(
        rf"The proof's loosest step is {loosest['label']}, a median factor "
        rf"{fmt_num(loosest['median'])} above its exact value over {loosest['n']} RPS cells"
        rf"{overall}."
    )


#: each objective of the worst-instance searches as page 1 names it (Table ``worst``: its key)
OBJECTIVE_TEX = {
    "theorem1": r"$\mathrm{Reg}_T$ over Theorem~1's bound",
    "lower_max": r"the largest $\mathrm{Reg}_T/\mathrm{LB}_T$",
    "lower_min": r"the smallest $\mathrm{Reg}_T/\mathrm{LB}_T$",
}


def _objective_rank(objective: str) -> tuple:
    names = list(OBJECTIVE_TEX)
    return (names.index(objective) if objective in names else len(names), objective)


def worst_case_line(item: dict) -> TeX | None:
    """Per objective, how many searches beat the standard instance (the finding's ``beaten``,
    counted on the rows of Table ``worst``), and the largest Reg_T over Theorem 1's bound."""
    t1 = item.get("theorem1") or {}
    if not item.get("available") or not t1:
        return None
    evals = item.get("evaluations") or {}
    beaten = item.get("beaten") or {"theorem1": {"beaten": t1["beaten"]}}
    counts = [
        rf"{b['beaten']} on {OBJECTIVE_TEX.get(o, texttt(o))}"
        + (rf" (largest found: {fmt_num(t1['value'])} of the bound)" if o == "theorem1" else "")
        for o, b in sorted(beaten.items(), key=lambda ob: _objective_rank(ob[0]))
    ]
    listed = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " and " + counts[-1]
    return TeX(
        rf"Of {item['searches']} worst-instance searches ({evals.get('total', '?')} exact "
        rf"evaluations), the number that found an instance beyond the standard one (by more "
        rf"than the tolerance): {listed}."
    )


def competitors_line(item: dict) -> TeX | None:
    """RPS over its best private competitor, per regime (every regime of the competitor table,
    in :data:`~privdtol.report.layout.REGIME_TEX` order)."""
    regimes = item.get("regimes") or {}
    if not regimes:
        return None
    n, worse = competitor_counts(regimes)
    medians = ", ".join(
        rf"{_x(regimes[k]['median'])} in the {k} regime"
        for k in REGIME_TEX
        if k in regimes and regimes[k].get("median") is not None
    )
    return TeX(
        rf"RPS has more regret than its best private competitor in {worse} of {n} cells "
        rf"compared (median ratio {medians})."
    )


def separation_line(item: dict) -> TeX | None:
    """Whether any algorithm's regret shows the extra factor of its bound (the separation)."""
    if not item.get("available"):
        return None
    grid = item.get("grid") or {}
    shown = item.get("shown") or []
    if not shown:
        return TeX(
            r"No algorithm's regret shows the extra $\log T$ or $\log K$ factor of its bound "
            rf"(Hu et al., Wu \& Wang) up to $K = {fmt_num(grid.get('K_max'))}$, "
            rf"$T = 2^{{{int(grid.get('T_max', 1)).bit_length()}}} - 1$, "
            rf"$\varepsilon = {fmt_num(grid.get('epsilon_min'))}$: the separation from the prior "
            "bounds is one of proofs."
        )
    algs = item.get("algorithms") or {}

    def where(s: dict) -> str:
        if s["factor"] == "log T":
            row = algs.get(s["algorithm"], {}).get("log_T") or {}
            return rf"$\log T$, growth {fmt_num(row.get('growth'))} at $K = {row.get('K')}$"
        row = algs.get(s["algorithm"], {}).get("log_K") or {}
        span = rf"$K = {row.get('K_min')}$ to {row.get('K_max')}"
        return rf"$\log K$, growth {fmt_num(row.get('growth'))} from {span}"

    names = "; ".join(rf"{_alg(s['algorithm'])} ({where(s)})" for s in shown)
    return TeX(rf"The regret shows its bound's extra factor for {names}.")


def ablations_line(prefix: dict, cap: dict) -> TeX | None:
    """What the two ingredients of the analysis cost in regret (the ablations)."""
    if not (prefix.get("available") and cap.get("available")):
        return None
    return TeX(
        rf"The random prefix costs a median {_x(prefix['median'])} regret and the cap "
        rf"$\eta \le 1/8$ a median {_x(cap['median'])} where it binds ($\varepsilon > 1/4$)."
    )


def audit_claims() -> list[str]:
    """The claims checked on the privacy audit (the registry's claims reading ``privacy``)."""
    return [c.id for c in CLAIMS.values() if "privacy" in c.experiments]


def privacy_line(record: dict | None) -> TeX | None:
    """The privacy audit: the private algorithms within their bound, the largest loss found
    (RPS's own), the controls caught."""
    cells = (record or {}).get("cells") or []
    private = [c for c in cells if c.get("role") == "private"]
    controls = [c for c in cells if c.get("role") != "private"]
    if not private:
        return None
    algs = {c["algorithm"] for c in private}
    within = all(c.get("verdict") == "PASS" for c in private)

    def largest(rows):
        vals = [float(c["ratio_eps"]) for c in rows if c.get("ratio_eps") is not None]
        return max(vals) if vals else None

    worst = largest(private)
    own = largest([c for c in private if c["algorithm"] == "rps"])
    rps_part = rf"; RPS {fmt_num(own)}$\,\varepsilon$" if own is not None else ""
    worst_part = rf"largest loss {fmt_num(worst)}$\,\varepsilon$" if worst is not None else ""
    verb = "finds all" if within else "does not find all"
    caught = sum(c.get("verdict") == "caught" for c in controls)
    return TeX(
        rf"The privacy audit {verb} {len(algs)} private algorithms within $\varepsilon$ "
        rf"({worst_part}{rps_part}) and catches {caught} of {len(controls)} negative-control "
        "cells."
    )


def page_one_findings(found: dict | None, checks: dict) -> list[tuple[TeX, str]]:
    """``(sentence, section label)`` of each available finding, in page-1 order: the lower
    bound, the true floor, the proof's slack, the worst-instance search, the competitors, the
    ablations, the privacy audit."""
    found = found or {}
    items = [
        (lower_bound_line(found.get("lower_bound") or {}), "sec:lower"),
        (floor_line(checks.get("C8a"), checks.get("C8b")), "sec:floor"),
        (proof_line(found.get("proof_slack") or {}), "sec:proof"),
        (worst_case_line(found.get("worst_case") or {}), "sec:worst"),
        (competitors_line(found.get("competitors") or {}), "sec:findings"),
        (separation_line(found.get("separation") or {}), "sec:separation"),
        (
            ablations_line(found.get("prefix_cost") or {}, found.get("cap_cost") or {}),
            "sec:ablations",
        ),
        *((privacy_line(checks.get(c)), "sec:privacy") for c in audit_claims()),
    ]
    return [(s, label) for s, label in items if s is not None]


def page_one_tex(found: dict | None, checks: dict) -> str:
    """``summary-findings.tex``: the findings as a numbered list, each linking its section."""
    items = page_one_findings(found, checks)
    if not items:
        return "No findings are available in this run.\n"
    body = "".join(rf"\item {s} (\S\ref{{{label}}})" + "\n" for s, label in items)
    head = r"\begin{enumerate}\setlength{\itemsep}{1pt}\setlength{\parskip}{0pt}"
    return head + "\n" + body + "\\end{enumerate}\n"
