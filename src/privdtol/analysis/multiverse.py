"""Sensitivity of the verdicts to their thresholds: every claim's and diagnostic's
check, and its negative controls, recomputed with one threshold (or fit window) at a time set to
each value of its pre-declared range (the config's ``checks.multiverse``, schema defaults; the
other thresholds at their configured values).  The ranges were declared before any result of
this table was seen; nothing is tuned on it.

:func:`multiverse_table` returns one row per (claim, threshold, value): the verdict, the
verdict at the configured value, and how many of the claim's controls are caught (FAIL).  The
report's methods section shows which verdicts change, and where.
"""

from __future__ import annotations

from pathlib import Path

from privdtol.analysis.records import load_agg, plain
from privdtol.analysis.registry import CLAIMS, controls_for


def _same(a, b) -> bool:
    return plain(a) == plain(b)


def multiverse_table(config: dict, agg_dir: Path) -> dict:
    """The sensitivity rows of every registered check with thresholds whose tables exist."""
    base = {k: v for k, v in config["checks"].items() if k != "multiverse"}
    ranges = config["checks"].get("multiverse") or {}
    present = controls_for(config)
    rows = []
    for claim in CLAIMS.values():
        keys = [k for k in claim.thresholds if k in ranges]
        if not keys:
            continue
        tables = load_agg(Path(agg_dir), claim.experiments)
        if not tables:
            continue
        fn = claim.check_function()
        controls = [c for cid, c in present if cid == claim.id]

        def run(th, fn=fn, tables=tables, controls=controls):
            verdict = fn(tables, th, [])["verdict"]
            caught = sum(fn(tables, th, [], algorithm=c)["verdict"] == "FAIL" for c in controls)
            return verdict, caught

        base_verdict, base_caught = run(base)
        for key in keys:
            for value in ranges[key]:
                if _same(value, base[key]):
                    verdict, caught = base_verdict, base_caught
                else:
                    verdict, caught = run({**base, key: value})
                rows.append(
                    {
                        "claim": claim.id,
                        "diagnostic": bool(claim.diagnostic),
                        "threshold": key,
                        "value": plain(value),
                        "configured": _same(value, base[key]),
                        "verdict": verdict,
                        "base_verdict": base_verdict,
                        "controls": len(controls),
                        "controls_caught": caught,
                        "base_controls_caught": base_caught,
                    }
                )
    return plain({"ranges": ranges, "rows": rows})
