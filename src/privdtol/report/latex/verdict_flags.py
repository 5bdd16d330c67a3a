"""The verdict table's design-change flag: a claim whose check or grid was changed after its
first results were seen (:data:`privdtol.analysis.diagnosis.DEVIATIONS`) says so beside its
verdict, with what the sensitivity analysis (``results/checks/multiverse.json``) found: the
threshold values at which its verdict would differ."""

from __future__ import annotations

from privdtol.analysis.diagnosis import DEVIATIONS
from privdtol.report.latex.text import TeX, fmt_value, tex_escape


def changed_claims() -> set[str]:
    """The claims with at least one disclosed change."""
    return {d["claim"] for d in DEVIATIONS}


def breakable(name: str) -> str:
    """A configuration key in code font that may break after its underscores (a narrow
    column)."""
    return tex_escape(name).replace(r"\_", r"\_\allowbreak{}")


def flips(claim: str, multiverse: dict | None) -> list[TeX]:
    """The variants of the sensitivity analysis at which ``claim``'s verdict differs from its
    verdict at the configured thresholds: ``"FAIL at horizon_free_c = 8"``."""
    rows = (multiverse or {}).get("rows") or []
    return [
        TeX(
            rf"{tex_escape(r['verdict'])} at \texttt{{{breakable(r['threshold'])}}} = "
            rf"{fmt_value(r['value'])}"
        )
        for r in rows
        if r["claim"] == claim and r["verdict"] != r["base_verdict"]
    ]


def out_of_sample(claim: str, table: dict | None) -> str:
    """Whether this run confirms ``claim``'s changes on cells they were not tuned on, from
    ``results/checks/out_of_sample.json`` (``table``; :mod:`privdtol.analysis.held_out`):
    "yes" (the claim PASSes and its controls FAIL there), "no", or "not run" (no such cell,
    or no table); "" for a claim without changes."""
    if claim not in changed_claims():
        return ""
    rows = {r["claim"]: r for r in (table or {}).get("rows") or []}
    return rows.get(claim, {}).get("result", "not run")


def design_change_cell(claim: str, multiverse: dict | None, confirmed: str = "") -> TeX:
    """The verdict table's cell: empty for a claim as first registered; else a link to the
    disclosure, whether this run confirms it out of sample (:func:`out_of_sample`), and the
    variants that change its verdict (or that none does)."""
    if claim not in changed_claims():
        return TeX("")
    found = flips(claim, multiverse)
    if multiverse is None:
        tail = ""
    elif found:
        tail = "; " + "; ".join(found)
    else:
        tail = "; robust"
    sample = f"; out of sample: {confirmed}" if confirmed else ""
    return TeX(rf"\hyperref[sec:deviations]{{yes}}{sample}{tail}")
