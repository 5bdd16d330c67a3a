"""The claims in the report: each claim's macros (``numbers.tex``), its one statement
(``claims.tex``: title, the paper's words, statistic, result, threshold, verdict, figure), the
takeaway sentence that ends each figure's caption, the size and power of the checks
(``power.tex``) and what did not replicate (``failures.tex``).

The claims come from :data:`privdtol.analysis.registry.CLAIMS` (any id, generically), their
typeset text from :data:`~privdtol.analysis.registry.CLAIMS_TEX` (a claim without an entry is
shown with its plain text escaped), the numbers from the check records.  The analysis layer's
sentences (summaries, thresholds, findings) are plain text with ASCII mathematics: they pass
:func:`~privdtol.report.latex.mathify` on their way in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, FINDINGS, NOTEBOOKS, control_id
from privdtol.errors import InputError
from privdtol.report.latex import TeX, fmt_num, is_number, macro_name, mathify, tex_escape

#: the verdicts, in the order the summary counts them
VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")


def claim_prefix(claim: str) -> str:
    """The prefix of a claim's macros (``C4a`` -> ``Cfoura``: ``\\CfouraVerdict``, ...)."""
    return macro_name(claim, "")


def claim_tex(claim: str, field: str) -> TeX:
    """A claim's typeset ``title``, ``quote`` or ``statistic``: the registry's LaTeX, or its
    plain text escaped when the claim has none."""
    entry = CLAIMS_TEX.get(claim)
    if entry is not None:
        return TeX(getattr(entry, field))
    plain = {"title": "title", "quote": "quote", "statistic": "statistic"}[field]
    return mathify(getattr(CLAIMS[claim], plain))


def verdict_tex(verdict: str | None) -> TeX:
    return TeX(r"\VerdictNotRun" if verdict is None else rf"\Verdict{verdict.title()}")


def first_sentence(text: str) -> str:
    """Up to the first ". " (the whole text when there is none)."""
    text = " ".join(str(text).split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def sentences(text: str) -> list[str]:
    """``text`` cut after each ". " (the analysis layer's summaries)."""
    out, rest = [], " ".join(str(text).split())
    while ". " in rest:
        head, rest = rest.split(". ", 1)
        out.append(head + ".")
    return [*out, rest] if rest else out


def summary_details(summary: str, est: TeX, lo: TeX, hi: TeX, has_ci: bool) -> TeX:
    """The check's summary without the sentences that repeat the estimate and its interval
    (the claim's statement already gives them)."""
    keep = [
        mathify(s)
        for s in sentences(summary)
        if not (has_ci and est in mathify(s) and lo in mathify(s) and hi in mathify(s))
    ]
    return TeX(" ".join(keep))


def claim_context(claim: str, check: dict | None) -> dict:
    """The macros of one claim (values are LaTeX or text to escape)."""
    base = {
        "id": claim,
        "label": claim,
        "prefix": claim_prefix(claim),
        "run": check is not None,
        "title": claim_tex(claim, "title"),
        "quote": claim_tex(claim, "quote"),
        "source": CLAIMS[claim].source,
        "stat_label": claim_tex(claim, "statistic"),
        # the notebook whose figure shows it (None for a claim without one in the registry)
        "figure": CLAIMS[claim].notebook if CLAIMS[claim].notebook in NOTEBOOKS else None,
        "verdict_word": check["verdict"] if check else None,
    }
    if check is None:
        na = TeX(r"\NotRunText")
        return {
            **base,
            "verdict": verdict_tex(None),
            "statistic": na,
            "ci_low": na,
            "ci_high": na,
            "threshold": na,
            "summary": "This check was not run.",
            "takeaway": "not run in this configuration.",
            "cells": 0,
            "result": na,
        }
    est, lo, hi = (fmt_num(check[k]) for k in ("statistic", "ci_low", "ci_high"))
    has_ci = is_number(check["ci_low"]) and is_number(check["ci_high"])
    if has_ci and lo == hi == est:  # an exact value: no interval to show
        has_ci = False
    return {
        **base,
        "verdict": verdict_tex(check["verdict"]),
        "statistic": est,
        "ci_low": lo,
        "ci_high": hi,
        "threshold": mathify(check["threshold"]),
        "summary": summary_details(check["summary"], est, lo, hi, has_ci),
        "takeaway": TeX(
            f"{claim_tex(claim, 'statistic')} is {est}"
            + (f" [{lo}, {hi}]" if has_ci else "")
            + f"; rule: {mathify(check['threshold'])}."
        ),
        "cells": len(check["cells"]),
        "result": TeX(f"{est} [{lo}, {hi}]" if has_ci else est),
    }


def control_context(claim: str, control: str, check: dict) -> dict:
    """The verdict-table row and macros of a negative control: it serves its purpose when its
    verdict is FAIL."""
    ctx = claim_context(claim, check)
    caught = check["verdict"] == "FAIL"
    purpose = "must FAIL: caught" if caught else f"{check['verdict']}: control NOT caught"
    return {
        **ctx,
        "id": control_id(claim, control),
        "label": f"{claim} control",
        "prefix": macro_name(claim, "control", control),
        "title": TeX(rf"\texttt{{{tex_escape(control)}}} ({purpose})"),
        "control": control,
        "caught": caught,
    }


def ordered_rows(claims: list[dict], controls: list[dict]) -> list[dict]:
    """Each claim followed by its controls (the verdict table's order)."""
    out = []
    for c in claims:
        out.append(c)
        out += [k for k in controls if k["id"].startswith(f"{c['id']}--")]
    return out


def counts(claims: list[dict]) -> dict:
    """The summary's verdict counts (claims only; the controls are not claims)."""
    words = [c["verdict_word"] for c in claims]
    out = {"ClaimsTotal": len(claims), "ClaimsRun": sum(c["run"] for c in claims)}
    for v in VERDICTS:
        out[f"Claims{v.title()}"] = words.count(v)
    out["ClaimsNotRun"] = words.count(None)
    return out


# ----------------------------------------------------------------------------- takeaways


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


# ----------------------------------------------------------------------------- power


def load_power(results: Path) -> dict | None:
    """``results/checks/power.json`` (size and power of each check), or None when absent."""
    path = Path(results) / "checks" / "power.json"
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["rows"]
        assert isinstance(rows, list)
    except (OSError, json.JSONDecodeError, KeyError, AssertionError) as err:
        raise InputError("results", f"{path}: not a power record ({err})") from None
    return data


def power_tex(power: dict | None) -> TeX:
    """The size/power table of the methods section, or a "not available" note."""
    from privdtol.report.tables import styler_table

    if power is None:
        return TeX(
            r"\NotRun{size and power of the checks: not available in this run "
            r"(results/checks/power.json absent)}" + "\n"
        )
    rows = [
        {
            "Claim": rf"\hyperref[claim:{r['claim']}]{{{tex_escape(r['claim'])}}}",
            "Statistic": mathify(r.get("check", "")),
            "Control": rf"\texttt{{{tex_escape(r.get('control', ''))}}}",
            "Size (false FAIL)": fmt_num(r.get("false_fail_rate")),
            "Power (control caught)": fmt_num(r.get("control_fail_rate")),
        }
        for r in power["rows"]
    ]
    intro = (
        rf"Each check rerun on {int(power.get('replicates', 0))} replicates with noise "
        rf"{fmt_num(power.get('noise'))} added to the regret tables." + "\n\n"
    )
    body = styler_table(
        pd.DataFrame(rows),
        r"@{}l>{\raggedright\arraybackslash}p{6cm}lrr@{}",
    )
    return TeX(intro + r"\begin{center}\small" + "\n" + body + r"\end{center}" + "\n")


# ----------------------------------------------------------------------------- failures


def failure_items(claims: list[dict], controls: list[dict], checks: dict) -> list[dict]:
    """The claims not PASS and the controls not caught, with the record's diagnosis."""
    items = []
    for c in claims:
        if c["verdict_word"] == "PASS":
            continue
        diag = (checks.get(c["id"]) or {}).get("diagnosis") or {}
        items.append(
            {
                **c,
                "diagnosis": {
                    k: mathify(diag[k]) for k in ("cells", "cause", "follow_up") if diag.get(k)
                },
            }
        )
    return items + [{**k, "diagnosis": {}} for k in controls if not k["caught"]]


# ----------------------------------------------------------------------------- cell counts


def rps_cells(df: pd.DataFrame | None, algorithm: str = "rps") -> int:
    """The distinct cells of ``algorithm`` in an aggregated table (0 when absent)."""
    if df is None or df.empty or "algorithm" not in df:
        return 0
    return int(df.loc[df["algorithm"] == algorithm, "cell_id"].nunique())


def cells_tex(claims: list[dict], checks: dict, agg: dict[str, pd.DataFrame]) -> TeX:
    """The cell counts, reconciled: per claim, the experiments it reads, the RPS cells they
    hold and the cells its check record lists (a record may count a cell shared by two
    experiments once, or keep only the cells its rule applies to: its summary says which)."""
    from privdtol.report.tables import styler_table

    rows = []
    for c in claims:
        record = checks.get(c["id"])
        exps = [e for e in CLAIMS[c["id"]].experiments if e in agg]
        rows.append(
            {
                "Claim": rf"\hyperref[claim:{c['id']}]{{{tex_escape(c['id'])}}}",
                "Experiments read": ", ".join(rf"\texttt{{{tex_escape(e)}}}" for e in exps) or "--",
                "RPS cells in them": fmt_num(sum(rps_cells(agg.get(e)) for e in exps)),
                "Cells in the record": fmt_num(len(record["cells"])) if record else "--",
            }
        )
    return styler_table(pd.DataFrame(rows), r"@{}l>{\raggedright\arraybackslash}p{7cm}rr@{}")


# ----------------------------------------------------------------------------- summary


def _n(x) -> TeX:
    return fmt_num(x)


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
        rf"({v['n']} cell{'' if v['n'] == 1 else 's'})"
        for k, v in sorted(regimes.items(), key=lambda kv: -int(kv[1].get("n", 0)))
        if v.get("median") is not None
    )
    return TeX(
        f"RPS has more regret than the best private competitor {where}: median ratio {per}; "
        rf"at worst \num{{{worst:.3g}}}$\times$."
    )


def ablations_sentence(prefix: dict, cap: dict) -> TeX | None:
    if not (prefix.get("available") and cap.get("available")):
        return None
    return TeX(
        rf"Both ingredients the analysis needs cost regret: the random prefix "
        rf"\num{{{float(prefix['median']):.3g}}}$\times$ (RPS over the whole-block ablation, "
        rf"median of {prefix['n']} cells) and the cap $\eta \le 1/8$ up to "
        rf"\num{{{float(cap['max']):.3g}}}$\times$ (RPS over the uncapped ablation, median "
        rf"\num{{{float(cap['median']):.3g}}}$\times$)."
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
    worst = max(float(c["ratio_eps"]) for c in private if c.get("ratio_eps") is not None)
    caught = sum(c.get("verdict") == "caught" for c in controls)
    verb = "finds all" if within else "does not find all"
    return TeX(
        f"The privacy audit {verb} {len(algs)} private algorithms, ablations included, within "
        rf"their bound (largest loss found \num{{{worst:.3g}}}$\,\varepsilon$) and catches "
        f"{caught} of {len(controls)} negative-control cells."
    )


def audit_claims() -> list[str]:
    """The claims checked on the privacy audit (the registry's claims reading ``privacy``)."""
    return [c.id for c in CLAIMS.values() if "privacy" in c.experiments]


def summary_sentences(found: dict | None, checks: dict) -> list[TeX]:
    """The summary's findings, one sentence each, from the findings' numbers and the privacy
    audit's record: RPS against its competitors, the cost of its ingredients, the audit."""
    found = found or {}
    out = [
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
    return TeX(
        rf"{what} costs {_x(item['median'])} regret (median over {item.get('n', '?')} cells"
        rf"{spread}): RPS over \texttt{{{tex_escape(ablation)}}}."
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
