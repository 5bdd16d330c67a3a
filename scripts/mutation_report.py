"""The scores and tables of ``make mutation`` (scripts/mutation.py, docs/testing.md): a
module's score, a fresh sample's score stratified by module, the machine-readable summary of
every measured group and its markdown table."""

from __future__ import annotations

from collections import Counter

#: the summary's columns (scripts/mutation.py folds mutmut's exit codes into them)
COLUMNS = ("killed", "survived", "timeout", "no tests", "not run", "other", "equivalent", "dead")


def score(counts) -> float | None:
    """(killed + timeout) / (killed + timeout + survived + no tests), None if nothing counts."""
    caught = counts.get("killed", 0) + counts.get("timeout", 0)
    total = caught + counts.get("survived", 0) + counts.get("no tests", 0)
    return caught / total if total else None


def weighted_score(rec: dict) -> dict:
    """A group's score from its fresh sample, stratified by module: each module's sample score
    weighted by the module's number of mutants (dead ones left out), with its standard error
    sqrt(sum w^2 s(1 - s)/n) (the sample draws as many mutants from a small module as from a
    large one, so the plain pooled score over-weights the small ones)."""
    est, var, total = 0.0, 0.0, 0
    for module, counts in rec.get("fresh", {}).items():
        n = sum(counts[k] for k in ("killed", "timeout", "survived", "no tests"))
        size = sum(v for k, v in rec["modules"][module].items() if k not in ("score", "dead"))
        if not n:
            continue
        s = score(counts)
        est, var, total = est + size * s, var + size**2 * s * (1 - s) / n, total + size
    if not total:
        return {"weighted": None, "weighted_se": None}
    return {"weighted": est / total, "weighted_se": var**0.5 / total}


def _total(by_module: dict) -> dict:
    """The counts of every module added up."""
    total = Counter()
    for counts in by_module.values():
        total.update({k: counts.get(k, 0) for k in COLUMNS})
    return {k: total.get(k, 0) for k in COLUMNS}


def summary(records: list[dict]) -> dict:
    """The machine-readable summary of every measured group (results/mutation/summary.json)."""
    total = Counter()
    modules = {}
    for rec in records:
        for module, counts in rec["modules"].items():
            modules[module] = dict(counts, group=rec["group"], commit=rec["commit"])
            total.update({k: counts[k] for k in COLUMNS})
    fresh = {}
    for rec in records:
        counts = Counter()
        for module_counts in rec.get("fresh", {}).values():
            counts.update(module_counts)
        if counts:
            fresh[rec["group"]] = {k: counts.get(k, 0) for k in COLUMNS} | {
                "score": score(counts),
                **weighted_score(rec),
            }
    census = {}
    for rec in records:
        if rec.get("census"):
            first = rec["census"]["modules"]
            then = _total(first)
            now = _total({m: rec["modules"][m] for m in first})
            census[rec["group"]] = {
                "commit": rec["census"]["commit"],
                "first": then | {"score": score(then)},
                "now": now | {"score": score(now)},
                "modules": {
                    m: {"first": c["score"], "now": rec["modules"][m]["score"]}
                    for m, c in rec["census"]["modules"].items()
                },
            }
    rounds = {
        rec["group"]: [
            {"commit": r.get("commit"), "score": score(_total(r["counts"]))}
            | weighted_score({"fresh": r["counts"], "modules": rec["modules"]})
            | {"counts": _total(r["counts"])}
            for r in rec.get("rounds") or []
        ]
        for rec in records
        if rec.get("rounds")
    }
    return {
        "census": census,
        "rounds": rounds,
        "groups": {r["group"]: {"commit": r["commit"], "seconds": r["seconds"]} for r in records},
        "fresh": fresh,
        "modules": modules,
        "total": {k: total.get(k, 0) for k in COLUMNS} | {"score": score(total)},
    }


def markdown(data: dict) -> str:
    def pct(value, digits=0):
        return "-" if value is None else f"{100 * value:.{digits}f}%"

    head = "| module | " + " | ".join(COLUMNS) + " | score |"
    lines = [head, "|---" * (len(COLUMNS) + 2) + "|"]
    for module, counts in data["modules"].items():
        cells = " | ".join(str(counts[c]) for c in COLUMNS)
        lines.append(f"| {module} | {cells} | {pct(counts['score'])} |")
    total = data["total"]
    cells = " | ".join(str(total[c]) for c in COLUMNS)
    lines.append(f"| **total** | {cells} | {pct(total['score'], 1)} |")
    groups = ", ".join(
        f"{g} at {v['commit']}" + (f" ({v['seconds'] / 60:.0f} min)" if v["seconds"] else "")
        for g, v in data["groups"].items()
    )
    text = f"Measured: {groups}.\n\n" + "\n".join(lines) + "\n"
    if data.get("fresh"):
        text += "\nFresh samples (no test written against them; score with its standard error):\n\n"
        text += (
            "| group | killed | survived | timeout | no tests | equivalent | score | weighted |\n"
        )
        text += "|---|---|---|---|---|---|---|---|\n"
        for group, c in data["fresh"].items():
            n = c["killed"] + c["timeout"] + c["survived"] + c["no tests"]
            se = "" if not n else f" ± {100 * (c['score'] * (1 - c['score']) / n) ** 0.5:.0f}"
            cells = " | ".join(str(c[k]) for k in ("killed", "survived", "timeout", "no tests"))
            weighted = f"{pct(c['weighted'])} ± {100 * c['weighted_se']:.0f}"
            text += (
                f"| {group} | {cells} | {c['equivalent']} | {pct(c['score'])}{se} | {weighted} |\n"
            )
    if data.get("census"):
        text += (
            "\nCensuses (every mutant of the group run; first complete measurement, and now):\n\n"
        )
        text += "| group | module | first measured at | score then | score now |\n"
        text += "|---|---|---|---|---|\n"
        for group, c in data["census"].items():
            for module, s in c["modules"].items():
                then, now = pct(s["first"]), pct(s["now"])
                text += f"| {group} | {module} | {c['commit']} | {then} | {now} |\n"
            text += (
                f"| {group} | **all** | {c['commit']} | {pct(c['first']['score'], 1)} | "
                f"{pct(c['now']['score'], 1)} |\n"
            )
    return text
