"""How far the checks can be trusted, in the report's methods section: the size and power of
each check (``power.tex``, from ``results/checks/power.json``) and the verdicts over each
threshold's pre-declared range (``multiverse.tex``, from ``results/checks/multiverse.json``).
A missing record is a "not available" note; a defective one is one InputError line naming it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from privdtol.errors import InputError
from privdtol.report.latex.text import TeX, fmt_num, fmt_value, mathify, tex_escape


def _load_record(results: Path, name: str) -> dict | None:
    """``results/checks/<name>.json``, a record with a list of ``rows``, or None when absent;
    anything else is one InputError line naming the file."""
    path = Path(results) / "checks" / f"{name}.json"
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise ValueError("no list of rows")
    except (OSError, ValueError) as err:  # json.JSONDecodeError is a ValueError
        raise InputError("results", f"{path}: not a {name} record ({err})") from None
    return data


def load_power(results: Path) -> dict | None:
    """``results/checks/power.json`` (size and power of each check), or None when absent."""
    return _load_record(results, "power")


def power_tex(power: dict | None) -> TeX:
    """The size/power table of the methods section, or a "not available" note."""
    from privdtol.report.latex.tables import latex_table

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
    model = power.get("model") or {}
    fitted = (
        rf"$a = {fmt_num(model['a'])}$, $b = {fmt_num(model['b'])}$, "
        rf"$c = {fmt_num(model['c'])}$ ({mathify(model.get('source', ''))})"
        if all(k in model for k in ("a", "b", "c"))
        else "the fitted constants"
    )
    intro = (
        r"Each check was run on "
        rf"{int(power.get('replicates', 0))} synthetic tables per hypothesis, built on this "
        r"configuration's own cells: under the null, regret $a\log K/\Delta_{\min} + "
        rf"b\log K/\eta + c$ with {fitted} and a per-cell log-normal lack of fit of "
        rf"{fmt_num(power.get('noise'))} (the measured one); under each control, the same form "
        r"with the control's defect (\texttt{privdtol.analysis.power}). Size is the FAIL rate "
        r"under the null, power the FAIL rate under the control." + "\n\n"
    )
    table = latex_table(
        pd.DataFrame(rows), r"@{}l>{\raggedright\arraybackslash}p{4.2cm}lrr@{}", size="small"
    )
    return TeX(intro + table + "".join(by_cell_note(r) for r in power["rows"]))


def by_cell_note(row: dict) -> str:
    """The control's power per (K, gap) cell of a row that has it (C3), and what it means: its
    log-T slope Delta (K - 1) is below what a ratio test with a relative tolerance sees at small
    gaps (the scope of :mod:`privdtol.analysis.claims.c3_horizon_free`); empty otherwise."""
    cells = row.get("control_fail_rate_by_cell")
    if not cells:
        return ""
    parts = []
    for key, rate in cells.items():
        k, g = (v.split("=")[1] for v in key.split(", "))
        parts.append(rf"$K = {k}$, $\Delta_{{\min}} = {fmt_num(float(g))}$: {fmt_num(rate)}")
    missed = [key for key, rate in cells.items() if rate < 0.5]
    ctrl = tex_escape(row.get("control", ""))
    text = (
        rf"Power of {tex_escape(row['claim'])} per cell on the synthetic tables (the rate at "
        rf"which the control \texttt{{{ctrl}}} FAILs there): " + "; ".join(parts) + ". "
    )
    if missed:
        text += (
            r"Where it is not caught, its regret grows like $\Delta_{\min}(K-1)\ln T$, a "
            r"slope below $(r - 1)\,\mathrm{Reg}(T_0)/\ln(T_{\max}/T_0)$, the smallest that "
            r"a ratio test with tolerance $r - 1$ can see ($r$ = "
            r"\texttt{horizon\_free\_ratio\_max}); the slope vanishes with the gap while "
            r"$\mathrm{Reg}(T_0)$ grows like $\log K/\Delta_{\min}$, so no check of "
            r"horizon-freeness with a relative tolerance has power there within the grid's "
            r"horizons. C3's record states, per cell, the smallest slope its PASS excludes."
        )
    return text + "\n\n"


# ------------------------------------------------------------------------------ multiverse


def load_multiverse(results: Path) -> dict | None:
    """``results/checks/multiverse.json`` (the verdicts over the threshold ranges), or None."""
    return _load_record(results, "multiverse")


def load_out_of_sample(results: Path) -> dict | None:
    """``results/checks/out_of_sample.json`` (the changed claims rerun on cells they were not
    tuned on), or None."""
    return _load_record(results, "out_of_sample")


def multiverse_tex(data: dict | None) -> TeX:
    """The sensitivity table of the methods section: per claim and threshold, the verdict at
    each value of the pre-declared range (the configured value in bold) and the controls
    caught; then the variants that change a verdict."""
    from privdtol.report.latex.tables import latex_table

    if data is None:
        return TeX(
            r"\NotRun{sensitivity of the verdicts: not available in this run "
            r"(results/checks/multiverse.json absent)}" + "\n"
        )
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in data["rows"]:
        groups.setdefault((r["claim"], r["threshold"]), []).append(r)
    table = []
    for (claim, key), rows in groups.items():

        def cell(r):
            text = f"{fmt_value(r['value'])}: {r['verdict']}"
            if r["controls"]:
                text += f" ({r['controls_caught']}/{r['controls']})"
            return rf"\textbf{{{text}}}" if r["configured"] else text

        table.append(
            {
                "Check": rf"\hyperref[claim:{claim}]{{{tex_escape(claim)}}}"
                + (" (diag.)" if rows[0]["diagnostic"] else ""),
                "Threshold": rf"\texttt{{{tex_escape(key)}}}",
                "Verdict at each value (controls caught)": "; ".join(cell(r) for r in rows),
            }
        )
    changed = [r for r in data["rows"] if r["verdict"] != r["base_verdict"]]
    lost = [r for r in data["rows"] if r["controls_caught"] < r["controls"]]
    n = len(data["rows"])
    claims_changed = sorted({r["claim"] for r in changed if not r["diagnostic"]})
    text = (
        rf"Every check with thresholds was recomputed over {n} variants, one threshold at a time "
        r"set to each value of its range (declared in the configuration's "
        r"\texttt{checks.multiverse} before the run; the others at their configured values, "
        r"in bold). "
        + (
            f"{len(changed)} variant{' changes' if len(changed) == 1 else 's change'} a verdict"
            + (
                " (claims: " + ", ".join(tex_escape(c) for c in claims_changed) + ")"
                if claims_changed
                else " (diagnostics only)"
            )
            if changed
            else "No variant changes a verdict"
        )
        + (
            f"; in {len(lost)} a control is no longer caught."
            if lost
            else "; every control stays caught."
        )
        + "\n\n"
    )
    spec = r"@{}ll>{\raggedright\arraybackslash}p{9.6cm}@{}"
    return TeX(text + latex_table(pd.DataFrame(table), spec, size="small"))
