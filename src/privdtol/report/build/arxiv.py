"""The submission export of the replication report: one tar.gz that arXiv (or a journal)
compiles with pdflatex alone.

What goes in is exactly what pdflatex read when the report was compiled, taken from the
recorder file latexmk leaves beside the PDF (``<job>.fls``): the hand-written sources of
``paper/``, the generated pieces of ``results/report/generated`` (numbers, tables, sections,
the rule graph), the figures as PDF and the ``.bbl`` (arXiv does not run bibtex).  Each file
is stored under the name the sources use for it, relative to the TEXINPUTS directory it was
found in (``sections/summary.tex``, ``numbers.tex``, ``figures/horizon.pdf``), so the
archive compiles from its own top directory without TEXINPUTS.  Nothing of the TeX
installation, no auxiliary file that pdflatex rewrites (``.aux``, ``.out``, ``.toc``), no
data (CSV, Parquet, JSON) and no absolute path goes in; the archive is deterministic (sorted
members, one modification time, no owner names).
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path

from privdtol.errors import InputError
from privdtol.pipeline.io import atomic_path

#: the kinds of file a submission holds: LaTeX sources, the bibliography and PDF figures
ALLOWED_SUFFIXES = (".tex", ".bbl", ".pdf")


def _read_inputs(fls: Path) -> tuple[Path, list[Path]]:
    """The directory pdflatex ran in (``PWD``) and the files it read (``INPUT`` lines of a
    recorder file), absolute, in order."""
    pwd = None
    out: list[Path] = []
    for line in fls.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("PWD "):
            pwd = Path(line[4:].strip())
        elif line.startswith("INPUT "):
            path = Path(line[6:].strip())
            if not path.is_absolute():
                if pwd is None:
                    raise InputError("fls", f"{fls}: INPUT before PWD", "a pdflatex recorder file")
                path = pwd / path
            path = Path(os.path.normpath(path))
            if path not in out:
                out.append(path)
    if pwd is None:
        raise InputError("fls", f"{fls}: no PWD line", "a pdflatex recorder file")
    return pwd, out


def submission_members(fls: Path, tex: Path, generated: Path, results: Path) -> dict[str, Path]:
    """Archive name -> file for every file of the report that pdflatex read (recorder file
    ``fls``): sources under ``tex``'s directory, ``generated`` or ``results`` (named relative
    to the innermost of them), the job's ``.bbl`` at the top; the job's other auxiliary
    files and everything outside those directories (the TeX installation) are left out.

    latexmk ran pdflatex in ``tex``'s directory (its ``-cd``), which the recorder file names;
    a checkout or results tree moved or copied since then (the paths in the file are
    absolute) is found again through the same layout relative to that directory."""
    tex = Path(tex).resolve()
    job = Path(fls).stem
    outdir = Path(fls).resolve().parent
    pwd, inputs = _read_inputs(Path(fls))

    def then(now: Path) -> Path:  # where a directory was when pdflatex ran
        return Path(os.path.normpath(pwd / os.path.relpath(now, tex.parent)))

    roots = sorted(
        {Path(p).resolve() for p in (tex.parent, generated, results)},
        key=lambda p: len(p.parts),
        reverse=True,
    )
    members: dict[str, Path] = {}
    for path in inputs:
        if path.parent in (outdir, then(outdir)) and path.stem == job:
            if path.suffix == ".bbl":
                members[f"{tex.stem}.bbl"] = outdir / path.name
            continue  # .aux, .out, .toc: pdflatex writes them itself
        found = next(
            ((r, base) for r in roots for base in (r, then(r)) if path.is_relative_to(base)), None
        )
        if found is None:
            continue  # the TeX installation
        root, base = found
        name = path.relative_to(base).as_posix()
        if path.suffix not in ALLOWED_SUFFIXES:
            raise InputError(
                "report",
                f"{path}: pdflatex read a {path.suffix or 'suffix-less'} file",
                "the report's sources are .tex, .bbl and PDF figures only",
            )
        members.setdefault(name, root / name)
    if f"{tex.stem}.tex" not in members:
        raise InputError("fls", f"{fls} does not record {tex.name}", "the report's recorder file")
    if f"{tex.stem}.bbl" not in members:
        raise InputError("fls", f"{fls} records no {job}.bbl", "a report compiled with bibtex")
    missing = [name for name, f in members.items() if not f.is_file()]
    if missing:
        raise InputError("fls", f"{fls}: {missing[0]} no longer exists", "a current build")
    return dict(sorted(members.items()))


def write_submission(members: dict[str, Path], out: Path, mtime: int = 0) -> Path:
    """Write ``members`` (archive name -> file) as a deterministic tar.gz ``out``: sorted,
    every member dated ``mtime``, owned by uid/gid 0 without names, mode 0644; the gzip
    header carries no name and no time."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(members):
            data = Path(members[name]).read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = int(mtime)
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = Path(out)
    with (
        atomic_path(out) as tmp,
        open(tmp, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz,
    ):
        gz.write(buf.getvalue())
    return out
