"""TeX mathematics to MathML at build time, so that the run's HTML pages (the executed notebooks,
their index, the explorer) render their formulas with no script and no network: current browsers
lay out MathML natively (MathML Core), and a page needs nothing beside itself, inside the run
archive as on a cluster node.

The TeX is the notebooks' and the registry's: inline ``$…$`` and display ``$$…$$`` (``\\$`` is a
literal dollar), converted by ``latex2mathml``.  Text inside ``pre``, ``code``, ``script``,
``style`` and ``textarea`` is left alone (code cells show their source as written, as MathJax
did).
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, NavigableString
from latex2mathml.converter import convert
from markupsafe import Markup, escape

#: ``$$display$$`` or ``$inline$``; a dollar preceded by a backslash is a literal one
MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$(.+?)(?<!\\)\$", re.S)
#: elements whose text is never mathematics (code, scripts) or is already MathML
SKIP = {"pre", "code", "script", "style", "textarea", "math"}
#: operator names that latex2mathml sets as an identifier glued to the next token (``logK``):
#: a thin space after each (TeX's \\log is an operator followed by a thin space too)
_FUNCTION = re.compile(
    r"(<mi>(?:log|ln|exp|max|min|sup|inf|lim)</mi>|<msup><mi>(?:log|ln)</mi><mn>\d+</mn></msup>)"
    r"(?=<m[ion])"
)
#: TeX sets a slash as an ordinary symbol (no operator spacing) and capital Greek upright
_SLASH = ("<mo>&#x0002F;</mo>", '<mo lspace="0em" rspace="0em">&#x0002F;</mo>')
_CAPITAL_GREEK = re.compile(r"<mi>(&#x003(?:9[1-9A-F]|A[0-9]);)</mi>")


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """The MathML of one TeX formula (``display`` for a block formula)."""
    out = convert(tex.strip(), display="block" if display else "inline")
    out = _FUNCTION.sub(r'\1<mspace width="0.1667em"></mspace>', out).replace(*_SLASH)
    return _CAPITAL_GREEK.sub(r'<mi mathvariant="normal">\1</mi>', out)


def text_to_html(text: str, ties: bool = True) -> Markup:
    """Plain text with TeX formulas (the registry's titles) as escaped HTML with MathML, and
    with ``ties`` TeX's ``~`` as a no-break space (for templates)."""

    def _text(t: str) -> Markup:
        return Markup(str(escape(t)).replace("~", "\u00a0")) if ties else escape(t)

    parts, pos = [], 0
    for m in MATH.finditer(text):
        parts.append(_text(text[pos : m.start()]))
        display = m.group(1) is not None
        parts.append(Markup(tex_to_mathml(m.group(1) if display else m.group(2), display)))
        pos = m.end()
    parts.append(_text(text[pos:]))
    return Markup("").join(parts)


def render_math(html: str) -> str:
    """An HTML page with every TeX formula of its text (outside :data:`SKIP`) as MathML."""
    soup = BeautifulSoup(html, "html.parser")
    for node in list(soup.find_all(string=MATH)):
        if type(node) is not NavigableString:
            continue  # comments, CDATA, doctype
        if any(parent.name in SKIP for parent in node.parents):
            continue
        fragment = BeautifulSoup(str(text_to_html(str(node), ties=False)), "html.parser")
        node.replace_with(*fragment.contents)
    return str(soup)
