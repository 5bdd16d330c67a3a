"""Page 1's sentence on the privacy audit (Proposition 1 of Cesari & Colomboni: each private
algorithm is eps-DP), from the check records of the claims read on the audit: the private
algorithms within their bound, the largest privacy loss found (RPS's own), the negative-control
cells caught.  Not a finding of ``results/findings.json`` (no ``RECORDS``): the numbers are the
audit's check record."""

from __future__ import annotations

from privdtol.analysis.claim_types import PageLine


def audit_claims() -> list[str]:
    """The claims checked on the privacy audit (the registry's claims reading ``privacy``)."""
    from privdtol.analysis.registry import CLAIMS

    return [c.id for c in CLAIMS.values() if "privacy" in c.experiments]


def privacy_sentence(record: dict | None, tex) -> str | None:
    """One audit claim's record as a sentence (None: no private algorithm audited)."""
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
    rps_part = rf"; RPS {tex.num(own)}$\,\varepsilon$" if own is not None else ""
    worst_part = rf"largest loss {tex.num(worst)}$\,\varepsilon$" if worst is not None else ""
    verb = "finds all" if within else "does not find all"
    caught = sum(c.get("verdict") == "caught" for c in controls)
    return (
        rf"The privacy audit {verb} {len(algs)} private algorithms within $\varepsilon$ "
        rf"({worst_part}{rps_part}) and catches {caught} of {len(controls)} negative-control "
        "cells."
    )


def privacy_lines(found: dict, checks: dict, tex) -> list[str]:
    """Page 1: one sentence per audit claim whose record is in this run."""
    lines = (privacy_sentence(checks.get(c), tex) for c in audit_claims())
    return [s for s in lines if s is not None]


#: the page-1 sentences of the privacy audit
PAGE_ONE = (PageLine(80, "sec:privacy", privacy_lines),)
