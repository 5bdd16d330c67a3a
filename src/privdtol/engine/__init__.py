"""Engine: expected regret of one cell, by Monte Carlo on exact block-sum laws
(:mod:`~privdtol.engine.fast`), by an explicit per-round reference simulation
(:mod:`~privdtol.engine.explicit`) or exactly (:mod:`~privdtol.engine.exact`).

:data:`ENGINE_VERSION` is part of every pipeline cell's id: bump it whenever a simulated law
changes (a new sampler, a fixed bug in an algorithm, a change of the proof terms of
:mod:`~privdtol.engine.exact.proof`, which the cells' simulation jobs write), so that every cell
is recomputed and no old law can hide in ``results/sim`` or ``results/proof``.  Version 1
reproduces the results of the flat layout; version 2 fixes the exact report-noisy-min (Laplace)
law at K >= 2^14 (:func:`privdtol.engine.exact.laplace._laplace`: the left half-line was one
Gauss-Kronrod piece, which missed an integrand concentrated below its first node).
"""

#: bumped whenever the law of any simulated quantity changes; part of every cell id
ENGINE_VERSION = 2
