"""Page 1's findings: one sentence each, from the numbers of ``results/findings.json`` and the
check records, each with the label of the section that shows it.  The sentences are declared by
the modules of :mod:`privdtol.analysis.findings` (``PAGE_ONE``, collected in page order by the
registry's :data:`~privdtol.analysis.registry.PAGE_ONE`) and typeset with
:data:`privdtol.report.findings_prose.TYPESET`.

The long forms (every number of a finding, its disclosures) are in the findings appendix;
these sentences say only the headline, so that no sentence of the report is said twice.
"""

from __future__ import annotations

from privdtol.analysis.registry import PAGE_ONE
from privdtol.report.findings_prose import TYPESET
from privdtol.report.latex import TeX


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
