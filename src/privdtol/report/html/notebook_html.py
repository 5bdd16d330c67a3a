"""The HTML page of an executed notebook (``results/notebooks/<name>.html``), self-contained and
offline: nbconvert's JupyterLab page through the ``offline`` template of this package (the lab
template without its CDN scripts: require.js, MathJax, mermaid), figures inline as data URIs,
and every TeX formula of the text turned into MathML at export time
(:func:`privdtol.report.html.mathml.render_math`).  Nothing on the page is fetched from the network,
so it renders the same on a cluster node, offline, or inside the unpacked run archive.

What a reviewer sees first is the text, the check records and the figures: every code cell's
source is folded in a ``<details>`` element (the template; a button above the notebook
unfolds or folds them all, a few lines of inline script), and the parameters appear once
(:func:`one_parameters_cell`: papermill's injected cell, with the defaults it did not
override, instead of the defaults cell beside it).

    python -m privdtol.report.html.notebook_html NOTEBOOK.ipynb OUT.html
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from privdtol.report.html.mathml import render_math
from privdtol.report.latex.text import write_text

#: the nbconvert template directory of this package (``offline/``)
TEMPLATES = Path(__file__).parent / "templates" / "nbconvert"
#: papermill's tags: the notebook's defaults cell and the cell it inserts after it
DEFAULTS_TAG, INJECTED_TAG = "parameters", "injected-parameters"
#: the comment above the defaults the run did not override, in the merged cell
NOT_OVERRIDDEN = "# the notebook's defaults, not overridden by this run"


def _tagged(nb, tag: str) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if tag in c.get("metadata", {}).get("tags", [])]


def _assigned(stmt: ast.stmt) -> set[str]:
    """The names a top-level statement binds (``a = b = 1``, ``a: int = 1``, ``a, b = ...``)."""
    return {
        n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _not_overridden(defaults: str, injected: set[str]) -> str:
    """The statements of the defaults cell (with the comment lines just above each) that bind
    a name the injected cell does not; "" when the run overrode every one."""
    lines = defaults.splitlines()
    kept, start = [], 0
    for stmt in ast.parse(defaults).body:
        first = stmt.lineno - 1
        while first > start and lines[first - 1].lstrip().startswith("#"):
            first -= 1
        if not _assigned(stmt) <= injected:
            kept.extend(lines[first : stmt.end_lineno])
        start = stmt.end_lineno
    return "\n".join(kept)


def one_parameters_cell(nb):
    """The notebook (nbformat node, changed in place) with its parameters in one cell: when
    papermill injected the run's values (a cell tagged ``injected-parameters``), the defaults
    cell (tagged ``parameters``) is dropped and the defaults that the run did not override are
    appended to the injected cell under :data:`NOT_OVERRIDDEN`, so every value the notebook
    ran with is shown once.  A notebook run without parameters keeps its defaults cell."""
    injected, defaults = _tagged(nb, INJECTED_TAG), _tagged(nb, DEFAULTS_TAG)
    if not injected or not defaults:
        return nb
    cell = nb.cells[injected[0]]
    try:
        names = set().union(*map(_assigned, ast.parse(cell.source).body))
        rest = "\n".join(_not_overridden(nb.cells[i].source, names) for i in defaults).strip()
    except SyntaxError:  # not Python: leave both cells as papermill wrote them
        return nb
    if rest:
        cell.source = f"{cell.source.rstrip()}\n{NOT_OVERRIDDEN}\n{rest}"
    cell.metadata["tags"] = [DEFAULTS_TAG, INJECTED_TAG]
    nb.cells = [c for i, c in enumerate(nb.cells) if i not in defaults]
    return nb


def notebook_html(ipynb: Path) -> str:
    """The offline HTML page of an executed notebook."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = one_parameters_cell(nbformat.read(str(ipynb), as_version=4))
    exporter = HTMLExporter(template_name="offline", extra_template_basedirs=[str(TEMPLATES)])
    body, _ = exporter.from_notebook_node(
        nb, resources={"metadata": {"name": Path(ipynb).stem, "path": str(Path(ipynb).parent)}}
    )
    return render_math(body)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook", type=Path, help="executed notebook (.ipynb)")
    ap.add_argument("out", type=Path, help="HTML page to write")
    args = ap.parse_args(argv)
    if not args.notebook.is_file():
        ap.error(f"notebook: {args.notebook} does not exist (allowed: an executed .ipynb)")
    write_text(args.out, notebook_html(args.notebook))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
