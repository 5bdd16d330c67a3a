"""The report's sentences about the findings (``results/findings.json``, not claims) and the
takeaway that ends each figure's caption, written from the numbers: RPS against its best
competitor, the costs of the random prefix and of the cap on eta, the fitted constants, the
Theta band, and the privacy audit of the ablations.  A finding without a sentence here is
shown with its own text, typeset."""

from __future__ import annotations

from privdtol.analysis.registry import CLAIMS, FINDINGS, NOTEBOOKS
from privdtol.report.latex import TeX, fmt_num, mathify, tex_escape, tex_unicode


def finding_sentences(found: dict | None, experiments=None) -> list[TeX]:
    """The text of each available finding of the registry (those reading one of
    ``experiments`` when given), typeset."""
    if not found:
        return []
    out = []
    for fid, f in FINDINGS.items():
        if experiments is not None and not set(f.experiments) & set(experiments):
            continue
        sentence = finding_sentence(fid, found)
        if sentence is not None:
            out.append(sentence)
    return out


def takeaway(notebook: str, claims: dict[str, dict], found: dict | None) -> TeX:
    """The last sentence of a figure's caption, from the data: the verdict and first summary
    sentence of each claim the figure shows, else the findings on its experiments."""
    shown = [claims[c.id] for c in CLAIMS.values() if c.notebook == notebook]
    if shown:
        return TeX(
            " ".join(
                rf"\hyperref[claim:{c['id']}]{{{c['id']}}} {c['verdict']}: {c['takeaway']}"
                for c in shown
            )
        )
    text = finding_sentences(found, NOTEBOOKS[notebook].experiments)
    return TeX(" ".join(text)) if text else TeX("No claim of the paper is checked here.")


# ----------------------------------------------------------------------------- sentences


def _n(x) -> TeX:
    return fmt_num(x)


#: the regimes of the competitor comparison, defined (LaTeX; as analysis.findings.REGIMES)
REGIME_TEX = {
    "statistical": r"$\varepsilon > \Delta_{\min}$",
    "balanced": r"$\varepsilon = \Delta_{\min}$",
    "privacy": r"$\varepsilon < \Delta_{\min}$",
}


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


def competitors_sentence(item: dict) -> TeX | None:
    regimes = item.get("regimes") or {}
    if not regimes:
        return None
    total = sum(int(v.get("n", 0)) for v in regimes.values())
    best = sum(int(v.get("rps_best", 0)) for v in regimes.values())
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


def ablations_sentence(prefix: dict, cap: dict) -> TeX | None:
    if not (prefix.get("available") and cap.get("available")):
        return None
    return TeX(
        rf"Both ingredients the analysis needs cost regret: the random prefix "
        rf"\num{{{float(prefix['median']):.3g}}}$\times$ (RPS over the whole-block ablation, "
        rf"median of {prefix['n']} cells) and the cap $\eta \le 1/8$ up to "
        rf"\num{{{float(cap['max']):.3g}}}$\times$ (RPS over the uncapped ablation, median "
        rf"\num{{{float(cap['median']):.3g}}}$\times$ over the {cap['n']} cells where the cap "
        r"binds, $\varepsilon > 1/4$; elsewhere the two are one algorithm)."
    )


def privacy_sentence(record: dict | None) -> TeX | None:
    if not record or not record.get("cells"):
        return None
    cells = record["cells"]
    private = [c for c in cells if c.get("role") == "private"]
    controls = [c for c in cells if c.get("role") != "private"]
    if not private:
        return None
    algs = sorted({c["algorithm"] for c in private})
    within = all(c.get("verdict") == "PASS" for c in private)

    def largest(rows):
        vals = [float(c["ratio_eps"]) for c in rows if c.get("ratio_eps") is not None]
        return max(vals) if vals else None

    worst = largest(private)
    # the algorithms that reach the largest loss (to a relative 1e-6)
    who = sorted(
        {
            c["algorithm"]
            for c in private
            if c.get("ratio_eps") is not None and float(c["ratio_eps"]) >= worst * (1 - 1e-6)
        }
    )
    own = largest([c for c in private if c["algorithm"] == "rps"])
    caught = sum(c.get("verdict") == "caught" for c in controls)
    verb = "finds all" if within else "does not find all"
    rps_part = rf"; RPS's own largest \num{{{own:.3g}}}$\,\varepsilon$" if own is not None else ""
    return TeX(
        f"The privacy audit {verb} {len(algs)} private algorithms, ablations included, within "
        rf"their bound (largest loss found \num{{{worst:.3g}}}$\,\varepsilon$, by "
        + ", ".join(rf"\texttt{{{tex_escape(a)}}}" for a in who[:3])
        + rps_part
        + f") and catches {caught} of {len(controls)} negative-control cells."
    )


def audit_claims() -> list[str]:
    """The claims checked on the privacy audit (the registry's claims reading ``privacy``)."""
    return [c.id for c in CLAIMS.values() if "privacy" in c.experiments]


def summary_sentences(found: dict | None, checks: dict) -> list[TeX]:
    """The summary's findings, one sentence each, from the findings' numbers and the privacy
    audit's record: what RPS pays above the lower bound, the loosest step of the proof, RPS
    against its competitors, the cost of its ingredients, the audit."""
    found = found or {}
    out = [
        finding_sentence("lower_bound", found),
        finding_sentence("proof_slack", found),
        summary_sentence("worst_case", found),
        competitors_sentence(found.get("competitors") or {}),
        ablations_sentence(found.get("prefix_cost") or {}, found.get("cap_cost") or {}),
        *(privacy_sentence(checks.get(c)) for c in audit_claims()),
    ]
    return [s for s in out if s is not None]


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


def summary_sentence(fid: str, found: dict | None) -> TeX | None:
    """A finding's ``summary`` (its first sentence, for page 1), else :func:`finding_sentence`."""
    item = (found or {}).get(fid) or {}
    if item.get("available", True) and item.get("summary"):
        return mathify(item["summary"])
    return finding_sentence(fid, found)


def finding_sentence(fid: str, found: dict | None) -> TeX | None:
    """A finding as a sentence from its numbers; its own text, typeset, for a finding without
    a sentence here; None when it is not available."""
    item = (found or {}).get(fid) or {}
    build = FINDING_SENTENCES.get(fid)
    sentence = build(item) if build is not None else None
    if sentence is None and item.get("available", True) and item.get("text"):
        sentence = mathify(item["text"])
    return sentence
