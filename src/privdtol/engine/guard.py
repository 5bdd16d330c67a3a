"""What an algorithm or a loss model hands the engine is checked before it is used, and any
exception of their code is one line naming them (a plugin's code is untrusted: docs/extending.md).

- a selection (Section 4: A_(r+1) and its law) is one action in 0..K-1 per run, and its law,
  where given, a probability vector per run (finite, >= 0, summing to one);
- window sums of ``m`` rounds of losses in [0, 1] are finite and lie in [0, m];
- the regret the engine returns is finite (a NaN or an infinity is refused, never written);
- an exception raised while the engine runs an algorithm's or a loss model's code becomes a
  :class:`RunFailure`: ``<field>: algorithm 'toy' (toy_plugin.Toy) failed: RuntimeError: ...
  (in select, toy_plugin.py:12)``, one line, exit status 2 from the command line.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import numpy as np

from privdtol.errors import InputError

#: slack on a probability vector's sum and on a window sum's range (floating point)
_ATOL = 1e-9


class RunFailure(InputError):
    """An algorithm or a loss model that failed while the engine ran it: names which one
    (``field`` is ``algorithm`` or ``env``), its class and the problem."""


def _who(obj) -> str:
    cls = type(obj)
    kind = "loss model" if hasattr(obj, "window_sums") else "algorithm"
    return f"{kind} {getattr(obj, 'name', cls.__name__)!r} ({cls.__module__}.{cls.__qualname__})"


def _field(obj) -> str:
    return "env" if hasattr(obj, "window_sums") else "algorithm"


def failure(obj, problem: str) -> RunFailure:
    """A :class:`RunFailure` of ``obj`` (an algorithm or a loss model)."""
    return RunFailure(_field(obj), f"{_who(obj)} failed: {problem}")


def blame(alg, env, err: BaseException) -> RunFailure | None:
    """The one-line failure of an exception ``err`` raised while running ``alg`` on ``env``:
    blamed on the one whose method (``self``) or module is the innermost frame of theirs in
    the traceback, with that frame's function, file and line; None when no frame is theirs
    (the engine's own error, left to its traceback)."""
    files = {}
    for obj in (env, alg):  # where both live in one module, a method's ``self`` decides
        module = sys.modules.get(type(obj).__module__)
        if getattr(module, "__file__", None):
            files[str(Path(module.__file__).resolve())] = obj
    for frame, line in reversed(list(traceback.walk_tb(err.__traceback__))):
        me = frame.f_locals.get("self")
        code = frame.f_code
        obj = next((o for o in (alg, env) if me is o), None)
        obj = obj or files.get(str(Path(code.co_filename).resolve()))
        if obj is not None:
            where = f"in {code.co_name}, {Path(code.co_filename).name}:{line}"
            text = " ".join(str(err).split())
            return failure(obj, f"{type(err).__name__}: {text} ({where})")
    return None


def check_selection(alg, act, law, n: int, K: int, r: int) -> None:
    """A block selection's actions (``n`` integers in 0..K-1) and law (None or (n, K)
    probabilities), made after block ``r``."""
    act = np.asarray(act)
    if act.shape != (n,) or not np.issubdtype(act.dtype, np.integer):
        raise failure(
            alg, f"select after block {r} returned {act.shape} {act.dtype}, not {n} integers"
        )
    if n and (act.min() < 0 or act.max() >= K):
        raise failure(alg, f"select after block {r} returned actions outside 0..{K - 1}")
    if law is not None:
        check_law(alg, law, n, K, f"select's law after block {r}")


def check_law(alg, law, n: int, K: int, what: str) -> None:
    """``law`` is (n, K) probability vectors: finite, >= 0, each summing to one."""
    law = np.asarray(law)
    if law.shape != (n, K):
        raise failure(alg, f"{what} has shape {law.shape}, not {(n, K)}")
    if not np.all(np.isfinite(law)) or (law.size and law.min() < 0):
        raise failure(alg, f"{what} holds values that are not probabilities (NaN, inf or < 0)")
    if law.size and not np.allclose(law.sum(axis=1), 1.0, rtol=0, atol=1e-6):
        raise failure(alg, f"{what} does not sum to one")


def check_sums(env, sums, lengths) -> np.ndarray:
    """Window sums (n, K) of ``lengths`` (n,) rounds: finite, in [0, length]; returned."""
    sums = np.asarray(sums, dtype=float)
    top = np.asarray(lengths, dtype=float).reshape(-1, 1)
    if not np.all(np.isfinite(sums)):
        raise failure(env, "window sums hold NaN or infinite values")
    if sums.size and (sums.min() < -_ATOL or np.any(sums > top * (1 + _ATOL) + _ATOL)):
        raise failure(env, "window sums lie outside [0, window length] (losses not in [0, 1])")
    return sums


def check_regret(alg, env, regret) -> None:
    """The regret an engine computed is finite (a NaN is refused, never written)."""
    if not np.all(np.isfinite(regret)):
        raise RunFailure(
            "algorithm", f"{_who(alg)} on {_who(env)} gave a regret that is NaN or infinite"
        )


__all__ = ["RunFailure", "blame", "check_law", "check_regret", "check_selection", "check_sums"]
