"""The configuration a run used, written once into the run: one source of truth for every job.

Snakemake merges the config files (the Snakefile's ``configfile:``, then every
``--configfile``) and the ``--config KEY=VALUE`` overrides; the workflow validates the result
once at parse time (:func:`privdtol.pipeline.config.load_config`, defaults filled) and writes
it, with what it was made from, into the run (``workflow/rules/common.smk``):

- :data:`MERGED` (``results/config.merged.yaml``): the validated, merged config itself, a
  config file like any other (``privdtol check --config``, ``snakemake --configfile``), which
  every job that reads the config is given instead of the files; its hash
  (``privdtol.archive.layout.config_hash``) names the run archive and is the report's;
- :data:`SOURCES` (``results/config.sources.json``): the config files in merge order with
  their sha256, and every ``--config`` override, which the report's provenance lists.

Both are written by ``privdtol run-config`` (atomically) from what the workflow's parse
computed, so a job never re-reads the config files and never misses an override.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from privdtol.errors import InputError

#: the merged, validated config of the run (a config file)
MERGED = "results/config.merged.yaml"
#: the config files (path, sha256) and the ``--config`` overrides it was merged from
SOURCES = "results/config.sources.json"


def canonical(config: dict) -> dict:
    """``config`` through JSON (tuples as lists, keys as strings): what the file holds."""
    return json.loads(json.dumps(config, sort_keys=True, default=str))


def file_sha256(path) -> str:
    """The sha256 of a file's bytes (hex)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sources_json(files, overrides) -> str:
    """The config files in merge order and the ``--config`` overrides as JSON: the argument
    of ``privdtol run-config --sources`` (the workflow's rule write_config)."""
    record = {"files": [str(f) for f in files], "overrides": canonical(dict(overrides or {}))}
    return json.dumps(record, sort_keys=True)


def sources_record(files, overrides) -> dict:
    """The record of :data:`SOURCES`: each config file with its sha256, in merge order, and
    the overrides (Snakemake's ``--config`` values, as it parsed them)."""
    out = []
    for f in files:
        if not Path(f).is_file():
            raise InputError("config", f"{f} does not exist", "a YAML or JSON file")
        out.append({"path": str(f), "sha256": file_sha256(f)})
    return {"files": out, "overrides": canonical(dict(overrides or {}))}


def write_merged(config: dict, path: str | Path) -> Path:
    """Write the validated ``config`` to ``path`` as YAML (sorted keys, atomically), after
    checking that reading it back gives the same config (the same hash)."""
    import yaml

    from privdtol.pipeline.config import load_config
    from privdtol.pipeline.io import atomic_path

    config = canonical(config)
    text = (
        "# The validated, merged config of this run (config files and --config overrides,\n"
        "# defaults filled), written by privdtol run-config: every job reads this file.\n"
        "# What it was merged from: config.sources.json beside it.\n"
        + yaml.safe_dump(config, sort_keys=True, default_flow_style=False, allow_unicode=True)
    )
    back = load_config(yaml.safe_load(text))
    if canonical(back) != config:  # the same config, hence the same hash
        raise InputError("config", "the merged config does not read back as written", "")
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def write_sources(record: dict, path: str | Path) -> Path:
    """Write the :func:`sources_record` ``record`` to ``path`` (sorted JSON, atomically)."""
    from privdtol.pipeline.io import atomic_path

    if set(record) != {"files", "overrides"}:
        raise InputError("sources", f"keys {sorted(record)}", "files, overrides")
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read_sources(path: str | Path) -> dict:
    """The record of :data:`SOURCES` (one line naming the file when it is not one)."""
    from privdtol.pipeline.io import read_json

    data = read_json(path, "sources")
    ok = (
        isinstance(data, dict)
        and isinstance(data.get("files"), list)
        and isinstance(data.get("overrides"), dict)
        and all(
            isinstance(f, dict)
            and isinstance(f.get("path"), str)
            and isinstance(f.get("sha256"), str)
            for f in data["files"]
        )
    )
    if not ok:
        raise InputError(
            "sources",
            f"{path}: not a config-sources record",
            "{files: [{path, sha256}], overrides: {}}",
        )
    return data


def check_same_run(path: str | Path, files) -> None:
    """Refuse, in one line naming both, a build of the config ``files`` over the results of a
    build of other config files (the record of :data:`SOURCES` at ``path``): its outputs would
    replace the other run's checks, notebooks and report without a word.  The same files with
    other values (an edit, a ``--config`` override) are the same run; so is a build given
    this run's own merged config.  Nothing recorded, nothing to refuse.  The workflow calls it
    before the first job (``onstart``: never in a dry run or for ``--rulegraph``)."""
    path = Path(path)
    files = [str(f) for f in files]
    if not path.is_file() or any(Path(f).as_posix().endswith(MERGED) for f in files):
        return
    try:
        recorded = [f["path"] for f in read_sources(path)["files"]]
    except InputError:  # an unreadable record: the build rewrites it
        return
    if recorded != files:
        results = path.parent
        raise InputError(
            "configfile",
            f"{results}/ holds the build of {' + '.join(recorded) or 'no file'}; this build is "
            f"of {' + '.join(files) or 'no file'}",
            f"the same config files, or move {results}/ and logs/ aside first "
            "(make clean-results deletes them)",
        )


def flat_overrides(overrides: dict, prefix: str = "") -> list[tuple[str, object]]:
    """``{"checks": {"confidence": 0.9}, "runs": 7}`` as ``[("checks.confidence", 0.9),
    ("runs", 7)]`` (sorted), as the provenance lists them."""
    out = []
    for key in sorted(overrides):
        value = overrides[key]
        if isinstance(value, dict) and value:
            out += flat_overrides(value, f"{prefix}{key}.")
        else:
            out.append((f"{prefix}{key}", value))
    return out
