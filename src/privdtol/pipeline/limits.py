"""Size guards: what a cell or a grid will cost, estimated and refused before any work.

- :func:`check_cell` (config semantics and the CLI alike): the engine's limits known before a
  cell runs -- a unique best action in float64, the exact engine's temperature floor
  (:data:`~privdtol.engine.exact.softmax.MAX_KERNEL` lattice points, eta >= ~2^-19) and a peak
  memory estimate (:func:`cell_memory_bytes`) against a bound;
- :func:`count_cells`: an experiment's cells from its list lengths alone (no planning), so
  that a 330-byte config with 200 000 cells is refused in microseconds;
- :func:`check_plan`: the planned grid's jobs and CPU time (the batching cost model of
  :meth:`privdtol.pipeline.plan.Cell.estimated_seconds`) against the config's ``limits:``.

The memory model is rough (a factor of ~2), fitted on two measured cells: the exact engine's
peak is its theta grid (~1400 values per group of equal means, 4 copies), its softmax kernel and
about 32 copies of the widest Binomial pmf window (21 sd sqrt(m) + the kernel, per group); the
Monte Carlo engine holds a chunk of 2^21 elements (8 copies) plus its run table (~400 bytes per
run and checkpoint).
"""

from __future__ import annotations

import math
import os

import numpy as np

from privdtol.environments import MODELS
from privdtol.errors import InputError

#: memory every command takes before the cell (interpreter, numpy, pandas, pyarrow)
BASE_BYTES = 200e6
#: exact engine: theta-grid values per group (linear 801 + geometric 600) and their copies
THETA_VALUES, THETA_COPIES = 1401, 4
#: exact engine: copies of the widest pmf window (per group) alive at once
PMF_COPIES = 32
#: Monte Carlo: bytes per row of the run table (one run at one checkpoint) over its copies
TABLE_ROW_BYTES = 400
#: largest K of a generated instance (the schema's maximum)
MAX_K = 1 << 20


def machine_memory_bytes() -> float:
    """The CLI's bound: this machine's physical memory, or the process's address-space limit
    (``ulimit -v``, ``RLIMIT_AS``) when that is smaller."""
    try:
        phys = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover (non-POSIX)
        phys = 16e9
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):  # pragma: no cover (non-POSIX)
        return phys
    return phys if soft == resource.RLIM_INFINITY else min(phys, float(soft))


def gb(x: float) -> str:
    return f"{x / 1e9:.3g} GB"


def exact_memory_bytes(algorithm: str, means, epsilon: float, horizon: int) -> float:
    """Peak bytes of :func:`privdtol.engine.exact.expected_regret` on one cell (rough)."""
    from privdtol.algorithms import make_algorithm
    from privdtol.engine.exact.softmax import kernel_points
    from privdtol.engine.exact.spec import rule

    mu, counts = np.unique(np.asarray(means, dtype=float), return_counts=True)
    groups = mu.size
    softmax, scale = rule(make_algorithm(algorithm, epsilon), int(counts.sum()))
    kernel = kernel_points(scale) if softmax else 40.0 * scale
    sd = float(np.sqrt(mu * (1 - mu)).max())
    m = 2.0 ** max(0, int(horizon).bit_length() - 2)  # longest prefix read (last selection)
    window = 21 * sd * math.sqrt(m) + 60 + min(kernel, 300 + 0.01 * kernel)
    values = THETA_COPIES * THETA_VALUES * groups + 6 * kernel + PMF_COPIES * groups * window
    return BASE_BYTES + 8.0 * values


def mc_memory_bytes(K: int, runs: int, horizon: int) -> float:
    """Peak bytes of a Monte Carlo cell (:func:`privdtol.engine.fast.simulate`): a chunk of
    runs (at least one run of K actions) and the run table."""
    from privdtol.engine.fast import CHUNK_ELEMENTS

    chunk = max(CHUNK_ELEMENTS, K)
    rows = float(runs) * (int(horizon).bit_length() + 1)
    return BASE_BYTES + 8.0 * 8 * chunk + TABLE_ROW_BYTES * rows


def check_cell(
    algorithm: str,
    means,
    epsilon: float | None,
    horizon: int,
    runs: int,
    exact: bool,
    max_bytes: float,
    where: str = "",
    bound: str = "limits.max_memory_gb",
    unique: bool = True,
) -> None:
    """One InputError if the cell cannot run: no unique best action in float64 (gap too
    small for mu_best), an exact softmax temperature below the engine's floor, or a memory
    estimate above ``max_bytes``.  ``where`` prefixes the field (e.g. ``experiments[2].``);
    ``unique`` False skips the first check (given means: the engine names the problem)."""
    from privdtol.algorithms import make_algorithm
    from privdtol.engine.exact.softmax import MAX_KERNEL, kernel_points
    from privdtol.engine.exact.spec import rule

    means = np.asarray(means, dtype=float)
    if unique and np.count_nonzero(means == means.min()) != 1:
        raise InputError(
            f"{where}gap",
            "the best action is not unique in float64 (the gap vanishes against mu_best)",
            "gaps > 1e-15 or so",
        )
    if exact:
        softmax, scale = rule(make_algorithm(algorithm, epsilon), means.size)
        if softmax and kernel_points(scale) > MAX_KERNEL:
            raise InputError(
                f"{where}epsilon",
                f"{algorithm} at epsilon {epsilon:g} has eta = {scale:.3g}, below the exact "
                f"engine's floor ({kernel_points(scale):.3g} kernel points > {MAX_KERNEL:.0e})",
                "a larger epsilon, or exact: off (Monte Carlo)",
            )
        need = exact_memory_bytes(algorithm, means, epsilon, horizon)
    else:
        need = mc_memory_bytes(means.size, runs, horizon)
    if need > max_bytes:
        raise InputError(
            f"{where}K" if means.size > 1 << 16 else f"{where}{'horizon' if exact else 'runs'}",
            f"{algorithm} at K={means.size}, T={horizon}"
            + ("" if exact else f", runs={runs}")
            + f" needs about {gb(need)} of memory",
            f"cells within {bound} = {gb(max_bytes)}",
        )


def count_cells(part: dict, private) -> int:
    """Cells of one slice (before deduplication): the product of its list lengths, per
    algorithm (non-private algorithms get one epsilon)."""
    n = len(part["K"]) * len(part["gap"]) * len(part["horizon"])
    for param in MODELS[part["env"]].parameters if part["env"] in MODELS else ():
        n *= len(part[param])
    return sum(
        n * (max(1, len(part.get("epsilon") or [])) if private(a) else 1)
        for a in part["algorithms"]
    )


def check_plan(rows: list[dict], limits: dict) -> None:
    """The planned grid (:func:`privdtol.pipeline.plan.summary` rows: cells, batches,
    estimated_seconds per experiment) against ``limits``: one InputError naming the limit,
    the largest experiment and the estimate."""
    checks = (
        ("max_cells", "cells", 1.0, "{:.0f} cells"),
        ("max_jobs", "batches", 1.0, "{:.0f} simulation jobs"),
        ("max_cpu_hours", "estimated_seconds", 3600.0, "{:.3g} CPU hours"),
    )
    for key, col, unit, fmt in checks:
        total = sum(r[col] for r in rows) / unit
        if total > limits[key]:
            big = max(rows, key=lambda r: r[col])
            raise InputError(
                f"limits.{key}",
                f"the grid has about {fmt.format(total)} (experiment {big['experiment']!r}: "
                f"{fmt.format(big[col] / unit)})",
                f"<= {limits[key]:g}; raise limits.{key} or shrink the experiment",
            )
