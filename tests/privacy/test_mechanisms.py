"""Tests of :mod:`privdtol.privacy.mechanisms`: the audited selection laws (the softmax mixture
over the random prefix, the Laplace noisy-min law by Gauss-Legendre quadrature), Lemma 3's
per-selection bound 2 eta, and the refusals of what cannot be audited."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.laws import noisy_min_pair_law

from privdtol.algorithms import laplace_noisy_min_law, make_algorithm
from privdtol.algorithms.rps import random_prefix
from privdtol.core.seeding import generator
from privdtol.errors import InputError
from privdtol.privacy import log_selection_law, make_audited, mechanisms
from privdtol.privacy.audit_controls import prefix_support
from privdtol.privacy.exact_selection import SelectionAudit
from privdtol.privacy.mechanisms import laplace_noisy_min_logprob, lemma3_bound, logsumexp

#: relative tolerance of a literal against the formula: rounding only
REL = 1e-12


def test_audit_stream_keys_and_law_kinds():
    alg = mechanisms.make_audited("rps", 1.0)
    assert SelectionAudit.stream_key(alg, K=4) == {
        "audit": "exact_selection",
        "algorithm": "rps",
        "epsilon": 1.0,
        "K": 4,
    }
    assert mechanisms.law_kind(alg) == "softmax_mixture"
    assert mechanisms.law_kind(mechanisms.make_audited("rps_full_prefix", 1.0)) == ("softmax_point")
    with pytest.raises(InputError) as err:
        mechanisms.block_index(3)
    assert str(err.value) == "block: got 3 (allowed: powers of two 1, 2, 4, ..., 1024)"


def test_audit_messages_word_for_word():
    with pytest.raises(InputError) as err:
        mechanisms.make_audited("ftl", 1.0)
    assert str(err.value) == (
        "algorithm: 'ftl' is not an auditable (private) algorithm (allowed: rps, rnm_ftnl, "
        "wu_wang, wu_wang_gumbel, rps_full_prefix, rps_uncapped, uniform, rps_eta_logk, "
        "rps_eta_sq, rps_short_prefix, rps_uniform_mix, rps_hot, rps_eta_eps, rps_data_prefix)"
    )
    with pytest.raises(InputError) as err:
        mechanisms.block_index(2048)
    assert str(err.value) == "block: got 2048 (allowed: powers of two 1, 2, 4, ..., 1024)"
    alg = mechanisms.make_audited("rps", 1.0)
    with pytest.raises(InputError) as err:
        mechanisms.log_selection_law(alg, np.zeros((3, 2)), 1)
    assert str(err.value) == "block: dataset of 3 rows for block r=1 (allowed: 2 rows)"


def test_resampled_algorithms_are_audited_on_binary_data():
    """Wu & Wang's two variants read Bernoulli-resampled losses; the others read [0,1]^K."""
    resampled = {
        n
        for n in mechanisms.AUDITABLE
        if mechanisms.uses_resampling(mechanisms.make_audited(n, 1.0))
    }
    assert resampled == {"wu_wang", "wu_wang_gumbel"}


def test_the_temperature_of_a_laplace_selection_is_refused_in_one_line():
    with pytest.raises(InputError) as err:
        mechanisms.temperature(mechanisms.make_audited("rnm_ftnl", 1.0))
    assert str(err.value) == (
        "algorithm: 'rnm_ftnl' is not a softmax selection (allowed: softmax laws)"
    )
    assert err.value.field == "algorithm"


def test_logsumexp_of_float32_input_is_computed_in_float64():
    """log(e^0 + e^0) = ln 2 to float64 rounding (float32 would be off by ~1e-8)."""
    out = logsumexp(np.zeros(2, dtype=np.float32))
    assert out.dtype == np.float64
    assert abs(float(out) - math.log(2)) < 1e-15


@pytest.mark.parametrize(
    ("name", "eps", "bound"),
    [
        ("rps", 1.0, 0.25),  # 2 eta, eta = 1/8
        ("rps", 0.1, 0.1),  # 2 eta = eps for eps <= 1/4
        ("rps_full_prefix", 0.2, 0.2),
        ("rps_uncapped", 1.0, 1.0),  # 2 (eps/2)
        ("wu_wang_gumbel", 0.3, 0.3),  # exponential mechanism, eta = eps/2
        ("rnm_ftnl", 0.3, 0.3),  # Laplace(2/eps), sensitivity 1 per coordinate
        ("wu_wang", 0.7, 0.7),
    ],
)
def test_lemma3_per_selection_bound(name, eps, bound):
    assert lemma3_bound(make_algorithm(name, eps)) == pytest.approx(bound, rel=REL)


def test_mixture_law_is_the_average_over_the_prefix():
    """The audited law of rps at r = 3 is the mean over m in {5..8} of softmax(-eta L(m))."""
    rng = generator({"test": "mixture"})
    d = rng.random((8, 3))
    alg = make_audited("rps", 1.0)
    cum = np.vstack([np.zeros(3), np.cumsum(d, axis=0)])
    manual = np.mean([alg.law(cum[m][None], 3)[0] for m in range(5, 9)], axis=0)
    assert np.allclose(np.exp(log_selection_law(alg, d, 3)), manual, rtol=1e-13)
    # the support used by the audit is the simulator's: M_3 takes exactly the values 5..8
    draws = random_prefix(generator({"test": "support"}), 3, 4000)
    assert set(draws.tolist()) == set(prefix_support(3).tolist())


def test_laplace_law_matches_quadrature_and_closed_form():
    s = np.array([0.0, 3.0, 5.0, 2.0])
    assert np.allclose(
        np.exp(laplace_noisy_min_logprob(s, 4.0)), laplace_noisy_min_law(s, 4.0), atol=1e-10
    )
    for x in (1.0, 10.0, 40.0):  # K = 2: P(Z1 - Z0 > x) = e^-x (2 + x) / 4, scale 1
        got = laplace_noisy_min_logprob(np.array([0.0, x]), 1.0)[1]
        assert got == pytest.approx(np.log(noisy_min_pair_law(x, 1.0)[1]), rel=1e-10)


def test_laplace_quadrature_with_16_nodes_matches_40_to_rounding():
    """The audits' Laplace law uses 16 Gauss-Legendre nodes a segment: the same
    log-probabilities as 40 nodes to 1e-12 (absolute in log P, i.e. relative in P), on random
    sums and every eps the audits use."""
    rng = np.random.default_rng(7)
    fine = np.polynomial.legendre.leggauss(40)
    for K in (2, 3, 4, 8):
        for eps in (0.01, 0.1, 0.5, 2.0, 8.0):
            sums = rng.integers(0, 65, size=K).astype(float)
            ours = mechanisms.laplace_noisy_min_logprob(sums, 2 / eps)
            nodes = mechanisms._GL_NODES, mechanisms._GL_WEIGHTS
            try:
                mechanisms._GL_NODES, mechanisms._GL_WEIGHTS = fine
                ref = mechanisms.laplace_noisy_min_logprob(sums, 2 / eps)
            finally:
                mechanisms._GL_NODES, mechanisms._GL_WEIGHTS = nodes
            assert np.max(np.abs(ours - ref)) < 1e-12, (K, eps, sums)
