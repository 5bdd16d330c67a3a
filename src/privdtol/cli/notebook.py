"""``privdtol notebook``: a notebook rule's job (``workflow/rules/notebooks.smk``) in one process:
convert the jupytext source, execute it with papermill, strip its timing metadata, write the
executed notebook and its offline HTML page
(:func:`privdtol.report.build.notebook_run.execute_notebook`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from privdtol.errors import InputError


def add_parser(sub):
    p = sub.add_parser(
        "notebook",
        help="execute one jupytext notebook with papermill and export its offline HTML page",
        description="Convert a jupytext (py:percent) notebook, execute it with papermill and "
        "the given parameters, strip timing metadata and write the executed notebook and its "
        "offline HTML page; the converted and the executed copies stay under the log paths.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("source", type=Path, help="the jupytext source (notebooks/<name>.py)")
    p.add_argument(
        "--parameters",
        "-y",
        default="{}",
        metavar="YAML",
        help="papermill parameters as one YAML mapping",
    )
    p.add_argument("--converted", required=True, type=Path, help="the converted .ipynb (log)")
    p.add_argument("--executed", required=True, type=Path, help="papermill's output (log)")
    p.add_argument("--ipynb", required=True, type=Path, help="the executed notebook to write")
    p.add_argument("--html", required=True, type=Path, help="its offline HTML page")
    p.add_argument("--kernel", default="python3", help="the Jupyter kernel")
    p.set_defaults(handler=run_notebook)


def _parameters(text: str) -> dict:
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise InputError("parameters", f"not YAML ({' '.join(str(err).split())[:80]})") from None
    if not isinstance(value, dict):
        raise InputError("parameters", f"{text!r} is not a mapping", "a YAML mapping {name: value}")
    return value


def _check_inputs(parameters: dict, name: str) -> None:
    """The data notebook ``name`` will read, by the pipeline's readers, before papermill starts
    (a defect would otherwise be a papermill traceback of 40 lines): ``agg_dir`` an existing
    directory whose tables of the notebook's experiments (every table, for a notebook the
    registry does not list) keep their contract, and every check record of the registry's
    claims and controls in ``checks_dir`` valid."""
    from pathlib import Path

    from privdtol.analysis.records import load_agg, read_check
    from privdtol.analysis.registry import CLAIMS, NOTEBOOKS, control_id

    agg_dir = parameters.get("agg_dir")
    if agg_dir is not None:
        if not Path(str(agg_dir)).is_dir():
            raise InputError("parameters", f"agg_dir {agg_dir} is not a directory", "results/agg")
        if name in NOTEBOOKS:
            tables = list(NOTEBOOKS[name].experiments)
        else:
            tables = [p.stem for p in sorted(Path(agg_dir).glob("*.parquet"))]
        load_agg(agg_dir, tables, "parameters")
    checks_dir = parameters.get("checks_dir")
    if checks_dir is not None:
        for c in CLAIMS.values():
            for cid in [c.id, *(control_id(c.id, a) for a in c.controls)]:
                try:
                    read_check(Path(str(checks_dir)) / f"{cid}.json")
                except InputError as err:
                    raise InputError(
                        "parameters", f"checks_dir: {err.problem}", err.allowed
                    ) from None


def run_notebook(args) -> int:
    if args.source.suffix != ".py" or not args.source.is_file():
        raise InputError("source", f"{args.source} is not a file", "a jupytext notebook (.py)")
    parameters = _parameters(args.parameters)
    _check_inputs(parameters, args.source.stem)
    from privdtol.report.build.notebook_run import execute_notebook

    execute_notebook(
        args.source,
        parameters,
        converted=args.converted,
        executed=args.executed,
        ipynb=args.ipynb,
        html=args.html,
        kernel=args.kernel,
    )
    return 0
