"""Hostile strings: what a tampered record or table may hold, fed through every
place that turns a file's text into HTML or LaTeX.  ``MARKUP`` would run script if it became
markup (it sets ``window.__pwned``); ``LATEX`` would read a file, break the build or change the
document if it reached pdflatex unescaped."""

from __future__ import annotations

import numpy as np

MARKUP = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "<script>window.__pwned=2</script>"
LATEX = r"\input{/etc/passwd} } % & _ # $ ^ ~ \\"
HOSTILE = (MARKUP, SCRIPT, LATEX)

#: the DOM after a page loaded: injected elements and whether any injected script ran
INJECTED_JS = """
return {
  imgs: document.querySelectorAll('img[src="x"], img[onerror]').length,
  scripts: [...document.scripts].filter(s => s.textContent.includes('__pwned=2')
      && !s.id && s.type !== 'application/json').length,
  handlers: document.querySelectorAll('[onerror]').length,
  pwned: window.__pwned === undefined ? null : window.__pwned,
  text: document.body.innerText,
};
"""


def hostile_searches():
    """The explorer's searches table (support.explorer_tables) with a hostile description."""
    from support.explorer_tables import searches_table

    searches = searches_table()
    searches["description"] = MARKUP
    return searches


def hostile_claims(claims):
    """The explorer's claims rows with a hostile verdict, control name and experiment."""
    rows = [dict(c) for c in claims]
    rows[0].update(verdict=MARKUP, experiments=[SCRIPT])
    control = next(r for r in rows if r["control"])
    control.update(verdict=SCRIPT, control=MARKUP)
    return rows


def hostile_agg():
    """A one-cell regret table whose string cells are hostile (cell id, estimator)."""
    from privdtol.pipeline.aggregate import add_bounds
    from support.tables import CORE, INTERVAL, agg_table

    table = agg_table(
        [{"cell_id": MARKUP, "algorithm": "rps", "epsilon": 1.0, "runs": 20,
          "estimator": SCRIPT}],
        horizons=(1, 3, 1023),
        columns=(*CORE, "eta", *INTERVAL, "estimator"),
        drop=("se",),
        experiment="horizon",
        K=8,
        gap=0.25,
        eta=np.nan,
        mean=[0.125, 0.375, 7.5],
        ci_low=lambda c, h: 0.0,
        ci_high=lambda c, h: 8.0,
    )  # fmt: skip
    return add_bounds(table)
