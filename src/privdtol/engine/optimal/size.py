"""The inputs of the floor's program and its budget: every bad input, a problem too large
included, is refused in one line (:class:`~privdtol.errors.InputError`) before anything is
built.  The size is counted from a formula (the reduced program of :mod:`.program`), so the
refusal costs nothing and names the largest horizon solvable at the same K."""

from __future__ import annotations

import math

from privdtol.engine.optimal.reductions import n_symbols
from privdtol.errors import InputError

#: the budget: at most this many privacy rows (about K!-th of the last round's items times the
#: (T - 1)(R - 1) neighbours of each); the largest programs within it (K = 2, T = 6: 78k rows;
#: K = 3, T = 4: 83k) take about 12 s on one core, the next (K = 2, T = 7: 560k) over 10 min
MAX_ROWS = 100_000
#: the largest ε accepted (beyond it, e^ε spoils the program's conditioning; the floor there is
#: the non-private one to many digits); ``inf`` drops the privacy rows
MAX_EPSILON = 20.0


def privacy_rows(K: int, horizon: int) -> int:
    """An upper estimate of the reduced program's privacy rows: the last round's
    R^(T-1) K^T items over the K! relabellings, times the (T - 1)(R - 1) neighbours of each."""
    R = n_symbols(K)
    items = R ** (horizon - 1) * K**horizon
    return -(-items // math.factorial(K)) * (horizon - 1) * (R - 1)


def largest_horizon(K: int) -> int:
    """The largest T whose program fits the budget at this K (0 when none beyond T = 1)."""
    t = 1
    while privacy_rows(K, t + 1) <= MAX_ROWS:
        t += 1
    return t


def _number(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def _integer(x) -> int | None:
    if isinstance(x, bool):
        return None
    try:
        return int(x) if int(x) == x else None
    except (TypeError, ValueError, OverflowError):
        return None


def check(K, mu, gap, epsilon, horizon) -> tuple[int, float, float, float, int]:
    """The inputs as (K, mu, gap, epsilon, horizon), or an :class:`InputError` naming the
    first bad one: K >= 2, 0 < gap <= 1, gap <= mu <= 1, 0 <= epsilon <= MAX_EPSILON or
    inf (no privacy constraint), 1 <= horizon within the budget."""
    k = _integer(K)
    if k is None or k < 2:
        raise InputError("K", f"got {K!r}", "integers >= 2")
    if math.factorial(k) > MAX_ROWS:
        raise InputError("K", f"got {k}: the program is too large", "integers from 2 to 8")
    g, m = _number(gap), _number(mu)
    if not 0 < g <= 1:
        raise InputError("gap", f"got {gap!r}", "0 < gap <= 1")
    if not g <= m <= 1:
        raise InputError("mu", f"got {mu!r} with gap {g}", "gap <= mu <= 1, so that mu - gap >= 0")
    e = _number(epsilon)
    if not (0 <= e <= MAX_EPSILON or e == math.inf):
        raise InputError("epsilon", f"got {epsilon!r}", f"0 <= epsilon <= {MAX_EPSILON:g}, or inf")
    t = _integer(horizon)
    if t is None or t < 1:
        raise InputError("horizon", f"got {horizon!r}", "integers >= 1")
    top = largest_horizon(k)
    if t > top:
        raise InputError(
            "horizon",
            f"got {t}: the program at K = {k} has about {privacy_rows(k, t)} privacy rows, "
            f"more than the budget of {MAX_ROWS}",
            f"1 to {top} at K = {k}",
        )
    return k, m, g, e, t
