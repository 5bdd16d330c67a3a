"""Tests of :mod:`privdtol.report.html.mathml`: TeX between dollars becomes MathML with TeX's
spacing, the text around it escaped; code, scripts and literal dollars are left alone."""

from __future__ import annotations

from privdtol.report.html.mathml import render_math, tex_to_mathml, text_to_html


def test_tex_becomes_mathml_and_text_is_escaped():
    html = str(text_to_html(r"Linear in $1/\Delta_{\min}$ & <b>, eq.~(5)"))
    assert "$" not in html and "<math" in html and "<msub>" in html
    assert "&amp; &lt;b&gt;" in html  # the text around the formula is escaped
    assert "eq.\u00a0(5)" in html  # TeX's tie
    # TeX's conventions: \log followed by a thin space, capital Greek upright, slash unspaced
    m = tex_to_mathml(r"\log K/\Delta")
    assert '<mi>log</mi><mspace width="0.1667em"></mspace><mi>K</mi>' in m
    assert '<mi mathvariant="normal">&#x00394;</mi>' in m
    assert '</msup><mspace width="0.1667em"></mspace><mi>K</mi>' in tex_to_mathml(r"\log^2 K")
    assert '<mo lspace="0em" rspace="0em">&#x0002F;</mo>' in m
    assert 'display="block"' in tex_to_mathml("x", display=True)


def test_render_math_converts_text_but_not_code_or_literal_dollars():
    page = (
        r"<p>regret $\mathrm{Reg}_T$ and $$\sum_m F_m$$ cost \$5</p>"
        r'<pre>ax.set_xlabel("$T$")</pre><code>$x$</code><script>var s = "$y$";</script>'
    )
    out = render_math(page)
    assert out.count("<math") == 2 and 'display="block"' in out
    assert r"\$5" in out  # a literal dollar stays
    assert '<pre>ax.set_xlabel("$T$")</pre>' in out and "<code>$x$</code>" in out
    assert 'var s = "$y$";' in out
