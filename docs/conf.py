"""Sphinx configuration of the privdtol documentation (MyST Markdown, furo theme).

Build with ``make docs`` (``sphinx-build -W --keep-going -b html docs docs/_build/html``).
Three pieces are generated at build time by the local extension ``_ext/privdtol_docs.py``:
the claims table (from :data:`privdtol.analysis.registry.CLAIMS`), the configuration reference
(from the JSON schema shipped in the package) and the ``privdtol`` command reference (from its
argparse parser).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
# The docs document the package installed in the venv (``pip install -e .``); fall back to the
# source tree so that a plain checkout builds too.
try:
    import privdtol  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, str(HERE.parent / "src"))

project = "privdtol"
author = "privdtol contributors"
copyright = "privdtol contributors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "privdtol_docs",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "show-inheritance": True,
    # document what a module defines, not what it re-exports (the defining module's page has it)
    "ignore-module-all": True,
}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True

html_theme = "furo"
html_title = "privdtol"
html_static_path: list[str] = []
pygments_style = "sphinx"
