"""The report's sentences about the findings (``results/findings.json``, not claims), written
from the numbers: RPS against its best competitor, the costs of the random prefix and of the cap
on eta, the fitted constants, the Theta band, and the privacy audit of the ablations; and the
pointer that ends each figure's caption.  A finding without a sentence here is shown with its
own text, typeset."""

from __future__ import annotations

from privdtol.analysis.registry import CLAIMS
from privdtol.report.latex import TeX, fmt_num, mathify, tex_escape, tex_unicode
from privdtol.report.layout import REGIME_TEX


def verdict_pointer(notebook: str) -> TeX:
    """The last sentence of a figure's caption: where the verdicts of the claims it shows are
    (the verdict, diagnostics or cited works' table), or, for a figure of no claim, where its
    numbers are.
    A caption never repeats a check: the check is stated once, in the claims appendix."""
    shown = [c for c in CLAIMS.values() if c.notebook == notebook]
    if not shown:
        return TeX(r"Not a claim of the paper; its numbers: \S\ref{sec:findings}.")
    table = (
        "tab:diagnostics"
        if all(c.diagnostic for c in shown)
        else "tab:cited"
        if all(c.cited for c in shown)
        else "tab:verdicts"
    )
    ids = ", ".join(rf"\hyperref[claim:{c.id}]{{{c.id}}}" for c in shown)
    return TeX(rf"Verdicts of {ids}: Table~\ref{{{table}}}.")


# ----------------------------------------------------------------------------- sentences


def identical_sentence(item: dict) -> str:
    """The disclosure of the competitors that are one algorithm on {0,1} losses."""
    same = item.get("identical") or {}
    measured = (
        rf" (largest relative difference measured: {fmt_num(same['max_rel_diff'])} over "
        rf"{same['n']} cells)"
        if same.get("n")
        else ""
    )
    return (
        r"On these Bernoulli losses RNM-FTNL and Wu \& Wang (Laplace) are the same algorithm: "
        r"Wu \& Wang's Bernoulli resampling is the identity on $\{0,1\}$ losses"
        + measured
        + r"; and Wu \& Wang (Gumbel), by the Gumbel-max form of the exponential mechanism, is "
        r"the softmax over the whole previous block with $\eta = \varepsilon/2$, that is "
        r"\texttt{rps\_full\_prefix} without the cap $\eta \le 1/8$."
    )


def competitor_counts(regimes: dict) -> tuple[int, int]:
    """(cells compared, cells where RPS has more regret than its best private competitor)
    over the competitor finding's regimes: page 1 and the findings section state these."""
    total = sum(int(v.get("n", 0)) for v in regimes.values())
    return total, total - sum(int(v.get("rps_best", 0)) for v in regimes.values())


def competitors_sentence(item: dict) -> TeX | None:
    regimes = item.get("regimes") or {}
    if not regimes:
        return None
    total, worse = competitor_counts(regimes)
    best = total - worse
    worst = max(float(v["max"]) for v in regimes.values() if v.get("max") is not None)
    where = (
        f"in every one of the {total} cells compared"
        if best == 0
        else f"in {total - best} of the {total} cells compared"
    )
    per = ", ".join(
        rf"\num{{{float(v['median']):.3g}}}$\times$ in the {tex_escape(k)} regime "
        rf"({REGIME_TEX.get(k, '')}, {v['n']} cell{'' if v['n'] == 1 else 's'})"
        for k, v in sorted(regimes.items(), key=lambda kv: -int(kv[1].get("n", 0)))
        if v.get("median") is not None
    )
    return TeX(
        f"RPS has more regret than the best private competitor {where} (distinct "
        r"standard-instance cells of the rate experiments at their largest horizon): median "
        f"ratio {per}; at worst \\num{{{worst:.3g}}}$\\times$"
        + (r" (Table~\ref{tab:competitors}). " if item.get("table") else ". ")
        + identical_sentence(item)
    )


def competitors_table(item: dict) -> TeX | None:
    """The competitor table of the findings section: per regime and competitor (and the best
    of them per cell), the cells and the ratio rps / competitor."""
    import pandas as pd

    from privdtol.report.tables import _display_algorithm, styler_table

    rows = item.get("table") or []
    if not rows:
        return None
    body = [
        {
            "Regime": rf"{tex_escape(r['regime'])} ({REGIME_TEX.get(r['regime'], '')})",
            "Competitor": "best of them, per cell"
            if r["competitor"] == "best"
            else tex_unicode(tex_escape(_display_algorithm(r["competitor"]))),
            "Cells": str(r["n"]),
            "Median": fmt_num(r["median"]),
            "Min": fmt_num(r["min"]),
            "Max": fmt_num(r["max"]),
            "RPS better": str(r["rps_better"]),
        }
        for r in rows
    ]
    tab = styler_table(pd.DataFrame(body), "@{}llrrrrr@{}")
    return TeX(
        "\\begin{table}[H]\\centering\\small\n"
        r"\caption{RPS regret over each private competitor's (and over the best of them in "
        r"each cell), per regime, at the largest horizon of each distinct standard-instance cell "
        r"of the rate experiments; RPS better: cells with a ratio below 1.}"
        "\\label{tab:competitors}\n" + tab + "\\end{table}\n"
    )


def _x(value) -> str:
    return rf"\num{{{float(value):.3g}}}$\times$"


def constants_sentence(item: dict) -> TeX | None:
    keys = ("a", "b", "c", "paper_a", "paper_b", "n")
    if not item.get("available") or any(item.get(k) is None for k in keys):
        return None
    a, b, c = (fmt_num(item[k]) for k in "abc")
    return TeX(
        rf"Over {item['n']} RPS grid cells the regret is fitted by $a \log K/\Delta_{{\min}} + "
        rf"b \log K/\eta + c$ with $a = {a}$, $b = {b}$, $c = {c}$: Theorem 1's constants "
        rf"{fmt_num(item['paper_a'])} and {fmt_num(item['paper_b'])} are "
        rf"{_x(item['paper_a'] / item['a'])} and {_x(item['paper_b'] / item['b'])} larger "
        "(the paper does not optimize them)."
    )


def theta_sentence(item: dict) -> TeX | None:
    if not item.get("available") or item.get("min") is None or item.get("max") is None:
        return None
    return TeX(
        rf"Over {item['n']} RPS grid cells the regret is between {_x(item['min'])} and "
        rf"{_x(item['max'])} the lower-bound rate $\log K/\min(\Delta_{{\min}}, "
        r"\varepsilon)$ (median " + _x(item["median"]) + r"): a $\Theta$ band on this grid."
    )


def cost_sentence(item: dict, what: str, ablation: str) -> TeX | None:
    if not item.get("available") or item.get("median") is None:
        return None
    spread = (
        f", range {_x(item['min'])} to {_x(item['max'])}"
        if item.get("min") is not None and item.get("max") is not None
        else ""
    )
    where = f" {mathify(item['where'])}" if item.get("where") else ""
    return TeX(
        rf"{what} costs {_x(item['median'])} regret (median over {item.get('n', '?')} cells"
        rf"{where}{spread}): RPS over \texttt{{{tex_escape(ablation)}}}."
    )


#: each finding of the registry as a sentence from its numbers
FINDING_SENTENCES = {
    "constants": constants_sentence,
    "theta_band": theta_sentence,
    "prefix_cost": lambda item: cost_sentence(item, "The random prefix", "rps_full_prefix"),
    "cap_cost": lambda item: cost_sentence(item, r"The cap $\eta \le 1/8$", "rps_uncapped"),
    "competitors": competitors_sentence,
}


def finding_sentence(fid: str, found: dict | None) -> TeX | None:
    """A finding as a sentence from its numbers; its own text, typeset, for a finding without
    a sentence here; None when it is not available."""
    item = (found or {}).get(fid) or {}
    build = FINDING_SENTENCES.get(fid)
    sentence = build(item) if build is not None else None
    if sentence is None and item.get("available", True) and item.get("text"):
        sentence = mathify(item["text"])
    return sentence
