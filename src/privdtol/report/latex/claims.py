"""The claims in the report: each claim's macros (``numbers.tex``), its one statement
(``claims.tex``: title, the paper's words, statistic, result, threshold, verdict, figure), the
takeaway sentence that ends each figure's caption, and what did not replicate
(``failures.tex``); the size and power of the checks and their multiverse are
:mod:`privdtol.report.latex.robustness`'s.

The claims come from :data:`privdtol.analysis.registry.CLAIMS` (any id, generically), their
typeset text from :data:`~privdtol.analysis.registry.CLAIMS_TEX` (a claim without an entry is
shown with its plain text escaped), the numbers from the check records.  The analysis layer's
sentences (summaries, thresholds, findings) are plain text with ASCII mathematics: they pass
:func:`~privdtol.report.latex.text.mathify` on their way in.
"""

from __future__ import annotations

import pandas as pd

from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, NOTEBOOKS, control_id
from privdtol.report.latex.text import (
    TeX,
    fmt_num,
    macro_name,
    mathify,
    shown_interval,
    tex_escape,
)

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
        "source": mathify(CLAIMS[claim].source),
        "stat_label": claim_tex(claim, "statistic"),
        # the notebook whose figure shows it (None for a claim without one in the registry)
        "figure": CLAIMS[claim].notebook if CLAIMS[claim].notebook in NOTEBOOKS else None,
        "verdict_word": check["verdict"] if check else None,
        # why it is a diagnostic of the pipeline, not a claim of the paper ("" for a claim)
        "diagnostic": mathify(CLAIMS[claim].diagnostic) if CLAIMS[claim].diagnostic else "",
        # the tested claims that imply it, and why it cannot fail (an identity): both keep
        # it out of the count of independent statements
        "implied_by": list(CLAIMS[claim].implied_by),
        "identity": mathify(CLAIMS[claim].identity) if CLAIMS[claim].identity else "",
        "independent": CLAIMS[claim].independent,
        # the bibliography key of the cited work whose claim it is ("" for the paper's own)
        "cited": CLAIMS[claim].cited,
        "cite": TeX(rf"\citep{{{CLAIMS[claim].cited}}}") if CLAIMS[claim].cited else "",
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
    has_ci = (
        shown_interval(check["statistic"], check["ci_low"], check["ci_high"], fmt_num) is not None
    )
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


def counts(claims: list[dict], prefix: str = "Claims") -> dict:
    """The summary's verdict counts of ``claims`` (the paper's claims, ``prefix="Claims"``, the
    diagnostics, ``prefix="Diagnostics"``, or the claims of the cited works, ``prefix="Cited"``;
    the controls are not counted)."""
    words = [c["verdict_word"] for c in claims]
    out = {f"{prefix}Total": len(claims), f"{prefix}Run": sum(c["run"] for c in claims)}
    for v in VERDICTS:
        out[f"{prefix}{v.title()}"] = words.count(v)
    out[f"{prefix}NotRun"] = words.count(None)
    if prefix == "Claims":  # the independent statements among them (implied and identity out)
        free = [c["verdict_word"] for c in claims if c.get("independent", True)]
        out["IndependentTotal"] = len(free)
        for v in VERDICTS:
            out[f"Independent{v.title()}"] = free.count(v)
        out["IndependentNotRun"] = free.count(None)
        out["IndependentList"] = ", ".join(c["id"] for c in claims if c.get("independent", True))
    return out


def split_claims(rows: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
    """The paper's claims, the pipeline's diagnostics and the claims of the cited works
    (each prior algorithm's own bound) among claim contexts (registry order)."""
    return (
        [r for r in rows if not r["diagnostic"] and not r.get("cited")],
        [r for r in rows if r["diagnostic"]],
        [r for r in rows if r.get("cited") and not r["diagnostic"]],
    )


# ----------------------------------------------------------------------------- failures


def failure_items(claims: list[dict], controls: list[dict], checks: dict) -> list[dict]:
    """The claims not PASS and the controls not caught, with the record's diagnosis."""

    def diagnosis(record_id: str) -> dict:
        diag = (checks.get(record_id) or {}).get("diagnosis") or {}
        return {k: mathify(diag[k]) for k in ("cells", "cause", "follow_up") if diag.get(k)}

    items = [
        {**c, "ref": c["id"], "diagnosis": diagnosis(c["id"])}
        for c in claims
        if c["verdict_word"] != "PASS"
    ]
    return items + [
        {**k, "ref": k["id"].split("--")[0], "diagnosis": diagnosis(k["id"])}
        for k in controls
        if not k["caught"]
    ]


#: the longest plugin failure reason the report's body quotes (the appendix has it whole)
MAX_REASON = 240


def plugin_failure_items(agg_dir) -> list[dict]:
    """The plugins whose cells the aggregation left out (:func:`privdtol.pipeline.failures.
    plugin_failures`), for the body's "What did not replicate": the plugin's name (typeset,
    breakable) and its reason (plain text, escaped by the template; a long one shortened), how
    many cells and the experiments (typeset) -- one sentence each."""
    import textwrap

    from privdtol.pipeline.failures import plugin_failures
    from privdtol.report.latex.text import texttt

    return [
        {
            "plugin": texttt(textwrap.shorten(f["plugin"], 40, placeholder="..."), "any"),
            "reason": textwrap.shorten(f["reason"], MAX_REASON, placeholder=" ..."),
            "cells": f["cells"],
            "experiments": TeX(", ".join(texttt(e) for e in f["experiments"])),
        }
        for f in plugin_failures(agg_dir)
    ]


def diagnosis_groups(items: list[dict]) -> list[dict]:
    """The appendix's diagnoses: the failure items grouped by their follow-up (said once for
    the items that share it), each item with its cells."""
    groups: dict[str, list[dict]] = {}
    for c in items:
        if not c.get("run"):
            continue
        d = c.get("diagnosis") or {}
        follow = d.get("follow_up") or "none recorded (the record has no diagnosis)"
        groups.setdefault(follow, []).append(
            {"label": c["label"], "cells": d.get("cells") or "none named"}
        )
    return [
        {"labels": ", ".join(i["label"] for i in g), "members": g, "follow_up": f}
        for f, g in groups.items()
    ]


def deviation_items() -> list[dict]:
    """The changes made to a check or a grid after its results were seen
    (:data:`privdtol.analysis.diagnosis.DEVIATIONS`), typeset."""
    from privdtol.analysis.diagnosis import DEVIATIONS

    return [
        {
            "claim": tex_escape(d["claim"]),
            "change": mathify(d["change"]),
            "why": mathify(d["why"]),
            "first_result": mathify(d["first_result"]),
        }
        for d in DEVIATIONS
    ]


# ----------------------------------------------------------------------------- cell counts


def rps_cells(*frames: pd.DataFrame | None, algorithm: str = "rps") -> int:
    """The distinct cells of ``algorithm`` in aggregated tables (0 when absent): a cell is its
    parameters, so one shared by two experiments (its id may differ) counts once."""
    from privdtol.analysis.cells import CELL_COLUMNS

    parts = [
        df.loc[df["algorithm"] == algorithm]
        for df in frames
        if df is not None and not df.empty and "algorithm" in df
    ]
    if not parts:
        return 0
    rows = pd.concat(parts, ignore_index=True)
    cols = [c for c in CELL_COLUMNS if c in rows.columns]
    return len(rows[cols].drop_duplicates())


def cells_tex(claims: list[dict], checks: dict, agg: dict[str, pd.DataFrame]) -> TeX:
    """The cell counts, reconciled: per claim, the experiments it reads, the distinct RPS
    cells they hold (a cell shared by two experiments, the same parameters, counts once) and
    the cells its check record lists (a record keeps only the cells its rule applies to, or
    lists sub-checks or series instead of cells: its summary says which)."""
    from privdtol.report.latex.tables import latex_table

    rows = []
    for c in claims:
        record = checks.get(c["id"])
        exps = [e for e in CLAIMS[c["id"]].experiments if e in agg]
        rows.append(
            {
                "Claim": rf"\hyperref[claim:{c['id']}]{{{tex_escape(c['id'])}}}",
                "Experiments read": ", ".join(rf"\texttt{{{tex_escape(e)}}}" for e in exps) or "--",
                "Distinct RPS cells in them": fmt_num(rps_cells(*(agg.get(e) for e in exps))),
                "Cells in the record": fmt_num(len(record["cells"])) if record else "--",
            }
        )
    return latex_table(pd.DataFrame(rows), r"@{}l>{\raggedright\arraybackslash}p{7cm}rr@{}")
