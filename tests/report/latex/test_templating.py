"""Tests of :mod:`privdtol.report.latex.templating`: the LaTeX templates escape text and refuse a
number that was not formatted."""

from __future__ import annotations

import jinja2
import pytest

from privdtol.report.latex.templating import environment
from privdtol.report.latex.text import TeX


def test_templates_escape_text_and_refuse_unformatted_values():
    env = environment()
    assert env.from_string(r"\VAR{x}").render(x="50% & a_b") == r"50\% \& a\_b"
    assert env.from_string(r"\VAR{x}").render(x=TeX(r"\num{1}")) == r"\num{1}"
    assert env.from_string(r"\VAR{x|num}").render(x=0.123456) == r"\num{0.123}"
    assert env.from_string(r"\BLOCK{for i in xs}\VAR{i},\BLOCK{endfor}").render(xs=[1, 2]) == "1,2,"
    with pytest.raises(TypeError, match="format it"):
        env.from_string(r"\VAR{x}").render(x=0.5)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string(r"\VAR{missing}").render()
