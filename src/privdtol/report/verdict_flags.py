"""The verdict table's design-change flag: a claim whose check or grid was changed after its
first results were seen (:data:`privdtol.analysis.diagnosis.DEVIATIONS`) says so beside its
verdict, with what the sensitivity analysis (``results/checks/multiverse.json``) found: the
threshold values at which its verdict would differ."""

from __future__ import annotations

from privdtol.analysis.diagnosis import DEVIATIONS
from privdtol.report.latex import TeX, fmt_value, tex_escape


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


def out_of_sample(claim: str, as_expected: bool, run_configs) -> str:
    """Whether this run confirms ``claim``'s changes on data they were not tuned on: "not run"
    when one of its changes was made on this run's config (``run_configs``: the stems of the
    config files merged, e.g. ``config``), else "yes" when the claim PASSes and its controls
    FAIL (``as_expected``), "no" otherwise; "" for a claim without changes."""
    tuned = {c for d in DEVIATIONS if d["claim"] == claim for c in d["tuned_on"]}
    if not tuned:
        return ""
    if tuned & set(run_configs):
        return "not run"
    return "yes" if as_expected else "no"


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
