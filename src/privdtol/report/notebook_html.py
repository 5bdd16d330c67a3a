"""The HTML page of an executed notebook (``results/notebooks/<name>.html``), self-contained and
offline: nbconvert's JupyterLab page through the ``offline`` template of this package (the lab
template without its CDN scripts: require.js, MathJax, mermaid), figures inline as data URIs,
and every TeX formula of the text turned into MathML at export time
(:func:`privdtol.report.mathml.render_math`).  Nothing on the page is fetched from the network,
so it renders the same on a cluster node, offline, or inside the unpacked run archive.

    python -m privdtol.report.notebook_html NOTEBOOK.ipynb OUT.html
"""

from __future__ import annotations

import argparse
from pathlib import Path

from privdtol.report.latex import write_text
from privdtol.report.mathml import render_math

#: the nbconvert template directory of this package (``offline/``)
TEMPLATES = Path(__file__).parent / "templates" / "nbconvert"


def notebook_html(ipynb: Path) -> str:
    """The offline HTML page of an executed notebook."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="offline", extra_template_basedirs=[str(TEMPLATES)])
    body, _ = exporter.from_filename(str(ipynb))
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
