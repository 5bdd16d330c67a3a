"""Generated pieces of the LaTeX replication report (``paper/``).

Every number, table and verdict in the report comes from ``results/`` through the files this
module writes into ``results/report/generated/`` (:func:`generated_files`), rendered from the
jinja2 templates of :mod:`privdtol.report.latex.templating` and the tables of
:mod:`privdtol.report.latex.tables`:

- ``numbers.tex``   macros: per claim (``\\CtwoVerdict``, ``\\CtwoStatistic``, ...), per
  experiment (``\\HorizonCells``, ``\\HorizonMaxHorizon``, ...) and overall counts
  (:mod:`privdtol.report.latex.numbers`);
- ``verdicts.tex``  the verdict table, one row per claim of the paper in the registry;
- ``diagnostics.tex`` the diagnostics table: the pipeline's own checks and the exponent fits
  (:attr:`~privdtol.analysis.registry.Claim.diagnostic`), out of the claim count;
- ``cited.tex`` the claims of the cited works: each prior algorithm's own bound
  (:attr:`~privdtol.analysis.registry.Claim.cited`), out of the claim count;
- ``experiment-sections.tex`` one main-text subsection per figure of the main text
  (:mod:`privdtol.analysis.figures`), in figure order: its lead, claims and figure;
  ``evidence-details.tex`` their prose and tables (appendix); ``appendix-sections.tex`` the
  appendix's figures whole (a "not run" box when an input
  is absent, never a LaTeX error);
- ``tab-<table>.tex`` the tabular of ``results/tables/<table>.csv``;
- ``grid.tex``, ``thresholds.tex``  the grid and check settings of the config, with the
  cells actually aggregated;
- ``algorithms.tex`` / ``models.tex``  the registered algorithms and loss models, with sources;
  ``plugins.bib`` the BibTeX entries algorithms declare (a plugin's reference);
- ``failures.tex``  what did not replicate (claims other than PASS, controls not caught),
  each with its cause; ``diagnoses.tex`` their cells and follow-up (appendix);
- ``deviations.tex``  the changes made after first results (the appendix's first section);
- ``findings.tex``  the findings of ``results/findings.json`` (not claims: out of the count);
- ``provenance.tex`` see :mod:`privdtol.report.latex.provenance`.

The claims, their order and the section that discusses each come from
:data:`privdtol.analysis.registry.CLAIMS` and :data:`~privdtol.analysis.registry.NOTEBOOKS`;
the check JSONs give the verdicts and numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

from privdtol.analysis.records import load_agg, load_check
from privdtol.analysis.registry import CLAIMS, FINDINGS, NOTEBOOKS, control_id
from privdtol.errors import InputError
from privdtol.report.figure_order import figure_number, notebooks_in_order
from privdtol.report.latex.claims import (
    cells_tex,
    claim_context,
    claim_prefix,
    control_context,
    deviation_items,
    diagnosis_groups,
    failure_items,
    plugin_failure_items,
    split_claims,
)
from privdtol.report.latex.config_tables import (
    algorithms_bib,
    algorithms_tex,
    bib_keys,
    grid_tex,
    models_tex,
    thresholds_tex,
)
from privdtol.report.latex.findings_prose import (
    finding_label,
    finding_sentence,
    finding_tables,
    page_one_tex,
    verdict_pointer,
)
from privdtol.report.latex.known_truths import battery_tex, by_algorithm_tex
from privdtol.report.latex.layout import TABLES
from privdtol.report.latex.numbers import numbers_tex, regret_experiments, total_runs
from privdtol.report.latex.provenance import provenance
from privdtol.report.latex.robustness import (
    load_multiverse,
    load_out_of_sample,
    load_power,
    multiverse_tex,
    power_tex,
)
from privdtol.report.latex.tables import (
    MAX_ROWS,
    WIDE_LONGTABLE,
    constants_sentence,
    read_table,
    result_table_file,
    shape_table,
    verdict_table,
)
from privdtol.report.latex.templating import fill_template
from privdtol.report.latex.text import (
    TeX,
    tex_escape,
    write_text,
)


def result_tables() -> list[str]:
    """Every table of every notebook, in section order."""
    return [t for n in notebooks_in_order() for t in NOTEBOOKS[n].tables]


def generated_files() -> list[str]:
    """The names of the files :func:`build_assets` writes."""
    return [
        "numbers.tex",
        "verdicts.tex",
        "diagnostics.tex",
        "cited.tex",
        "claims.tex",
        "summary-findings.tex",
        "power.tex",
        "multiverse.tex",
        "battery.tex",
        "by-algorithm.tex",
        "cells.tex",
        "appendix-tables.tex",
        "experiment-sections.tex",
        "evidence-details.tex",
        "appendix-sections.tex",
        "grid.tex",
        "thresholds.tex",
        "algorithms.tex",
        "models.tex",
        "failures.tex",
        "diagnoses.tex",
        "deviations.tex",
        "findings.tex",
        "provenance.tex",
        "plugins.bib",
        *(f"tab-{t}.tex" for t in result_tables()),
    ]


__all__ = ["build_assets", "claim_prefix", "generated_files"]


# ----------------------------------------------------------------------------- inputs


def load_checks(results: Path) -> dict[str, dict | None]:
    """Every registered claim's check, or None when ``results/checks/<claim>.json`` does not
    exist."""
    out = {}
    for claim in CLAIMS:
        path = Path(results) / "checks" / f"{claim}.json"
        out[claim] = load_check(path) if path.exists() else None
    return out


def load_controls(results: Path) -> list[tuple[str, str, dict]]:
    """The negative-control records ``results/checks/<claim>--<control>.json`` that exist, as
    ``(claim, control, record)`` in registry order."""
    out = []
    for claim in CLAIMS.values():
        for ctrl in claim.controls:
            path = Path(results) / "checks" / f"{control_id(claim.id, ctrl)}.json"
            if path.exists():
                out.append((claim.id, ctrl, load_check(path)))
    return out


def load_findings(results: Path) -> dict | None:
    """``results/findings.json``, or None when absent."""
    path = Path(results) / "findings.json"
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise InputError("results", f"{path}: not readable JSON ({err})") from None


def findings_tex(found: dict | None) -> str:
    """The findings section's body: one item per finding of the registry, a sentence from its
    numbers."""
    if found is None:
        return "\\NotRun{no findings in this run (results/findings.json absent)}\n"
    lines = ["\\begin{itemize}"]
    for fid in FINDINGS:
        text = finding_sentence(fid, found) or "not available in this run."
        lines.append(rf"\item \textbf{{{finding_label(fid)}.}} {text}")
    lines.append("\\end{itemize}")
    lines += finding_tables(found)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- sections


def table_context(results: Path, name: str, notebook: str) -> dict:
    """How one notebook table is placed: main text (at most :data:`MAX_ROWS` rows) or the
    appendix, its caption with the constant columns, its CSV."""
    path = results / "tables" / f"{name}.csv"
    ctx = {
        "name": name,
        "notebook": notebook,
        "caption": TeX(TABLES[name].caption),
        "has_data": path.exists(),
        "csv": f"tables/{name}.csv",
        "csv_href": f"../tables/{name}.csv",
        "constants": TeX(""),
        "rows": 0,
        "appendix": False,
        "landscape": False,
    }
    if path.exists():
        shown, const = shape_table(read_table(path), name)
        source = read_table(path)
        ctx.update(
            constants=constants_sentence(source, const),
            rows=len(shown),
            # a table of many columns, shrunk to the main text's line, is illegible: in the
            # appendix, on a landscape page (wider than a portrait page even in \scriptsize)
            appendix=len(shown) > MAX_ROWS or len(shown.columns) >= WIDE_LONGTABLE,
            landscape=len(shown.columns) >= WIDE_LONGTABLE,
        )
    return ctx


def sections_context(
    results: Path, claims: dict[str, dict], found: dict | None, paper: Path = Path("paper")
) -> list[dict]:
    """One entry per notebook, in figure order: title, figure, caption with its takeaway,
    claims and tables, and whether its prose exists (found by the figure's name in ``paper``:
    ``sections/lead/<name>.tex``, the main text's lead, and ``sections/experiments/<name>.tex``,
    the section's prose; a figure may have neither)."""
    out = []
    for name in notebooks_in_order():
        nb = NOTEBOOKS[name]
        out.append(
            {
                "name": name,
                "figure": figure_number(name),
                "appendix": nb.appendix,
                "lead": (paper / "sections" / "lead" / f"{name}.tex").exists(),
                "prose": (paper / "sections" / "experiments" / f"{name}.tex").exists(),
                "title": TeX(nb.title),
                "caption": TeX(nb.caption),
                "pointer": verdict_pointer(name),
                "has_figure": (results / "figures" / f"{name}.pdf").exists(),
                "claims": [claims[c.id] for c in CLAIMS.values() if c.notebook == name],
                "tables": [table_context(results, t, name) for t in nb.tables],
            }
        )
    return out


def table_files(results: Path, sections: list[dict]) -> dict[str, str]:
    """``tab-<table>.tex`` for every table: its tabular (a longtable with its caption for the
    appendix), or a comment when it is absent."""
    out = {}
    for t in (t for s in sections for t in s["tables"]):
        path = results / "tables" / f"{t['name']}.csv"
        if not path.exists():
            out[f"tab-{t['name']}.tex"] = f"% {path.name} was not produced by this configuration\n"
            continue
        longtable = None
        if t["appendix"]:
            caption = TeX(
                f"{t['caption']}{t['constants']} Data: \\href{{{t['csv_href']}}}"
                f"{{\\texttt{{{tex_escape(t['csv'])}}}}}.\\NotebookLinks{{{t['notebook']}}}"
            )
            longtable = {"caption": caption, "label": f"tab:{t['name']}"}
        out[f"tab-{t['name']}.tex"] = result_table_file(path, t["name"], longtable)
    return out


# ----------------------------------------------------------------------------- driver


def build_assets(
    config: dict,
    results: Path,
    out: Path,
    config_files=(),
    repo: Path | None = None,
    sources: dict | None = None,
) -> list[Path]:
    """Write every generated file of :func:`generated_files` into ``out``; return their
    paths.  Nothing is written when an input is defective (one InputError line).  The
    aggregated tables are read from the config's ``agg_dir`` (relative to the working
    directory, as every job reads it); ``sources`` (:mod:`privdtol.pipeline.run_config`): the
    files and overrides the config was merged from, for the provenance."""
    results, out = Path(results), Path(out)
    if not results.is_dir():
        raise InputError("results", f"{results} is not a directory", "the results directory")
    checks = load_checks(results)
    agg = load_agg(Path(config["agg_dir"]), regret_experiments(), field="results")
    found = load_findings(results)
    claims = {c: claim_context(c, check) for c, check in checks.items()}
    rows = list(claims.values())
    control_records = load_controls(results)
    controls = [control_context(c, a, rec) for c, a, rec in control_records]
    records = {**checks, **{control_id(c, a): rec for c, a, rec in control_records}}
    first_quote: dict = {}
    for c in rows:
        c["controls"] = [k for k in controls if k["id"].startswith(f"{c['id']}--")]
        c["quote_of"] = first_quote.setdefault(c["quote"], c["id"])
        c["diagnostic_of"] = first_quote.setdefault(("diagnostic", c["diagnostic"]), c["id"])
    sections = sections_context(results, claims, found, Path(repo or ".") / "paper")
    multiverse = load_multiverse(results)
    held_out = load_out_of_sample(results)
    main = [s for s in sections if not s["appendix"]]
    failures = failure_items(rows, controls, records)
    plugins = plugin_failure_items(config["agg_dir"])  # the plugins whose cells failed
    files = {
        "numbers.tex": numbers_tex(rows, agg, controls),
        "verdicts.tex": verdict_table(split_claims(rows)[0], multiverse, held_out),
        "diagnostics.tex": verdict_table(split_claims(rows)[1], multiverse, held_out),
        "cited.tex": verdict_table(split_claims(rows)[2], multiverse, held_out),
        "claims.tex": fill_template("claims.tex.j2", claims=rows),
        "summary-findings.tex": page_one_tex(found, checks),
        "power.tex": power_tex(load_power(results)),
        "multiverse.tex": multiverse_tex(multiverse),
        "battery.tex": battery_tex(results),
        "by-algorithm.tex": by_algorithm_tex(results),
        "cells.tex": cells_tex(rows, checks, agg),
        "appendix-tables.tex": fill_template(
            "appendix-tables.tex.j2",
            tables=[t for s in sections for t in s["tables"] if t["appendix"]],
        ),
        "findings.tex": findings_tex(found),
        "experiment-sections.tex": fill_template(
            "experiment-sections.tex.j2", sections=main, mode="main"
        ),
        "evidence-details.tex": fill_template(
            "experiment-sections.tex.j2", sections=main, mode="details"
        ),
        "appendix-sections.tex": fill_template(
            "experiment-sections.tex.j2",
            sections=[s for s in sections if s["appendix"]],
            mode="full",
        ),
        "grid.tex": grid_tex(config, agg),
        "thresholds.tex": thresholds_tex(config),
        "algorithms.tex": algorithms_tex(),
        "plugins.bib": algorithms_bib(bib_keys(Path(repo or ".") / "paper" / "references.bib")),
        "models.tex": models_tex(),
        "failures.tex": fill_template(
            "failures.tex.j2", items=failures, plugins=plugins, mode="main"
        ),
        "diagnoses.tex": fill_template(
            "failures.tex.j2",
            items=failures,
            plugins=plugins,
            groups=diagnosis_groups(failures),
            mode="details",
        ),
        "deviations.tex": fill_template("deviations.tex.j2", deviations=deviation_items()),
        "provenance.tex": fill_template(
            "provenance.tex.j2",
            **provenance(
                config,
                results,
                config_files,
                len(agg),
                total_runs(agg),
                repo=repo,
                sources=sources,
            ),
        ),
        **table_files(results, sections),
    }
    names = generated_files()
    assert set(files) == set(names)
    written = []
    for name in names:
        write_text(out / name, files[name])
        written.append(out / name)
    return written
