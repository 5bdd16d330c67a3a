"""The index of the executed notebooks (``results/notebooks/index.html``): every notebook of
the registry in figure order, with its figure number (the report's), the claims it shows and
their verdicts from the check records (controls under their claim), its link and the rule that
rebuilds it; links to the report and the explorer.  The pipeline's diagnostics (engine
agreement C0, the exponent fits C4a-C4c: :func:`privdtol.analysis.registry.diagnostics`) are
marked as diagnostics, not claims, with the reason the registry gives, as the report's verdict
and diagnostics tables split them.  Self-contained and offline: the titles'
TeX is MathML (:mod:`privdtol.report.html.mathml`), no script.

    python -m privdtol.report.html.notebook_index --results results \
        --out results/notebooks/index.html
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jinja2

from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, NOTEBOOKS, control_id
from privdtol.errors import InputError
from privdtol.report.figure_order import figure_anchor, figure_number, notebooks_in_order
from privdtol.report.html.mathml import text_to_html
from privdtol.report.latex.text import write_text
from privdtol.report.notebook.narrative import read_record


def index_context(results: Path) -> list[dict]:
    checks = Path(results) / "checks"
    out = []
    for name in notebooks_in_order():
        claims = []
        for c in (c for c in CLAIMS.values() if c.notebook == name):
            record = read_record(checks / f"{c.id}.json")
            controls = []
            for ctrl in c.controls:
                rec = read_record(checks / f"{control_id(c.id, ctrl)}.json")
                if rec is not None:
                    controls.append({"name": ctrl, "verdict": rec["verdict"]})
            title = CLAIMS_TEX[c.id].title if c.id in CLAIMS_TEX else c.title
            claims.append(
                {
                    "id": c.id,
                    "title": title,
                    "verdict": record["verdict"] if record else None,
                    "controls": controls,
                    "diagnostic": c.diagnostic,
                    "cited": c.cited,
                }
            )
        html = Path(results) / "notebooks" / f"{name}.html"
        out.append(
            {
                "name": name,
                "figure": figure_number(name),
                "anchor": figure_anchor(name),
                "title": NOTEBOOKS[name].title,
                "html": f"{name}.html" if html.exists() else None,
                "claims": claims,
            }
        )
    return out


def render_index(results: Path) -> str:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("privdtol.report.html", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["tex"] = text_to_html
    return env.get_template("notebook-index.html.j2").render(
        notebooks=index_context(results),
        report_href="../report/replication_report.pdf",
        explorer_href="../explorer/index.html",
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--out", default="results/notebooks/index.html")
    args = ap.parse_args(argv)
    try:  # a bad record: one line naming it, and the old index left as it was
        page = render_index(Path(args.results))
    except InputError as err:
        print(f"notebook_index: error: {err}", file=sys.stderr)
        return 2
    write_text(Path(args.out), page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
