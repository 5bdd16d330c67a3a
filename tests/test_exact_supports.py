"""The exact engine's Binomial windows at the prefix lengths the paper config reaches (m up to
about 2^42, beyond 32-bit integers): the window's outside mass is below the tolerance and
agrees with the normal tail it approximates, so the window stays a few standard deviations
wide (a NaN outside mass, as scipy.special.bdtr gives from m = 2^31 on, would widen the window
without end and exhaust the memory)."""

from __future__ import annotations

import math

import pytest

from privdtol.engine.exact.binomial import _supports


@pytest.mark.parametrize("m", [2**20, 2**31 + 7, 2**42])
def test_windows_at_large_m_are_narrow_with_a_finite_outside_mass(m):
    mus = [0.5, 0.25, 0.5 - 2**-16]
    for mu, (lo, hi, tail) in zip(mus, _supports(m, mus, 1e-20), strict=True):
        sd = math.sqrt(m * mu * (1 - mu))
        assert 0 < tail < 1e-20
        assert 9 * sd < m * mu - lo < 12 * sd + 31 and 9 * sd < hi - m * mu < 12 * sd + 31
        # both tails beyond z = (hi - m mu) / sd standard deviations: about 2 Phi(-z)
        z = (hi - m * mu) / sd
        normal = math.erfc(z / math.sqrt(2))
        assert 0.5 * normal < tail < 2 * normal
