"""Page 1's findings: one sentence each, from the numbers of ``results/findings.json`` and the
privacy audit's record, each with the label of the section that shows it.

The long forms (every number of a finding, its disclosures) are in the findings appendix
(:mod:`privdtol.report.findings_prose`); these sentences say only the headline, so that no
sentence of the report is said twice.
"""

from __future__ import annotations

from privdtol.analysis.registry import CLAIMS
from privdtol.report.findings_prose import competitor_counts
from privdtol.report.latex import TeX, fmt_num, tex_escape


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


def worst_case_line(item: dict) -> TeX | None:
    """Whether a search beat the standard instance on Theorem 1's objective."""
    t1 = item.get("theorem1") or {}
    if not item.get("available") or not t1:
        return None
    evals = item.get("evaluations") or {}
    verdict = (
        rf"{t1['beaten']} beat the standard instance by more than the tolerance"
        if t1.get("beaten")
        else "none beat the standard instance by more than the tolerance"
    )
    return TeX(
        rf"Of {item['searches']} worst-instance searches ({evals.get('total', '?')} exact "
        rf"evaluations), {verdict}; the largest $\mathrm{{Reg}}_T$ found is "
        rf"{fmt_num(t1['value'])} of Theorem~1's bound."
    )


def competitors_line(item: dict) -> TeX | None:
    """RPS over its best private competitor, per regime."""
    regimes = item.get("regimes") or {}
    if not regimes:
        return None
    n, worse = competitor_counts(regimes)
    medians = ", ".join(
        rf"{_x(regimes[k]['median'])} in the {k} regime"
        for k in ("statistical", "privacy")
        if k in regimes
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
    bound, the proof's slack, the worst-instance search, the competitors, the ablations, the
    privacy audit."""
    found = found or {}
    items = [
        (lower_bound_line(found.get("lower_bound") or {}), "sec:lower"),
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
