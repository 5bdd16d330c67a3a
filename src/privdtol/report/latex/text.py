"""LaTeX text for the replication report: escaping, macro names and number formatting.

Everything the report prints comes from ``results/`` through these helpers, so text that
reaches pdflatex is always escaped.  pdflatex reads the sources as UTF-8 with T1 fonts
(paper/preamble.tex), so accented Latin letters pass through as they are; only what neither
covers, Greek letters and mathematical symbols, is mapped to its LaTeX form here.
Numbers are typeset by siunitx: :func:`fmt_num` writes ``\\num{...}``, table columns are
``S`` columns (:mod:`privdtol.report.latex.tables`).  Running LaTeX is
:mod:`privdtol.report.build.compile`; the templates are ``templates/*.tex.j2`` beside it.
"""

from __future__ import annotations

import math
import numbers
import unicodedata
from pathlib import Path

from privdtol.pipeline.io import atomic_path

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
#: the characters pdflatex reads as UTF-8 text in the report's T1/TS1 fonts (utf8 inputenc
#: declares them: Latin-1 and Latin Extended-A letters, dashes, quotes, the ellipsis; every one
#: is compiled in tests/workflow/test_release.py); they pass through unchanged
_UTF8_TEXT = frozenset(
    {chr(c) for c in range(0xA0, 0x180)}
    - set("\u0126\u0127\u0138\u013f\u0140\u0149\u0166\u0167\u017f")
) | frozenset("\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u2192")
#: what neither UTF-8 input nor T1 covers: Greek letters and mathematical symbols (math mode)
_MATH = {
    "Δ": r"$\Delta$",
    "δ": r"$\delta$",
    "ε": r"$\varepsilon$",
    "ϵ": r"$\epsilon$",
    "η": r"$\eta$",
    "μ": r"$\mu$",
    "ρ": r"$\rho$",
    "κ": r"$\kappa$",
    "σ": r"$\sigma$",
    "Θ": r"$\Theta$",
    "θ": r"$\theta$",
    "α": r"$\alpha$",
    "β": r"$\beta$",
    "γ": r"$\gamma$",
    "λ": r"$\lambda$",
    "π": r"$\pi$",
    "Σ": r"$\Sigma$",
    "χ": r"$\chi$",
    "≤": r"$\le$",
    "≥": r"$\ge$",
    "≠": r"$\ne$",
    "≈": r"$\approx$",
    "−": r"$-$",
    "∈": r"$\in$",
    "∞": r"$\infty$",
    "√": r"$\surd$",
    "⇒": r"$\Rightarrow$",
    "∝": r"$\propto$",
}
_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


class TeX(str):
    """A string that is already LaTeX: the templates print it as is (any other string is
    escaped with :func:`tex_escape` on its way into a template)."""


def _unicode_char(ch: str) -> str:
    if ord(ch) < 128 or ch in _UTF8_TEXT:
        return ch
    if ch in _MATH:
        return _MATH[ch]
    # outside T1: a letter with an accent T1 lacks -> its base letter; anything else visibly "?"
    base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return base if base else "?"


def tex_escape(text) -> TeX:
    """Escape arbitrary text for LaTeX (text mode); Greek and mathematical symbols in math."""
    return TeX("".join(_SPECIAL.get(ch) or _unicode_char(ch) for ch in str(text)))


def tex_unicode(text) -> str:
    """Map the non-ASCII characters of already escaped LaTeX (e.g. the output of pandas'
    ``escape="latex"``) that UTF-8 input with T1 fonts does not cover; the rest is left alone."""
    return "".join(_unicode_char(ch) for ch in str(text))


def macro_name(*parts) -> str:
    """A LaTeX-legal control-sequence name (letters only) from parts like ("C4a", "Verdict").

    Digits become words ("C4a" -> "Cfoura"), other characters split words, every word is
    capitalized: ``macro_name("C4a", "ci_low") == "CfouraCiLow"``.
    """
    words: list[str] = []
    for part in parts:
        word = ""
        for ch in str(part):
            if ch in "0123456789":
                word += _NUMBER_WORDS[int(ch)]
            elif ch.isascii() and ch.isalpha():
                word += ch
            else:
                words.append(word)
                word = ""
        words.append(word)
    result = "".join(w[0].upper() + w[1:] for w in words if w)
    if not result:
        raise ValueError(f"no letters in macro name parts {parts!r}")
    return result


def is_number(x) -> bool:
    try:
        return x is not None and not isinstance(x, bool) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def shown_interval(estimate, low, high, fmt) -> tuple[str, str] | None:
    """The one rule for the interval beside an estimate (a check's ``statistic``, ``ci_low``,
    ``ci_high``), in the report and the notebooks alike: its ends as ``fmt`` prints them (a
    one-sided interval with its missing end as ``fmt`` prints None), or None when neither end
    is given (None or NaN) or for an exact value, whose ends print as the estimate does."""
    if not any(_given(x) for x in (low, high)):
        return None
    lo, hi = fmt(low), fmt(high)
    return None if lo == hi == fmt(estimate) else (lo, hi)


def _given(x) -> bool:
    """A value that is there: not None and not NaN (an infinity is given)."""
    try:
        return x is not None and not math.isnan(float(x))
    except (TypeError, ValueError):
        return True


def sig(x, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits in Python's ``g`` format (what a siunitx ``S``
    column or ``\\num`` parses); integers exactly."""
    if isinstance(x, int) or (hasattr(x, "dtype") and x.dtype.kind in "iu"):
        return str(int(x))
    if 1000 <= abs(float(x)) < 1e6:  # 1920, not 1.92e+03
        return str(int(float(f"{float(x):.{digits}g}")))
    return f"{float(x):.{digits}g}"


def dyadic_exponent(x) -> int | None:
    """``k`` when ``x == 2**-k`` exactly for some ``k >= 3`` (1/8, 1/16, ...), else None: such
    values are written as powers of two, exactly, instead of rounded decimals."""
    if not is_number(x) or float(x) <= 0:
        return None
    mantissa, exponent = math.frexp(float(x))
    k = 1 - exponent
    return k if mantissa == 0.5 and k >= 3 else None


def fmt_value(value) -> TeX:
    """A threshold's value: a number (:func:`fmt_num`) or a range ``[lo, hi]``."""
    if isinstance(value, list | tuple):
        return TeX("[" + ", ".join(fmt_num(v) for v in value) + "]")
    return fmt_num(value)


def fmt_num(x, digits: int = 3, exact: bool | None = None) -> TeX:
    """``\\num{...}`` with ``digits`` significant digits: integers (``exact``, by default
    when ``x`` is an integer type: counts) exactly, a float to ``digits`` figures however large,
    exact dyadic values as ``2^{-k}``, horizons as ``2^{k}-1``; an infinity as such (a plugin's
    infinite privacy loss), "n/a" for a missing value (None, NaN)."""
    if not is_number(x):
        try:
            infinite = not isinstance(x, bool) and math.isinf(float(x))
        except (TypeError, ValueError):
            infinite = False
        if infinite:
            return TeX(r"\ensuremath{\infty}" if float(x) > 0 else r"\ensuremath{-\infty}")
        return TeX("n/a")
    if exact is None:  # integers (counts) exactly; a float statistic to `digits` figures
        exact = isinstance(x, numbers.Integral)
    x = float(x)
    if x == 0:
        return TeX(r"\num{0}")
    if (k := dyadic_exponent(abs(x))) is not None:
        return TeX(rf"\ensuremath{{{'-' if x < 0 else ''}2^{{-{k}}}}}")
    if x.is_integer() and abs(x) >= 1024 and fmt_int_or_pow2(x).startswith(r"\ensuremath"):
        return fmt_int_or_pow2(x)
    if float(x).is_integer() and (abs(x) < 1000 or exact) and abs(x) < 1e15:
        return TeX(rf"\num{{{int(x)}}}")
    mag = math.floor(math.log10(abs(x)))
    if 3 <= mag < 6:
        return TeX(rf"\num{{{int(float(f'{x:.{digits}g}'))}}}")
    if -3 <= mag < 6:
        decimals = max(0, digits - 1 - mag)
        text = f"{x:.{decimals}f}"
        short = text.rstrip("0").rstrip(".") if "." in text else text
        return TeX(rf"\num{{{short if float(short) == x else text}}}")
    return TeX(rf"\num{{{x:.{digits - 1}e}}}")


def fmt_int_or_pow2(n) -> TeX:
    """Integers as ``\\num{n}``; powers of two (and 2^k - 1) >= 1024 as ``2^{k}`` (math
    via ``\\ensuremath``, so it works inside and outside ``$...$``)."""
    if not is_number(n):
        return TeX("n/a")
    n = int(n)
    for off, text in ((0, ""), (1, "-1")):
        m = n + off
        if m >= 1024 and m & (m - 1) == 0:
            return TeX(rf"\ensuremath{{2^{{{m.bit_length() - 1}}}{text.replace('-', '-')}}}")
    return TeX(rf"\num{{{n}}}")


def texttt(text, breaks: str = "") -> TeX:
    """Typewriter text; ``breaks="path"`` allows a line break after every "/", ``"any"``
    after every character (hashes)."""
    if breaks == "any":
        return TeX(r"\texttt{" + r"\allowbreak{}".join(tex_escape(ch) for ch in str(text)) + "}")
    body = tex_escape(text)
    if breaks == "path":
        body = body.replace("/", r"/\allowbreak{}")
    return TeX(r"\texttt{" + body + "}")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` atomically (deterministic newline handling; mode as ``open()`` gives)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")


def _assign(match, number=None) -> str:
    """``K=512``, ``gap=0.00781``, ``T0=5.24e+05`` as ``$K = 512$``, ``$\\Delta_{\\min} = 2^{-7}$``,
    ``$T_0 = 2^{19}-1$``: a parameter's value printed rounded is recognised as the exact power
    of two (gaps, privacy levels) or horizon ``2^k - 1`` it was."""
    name, text = match.group(1), match.group(2)
    symbol = {
        "K": "K",
        "gap": r"\Delta_{\min}",
        "eps": r"\varepsilon",
        "epsilon": r"\varepsilon",
        "T0": "T_0",
        "T": "T",
        "T_max": r"T_{\max}",
    }[name]
    value = float(text)
    for k in range(1, 64):
        if name in ("gap", "eps", "epsilon") and k >= 3 and value == float(f"{2.0**-k:.3g}"):
            return rf"${symbol} = 2^{{-{k}}}$"
        if name.startswith("T") and value == float(f"{2.0**k - 1:.3g}") and k >= 10:
            return rf"${symbol} = 2^{{{k}}}-1$"
    return rf"${symbol} = {(number or _number)(text)}$"


#: a parameter's value (not the base of a power: "K = 2^14" is a power of two, below)
_ASSIGN = r"\b(K|gap|eps|epsilon|T0|T|T_max)\s*=\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?![\d^*])"
_GREEK = {"eps": r"\varepsilon", "eta": r"\eta", "alpha": r"\alpha"}
_ASCII_GREEK = {"ε": "eps", "η": "eta"}
#: an identifier left in a sentence once the mathematics is typeset (an algorithm, a config
#: key, an estimator, a file: ``rps_eta_logk``, ``tests/engine/exact/test_laplace.py``): code
_IDENTIFIER = r"(?<![\w/.])(?:[\w.-]+/)*[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\.[a-z]+)?(?![\w/])"

#: plain-text mathematics of the analysis layer's sentences (check summaries, thresholds,
#: findings) -> LaTeX, applied to escaped text by :func:`mathify`; order matters
_WORDS = [
    (r"\[beta\]", "[Beta]"),
    (r"\b(eps|eta)(?:\^|\*\*)(\d)", lambda m: rf"${_GREEK[m.group(1)]}^{m.group(2)}$"),
    (r"\b(eps|eta)_(\w)\b", lambda m: rf"${_GREEK[m.group(1)]}_{m.group(2)}$"),
    (r"([εη])_(\w)\b", lambda m: rf"${_GREEK[_ASCII_GREEK[m.group(1)]]}_{m.group(2)}$"),
    (r"\b([a-z])_([a-z0-9])\b", lambda m: rf"${m.group(1)}_{m.group(2)}$"),
    (r"\b2\^\(([^()]*)\)", lambda m: rf"$2^{{{m.group(1)}}}$"),
    (r"\b(alpha|eps|eta)\^\(([^()]*)\)", lambda m: rf"${_GREEK[m.group(1)]}^{{{m.group(2)}}}$"),
    (r"(?<=\))\^([a-z0-9])\b", lambda m: rf"$^{m.group(1)}$"),
    (r"\blog2 K\b", r"$\log_2 K$"),
    (r"\b([A-Z])_\{([^{}]*)\}", lambda m: rf"${m.group(1)}_{{{m.group(2)}}}$"),
    (r"\b([A-Z])_([a-z0-9])\b", lambda m: rf"${m.group(1)}_{m.group(2)}$"),
    (r"\bsum_m\b", r"$\sum_m$"),
    (r"\bReg\((?=[^()]*\))", r"$\mathrm{Reg}$("),
    (r"\bln T\b", r"$\ln T$"),
    (r"\bln\(", r"$\ln$("),
    (r"(?<= )\+-(?= )", r"$\pm$"),
    (r"\bReg_T\b", r"$\mathrm{Reg}_T$"),
    (r"\bLB_T\b", r"$\mathrm{LB}_T$"),
    (r"\bOPT_T\b", r"$\mathrm{OPT}_T$"),
    (r"\bDelta_min\b", r"$\Delta_{\min}$"),
    (r"\bgap(?:\^2|²)", r"$\Delta_{\min}^2$"),
    (r"(?<=/)gap\b|\bgap(?=\s*(?:=|<|>|\)|\|\||,\s*eps))", r"$\Delta_{\min}$"),
    (r"\beps\b", r"$\varepsilon$"),
    (r"\beta\b", r"$\eta$"),
    (r"\bmu_j\b|\bmu_(?=\{)", r"$\mu_j$"),
    (r"\bmu_1\b", r"$\mu_1$"),
    (r"\bmu\b", r"$\mu$"),
    (r"\bexp(?=\()", r"$\exp$"),
    (r"\bkl(?=\()", r"$\mathrm{kl}$"),
    (r"\blog(?=\()", r"$\log$"),
    (r"\blog (?=\x00)", r"$\log$ "),
    (r"(?<= )\|\|(?= )", r"$\|$"),
    (r"\bkappa\b", r"$\kappa$"),
    (r"\brho\b", r"$\rho$"),
    (r"\blog(?:\^2|²) K\b", r"$\log^2 K$"),
    (r"\blog K\b", r"$\log K$"),
    (r"\bTheta\(", r"$\Theta$("),
    (r"\bchi2\b", r"$\chi^2$"),
    (r"\bT_max\b", r"$T_{\max}$"),
    (r"\bT0\b", r"$T_0$"),
    (r"\bc_gap\b", r"$c_{\Delta}$"),
    (r"\bc_eta\b", r"$c_{\eta}$"),
    (r"(?<=\x01) x (?=\w|\x00)", r" $\times$ "),
    (r"\+ -(?=\x00)", r"$-$ "),
    (r"<=|≤", r"$\le$"),
    (r">=|≥", r"$\ge$"),
    (r"(?<= )~(?= )", r"$\sim$"),
    (r"(?<= )<(?= )", r"$<$"),
    # a minus: between spaces ("log K - 1"), or a sign before a number or a bracket ("-0.988",
    # "exp(-(t"); a hyphen inside a word or a range ("C4a-C4c", "1.01-1.04") stays one
    (r"(?<= )-(?= )|(?:(?<=^)|(?<=[\s(\[=]))-(?=\x00|\()", r"$-$"),
    (r"(?<= )>(?= )", r"$>$"),
    (r"\b2\^\{?([\w+-]+)\}?", lambda m: rf"$2^{{{m.group(1)}}}$"),
    # a lone capital is a variable ("for small K", "(K/2)", "T times"); not A nor I (words),
    # nor a letter of a word, an id or a compound ("C3", "K-ary", "T's")
    (r"(?<![\w$\\\x01'-])([B-HJ-Z])(?![\w\x00'-])", lambda m: rf"${m.group(1)}$"),
]
#: a number of a sentence (not an identifier's digits, an exponent, nor an arXiv identifier:
#: 2102.07929)
_NUMBER = (
    r"(?<![\w.^{])(?<!\*\*)(?<!\{-)(?<!arXiv )(?<!arXiv:)(\d+\.?\d*(?:[eE][+-]?\d+)?)(?![\w.^])"
)


def _number(text: str) -> str:
    value = float(text)
    if "." not in text and "e" not in text.lower() and value < 1024:
        return text  # small integers (counts, ids) as they are
    return fmt_num(int(value) if value.is_integer() and abs(value) < 1e15 else value)


def mathify(text) -> TeX:
    """Plain text with ASCII mathematics (an analysis-layer sentence: ``"1/eps"``,
    ``"loss <= bound"``, ``"log K/gap"``, ``"1.000000 x eps"``, ``"T=1073741823"``) as LaTeX:
    the symbols typeset, every number with a decimal point or of four digits and more in the
    report's number style (:func:`fmt_num`), identifiers (``rps_eta_logk``) in code font, the
    rest escaped."""
    return TeX(typeset_ascii_math(text, tex_escape, _number, texttt))


def typeset_ascii_math(text, escape, number, code=None) -> str:
    """The symbols of :data:`_WORDS` (and parameter assignments such as ``gap=0.0078``) of
    plain text as ``$...$`` TeX, the rest passed through ``escape``; every number through
    ``number`` (text -> text), every identifier of :data:`_IDENTIFIER` through ``code``
    (default ``escape``).  :func:`mathify` is its LaTeX form (the report);
    :func:`privdtol.report.notebook.narrative.markdown_math` its Markdown form (the notebooks),
    so both read the one table of ASCII stand-ins."""
    import re

    done: list[str] = []

    def keep(latex: str) -> str:
        done.append(latex)
        return f"\x00{len(done) - 1}\x01"

    out = re.sub(_ASSIGN, lambda m: keep(_assign(m, number)), str(text))
    out = re.sub(_NUMBER, lambda m: keep(number(m.group(1))), out)
    for pattern, repl in _WORDS:
        out = re.sub(pattern, lambda m, r=repl: keep(r(m) if callable(r) else r), out)
    out = re.sub(_IDENTIFIER, lambda m: keep((code or escape)(m.group(0))), out)
    out = escape(out)
    while "\x00" in out:  # placeholders may nest (a number inside a symbol)
        out = re.sub("\x00(\\d+)\x01", lambda m: done[int(m.group(1))], out)
    return out.replace("$$", "")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain_num(x, digits: int = 3, horizon: bool = False) -> str:
    """The report's number style as plain Unicode text (notebook tables): integers exactly,
    exact dyadic values as ``2⁻⁵``, horizons (``horizon=True``) as ``2³⁰−1``, floats to
    ``digits`` significant figures, without exponent notation for ordinary magnitudes."""
    if x is None or isinstance(x, bool) or not is_number(x):
        return "–" if x is None or not isinstance(x, str) else x
    if (k := dyadic_exponent(abs(float(x)))) is not None:
        return ("−" if float(x) < 0 else "") + "2" + f"-{k}".translate(_SUPERSCRIPT)
    if horizon and float(x).is_integer():
        n = int(x)
        for off, tail in ((0, ""), (1, "−1")):
            m = n + off
            if m >= 1024 and m & (m - 1) == 0:
                return "2" + str(m.bit_length() - 1).translate(_SUPERSCRIPT) + tail
    if isinstance(x, numbers.Integral) or (float(x).is_integer() and abs(float(x)) < 1000):
        return str(int(x))
    text = f"{float(x):.{digits}g}"
    if "e" in text and 1e-4 <= abs(float(x)) < 1e15:
        text = f"{float(text):f}".rstrip("0").rstrip(".")
    return text
