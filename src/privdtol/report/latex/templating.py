"""The jinja2 templates of the report's generated LaTeX (``templates/*.tex.j2``) and
the environment that renders them.

The delimiters are LaTeX-safe: ``\\VAR{expr}`` prints, ``\\BLOCK{for ...}`` is a statement,
``\\#{...}`` a comment.  Undefined names are errors (``StrictUndefined``).  Every printed value
passes :func:`finalize`: a :class:`~privdtol.report.latex.text.TeX` string is printed as is, any
other string is escaped, an integer printed, and anything else (a float, None) is refused, so
numbers are formatted on purpose (:func:`~privdtol.report.latex.text.fmt_num`, siunitx) and text
can never inject LaTeX.
"""

from __future__ import annotations

import numbers
from functools import cache

import jinja2

from privdtol.report.latex.text import TeX, fmt_int_or_pow2, fmt_num, tex_escape, texttt


def finalize(value):
    """What a ``\\VAR{}`` prints (see the module docstring)."""
    if isinstance(value, jinja2.Undefined):
        return str(value)  # StrictUndefined: raises UndefinedError naming the variable
    if isinstance(value, TeX):
        return value
    if isinstance(value, str):
        return tex_escape(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    raise TypeError(
        f"a template printed {value!r} ({type(value).__name__}): format it "
        "with a filter (num, tex) first"
    )


@cache
def environment() -> jinja2.Environment:
    """The templates' environment (LaTeX-safe delimiters, StrictUndefined, :func:`finalize`;
    filters ``num`` :func:`~privdtol.report.latex.text.fmt_num`, ``pow2``, ``tt`` and ``tex``)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("privdtol.report.latex", "templates"),
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        finalize=finalize,
    )
    env.filters.update(
        num=fmt_num,
        pow2=fmt_int_or_pow2,
        tt=texttt,
        tex=TeX,  # mark a string built in the template from LaTeX pieces as LaTeX
    )
    return env


def fill_template(name: str, **context) -> str:
    """Render ``templates/<name>`` with ``context``."""
    return environment().get_template(name).render(**context)
