"""Tests of :mod:`privdtol.report.latex.text`: macro names, escaping, one style for numbers (powers
of two, three significant figures) and the typesetting of ASCII mathematics."""

from __future__ import annotations

import re

import pytest

from privdtol.analysis.registry import (
    CLAIMS,
)
from privdtol.report.latex.assets import (
    claim_prefix,
)
from privdtol.report.latex.text import (
    TeX,
    fmt_int_or_pow2,
    fmt_num,
    macro_name,
    mathify,
    plain_num,
    shown_interval,
    tex_escape,
)


def test_macro_names_are_letters_only():
    for claim in CLAIMS:
        for key in ("Verdict", "CILow", "ci_high"):
            assert macro_name(claim, key).isalpha()
    assert macro_name("C4a", "Verdict") == "CfouraVerdict"
    assert macro_name("C4a", "ci_low") == "CfouraCiLow"
    assert macro_name("constants", "") == "Constants"
    assert claim_prefix("C4c") == "Cfourc"


def test_escape_handles_specials_and_unicode():
    text = tex_escape("a_b & 50% ≤ Δ ε $x$ #1 ~{}^\\ Kotłowski")
    assert "\\_" in text and "\\&" in text and "\\%" in text and "$\\le$" in text
    # accented Latin letters reach pdflatex as UTF-8 (T1 fonts); Greek and symbols in math
    assert text.endswith("Kotłowski") and "Δ" not in text and isinstance(text, TeX)


#: ASCII stand-ins that must not survive mathify (outside \texttt)
ASCII = ("eps", "eta", "<=", ">=", "log K/gap", "mu_", "kappa", "1073741823")


@pytest.mark.parametrize(
    "value, text",
    [
        (0.03125, r"\ensuremath{2^{-5}}"),
        (0.0078125, r"\ensuremath{2^{-7}}"),
        (0.25, r"\num{0.25}"),  # 1/2 and 1/4 stay decimals
        ((1 << 30) - 1, r"\ensuremath{2^{30}-1}"),
        (16383, r"\ensuremath{2^{14}-1}"),
        (3780, r"\num{3780}"),  # a count: exact
        (2921.79, r"\num{2920}"),  # a statistic: three figures
        (130697.0, r"\num{131000}"),
        (0.1446243, r"\num{0.145}"),
        (1.004, r"\num{1.00}"),  # figures kept when they carry information
        (None, "n/a"),
        (float("nan"), "n/a"),  # missing
        (float("inf"), r"\ensuremath{\infty}"),  # an infinite loss is shown as such
        (-float("inf"), r"\ensuremath{-\infty}"),
    ],
)
def test_one_number_style(value, text):
    assert fmt_num(value) == text


def test_horizons_and_plain_numbers():
    assert fmt_int_or_pow2(511) == r"\num{511}"  # below 2^10 written out
    assert plain_num(0.03125) == "2⁻⁵" and plain_num(1073741823, horizon=True) == "2³⁰−1"
    assert plain_num(0.141234) == "0.141" and plain_num(8) == "8"


@pytest.mark.parametrize(
    "text, wanted",
    [
        ("1.000000 x eps", [r"\num{1} $\times$ $\varepsilon$"]),
        ("loss <= bound, eta = eps/2", [r"$\le$", r"$\eta$", r"$\varepsilon$/2"]),
        ("1 + 800 log K/gap + 16 log K/eta", [r"$\log K$/$\Delta_{\min}$"]),
        ("at K=2, gap=0.00781, eps=0.0156, T0=5.24e+05", [r"$\Delta_{\min} = 2^{-7}$"]),
        ("ratio T=1073741823 / T=1048575", [r"$T = \ensuremath{2^{30}-1}$"]),
        (
            "M_r = 2^r; X_{t,j} mu_j kappa",
            [r"$M_r$", r"$X_{t,j}$", r"$2^{r}$", r"$\mu_j$", r"$\kappa$"],
        ),
        ("2.92e+03 [2.71e+03, 3.13e+03]", [r"\num{2920} [\num{2710}, \num{3130}]"]),
        (
            "smallest Reg_T/LB_T, below LB_T",
            [r"$\mathrm{Reg}_T$/$\mathrm{LB}_T$", r"$\mathrm{LB}_T$"],
        ),
    ],
)
def test_mathify_typesets_ascii_mathematics(text, wanted):
    out = mathify(text)
    for piece in wanted:
        assert piece in out, (out, piece)
    bare = out
    for symbol in (r"\varepsilon", r"\eta", r"\kappa", r"\mu"):
        bare = bare.replace(symbol, "")
    for ascii_ in ASCII:
        assert ascii_ not in bare, (ascii_, out)


@pytest.mark.parametrize(
    "text, wanted",
    [
        # a parameter's value that is a power: the power typeset, not "$K = 2$^14"
        ("at K = 1024 and K = 2^14 (slices", [r"$2^{14}$"]),
        ("(1 - alpha^(1/n)) T max gap", [r"$\alpha^{1/n}$"]),
        ("by 2^40 - 1 at gaps", [r"$2^{40}$"]),
        ("exponent p of (log K/gap)^p, the", [r"$\Delta_{\min}$)$^p$"]),
        ("eta**2 and eps^2", [r"$\eta^2$", r"$\varepsilon^2$"]),
        # C3's scope and its ratio: Reg and ln are operators, the slope beta a symbol
        (
            "excludes an added β ln T only for β above (r - 1) Reg(T0) / ln(T_max/T0)",
            [r"$\beta$ $\ln T$", r"$\mathrm{Reg}$($T_0$)", r"$\ln$($T_{\max}$/$T_0$)"],
        ),
        ("Largest Reg(T_max)/Reg(T0) = 1.004", [r"$\mathrm{Reg}$($T_{\max}$)/$\mathrm{Reg}$("]),
        ("estimate +- t(n-2) max(s.e.)", [r"estimate $\pm$ t(n-2)"]),
        ("rule: 1 + 4 sum_m F_m - error", [r"$\sum_m$ $F_m$"]),
        ("the groups H_l; entropy Z_0 to K", [r"$H_l$", r"$Z_0$"]),
        ("control: FTL, ε_t-greedy; term b_t", [r"$\varepsilon_t$-greedy", r"$b_t$"]),
        # identifiers (algorithms, estimators, files) are code
        (
            "estimators block_rb, per_round (tests/test_laplace_large_k.py)",
            [r"\texttt{block\_rb}", r"\texttt{per\_round}", r"\texttt{tests/test\_laplace"],
        ),
    ],
)
def test_mathify_leaves_no_raw_superscript_subscript_or_power(text, wanted):
    out = mathify(text)
    for piece in wanted:
        assert piece in out, (out, piece)
    outside_code = re.sub(r"\\texttt\{[^}]*\}", "", out)
    assert "textasciicircum" not in out and r"\_" not in outside_code and "**" not in out, out


def test_arxiv_identifiers_are_not_rounded_like_numbers():
    from privdtol.report.latex.text import mathify

    assert "arXiv 2102.07929)" in mathify("Hu et al. 2021 (arXiv 2102.07929)")
    assert "arXiv:2605.29148" in mathify("see arXiv:2605.29148")
    assert mathify("a sum of 2102.07929") == r"a sum of \num{2100}"  # other numbers: 3 figures


def test_a_threshold_value_is_a_number_or_a_range():
    from privdtol.report.latex.text import fmt_value

    assert fmt_value(8) == r"\num{8}"
    assert fmt_value([0.8, 1.2]) == r"[\num{0.8}, \num{1.2}]"


@pytest.mark.parametrize(
    "text, wanted",
    [
        # the two-point term of the lower bound, as the deviations list states it
        (
            "b_t = exp(-(t - 1)(kl(mu - gap || mu) + kl(mu || mu - gap)))/4",
            r"$b_t$ = $\exp$($-$(t $-$ 1)($\mathrm{kl}$($\mu$ $-$ $\Delta_{\min}$ $\|$ $\mu$) + "
            r"$\mathrm{kl}$($\mu$ $\|$ $\mu$ $-$ $\Delta_{\min}$)))/4",
        ),
        (
            "empty at K = 2 (log 2 < log 2 + information); grow like log K - 1 and log(K/2)",
            r"empty at $K = 2$ ($\log$ 2 $<$ $\log$ 2 + information); grow like $\log K$ $-$ 1 "
            r"and $\log$($K$/2)",
        ),
        # a sign is a minus; a hyphen in a word or a range is not
        (
            "log K -0.988 [-1.17, -0.846]; ratios (1.01-1.04); C4a-C4c",
            r"$\log K$ $-$\num{0.988} [$-$\num{1.17}, $-$\num{0.846}]; ratios "
            r"(\num{1.01}-\num{1.04}); C4a-C4c",
        ),
        ("(correlated, rho=-1, 4 cells)", r"(correlated, $\rho$=$-$1, 4 cells)"),
        # a lone capital is a variable; A and I are words, C3 an id, K-ary a compound
        (
            "A check: K-ary terms of C3 for small K (T times the mean). I",
            r"A check: K-ary terms of C3 for small $K$ ($T$ times the mean). I",
        ),
    ],
)
def test_mathify_typesets_formulas_and_minus_signs(text, wanted):
    assert mathify(text) == wanted


@pytest.mark.parametrize(
    "estimate, low, high, fmt, shown",
    [
        (1.5, 1.25, 1.75, str, ("1.25", "1.75")),
        (0.5, 0.5, 0.5, str, None),  # an exact value
        (2.0001, 1.9999, 2.0002, fmt_num, None),  # its ends print as the estimate does
        (2.0001, 1.9999, 2.0002, str, ("1.9999", "2.0002")),
        (1.0, None, 2.0, str, ("None", "2.0")),  # one-sided
        (1.0, None, 2.0, fmt_num, ("n/a", r"\num{2}")),
        (0.3, 0.25, float("inf"), fmt_num, (r"\num{0.25}", r"\ensuremath{\infty}")),
        (2.0, None, float("nan"), fmt_num, None),  # no end given
        (2.0, None, None, str, None),
    ],
)
def test_an_interval_is_shown_unless_the_value_is_exact_or_has_none(
    estimate, low, high, fmt, shown
):
    assert shown_interval(estimate, low, high, fmt) == shown
