"""The release: references, text that survives copy and paste, the arXiv export, and the
metadata that cites and lists the workflow.

The fast tests read the metadata files and compile a one-page document with the report's
preamble; the slow ones read the smoke build of tests/conftest.py (``smoke_run``), run
``snakemake arxiv`` in it (seconds: the report is already built) and compile the tarball twice
with pdflatex in an empty directory without network (about 20 s).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import tomllib
from importlib import metadata
from pathlib import Path

import jsonschema
import pytest
import yaml
from support.paths import ROOT
from support.workflow import copy_build, run_snakemake

from privdtol.report.build.compile import log_problems
from privdtol.report.latex.text import _MATH, _UTF8_TEXT, tex_escape

#: the Citation File Format's own schema (version 1.2.0, CC-BY-4.0, as shipped in the
#: cffconvert 2.0.0 wheel on PyPI; cffconvert itself pins jsonschema < 4, which the pipeline's
#: snakemake cannot use, so the schema is checked here with jsonschema)
CFF_SCHEMA = ROOT / "tests" / "data" / "citation-file-format-1.2.0.schema.json"


KEEP_A_CHANGELOG_TYPES = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


needs_tex = pytest.mark.skipif(
    not (shutil.which("pdflatex") and shutil.which("pdftotext")),
    reason="pdflatex and pdftotext (make setup) are needed",
)


def pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def cff_errors(cff: dict) -> list[str]:
    schema = json.loads(CFF_SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    return [e.message for e in validator.iter_errors(cff)]


def test_citation_cff_is_valid_and_its_validation_can_fail():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff_errors(cff) == []
    assert cff["cff-version"] == "1.2.0"
    # "cite this repository" gives the replication itself (no preferred-citation), at its
    # version; the replicated paper is its first reference
    assert "preferred-citation" not in cff and cff["type"] == "software" and cff["version"]
    assert "arXiv:2605.29148" in json.dumps(cff["references"][0])
    # negative controls: the same file with a required key missing, a bad date, an unknown key
    for broken in (
        {k: v for k, v in cff.items() if k != "authors"},
        {**cff, "date-released": "1 December 2026"},
        {**cff, "citation": "x"},
    ):
        assert cff_errors(broken), broken.keys()


def test_citation_cites_the_replication_at_pyproject_s_version_and_repository():
    """ "Cite this repository" gives the replication: CITATION.cff is the software, at
    pyproject's version, its repository the one pyproject's ``project.urls`` names (none named:
    none cited), and the replicated paper is a reference, not the preferred citation."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["type"] == "software" and cff["version"] == project["version"]
    assert cff["title"].startswith(f"{project['name']}: a replication of ")
    urls = project.get("urls", {})
    repository = next((urls[k] for k in ("Repository", "Source", "Homepage") if k in urls), None)
    assert cff.get("repository-code") == repository
    paper = cff["references"][0]
    assert paper["url"] == "https://arxiv.org/abs/2605.29148" and "preferred-citation" not in cff


def test_one_version_number_everywhere():
    version = pyproject_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert metadata.version("privdtol") == version  # what the report's provenance reads
    assert yaml.safe_load((ROOT / "CITATION.cff").read_text())["version"] == version
    zenodo = json.loads((ROOT / ".zenodo.json").read_text())
    assert zenodo["version"] == version and zenodo["upload_type"] == "software"
    releases = re.findall(
        r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", (ROOT / "CHANGELOG.md").read_text(), re.M
    )
    assert releases and releases[0][0] == version
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert releases[0][1] == str(cff["date-released"]) == zenodo["publication_date"]
    import privdtol

    assert privdtol.__version__ == version


def test_provenance_shows_the_version(tmp_path):
    from privdtol.pipeline.config import load_config_files
    from privdtol.report.latex.provenance import provenance

    smoke = ROOT / "config" / "smoke.yaml"
    ctx = provenance(load_config_files([str(smoke)]), tmp_path, [str(smoke)], 0, 0, repo=ROOT)
    assert ctx["version"] == pyproject_version()
    assert (ROOT / "src/privdtol/report/latex/templates/provenance.tex.j2").read_text().count(
        r"\newcommand{\PrivdtolVersion}{\VAR{version}}"
    ) == 1
    assert r"\PrivdtolVersion" in (ROOT / "paper" / "replication_report.tex").read_text()


def changelog_problems(text: str) -> list[str]:
    """Departures from Keep a Changelog 1.1.0: a title, an Unreleased section first, releases
    as ``## [x.y.z] - YYYY-MM-DD`` newest first, change types from the six it names."""
    problems = []
    if not text.startswith("# Changelog\n"):
        problems.append("no '# Changelog' title")
    if "keepachangelog.com" not in text:
        problems.append("does not say it follows Keep a Changelog")
    sections = re.findall(r"^## (.*)$", text, re.M)
    if not sections or sections[0] != "[Unreleased]":
        problems.append("first section is not [Unreleased]")
    versions = []
    for s in sections[1:]:
        m = re.fullmatch(r"\[(\d+)\.(\d+)\.(\d+)\] - \d{4}-\d{2}-\d{2}", s)
        if not m:
            problems.append(f"release heading {s!r}")
        else:
            versions.append(tuple(map(int, m.groups())))
    if versions != sorted(versions, reverse=True):
        problems.append("releases not newest first")
    problems += [
        f"change type {t!r}"
        for t in re.findall(r"^### (.*)$", text, re.M)
        if t not in KEEP_A_CHANGELOG_TYPES
    ]
    # what changed for users, not a log of measurements (those live in docs/performance.md)
    problems += [
        f"heading {h!r} below a change type" for h in re.findall(r"^####+ (.*)$", text, re.M)
    ]
    return problems


def test_changelog_follows_keep_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert changelog_problems(text) == []
    # negative controls
    assert changelog_problems(text.replace("## [Unreleased]\n", ""))
    assert changelog_problems(text.replace("### Added", "### New stuff"))
    assert changelog_problems(text.replace("## [0.1.0] - 2026-12-01", "## 0.1.0 (December)"))
    assert changelog_problems(text + "\n#### Performance history\n\n| run | 7 min |\n")


def repeated_measurements(markdown: str) -> list[str]:
    """Rows of a markdown table whose first cell (the measurement) repeats an earlier row of
    the same table, or whose cells name more than one commit."""
    out = []
    for table in re.split(r"\n\s*\n", markdown):
        rows = [ln for ln in table.splitlines() if ln.startswith("|") and not ln.startswith("|--")]
        rows = [r for r in rows if not re.fullmatch(r"\|[-| :]+\|", r)]
        seen = set()
        for row in rows[1:]:  # rows[0] is the header
            cells = [c.strip() for c in row.strip("|").split("|")]
            key = " | ".join(cells[:6]) if len(cells) > 6 else cells[0]
            commits = re.findall(r"\bcommits? ([0-9a-f]{7})(?:, ([0-9a-f]{7}))?", row)
            if key in seen or any(b for _, b in commits):
                out.append(row)
            seen.add(key)
    return out


def test_performance_page_keeps_one_current_figure_per_measurement():
    text = (ROOT / "docs" / "performance.md").read_text()
    assert repeated_measurements(text) == []
    assert "CHANGELOG.md" in text or "changelog" in text
    # negative control: the page as it was, a history log (the same measurement at many commits)
    old = """| command | wall time | measured |
|---|---|---|
| `make test` (fresh clone) | 16 min 42 s | commit f245902 |
| `make test` (fresh clone) | 13 min 38 s | commit e99b9c9 |
| `make docs` | 28 s (28c48b2); 31 s (ccd74aa) | commits 28c48b2, ccd74aa |
"""
    assert len(repeated_measurements(old)) == 2


def test_catalog_files_describe_the_workflow():
    catalog = yaml.safe_load((ROOT / ".snakemake-workflow-catalog.yml").read_text())
    usage = catalog["usage"]
    assert set(usage) == {"mandatory-flags", "software-stack-deployment", "report"}
    assert usage["mandatory-flags"]["desc"] and "--cores" in usage["mandatory-flags"]["flags"]
    assert any(usage["software-stack-deployment"].values())
    readme = (ROOT / "config" / "README.md").read_text()
    for config in sorted((ROOT / "config").glob("*.yaml")):
        assert f"config/{config.name}" in readme, f"config/README.md misses {config.name}"
    for section in yaml.safe_load((ROOT / "config" / "config.yaml").read_text()):
        assert f"`{section}`" in readme, f"config/README.md does not document {section!r}"


PREAMBLE_DOC = r"""\documentclass{article}
\input{preamble}
\begin{document}
%s
\end{document}
"""


def compile_snippet(tmp_path: Path, body: str, preamble: str) -> str:
    """pdflatex once on a document with ``preamble``; the text pdftotext extracts."""
    (tmp_path / "preamble.tex").write_text(preamble, encoding="utf-8")
    (tmp_path / "doc.tex").write_text(PREAMBLE_DOC % body, encoding="utf-8")
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
    )
    log = (tmp_path / "doc.log").read_text(encoding="latin-1")
    assert proc.returncode == 0, log[-2000:]
    assert [p for p in log_problems(log) if "Missing character" in p] == []
    subprocess.run(["pdftotext", "-enc", "UTF-8", "doc.pdf", "doc.txt"], cwd=tmp_path, check=True)
    return " ".join((tmp_path / "doc.txt").read_text(encoding="utf-8").split())


@needs_tex
def test_t1_fonts_keep_underscores_and_accents(tmp_path):
    """The report's preamble: every character tex_escape passes through as UTF-8 or maps to
    math compiles, and code names and accented names come back out of the PDF as typed."""
    preamble = (ROOT / "paper" / "preamble.tex").read_text(encoding="utf-8")
    every = tex_escape("".join(sorted(_UTF8_TEXT | set(_MATH))))
    code, name = tex_escape("rps_eta_logk"), tex_escape("Gaïffas")
    body = rf"\texttt{{{code}}} {code} Mourtada and {name}. {every}"
    (tmp_path / "t1").mkdir()
    text = compile_snippet(tmp_path / "t1", body, preamble)
    assert text.count("rps_eta_logk") == 2
    assert "Gaïffas" in text
    # negative control: the same document in the OT1 encoding of the old preamble
    (tmp_path / "ot1").mkdir()
    ot1 = preamble.replace(r"\usepackage[T1]{fontenc}", "").replace(r"\usepackage{lmodern}", "")
    old = compile_snippet(tmp_path / "ot1", body.replace(every, ""), ot1)
    assert "rps_eta_logk" not in old and "Gaïffas" not in old


def bib_keys() -> list[str]:
    return re.findall(r"^@\w+\{([^,]+),", (ROOT / "paper" / "references.bib").read_text(), re.M)


@pytest.mark.slow
@needs_tex
def test_report_cites_every_reference_and_survives_copy_and_paste(smoke_run):
    report = smoke_run / "results" / "report"
    bbl = (report / "replication_report.bbl").read_text()
    keys = bib_keys()
    assert len(keys) == 12
    # bibtex writes an entry into the .bbl only when the text cites it
    assert sorted(re.findall(r"\\bibitem\[[^\]]*\]\{([^}]+)\}", bbl)) == sorted(keys)
    out = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(report / "replication_report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    flat = " ".join(out.split())
    for text in ("rps_eta_logk", "rps_full_prefix", "Gaïffas", "Kotłowski", "References"):
        assert text in flat, text
    assert "Hu et al. (2021)" in flat and "McSherry and Talwar" in flat


def snakemake(wd: Path, *args: str) -> subprocess.CompletedProcess:
    return run_snakemake(
        wd, *args, "--cores", "1", "--configfile", "config/smoke.yaml", check=False, timeout=None
    )


def offline(cmd: list[str]) -> list[str]:
    """``cmd`` in a network namespace of its own (no network) where unshare allows it."""
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True)
    return ["unshare", "--net", *cmd] if probe.returncode == 0 else cmd


@pytest.mark.slow
@needs_tex
def test_arxiv_tarball_compiles_alone_without_network(smoke_run, tmp_path):
    wd = tmp_path / "wd"
    copy_build(smoke_run, wd)
    proc = snakemake(wd, "arxiv")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    tar_path = wd / "results" / "arxiv" / "replication_report-arxiv.tar.gz"
    first = tar_path.read_bytes()
    with tarfile.open(tar_path) as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        assert all(m.isfile() and m.mtime == members[0].mtime for m in members)
        assert all(not n.startswith("/") and ".." not in Path(n).parts for n in names)
        assert {Path(n).suffix for n in names} <= {".tex", ".bbl", ".pdf"}  # no data
        for needed in (
            "replication_report.tex",
            "replication_report.bbl",
            "preamble.tex",
            "numbers.tex",
            "rulegraph.pdf",
            "sections/summary.tex",
        ):
            assert needed in names, needed
        assert any(n.startswith("figures/") and n.endswith(".pdf") for n in names)
        assert "replication_report.pdf" not in names and not any(n.endswith(".aux") for n in names)
        for m in members:
            data = tar.extractfile(m).read()
            for path in (str(wd), str(smoke_run), str(ROOT)):
                assert path.encode() not in data, f"{m.name} names {path}"
        src = tmp_path / "unpacked"
        src.mkdir()
        tar.extractall(src, filter="data")
    # deterministic: packing again gives the same bytes
    (tar_path).unlink()
    assert snakemake(wd, "arxiv").returncode == 0 and tar_path.read_bytes() == first
    # pdflatex twice in the empty directory: no TEXINPUTS, no bibtex, no network
    env = {k: v for k, v in os.environ.items() if not k.endswith("INPUTS")}
    for _ in range(2):
        run = subprocess.run(
            offline(
                ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "replication_report.tex"]
            ),
            cwd=src,
            env=env,
            capture_output=True,
        )
        assert run.returncode == 0, run.stdout[-3000:].decode("latin-1")
    log = (src / "replication_report.log").read_text(encoding="latin-1")
    assert log_problems(log) == []
    assert (src / "replication_report.pdf").stat().st_size > 100_000
