"""Post-processing of executed notebooks so that identical runs give identical files.

papermill stamps start/end times and durations into the notebook and each cell, and the kernel
records execution timestamps; :func:`strip_notebook_metadata` removes them (and normalises the
papermill input/output paths, which point to build locations, and replaces the random cell ids
that jupytext and papermill draw by ``cell-<index>``), so a rerun diffs clean.

:func:`execute_notebook` is a notebook rule's whole job in one process (``privdtol notebook``,
``workflow/rules/notebooks.smk``): the jupytext source converted (its title numbered,
:func:`number_title`), executed by papermill with the rule's parameters, stripped, copied to
the results and exported to its offline HTML page.  One process instead of four (jupytext,
papermill, this module, the HTML export) saves their start-up (about 3 s a notebook,
``docs/performance.md``).

Command line::

    python -m privdtol.report.build.notebook_run strip NOTEBOOK.ipynb [...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from privdtol.pipeline.io import atomic_path

_TIMING = ("start_time", "end_time", "duration")


def strip_metadata(nb: dict) -> dict:
    """Remove timing metadata from a notebook dict (in place) and return it."""
    meta = nb.setdefault("metadata", {})
    pm = meta.get("papermill")
    if isinstance(pm, dict):
        for key in _TIMING:
            pm.pop(key, None)
        for key in ("input_path", "output_path"):
            if pm.get(key):
                pm[key] = Path(pm[key]).name
        pm.pop("environment_variables", None)
    for i, cell in enumerate(nb.get("cells", [])):
        if "id" in cell:
            cell["id"] = f"cell-{i}"  # jupytext and papermill draw random ids
        cmeta = cell.get("metadata", {})
        cmeta.pop("execution", None)
        cpm = cmeta.get("papermill")
        if isinstance(cpm, dict):
            for key in _TIMING:
                cpm.pop(key, None)
    return nb


def fold_defaults_cell(nb: dict) -> dict:
    """Fold (JupyterLab's ``jupyter.source_hidden``) the defaults cell, tagged ``parameters``,
    of a notebook papermill injected parameters into (in place), so that the ``.ipynb`` opens
    with the run's values in view once; the HTML page merges the two cells
    (:func:`privdtol.report.html.notebook_html.one_parameters_cell`)."""
    cells = nb.get("cells", [])
    tags = [c.get("metadata", {}).get("tags", []) for c in cells]
    if any("injected-parameters" in t for t in tags):
        for cell, t in zip(cells, tags, strict=True):
            if "parameters" in t and "injected-parameters" not in t:
                cell.setdefault("metadata", {}).setdefault("jupyter", {})["source_hidden"] = True
    return nb


def strip_notebook_metadata(path: str | Path) -> Path:
    """Strip timing metadata from the notebook file at ``path`` and fold its defaults cell
    (:func:`fold_defaults_cell`), rewriting it atomically with a fixed JSON layout (nbformat's:
    indent 1, sorted keys, trailing newline)."""
    path = Path(path)
    nb = json.loads(path.read_text(encoding="utf-8"))
    fold_defaults_cell(strip_metadata(nb))
    text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def execute_notebook(
    source: str | Path,
    parameters: dict,
    *,
    converted: str | Path,
    executed: str | Path,
    ipynb: str | Path,
    html: str | Path,
    kernel: str = "python3",
) -> None:
    """Run the jupytext ``source`` with papermill ``parameters`` and write its results.

    ``converted`` (the .ipynb given to papermill) and ``executed`` (papermill's output, saved
    after every cell) are the debugging copies under ``logs/``; only a notebook that ran to
    its end is stripped (:func:`strip_metadata`) and written to ``ipynb`` and its offline page
    to ``html`` (:func:`privdtol.report.html.notebook_html.notebook_html`), each atomically, so a
    notebook that raises leaves no result behind.  papermill's error propagates."""
    import nbformat
    import papermill

    from privdtol.report.latex.text import write_text
    from privdtol.report.html.notebook_html import notebook_html

    nb = read_source(source)
    Path(converted).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(converted))
    check_parameters(source, parameters, declared_parameters(nb))
    papermill.execute_notebook(
        str(converted),
        str(executed),
        parameters=parameters,
        kernel_name=kernel,
        language="python",  # the notebooks are Python (a source without a header has none)
        progress_bar=False,
    )
    strip_notebook_metadata(executed)
    text = Path(executed).read_text(encoding="utf-8")
    with atomic_path(ipynb) as tmp:
        tmp.write_text(text, encoding="utf-8")
    write_text(html, notebook_html(Path(ipynb)))


#: the title of a figure's notebook in its source: its number is its place in the report,
#: filled when the notebook is run (:func:`number_title`), never written by hand
TITLE_PREFIX = "# Figure — "


def number_title(nb, name: str):
    """Number the title of notebook ``name`` (in place; returned): a first Markdown cell that
    starts with :data:`TITLE_PREFIX` gets the figure's number
    (:func:`privdtol.report.figure_order.figure_number`) after "Figure"; a notebook
    without that title is left as it is."""
    cells = nb.get("cells", [])
    if cells and cells[0].get("cell_type") == "markdown":
        source = cells[0]["source"]
        if source.startswith(TITLE_PREFIX):
            from privdtol.report.figure_order import figure_number

            number = f"# Figure {figure_number(name)} — "
            cells[0]["source"] = number + source[len(TITLE_PREFIX) :]
    return nb


def read_source(source: str | Path):
    """The jupytext notebook ``source`` (``notebooks/<name>.py``) as a notebook, its title
    numbered (:func:`number_title`): what papermill runs."""
    import jupytext

    return number_title(jupytext.read(str(source)), Path(source).stem)


#: the parameters every notebook rule passes (notebooks.smk, :func:`notebook_parameters`)
RULE_PARAMETERS = ("agg_dir", "checks_dir", "out_dir", "thresholds")


def notebook_parameters(name: str, checks: dict, **paths: str) -> dict:
    """The parameters the notebook rule of notebook ``name`` passes: the directories ``paths``
    (agg_dir, checks_dir, out_dir) and ``thresholds``, the values in the config's ``checks``
    block of the keys its claims use (:func:`privdtol.analysis.registry.notebook_thresholds`)."""
    from privdtol.analysis.registry import notebook_thresholds

    if set(paths) != set(RULE_PARAMETERS) - {"thresholds"}:
        raise ValueError(f"paths: got {sorted(paths)}, need agg_dir, checks_dir, out_dir")
    return {**paths, "thresholds": {k: checks[k] for k in notebook_thresholds(name)}}


def declared_parameters(nb) -> dict:
    """The names (and default sources) of the parameters of a notebook's first cell tagged
    ``parameters``, as papermill's Python translator reads them ({} without such a cell)."""
    from papermill.translators import PythonTranslator

    for cell in nb.get("cells", []):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            return {p.name: p.default for p in PythonTranslator.inspect(cell)}
    return {}


def check_parameters(source, parameters: dict, declared: dict) -> None:
    """Refuse, in one line, parameters that the notebook's ``parameters`` cell does not
    declare (papermill would only log "Passed unknown parameter" and the figure would silently
    ignore the value)."""
    from privdtol.errors import InputError

    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise InputError(
            "parameters",
            f"{source} does not declare {', '.join(unknown)} in its parameters cell",
            ", ".join(sorted(declared)) or "none declared",
        )


def papermill_parameters(*mappings: dict) -> str:
    """Merge parameter mappings into one YAML flow mapping for ``papermill -y`` (sorted keys,
    tuples as lists, one line)."""
    import yaml

    values = {}
    for m in mappings:
        values.update({k: list(v) if isinstance(v, tuple) else v for k, v in m.items()})
    return yaml.safe_dump(values, default_flow_style=True, width=10**6, sort_keys=True).strip()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or argv[0] != "strip":
        print(
            "usage: python -m privdtol.report.build.notebook_run strip NOTEBOOK.ipynb [...]",
            file=sys.stderr,
        )
        return 2
    for p in argv[1:]:
        strip_notebook_metadata(p)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
