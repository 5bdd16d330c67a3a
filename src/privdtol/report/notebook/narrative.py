"""What a notebook says after its outputs, generated from the check records and the findings
(never hard-coded): per claim the notebook shows, the verdict, the check's summary and whether
the data agree with the paper, with links to the report; for a notebook without a claim, the
findings on its experiments.  The claims and figure numbers are the registry's, the same as
the report's.  The report layer's piece that the notebooks call (``notebooks/*.py``): it
uses the report's layout, tables and number style, so it lives here, not in the plotting
layer."""

from __future__ import annotations

from pathlib import Path

from privdtol.analysis.records import load_check
from privdtol.analysis.registry import (
    CLAIMS,
    CLAIMS_TEX,
    FINDINGS,
    NOTEBOOKS,
    control_id,
    notebook_claims,
)
from privdtol.report.figure_order import figure_anchor, figure_number
from privdtol.report.latex.text import shown_interval, typeset_ascii_math

#: the report, relative to an executed notebook's HTML (results/notebooks/ -> results/report/)
REPORT_HREF = "../report/replication_report.pdf"
#: what each verdict says about the claim
AGREEMENT = {
    "PASS": "the data agree with the claim",
    "FAIL": "the data contradict the claim (see the report's 'What did not replicate')",
    "INCONCLUSIVE": "the interval straddles the threshold: more runs are needed to decide",
}


def claim_title(claim: str) -> str:
    """A claim's title as Markdown (the registry's LaTeX; Markdown renders its ``$...$``)."""
    entry = CLAIMS_TEX.get(claim)
    return tex_ties(entry.title) if entry is not None else markdown_escape(CLAIMS[claim].title)


def tex_ties(tex: str) -> str:
    """The registry's TeX text for Markdown: TeX's tie ``~`` outside ``$...$`` (``eq.~(5)``)
    as the no-break space it stands for."""
    parts = tex.split("$")  # outside math at even positions, inside at odd ones
    return "$".join(part if i % 2 else part.replace("~", "\u00a0") for i, part in enumerate(parts))


#: the characters that Markdown would read as markup in a check's plain-text sentences (``<``
#: and ``&``: raw HTML and its entities, which Markdown passes through to the page)
_MARKDOWN_SPECIAL = set("\\`*_[]<>#|~&")


def read_record(path) -> dict | None:
    """A check record validated by the analysis layer's reader (every key with its type, a
    verdict of PASS, FAIL or INCONCLUSIVE: a defect is one line naming the file and the key),
    or None when the file does not exist (not run).  Nothing of an unchecked record reaches a
    page."""
    path = Path(path)
    return load_check(path, field="checks") if path.exists() else None


def markdown_escape(text: str) -> str:
    """Plain text as Markdown that renders as that text (markup characters backslashed)."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)


def markdown_math(text: str) -> str:
    """An analysis-layer sentence with ASCII mathematics (a check's threshold or summary:
    ``"Reg_T <= 1 + 4 sum_m F_m"``, ``"log K/gap"``) as Markdown with ``$...$`` TeX: the same
    table of symbols as the report's :func:`~privdtol.report.latex.text.mathify`, numbers as the
    record wrote them, the rest escaped (so ``*`` and ``_`` stay characters)."""
    return typeset_ascii_math(
        text, markdown_escape, lambda number: number, lambda name: f"`{name}`"
    )


def _estimate(check: dict) -> str:
    """The statistic with its interval as the record wrote them, by the report's rule
    (:func:`~privdtol.report.latex.text.shown_interval`: none for an exact value)."""
    est = check["statistic"]
    if est is None:
        return "n/a"
    interval = shown_interval(est, check["ci_low"], check["ci_high"], str)
    return f"{est}" if interval is None else f"{est} [{interval[0]}, {interval[1]}]"


def check_markdown(claim: str, check: dict | None) -> str:
    """A check record as Markdown with TeX mathematics (what a notebook displays, rendered):
    verdict, the claim's statement, the statistic with its interval, the rule and the summary.
    The claim's own record is titled with the registry's typeset statement and statistic (as
    the report's claim section, :func:`privdtol.report.latex.claims.claim_context`); a control's or
    sub-check's with its record's words; "not run" when ``check`` is None."""
    if check is None:
        return f"**{claim}: not run** (no check record for this configuration)"
    own = check["claim"] == claim and check.get("control_of") is None and claim in CLAIMS_TEX
    title = claim_title(claim) if own else markdown_math(check["title"])
    statistic = (
        tex_ties(CLAIMS_TEX[claim].statistic) if own else markdown_math(check["statistic_label"])
    )
    return "\n".join(
        [
            f"**{markdown_escape(check['claim'])}: {markdown_escape(check['verdict'])}**: {title}",
            "",
            f"- statistic: {statistic} = {_estimate(check)}",
            f"- rule: {markdown_math(check['threshold'])}",
            f"- summary: {markdown_math(check['summary'])}",
        ]
    )


def control_markdown(claim: str, control: str, check: dict) -> str:
    """One line of Markdown for the negative control ``control`` of ``claim`` (its purpose is
    served when its verdict is FAIL)."""
    caught = "caught" if check["verdict"] == "FAIL" else "NOT caught"
    return (
        f"- control `{control}` of {claim}: **{markdown_escape(check['verdict'])}** ({caught}): "
        f"{markdown_math(check['summary'])}"
    )


def checks_note(name: str, checks_dir, controls: bool = False) -> str:
    """Markdown: the check records of every claim notebook ``name`` shows
    (:func:`check_markdown`), and with ``controls`` those of their negative controls that were
    run (:func:`control_markdown`).  A notebook displays it with
    ``IPython.display.Markdown``; the HTML export turns its ``$...$`` into MathML."""
    blocks = [
        check_markdown(c, read_record(Path(checks_dir) / f"{c}.json"))
        for c in notebook_claims(name)
    ]
    if controls:
        lines = [
            control_markdown(c, a, record)
            for c in notebook_claims(name)
            for a in CLAIMS[c].controls
            if (record := read_record(Path(checks_dir) / f"{control_id(c, a)}.json")) is not None
        ]
        if lines:
            blocks.append("**Negative controls** (each must FAIL):\n\n" + "\n".join(lines))
    return "\n\n".join(blocks)


def report_link(name: str) -> str:
    return f"[report, Figure {figure_number(name)}]({REPORT_HREF}#{figure_anchor(name)})"


def figure_note(name: str, checks_dir, findings_json=None) -> str:
    """Markdown: what the figure of notebook ``name`` shows and whether it agrees with the
    claims it illustrates."""
    lines = [f"**What Figure {figure_number(name)} shows** ({report_link(name)}):"]
    claims = notebook_claims(name)
    for claim in claims:
        record = read_record(Path(checks_dir) / f"{claim}.json")
        if record is None:
            lines.append(f"- **{claim}** ({claim_title(claim)}): not run in this configuration.")
            continue
        verdict = record["verdict"]
        lines.append(
            f"- **{claim}** ({claim_title(claim)}): **{markdown_escape(verdict)}**, "
            f"{AGREEMENT.get(verdict, markdown_escape(verdict))}. "
            f"{markdown_math(record['summary'])}"
        )
    if not claims:
        found = {}
        path = Path(findings_json) if findings_json else None
        if path is not None and path.exists():
            from privdtol.pipeline.io import read_json

            found = read_json(path, "findings")
        texts = [
            markdown_math(found[f.id]["text"])
            for f in FINDINGS.values()
            if set(f.experiments) & set(NOTEBOOKS[name].experiments)
            and (found.get(f.id) or {}).get("text")
        ]
        lines += [f"- {t}" for t in texts] or ["- No claim of the paper is checked here."]
    return "\n".join(lines)


def display_table(df, name: str):
    """A notebook's table as the report shows it (:func:`privdtol.report.latex.tables.shape_table`:
    sorted, pivoted, constant columns in the caption) in the report's number style, as a pandas
    Styler in a :class:`TableView`; the CSV keeps the raw values."""
    from pandas.api.types import is_numeric_dtype

    from privdtol.report.latex.layout import POW2_COLUMNS, TABLES
    from privdtol.report.latex.tables import shape_table
    from privdtol.report.latex.text import plain_num

    shown, constant = shape_table(df, name)
    shown = shown.rename(columns=lambda c: str(c).split(":", 1)[-1])
    styler = shown.style.hide(axis="index").set_uuid(name)  # no random ids: reruns identical
    for c in shown.columns:
        if is_numeric_dtype(shown[c]) and shown[c].dtype != bool:
            styler = styler.format(
                lambda v, h=c in POW2_COLUMNS: plain_num(v, TABLES[name].digits, h), subset=[c]
            )
    note = ", ".join(
        f"{c} = {plain_num(df[c].iloc[0], horizon=c in POW2_COLUMNS)}" for c in constant
    )
    caption = f"Table {name} (as in the report; data: tables/{name}.csv)"
    return TableView(styler.set_caption(caption + (f". In every row {note}." if note else ".")))


class TableView:
    """A styled table for a notebook: its HTML, and a plain-text form without memory
    addresses (a pandas Styler's repr has one), so reruns give identical notebooks."""

    def __init__(self, styler):
        self.styler = styler

    def _repr_html_(self) -> str:
        return self.styler.to_html()

    def __repr__(self) -> str:
        return self.styler.data.to_string(index=False)

    def to_html(self) -> str:
        return self.styler.to_html()


def table_note(name: str, table: str) -> str:
    """Markdown after a notebook's table: what it holds and how it is ordered, and where the
    report shows it."""
    from privdtol.report.latex.layout import TABLES

    spec = TABLES[table]
    order = ", ".join(
        f"`{c}`" + (" (largest first)" if c in spec.descending else "") for c in spec.sort
    )
    pivot = (
        f" One column per value of `{spec.pivot[0]}`, the cells holding `{spec.pivot[1]}`."
        if spec.pivot
        else ""
    )
    return (
        f"**What the table holds**: rows sorted by {order or 'the notebook order'}.{pivot} "
        f"Columns with one value in every row are stated in the caption. The report shows it "
        f"beside Figure {figure_number(name)} ({report_link(name)}), or in its appendix when "
        "it is longer than a page."
    )
