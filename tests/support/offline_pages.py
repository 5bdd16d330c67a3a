"""What makes an HTML page of the run need the network: a script, style sheet, font or image
fetched from an ``http(s)://`` address.  Links (``<a href>``) are not fetched, and the addresses
in comments or in MathML's ``xmlns`` are not references.  Used by the tests of tests/report/ on
the generated pages and tests/workflow/test_browser.py on the smoke build's."""

from __future__ import annotations

import re

#: a fetched remote resource: src= of a script/img/iframe/source, href= of a <link>, CSS url()
#: and @import, and a JavaScript module import from a URL
EXTERNAL = re.compile(
    r"""<(?:script|img|iframe|source|embed|audio|video)\b[^>]*\bsrc\s*=\s*["']?\s*(?:https?:)?//"""
    r"""|<link\b[^>]*\bhref\s*=\s*["']?\s*(?:https?:)?//"""
    r"""|url\(\s*["']?\s*(?:https?:)?//"""
    r"""|@import\s+(?:url\()?\s*["']\s*(?:https?:)?//"""
    r"""|\bimport\s*(?:\(\s*|[\w{}*,\s]+\bfrom\s*)["'](?:https?:)?//""",
    re.I,
)


def external_references(html: str) -> list[str]:
    """The remote references of a page (the matched text with some context)."""
    return [html[m.start() : m.end() + 60] for m in EXTERNAL.finditer(html)]


#: TeX left raw on a page: a ``$...$`` not escaped
RAW_TEX = re.compile(r"(?<!\\)\$[^$]+\$")


def visible_text(html: str) -> str:
    """The page's text outside code, scripts and styles (what MathJax would have typeset)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["pre", "code", "script", "style"]):
        tag.decompose()
    return soup.get_text()
