"""The report's typesetting of the findings (``results/findings.json``, not claims): each
finding's name, sentence, table and page-1 sentence are declared in its own module of
:mod:`privdtol.analysis.findings` (:class:`~privdtol.analysis.claim_types.Finding`,
``PAGE_ONE``), which writes them with the kit :data:`TYPESET` handed to it here (the analysis
layer imports nothing of the report's); a finding without a sentence is shown with its own
text, typeset.  Page 1 lists the page-1 sentences, in the registry's page order
(:data:`~privdtol.analysis.registry.PAGE_ONE`), each linking the section that shows it: the
headline only, the long forms (every number of a finding, its disclosures) being in the
findings appendix, so that no sentence of the report is said twice.  And the pointer that
ends each figure's caption."""

from __future__ import annotations

from types import SimpleNamespace

from privdtol.analysis.registry import CLAIMS, FINDINGS, PAGE_ONE
from privdtol.report.latex.layout import REGIME_TEX
from privdtol.report.latex.tables import _display_algorithm, latex_table
from privdtol.report.latex.text import TeX, fmt_num, mathify, tex_escape, tex_unicode, texttt


def verdict_pointer(notebook: str) -> TeX:
    """The last sentence of a figure's caption: where the verdicts of the claims it shows are
    (the verdict, diagnostics or cited works' table), or, for a figure of no claim, where its
    numbers are.
    A caption never repeats a check: the check is stated once, in the claims appendix."""
    shown = [c for c in CLAIMS.values() if c.notebook == notebook]
    if not shown:
        return TeX(r"Not a claim of the paper; its numbers: \S\ref{sec:findings}.")
    table = (
        "tab:diagnostics"
        if all(c.diagnostic for c in shown)
        else "tab:cited"
        if all(c.cited for c in shown)
        else "tab:verdicts"
    )
    ids = ", ".join(rf"\hyperref[claim:{c.id}]{{{c.id}}}" for c in shown)
    return TeX(rf"Verdicts of {ids}: Table~\ref{{{table}}}.")


# ----------------------------------------------------------------------------- the kit


def _times(value) -> str:
    return rf"{fmt_num(value)}$\times$"


def _times3(value) -> str:
    return rf"\num{{{float(value):.3g}}}$\times$"


#: what a finding's prose is typeset with (:attr:`Finding.sentence`, :attr:`Finding.table`,
#: :class:`~privdtol.analysis.claim_types.PageLine`): ``num`` (a number, siunitx),
#: ``times``/``times3`` (a ratio with a times sign: page 1's, and the findings section's at 3
#: significant digits), ``escape``, ``unicode``, ``mathify`` (plain-text mathematics),
#: ``texttt``, ``regimes`` (regime -> its definition, in report order), ``algorithm`` (an
#: algorithm's display name), ``table`` (a booktabs tabular of a frame of LaTeX cells)
TYPESET = SimpleNamespace(
    num=fmt_num,
    times=_times,
    times3=_times3,
    escape=tex_escape,
    unicode=tex_unicode,
    mathify=mathify,
    texttt=texttt,
    regimes=REGIME_TEX,
    algorithm=_display_algorithm,
    table=latex_table,
)


def finding_label(fid: str) -> str:
    """A finding's name in the report: its declared label, else its title typeset."""
    f = FINDINGS[fid]
    return f.label or mathify(f.title)


def finding_sentence(fid: str, found: dict | None) -> TeX | None:
    """A finding as a sentence from its numbers (its module's :attr:`Finding.sentence`); its
    own text, typeset, for a finding without one; None when it is not available."""
    item = (found or {}).get(fid) or {}
    build = FINDINGS[fid].sentence_function() if fid in FINDINGS else None
    sentence = build(item, TYPESET) if build is not None else None
    if sentence is None and item.get("available", True) and item.get("text"):
        sentence = mathify(item["text"])
    return None if sentence is None else TeX(sentence)


def finding_tables(found: dict | None) -> list[TeX]:
    """The findings' tables (:attr:`Finding.table`) that this run's numbers fill, in report
    order."""
    out = []
    for fid, f in FINDINGS.items():
        build = f.table_function()
        table = build((found or {}).get(fid) or {}, TYPESET) if build is not None else None
        if table is not None:
            out.append(TeX(table))
    return out


# ----------------------------------------------------------------------------- page 1


def page_one_findings(found: dict | None, checks: dict) -> list[tuple[TeX, str]]:
    """``(sentence, section label)`` of each available page-1 sentence of the registry, in page
    order."""
    found = found or {}
    items = []
    for page in PAGE_ONE:
        lines = page.line(found, checks, TYPESET)
        for s in [lines] if lines is None or isinstance(lines, str) else lines:
            if s is not None:
                items.append((TeX(s), page.section))
    return items


def page_one_tex(found: dict | None, checks: dict) -> str:
    """``summary-findings.tex``: the findings as a numbered list, each linking its section."""
    items = page_one_findings(found, checks)
    if not items:
        return "No findings are available in this run.\n"
    body = "".join(rf"\item {s} (\S\ref{{{label}}})" + "\n" for s, label in items)
    head = r"\begin{enumerate}\setlength{\itemsep}{1pt}\setlength{\parskip}{0pt}"
    return head + "\n" + body + "\\end{enumerate}\n"
