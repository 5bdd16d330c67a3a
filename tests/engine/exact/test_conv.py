"""Tests of :mod:`privdtol.engine.exact.conv`: the height of the summation tree of the chunked
block-Toeplitz convolutions, which enters the softmax law's rounding constant."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("p", "E", "h"), [(1, 0, 3), (4, 2, 15), (2, 200, 134), (128, 5, 135), (1, 127, 131)]
)
def test_conv_terms_is_the_summation_tree_height(p, E, h):
    """One output of batched_conv is a sum of nonnegative terms over a tree of height
    p min(L, E + 1) (a chunk's dot product) + S (overlap-add, S = ceil((L + E) / L)) + 1 (the
    caller's prefix sum), L = max(1, min(128 // p, E + 1)); by hand: (1, 0): L = 1, 1 + 1 + 1;
    (4, 2): L = 3, 12 + 2 + 1; (2, 200): L = 64, 128 + 5 + 1; (128, 5): L = 1, 128 + 6 + 1;
    (1, 127): L = 128, 128 + 2 + 1."""
    from privdtol.engine.exact.conv import conv_terms

    assert conv_terms(p, E) == h
