"""Tests of :mod:`privdtol.engine.exact.prefetch`: the laws of a fixed-prefix rule computed
ahead of the block loop in one batch leave every regret and error bound unchanged to the last
bit (against the loop with no prefetching), are only computed for blocks the loop reaches, and
random-prefix rules are left alone."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.engine import exact
from privdtol.engine.exact import prefetch as prefetch_module
from privdtol.engine.exact import regret_and_averager


def _fresh(monkeypatch):
    monkeypatch.setattr(exact, "_RECENT", type(exact._RECENT)())


@pytest.mark.parametrize(
    "algorithm, means, eps",
    [
        ("rnm_ftnl", [0.2, 0.2 + 2**-6, 0.4, 0.95], 1.0),
        ("rnm_ftnl", [0.5, 0.5 + 2**-6, 0.5 + 2**-6, 0.7], 1 / 16),
        ("wu_wang_gumbel", [0.1, 0.1 + 2**-6, 0.6, 0.7], 1 / 16),
        ("wu_wang_gumbel", [0.3, 0.3 + 2**-8, 0.7], 1.0),
        ("rps_full_prefix", [0.3, 0.4, 0.7], 1.0),
    ],
)
@pytest.mark.parametrize("tol", [1e-6, 1e-10])
def test_prefetched_laws_leave_the_regret_unchanged(monkeypatch, algorithm, means, eps, tol):
    """The same regret and bound at every horizon, and the same law for every m the loop
    used, with and without computing the laws ahead; ahead, at least one batch of several m,
    all of them m the loop reads (the regret at T = 2^40 - 1 reaches its limit over T)."""
    horizons = [1023, (1 << 40) - 1]
    batches, real = [], prefetch_module.prefetch_laws

    def spy(avg, *args):
        before = set(avg.cache)
        real(avg, *args)
        if set(avg.cache) - before:
            batches.append(sorted(set(avg.cache) - before))

    _fresh(monkeypatch)
    monkeypatch.setattr(exact, "prefetch_laws", spy)
    reg, err, avg = regret_and_averager(algorithm, means, eps, horizons, tol=tol)
    _fresh(monkeypatch)
    monkeypatch.setattr(exact, "prefetch_laws", lambda *a: None)
    reg0, err0, avg0 = regret_and_averager(algorithm, means, eps, horizons, tol=tol)
    assert np.array_equal(reg, reg0) and np.array_equal(err, err0)
    assert set(avg0.cache) == set(avg.cache)  # nothing computed that the loop did not read
    for m, (P, E) in avg0.cache.items():
        assert np.array_equal(avg.cache[m][0], P) and np.array_equal(avg.cache[m][1], E)
    assert batches and max(map(len, batches)) > 1


def test_random_prefix_rules_are_left_alone(monkeypatch):
    """rps reads the laws of every m in [2^(r-1) + 1, 2^r] through the averager's panels,
    which batch them already: prefetching asks for nothing."""
    calls = []

    class Avg:
        def __init__(self, spec):
            self.spec, self.cache = spec, {}

        def laws(self, ms):
            calls.append(ms)

    spec = exact._Spec("rps", [0.3, 0.4, 0.7], 1.0, "bernoulli")
    tail = np.full(40, 1.0)
    prefetch_module.prefetch_laws(Avg(spec), 1, 40, tail, 0.0)
    assert calls == []
    spec = exact._Spec("rnm_ftnl", [0.3, 0.4, 0.7], 1.0, "bernoulli")
    prefetch_module.prefetch_laws(Avg(spec), 1, 40, tail, 0.0)
    assert len(calls) == 1 and calls[0] == [1 << r for r in range(1, 39)]
