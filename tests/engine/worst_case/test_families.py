"""Tests of :mod:`privdtol.engine.worst_case.families`: every family holds the standard instance
and only valid instances (one gap exactly Delta_min, every gap at least Delta_min, means sorted
in [0, 1]); each family's means by hand; the free form of any instance; the scan, the random
candidates, the description, the dimensions and the families available at each K."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from privdtol.engine.worst_case import families as fam
from privdtol.engine.worst_case.families import Candidate, means_of
from privdtol.environments import instance_means

#: eta of eps = 1 (min(eps/2, 1/8))
ETA = 0.125


def _assert_valid(means, K, gap):
    """K means, sorted, in [0, 1]; mu_2 = mu_1 + gap exactly; every gap at least gap."""
    m = np.asarray(means)
    assert m.shape == (K,)
    assert m[0] >= 0 and m[-1] <= 1 and np.all(np.diff(m) >= 0)
    assert m[1] == m[0] + gap
    assert np.all(m[1:] - m[0] >= gap * (1 - 1e-12))


#: the parameters at which each family is the standard instance (x_0 = 1/2, every gap gap)
STANDARD_PARAMS = {
    "standard": lambda K: ((), (0.5,)),
    "two_level": lambda K: ((K - 1,), (0.5, 0.7)),  # all K - 1 at gap, y irrelevant
    "near_4eta": lambda K: ((K - 1,), (0.5, 0.3)),
    "three_level": lambda K: ((K - 1, 0), (0.5, 0.2, 0.9)),
    "geometric": lambda K: ((2,), (0.5, 0.0)),  # s = 0: ratio 1
    "free": lambda K: ((), (0.5, *[0.0] * (K - 2))),  # u = 0
}


@pytest.mark.parametrize("family", fam.FAMILIES)
@pytest.mark.parametrize(("K", "gap"), [(3, 0.25), (4, 0.125), (9, 0.0625), (16, 0.015625)])
def test_every_family_contains_the_standard_instance(family, K, gap):
    """At x_0 = 1/2 every family gives mu_1 = 1/2 - gap/2 exactly and K - 1 means at 1/2 + gap/2:
    the pipeline's standard instance (privdtol.environments)."""
    counts, x = STANDARD_PARAMS[family](K)
    means = means_of(Candidate(family, counts, x), K, gap, ETA)
    assert means.tolist() == [0.5 - gap / 2] + [0.5 + gap / 2] * (K - 1)
    np.testing.assert_array_equal(means, instance_means(K, gap, None, "standard"))


def test_the_standard_candidate_is_x0_one_half():
    assert fam.standard(5) == Candidate("standard", (), (0.5,))
    assert fam.STANDARD_X0 == 0.5
    assert means_of(fam.standard(2), 2, 0.25, ETA).tolist() == [0.375, 0.625]


def _random_candidates(rng, K, n):
    """n candidates of each family available at K (free at every K > 2) with random counts and
    parameters, and the corners 0 and 1 of [0, 1]^d."""
    families = ("standard",) if K == 2 else fam.FAMILIES
    out = []
    for family in families:
        if family == "three_level" and K < 4:
            continue
        d = fam.dimension(K, family)
        for x in [*rng.random((n, d)), np.zeros(d), np.ones(d)]:
            if family in ("two_level", "near_4eta", "geometric"):
                counts: tuple = (int(rng.integers(1, K)),)  # 1..K - 1
            elif family == "three_level":
                n1 = int(rng.integers(1, K - 1))
                counts = (n1, int(rng.integers(0, K - n1)))  # n_1 + n_2 <= K - 1
            else:
                counts = ()
            out.append(Candidate(family, counts, tuple(float(v) for v in x)))
    return out


@pytest.mark.parametrize("K", [2, 3, 4, 9, 16])
@pytest.mark.parametrize("gap", [0.25, 0.0625, 0.001])
def test_every_candidate_is_a_valid_instance(K, gap):
    """Random parameters and the corners of [0, 1]^d of every family: sorted means in [0, 1],
    the second exactly mu_1 + gap, no gap below gap."""
    rng = np.random.default_rng(K * 1000 + int(1 / gap))
    for c in _random_candidates(rng, K, 30):
        _assert_valid(means_of(c, K, gap, ETA), K, gap)
        # the best mean is x_0 (1 - gap)
        assert means_of(c, K, gap, ETA)[0] == pytest.approx(c.x[0] * (1 - gap), rel=1e-15)


def test_means_of_refuses_a_wrong_number_of_parameters():
    with pytest.raises(ValueError, match=r"^two_level at K = 4 takes 2 parameters$"):
        means_of(Candidate("two_level", (1,), (0.5,)), 4, 0.25, ETA)
    with pytest.raises(ValueError, match=r"^free at K = 4 takes 3 parameters$"):
        means_of(Candidate("free", (), (0.5, 0.1)), 4, 0.25, ETA)


def test_parameters_outside_the_unit_cube_are_clipped():
    inside = means_of(Candidate("two_level", (1,), (0.0, 1.0)), 3, 0.25, ETA)
    outside = means_of(Candidate("two_level", (1,), (-0.5, 7.0)), 3, 0.25, ETA)
    assert outside.tolist() == inside.tolist() == [0.0, 0.25, 1.0]


# ----------------------------------------------------------------- each family's means by hand
def test_two_level_by_hand():
    """K = 5, gap 1/8, x_0 = 1/2: mu_1 = 7/16, room = 1 - 7/16 - 1/8 = 7/16; two actions at
    gap, the other two at gap + room/2 = 1/8 + 7/32 = 11/32."""
    means = means_of(Candidate("two_level", (2,), (0.5, 0.5)), 5, 0.125, ETA)
    assert means.tolist() == [0.4375, 0.5625, 0.5625, 0.78125, 0.78125]


def test_near_4eta_places_the_second_level_around_4_eta():
    """eps = 1/16: eta = 1/32, 4 eta = 1/8; K = 4, gap 1/32, x_0 = 1/2 (mu_1 = 31/64): the
    second level at 4 eta 2^(z - 1/2), i.e. 1/8 at z = 1/2, 1/8 sqrt(2) at z = 1, 1/8 / sqrt(2)
    at z = 0."""
    gap, eta, mu1 = 1 / 32, 1 / 32, 31 / 64
    for z, second in [(0.5, 0.125), (1.0, 0.125 * math.sqrt(2)), (0.0, 0.125 / math.sqrt(2))]:
        means = means_of(Candidate("near_4eta", (1,), (0.5, z)), 4, gap, eta)
        np.testing.assert_allclose(means, [mu1, mu1 + gap, mu1 + second, mu1 + second], rtol=1e-15)
    assert means_of(Candidate("near_4eta", (1,), (0.5, 0.5)), 4, gap, eta).tolist() == [
        0.484375,
        0.515625,
        0.609375,
        0.609375,
    ]


def test_near_4eta_is_clipped_to_the_allowed_gaps():
    """Below gap: 4 eta 2^0 = 1/8 (eps = 1/16) with gap 1/4 is raised to 1/4.  Above the
    largest gap 1 - mu_1: eps = 1 (4 eta = 1/2), z = 1: 1/sqrt(2) > 1 - 7/16, so mu = 1."""
    low = means_of(Candidate("near_4eta", (1,), (0.5, 0.5)), 3, 0.25, 1 / 32)
    assert low.tolist() == [0.375, 0.625, 0.625]
    high = means_of(Candidate("near_4eta", (1,), (0.5, 1.0)), 3, 0.125, 0.125)
    assert high.tolist() == [0.4375, 0.5625, 1.0]


def test_three_level_by_hand():
    """K = 6, gap 1/4, x_0 = 0 (mu_1 = 0, room 3/4): levels 1/4, 1/4 + 3/8, 1/4 + 3/4."""
    means = means_of(Candidate("three_level", (2, 1), (0.0, 0.5, 1.0)), 6, 0.25, ETA)
    assert means.tolist() == [0.0, 0.25, 0.25, 0.625, 1.0, 1.0]


def test_geometric_levels_by_hand():
    """K = 7, two actions per level (L = 3 levels), gap 1/16, mu_1 = 0 (largest gap 1):
    s = 1 gives ratio (1 / (1/16))^(1/2) = 4 (levels 1/16, 1/4, 1); s = 1/2 gives ratio 2, one
    dyadic group per level (1/16, 1/8, 1/4)."""
    top = means_of(Candidate("geometric", (2,), (0.0, 1.0)), 7, 0.0625, ETA)
    assert top.tolist() == [0.0, 0.0625, 0.0625, 0.25, 0.25, 1.0, 1.0]
    half = means_of(Candidate("geometric", (2,), (0.0, 0.5)), 7, 0.0625, ETA)
    assert half.tolist() == [0.0, 0.0625, 0.0625, 0.125, 0.125, 0.25, 0.25]


def test_geometric_with_one_level_is_the_standard_spread():
    """K - 1 actions per level: one level, every gap gap whatever s."""
    means = means_of(Candidate("geometric", (3,), (0.5, 1.0)), 4, 0.25, ETA)
    assert means.tolist() == [0.375, 0.625, 0.625, 0.625]


def test_free_by_hand():
    """K = 4, gap 1/8, x_0 = 1/2 (room 7/16): gaps 1/8, 1/8 + 7/16, 1/8 + 7/64, sorted."""
    means = means_of(Candidate("free", (), (0.5, 1.0, 0.25)), 4, 0.125, ETA)
    assert means.tolist() == [0.4375, 0.5625, 0.671875, 1.0]


# ----------------------------------------------------------------------------------- as_free
@pytest.mark.parametrize("K", [3, 4, 6, 8])
def test_as_free_gives_back_every_instance(K):
    """Every instance of any family is the free candidate as_free returns: its means again."""
    rng = np.random.default_rng(K)
    gap = 0.0625
    for c in _random_candidates(rng, K, 10):
        means = means_of(c, K, gap, ETA)
        free = fam.as_free(means, K, gap)
        assert free.family == "free" and free.counts == () and len(free.x) == K - 1
        assert all(0 <= v <= 1 for v in free.x)
        np.testing.assert_allclose(means_of(free, K, gap, ETA), means, rtol=0, atol=1e-15)


def test_as_free_of_the_largest_best_mean_has_no_room():
    """mu_1 = 1 - gap: every gap is gap (no room), x_0 = 1 and u = 0."""
    free = fam.as_free([0.75, 1.0, 1.0], 3, 0.25)
    assert free == Candidate("free", (), (1.0, 0.0))


# -------------------------------------------------------------------------------------- scan
def test_scan_at_k16_holds_every_structured_family_and_only_valid_instances():
    """K = 16, gap 1/64, eta 1/8, x_0 in {1/2, 0}: counts by hand from the docstring's rule:
    n in {1, 7, 14} at gap; two levels at 4 second levels (2, 4, 16 gaps and the largest) = 12,
    near 4 eta at 3 z = 9, three levels at n_1 in {1, 5} with 2 second levels = 4, geometric
    with {1, 2, 3} per level at 3 s = 9: 34 per best mean."""
    K, gap = 16, 1 / 64
    cands = fam.scan(K, gap, ETA, [0.5, 0.0], free_max_k=8)
    assert Counter(c.family for c in cands) == {
        "two_level": 24,
        "near_4eta": 18,
        "three_level": 8,
        "geometric": 18,
    }
    assert len(set(cands)) == len(cands)
    assert {c.x[0] for c in cands} == {0.5, 0.0}
    for c in cands:
        _assert_valid(means_of(c, K, gap, ETA), K, gap)
    # the largest gap allowed is among the two-level instances: mu_K = 1
    assert any(means_of(c, K, gap, ETA)[-1] == 1.0 for c in cands if c.family == "two_level")


def test_scan_at_k3_has_no_three_levels_and_at_k2_nothing():
    cands = fam.scan(3, 0.25, ETA, [0.5], free_max_k=8)
    assert {c.family for c in cands} == {"two_level", "near_4eta", "geometric"}
    assert fam.scan(2, 0.25, ETA, [0.5, 0.0], free_max_k=8) == []


# -------------------------------------------------------------------------- random candidates
def test_random_candidate_is_deterministic_for_a_seeded_generator_and_valid():
    def draws(seed, K):
        rng = np.random.default_rng(seed)
        return [fam.random_candidate(rng, K, 8) for _ in range(300)]

    a, b = draws(7, 16), draws(7, 16)
    assert a == b and draws(8, 16) != a
    # every family is drawn at K = 16, free too (a random gap vector at every K)
    assert {c.family for c in a} == set(fam.FAMILIES)
    for c in a:
        assert len(c.x) == fam.dimension(16, c.family)
        _assert_valid(means_of(c, 16, 1 / 64, ETA), 16, 1 / 64)
    # K = 2: only the best mean is free
    k2 = draws(3, 2)
    assert {c.family for c in k2} == {"standard"}
    assert len({c.x for c in k2}) == 300


# ----------------------------------------------------------------------------------- describe
def test_describe_counts_the_gaps_at_each_multiple_of_the_gap():
    assert (
        fam.describe([0.4375, 0.5625, 0.5625, 0.5625, 0.9375], 0.125)
        == "mu_1 0.438; gaps/Delta_min: 3 at 1, 1 at 4"
    )
    assert fam.describe([0.0, 0.25], 0.25) == "mu_1 0; gaps/Delta_min: 1 at 1"


# --------------------------------------------------------------------- dimension and available
@pytest.mark.parametrize(
    ("K", "families", "free_dim"),
    [
        (2, ("standard",), 1),
        (3, ("standard", "two_level", "near_4eta", "geometric", "free"), 2),
        (4, ("standard", "two_level", "near_4eta", "three_level", "geometric", "free"), 3),
        (9, ("standard", "two_level", "near_4eta", "three_level", "geometric"), 8),
    ],
)
def test_dimension_and_available(K, families, free_dim):
    """free up to free_max_k = 8, three levels from K = 4, the others from K = 3."""
    assert fam.available(K, 8) == families
    sizes = {"standard": 1, "two_level": 2, "near_4eta": 2, "three_level": 3, "geometric": 2}
    for family, d in sizes.items():
        assert fam.dimension(K, family) == d
    assert fam.dimension(K, "free") == free_dim


def test_dimension_refuses_an_unknown_family():
    with pytest.raises(ValueError, match=r"^family 'nope' not in \('standard', 'two_level'"):
        fam.dimension(4, "nope")


def test_candidate_label():
    assert Candidate("two_level", (3,), (0.5, 0.1)).label() == "two_level(3)"
    assert Candidate("three_level", (2, 1), (0.5, 0.1, 0.2)).label() == "three_level(2,1)"
    assert Candidate("free", (), (0.5,)).label() == "free"
