"""Generated pieces of the LaTeX replication report (``paper/``).

Every number, table and verdict in the report comes from ``results/`` through the files this
module writes into ``results/report/generated/``:

- ``numbers.tex``   macros: per claim (``\\CtwoVerdict``, ``\\CtwoStatistic``, ...), per
  experiment (``\\HorizonCells``, ``\\HorizonMaxHorizon``, ...) and overall counts;
- ``verdicts.tex``  the verdict table (pandas ``Styler.to_latex``, booktabs + siunitx);
- ``grid.tex``, ``thresholds.tex``  the grid and check settings of the config, with the
  cells actually aggregated (:mod:`privdtol.report_tables`);
- ``algorithms.tex`` / ``models.tex``  the registered algorithms and loss models, with sources;
- ``includes.tex``  one figure body, one table body and one claims paragraph per result
  (a "not run" box when the input is absent, never a LaTeX error);
- ``tab-<name>.tex`` the tabular of ``results/tables/<name>.tex``;
- ``failures.tex``  what did not replicate;
- ``provenance.tex`` see :mod:`privdtol.provenance`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from privdtol.errors import InputError
from privdtol.report.tables import algorithms_tex, grid_tex, models_tex, styler_table, thresholds_tex
from privdtol.report.latex import fmt_int_or_pow2, fmt_num, is_number, macro_name, newcommand, tex_escape, \
    write_text

#: claims in report order, with the statement used when a claim's check was not run
CLAIMS = {
    "C1": "Event-level pure epsilon-DP (Proposition 1, Lemma 3)",
    "C2": "Reg_T <= 1 + 800 log K/Delta + 16 log K/eta for every T (Theorem 1)",
    "C3": "The regret is horizon-free",
    "C4a": "Linear in 1/Delta in the statistical regime",
    "C4b": "Linear in 1/epsilon in the privacy regime",
    "C4c": "Linear in log K, not log^2 K",
    "C4d": "Rate Theta(log K/Delta + log K/epsilon)",
    "C5": "The bound holds for dependent coordinates",
    "constants": "Fitted constants of the rate",
}
CHECK_KEYS = {"claim": str, "title": str, "statistic_label": str, "statistic": (int, float),
              "ci_low": (int, float), "ci_high": (int, float), "threshold": str, "verdict": str,
              "summary": str, "cells": list, "inputs": list}
VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")
#: figures/tables the notebooks produce (results/figures/<name>.pdf, results/tables/<name>.tex)
RESULTS = ("horizon", "rates", "actions", "heatmap", "bounds", "dependent", "ablations",
           "privacy")
EXPERIMENTS = ("horizon", "gap", "epsilon", "actions", "grid", "dependent", "ablations")
#: which experiment each result shows, used when a check JSON does not say (``inputs``)
RESULT_EXPERIMENTS = {"horizon": ["horizon"], "rates": ["gap", "epsilon"],
                      "actions": ["actions"], "heatmap": ["grid"], "bounds": ["grid"],
                      "dependent": ["dependent"], "ablations": ["ablations"],
                      "privacy": ["privacy"]}
#: the experiment section in which each claim's verdict is discussed (once)
CLAIM_HOME = {"C1": "privacy", "C2": "grid", "C3": "horizon", "C4a": "gap", "C4b": "epsilon",
              "C4c": "grid", "C4d": "actions", "C5": "dependent", "constants": "grid"}
GENERATED = ("numbers.tex", "verdicts.tex", "grid.tex", "thresholds.tex", "algorithms.tex", "models.tex",
             "includes.tex", "failures.tex", "provenance.tex",
             *(f"tab-{name}.tex" for name in RESULTS))


def claim_label(claim: str) -> str:
    return "Constants" if claim == "constants" else claim


# ----------------------------------------------------------------------------- inputs

def load_check(path: Path) -> dict:
    """Read and validate one ``results/checks/<claim>.json``; a defect is one InputError line
    naming the file and the key."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError("results", f"{path}: not readable JSON ({err})") from None
    if not isinstance(data, dict):
        raise InputError("results", f"{path}: top level is not an object")
    for key, kind in CHECK_KEYS.items():
        if key not in data:
            raise InputError("results", f"{path}: missing key {key!r}")
        value = data[key]
        if kind == (int, float):
            ok = value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise InputError("results", f"{path}: key {key!r} has type {type(value).__name__}",
                             "number or null" if kind == (int, float) else kind.__name__)
    if data["verdict"] not in VERDICTS:
        raise InputError("results", f"{path}: key 'verdict' is {data['verdict']!r}",
                         ", ".join(VERDICTS))
    return data


def load_checks(results: Path, claims=CLAIMS) -> dict[str, dict | None]:
    """Every claim's check, or None when ``results/checks/<claim>.json`` does not exist."""
    out = {}
    for claim in claims:
        path = Path(results) / "checks" / f"{claim}.json"
        out[claim] = load_check(path) if path.exists() else None
    return out


def load_agg(results: Path) -> dict[str, pd.DataFrame]:
    out = {}
    for exp in EXPERIMENTS:
        path = Path(results) / "agg" / f"{exp}.parquet"
        if path.exists():
            try:
                out[exp] = pd.read_parquet(path)
            except Exception as err:  # pyarrow raises several types
                raise InputError("results", f"{path}: not a readable parquet file ({err})") \
                    from None
    return out


def check_experiments(check: dict) -> list[str]:
    """Experiments a check read, from the ``agg/<experiment>.parquet`` names in ``inputs``."""
    found = []
    for item in check.get("inputs", []):
        m = re.search(r"agg/([A-Za-z0-9_-]+)\.parquet$", str(item))
        if m and m.group(1) not in found:
            found.append(m.group(1))
    return found


# ----------------------------------------------------------------------------- numbers

def verdict_tex(verdict: str | None) -> str:
    return r"\VerdictNotRun" if verdict is None else rf"\Verdict{verdict.title()}"


def claim_macros(claim: str, check: dict | None) -> list[str]:
    m = lambda key, body: newcommand(macro_name(claim, key), body)  # noqa: E731
    if check is None:
        na = r"\NotRunText"
        return [m("Verdict", verdict_tex(None)), m("Title", tex_escape(CLAIMS[claim])),
                m("StatLabel", na), m("Statistic", na), m("CILow", na), m("CIHigh", na),
                m("Threshold", na), m("Summary", r"This check was not run."), m("Cells", "0"),
                m("Result", na)]
    est, lo, hi = (fmt_num(check[k]) for k in ("statistic", "ci_low", "ci_high"))
    ci = rf"[{lo}, {hi}]" if is_number(check["ci_low"]) or is_number(check["ci_high"]) else ""
    return [m("Verdict", verdict_tex(check["verdict"])), m("Title", tex_escape(check["title"])),
            m("StatLabel", tex_escape(check["statistic_label"])), m("Statistic", est),
            m("CILow", lo), m("CIHigh", hi), m("Threshold", tex_escape(check["threshold"])),
            m("Summary", tex_escape(check["summary"])), m("Cells", str(len(check["cells"]))),
            m("Result", f"{est} {ci}".strip())]


def experiment_stats(df: pd.DataFrame | None) -> dict[str, str]:
    """Per-experiment numbers quoted in the prose (strings of LaTeX)."""
    na = r"\NotRunText"
    keys = ("Cells", "Runs", "MaxHorizon", "Algorithms", "RpsMaxRatio", "RpsMaxRegret")
    if df is None or df.empty:
        return {k: na for k in keys}
    final = df.loc[df.groupby("cell_id")["horizon"].transform("max") == df["horizon"]]
    runs = sorted({int(r) for r in final["runs"].dropna()})
    rps = final[final["algorithm"] == "rps"]
    ratio = (rps["mean"] / rps["bound_thm1"]).max() if len(rps) else float("nan")
    algs = ", ".join(rf"\texttt{{{tex_escape(a)}}}" for a in sorted(final["algorithm"].unique()))
    return {
        "Cells": fmt_num(final["cell_id"].nunique()),
        "Runs": (fmt_num(runs[0]) if len(runs) == 1 else
                 f"{fmt_num(runs[0])}--{fmt_num(runs[-1])}") if runs else na,
        "MaxHorizon": fmt_int_or_pow2(df["horizon"].max()),
        "Algorithms": algs or na,
        "RpsMaxRatio": fmt_num(ratio),
        "RpsMaxRegret": fmt_num(rps["mean"].max() if len(rps) else float("nan")),
    }


def total_runs(agg: dict[str, pd.DataFrame]) -> int:
    """Simulated runs over all aggregated cells (each cell counted once)."""
    total = 0
    for df in agg.values():
        if len(df):
            total += int(df.groupby("cell_id")["runs"].max().sum())
    return total


def numbers_tex(checks: dict, agg: dict[str, pd.DataFrame]) -> str:
    lines = ["% generated by privdtol report-assets: do not edit"]
    for claim, check in checks.items():
        lines += claim_macros(claim, check)
    for exp in EXPERIMENTS:
        for key, body in experiment_stats(agg.get(exp)).items():
            lines.append(newcommand(macro_name(exp, key), body))
    verdicts = [c["verdict"] if c else None for c in checks.values()]
    counts = {"ClaimsTotal": len(verdicts), "ClaimsRun": sum(v is not None for v in verdicts),
              "ClaimsPass": verdicts.count("PASS"), "ClaimsFail": verdicts.count("FAIL"),
              "ClaimsInconclusive": verdicts.count("INCONCLUSIVE"),
              "ClaimsNotRun": verdicts.count(None)}
    lines += [newcommand(k, str(v)) for k, v in counts.items()]
    lines.append(newcommand("TotalRuns", fmt_num(total_runs(agg))))
    lines.append(newcommand("ExperimentsRun", str(len(agg))))
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- tables

def verdicts_tex(checks: dict) -> str:
    rows = []
    for claim, check in checks.items():
        p = macro_name(claim, "")
        est = (r"\NotRunText" if check is None else
               rf"\{p}Statistic\newline[\{p}CILow, \{p}CIHigh]")
        rows.append({"Claim": rf"\textbf{{{claim_label(claim)}}}",
                     "Statement and statistic": rf"\{p}Title\newline\emph{{\{p}StatLabel}}",
                     r"Estimate\newline[95\% CI]": est, "Threshold": rf"\{p}Threshold",
                     "Verdict": rf"\{p}Verdict"})
    P = r">{\raggedright\arraybackslash}p"
    return styler_table(pd.DataFrame(rows), rf"@{{}}l{P}{{5.7cm}}{P}{{2.6cm}}{P}{{3.1cm}}l@{{}}")


# ----------------------------------------------------------------------------- includes

def _braced(text: str, start: int) -> str | None:
    """The balanced ``{...}`` group opening at ``text[start]`` (without the braces)."""
    if start >= len(text) or text[start] != "{":
        return None
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{" and text[i - 1] != "\\":
            depth += 1
        elif text[i] == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return None


def table_body(path: Path) -> tuple[str, str | None] | None:
    """The tabular of a Styler.to_latex file and its caption, if any (a table float around
    the tabular is dropped: the report places its own)."""
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    m = re.search(r"\\begin\{(tabular\*?|tabularx)\}.*\\end\{\1\}", text, re.S)
    if m is None:
        raise InputError("results", f"{path}: no tabular environment in the table file")
    cap = text.find("\\caption{")
    caption = _braced(text, cap + len("\\caption")) if cap >= 0 else None
    return m.group(0) + "\n", caption


def includes_tex(results: Path, checks: dict, agg: dict) -> tuple[str, dict[str, str]]:
    """``includes.tex`` (figure bodies and per-result claims paragraphs) and table bodies."""
    results = Path(results)
    lines = ["% generated by privdtol report-assets: do not edit", r"\makeatletter"]
    tables = {}
    for name in RESULTS:
        fig = results / "figures" / f"{name}.pdf"
        body = (rf"\includegraphics[width=\linewidth,height=0.42\textheight,keepaspectratio]"
                rf"{{figures/{name}.pdf}}" if fig.exists()
                else rf"\NotRun{{figure \texttt{{{name}}}: results/figures/{name}.pdf was not "
                     rf"produced by this configuration}}")
        lines.append(rf"\@namedef{{figbody@{name}}}{{{body}}}")
        tab = table_body(results / "tables" / f"{name}.tex")
        if tab is not None and tab[1]:
            lines.append(rf"\@namedef{{tabcaption@{name}}}{{{tab[1]}}}")
        tables[name] = (r"\FitTable{" + tab[0].strip() + "}\n" if tab is not None else
                        rf"\NotRun{{table \texttt{{{name}}}: results/tables/{name}.tex was not "
                        rf"produced by this configuration}}" + "\n")
        exps = RESULT_EXPERIMENTS[name]
        ran = [e for e in exps if e in agg or (results / "agg" / f"{e}.parquet").exists()]
        lines.append(rf"\@namedef{{ran@{name}}}{{{'1' if ran else '0'}}}")
    for exp in (*EXPERIMENTS, "privacy"):
        claims = [c for c, chk in checks.items() if chk and CLAIM_HOME.get(c) == exp
                  and exp in check_experiments(chk)]
        text = " ".join(rf"\ClaimSentence{{{claim_label(c)}}}{{{macro_name(c, '')}}}"
                        for c in claims) or r"No claim check reads this experiment."
        lines.append(rf"\@namedef{{claims@{exp}}}{{{text}}}")
    lines.append(r"\makeatother")
    return "\n".join(lines) + "\n", tables


def failures_tex(checks: dict) -> str:
    items = []
    for claim, check in checks.items():
        if check is None:
            items.append(rf"\item \textbf{{{claim_label(claim)}}} ({tex_escape(CLAIMS[claim])}): "
                         r"\VerdictNotRun. The check was not run, so the claim is neither "
                         "confirmed nor refuted here.")
        elif check["verdict"] != "PASS":
            p = macro_name(claim, "")
            items.append(rf"\item \textbf{{{claim_label(claim)}}} (\{p}Title): \{p}Verdict. "
                         rf"\{p}StatLabel{{}} is \{p}Result{{}} against the threshold "
                         rf"\{p}Threshold. \{p}Summary")
    if not items:
        return r"Every claim that was checked replicated: all verdicts are \VerdictPass." + "\n"
    return "\\begin{itemize}\n" + "\n".join(items) + "\n\\end{itemize}\n"


# ----------------------------------------------------------------------------- driver

def build_assets(config: dict, results: Path, out: Path, config_files=(),
                 repo: Path | None = None) -> list[Path]:
    """Write every generated file of :data:`GENERATED` into ``out``; return their paths."""
    from privdtol.report.provenance import provenance_tex

    results, out = Path(results), Path(out)
    if not results.is_dir():
        raise InputError("results", f"{results} is not a directory", "the results directory")
    checks = load_checks(results)
    agg = load_agg(results)
    includes, tables = includes_tex(results, checks, agg)
    files = {
        "numbers.tex": numbers_tex(checks, agg),
        "verdicts.tex": verdicts_tex(checks),
        "grid.tex": grid_tex(config, agg),
        "thresholds.tex": thresholds_tex(config),
        "algorithms.tex": algorithms_tex(),
        "models.tex": models_tex(),
        "includes.tex": includes,
        "failures.tex": failures_tex(checks),
        "provenance.tex": provenance_tex(config, results, config_files, agg,
                                         repo=repo, total_runs=total_runs(agg)),
        **{f"tab-{name}.tex": body for name, body in tables.items()},
    }
    assert set(files) == set(GENERATED)
    written = []
    for name in GENERATED:
        write_text(out / name, files[name])
        written.append(out / name)
    return written
