"""Small LaTeX helpers for the replication report: escaping, macro names, number formatting,
atomic writes, and the latexmk call with its log check.

Everything the report prints comes from ``results/`` through these helpers, so text that
reaches pdflatex is always escaped (pdflatex with the default inputenc stops on unknown
Unicode characters; the common mathematical ones are mapped to their LaTeX forms here).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

from privdtol.pipeline.io import atomic_path

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}",
}
_UNICODE = {
    "Δ": r"$\Delta$", "δ": r"$\delta$", "ε": r"$\varepsilon$", "ϵ": r"$\epsilon$",
    "η": r"$\eta$", "μ": r"$\mu$", "ρ": r"$\rho$", "κ": r"$\kappa$", "σ": r"$\sigma$",
    "Θ": r"$\Theta$", "θ": r"$\theta$", "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$",
    "λ": r"$\lambda$", "π": r"$\pi$", "Σ": r"$\Sigma$", "χ": r"$\chi$",
    "≤": r"$\le$", "≥": r"$\ge$", "≠": r"$\ne$", "≈": r"$\approx$", "±": r"$\pm$",
    "×": r"$\times$", "·": r"$\cdot$", "−": r"$-$", "∈": r"$\in$", "→": r"$\to$",
    "∞": r"$\infty$", "√": r"$\surd$", "⇒": r"$\Rightarrow$", "∝": r"$\propto$",
    "²": r"\textsuperscript{2}", "³": r"\textsuperscript{3}", "¹": r"\textsuperscript{1}",
    "–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "…": r"\dots{}",
    "ł": r"\l{}", "Ł": r"\L{}", "ß": r"\ss{}", "ø": r"\o{}", "\u00a0": "~",
}
_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def tex_escape(text) -> str:
    """Escape arbitrary text for LaTeX (text mode); map common Unicode symbols."""
    out = []
    for ch in str(text):
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _UNICODE:
            out.append(_UNICODE[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            # accented letters -> base letter (pdflatex-safe); anything else is dropped visibly
            base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(base if base else "?")
    return "".join(out)


def macro_name(*parts) -> str:
    """A LaTeX-legal control-sequence name (letters only) from parts like ("C4a", "Verdict").

    Digits become words ("C4a" -> "Cfoura"), other characters split words, every word is
    capitalized: ``macro_name("C4a", "ci_low") == "CfouraCiLow"``.
    """
    name = []
    for part in parts:
        text = re.sub(r"\d", lambda m: _NUMBER_WORDS[int(m.group())], str(part))
        for word in re.split(r"[^A-Za-z]+", text):
            if word:
                name.append(word[0].upper() + word[1:])
    result = "".join(name)
    if not result:
        raise ValueError(f"no letters in macro name parts {parts!r}")
    return result


def is_number(x) -> bool:
    try:
        return x is not None and not isinstance(x, bool) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def fmt_num(x, digits: int = 3) -> str:
    """``\\num{...}`` with ``digits`` significant digits; "n/a" for missing/non-finite."""
    if not is_number(x):
        return "n/a"
    x = float(x)
    if x == 0:
        return r"\num{0}"
    if float(x).is_integer() and abs(x) < 1e7:
        return rf"\num{{{int(x)}}}"
    mag = math.floor(math.log10(abs(x)))
    if -3 <= mag < 6:
        decimals = max(0, digits - 1 - mag)
        return rf"\num{{{x:.{decimals}f}}}"
    return rf"\num{{{x:.{digits - 1}e}}}"


def fmt_int_or_pow2(n) -> str:
    """Integers as ``\\num{n}``; powers of two (and 2^k - 1) >= 1024 as ``2^{k}`` (math
    via ``\\ensuremath``, so it works inside and outside ``$...$``)."""
    if not is_number(n):
        return "n/a"
    n = int(n)
    for off, text in ((0, ""), (1, "-1")):
        m = n + off
        if m >= 1024 and m & (m - 1) == 0:
            return rf"\ensuremath{{2^{{{m.bit_length() - 1}}}{text}}}"
    return rf"\num{{{n}}}"


def newcommand(name: str, body: str) -> str:
    return rf"\newcommand{{\{name}}}{{{body}}}"


def write_text(path: Path, text: str) -> None:
    """Write ``text`` atomically (deterministic newline handling)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
        os.chmod(tmp, 0o644)  # mkstemp creates 0600


# ----------------------------------------------------------------------------- compiling

#: log lines that make the build fail even when pdflatex itself succeeded
BAD_LOG_PATTERNS = (
    re.compile(r"There were undefined references"),
    re.compile(r"Reference .* undefined"),
    re.compile(r"Citation .* undefined"),
    re.compile(r"^! ", re.M),
    re.compile(r"Missing character"),
    re.compile(r"File .* not found"),
    re.compile(r"not found", re.I),
    re.compile(r"Missing \S+ inserted"),
)


class ReportBuildError(RuntimeError):
    """latexmk failed or the LaTeX log has warnings the report must not have."""


def log_problems(log_text: str) -> list[str]:
    """Lines of a pdflatex log matching :data:`BAD_LOG_PATTERNS`."""
    bad = []
    for line in log_text.splitlines():
        if any(p.search(line) for p in BAD_LOG_PATTERNS):
            bad.append(line.strip())
    return bad


def compile_pdf(tex: Path, generated: Path, results: Path, pdf: Path,
                source_date_epoch: int | None = None, verbose: bool = False) -> Path:
    """Compile ``tex`` with latexmk (pdflatex) into ``pdf``'s directory.

    ``generated`` and ``results`` are put on TEXINPUTS (absolute paths), so the sources say
    ``\\input{numbers}`` and ``\\includegraphics{figures/horizon.pdf}`` whatever the checkout
    or the results directory.  Dates are pinned (SOURCE_DATE_EPOCH, FORCE_SOURCE_DATE=1) and
    the log is checked for undefined references and missing files.
    """
    latexmk = shutil.which("latexmk")
    if latexmk is None:
        raise ReportBuildError("latexmk not found: apt-get install latexmk texlive-latex-base "
                               "texlive-latex-recommended texlive-science")
    tex, generated, results, pdf = (Path(p).resolve() for p in (tex, generated, results, pdf))
    outdir = pdf.parent
    outdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    sep = os.pathsep
    env["TEXINPUTS"] = f"{tex.parent}{sep}{generated}{sep}{results}{sep}" + env.get(
        "TEXINPUTS", "")
    env["SOURCE_DATE_EPOCH"] = str(source_date_epoch or 0)
    env["FORCE_SOURCE_DATE"] = "1"
    jobname = pdf.stem
    cmd = [latexmk, "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
           f"-outdir={outdir}", f"-jobname={jobname}", "-cd", str(tex)]
    if not verbose:
        cmd.insert(1, "-silent")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log = outdir / f"{jobname}.log"
    log_text = log.read_text(encoding="latin-1") if log.exists() else ""
    if proc.returncode != 0:
        errors = [ln for ln in log_text.splitlines() if ln.startswith("!") or ":error:" in ln
                  or re.match(r"^\S+:\d+: ", ln)]
        detail = " | ".join(errors[:3]) or "\n".join(
            (proc.stdout + proc.stderr).splitlines()[-15:])
        raise ReportBuildError(f"latexmk failed (exit {proc.returncode}): {detail} (see {log})")
    problems = log_problems(log_text)
    if problems:
        raise ReportBuildError(f"{log}: {len(problems)} LaTeX problem(s): "
                               + " | ".join(problems[:5]))
    return pdf
