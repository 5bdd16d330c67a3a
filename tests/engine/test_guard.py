"""Tests of :mod:`privdtol.engine.guard`: an algorithm or a loss model that raises, returns
actions out of range, a law that is not a probability vector or window sums that are NaN or
negative is refused in one line naming it, never written as a ``regret = nan`` row."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.algorithms.rps import RandomizedPrefixSoftmax
from privdtol.engine.fast import simulate
from privdtol.engine.guard import RunFailure
from privdtol.environments.bernoulli import BernoulliProduct

MEANS = (0.25, 0.5, 0.5)


class Raising(RandomizedPrefixSoftmax):
    """Fails from block 5 on, as the plugin of the hostile probe did."""

    name = "raising"

    def select(self, rng, sums, r):
        if r >= 5:
            raise RuntimeError("boom at block five")
        return super().select(rng, sums, r)


class OutOfRange(RandomizedPrefixSoftmax):
    name = "out_of_range"

    def select(self, rng, sums, r):
        act, law = super().select(rng, sums, r)
        return act + 7, law


class NanLaw(RandomizedPrefixSoftmax):
    name = "nan_law"

    def select(self, rng, sums, r):
        act, law = super().select(rng, sums, r)
        return act, np.full_like(law, np.nan)


class NanSums(BernoulliProduct):
    name = "nan_sums"

    def window_sums(self, rng, start, lengths):
        return np.full((len(lengths), self.K), np.nan)


class NegativeSums(BernoulliProduct):
    name = "negative_sums"

    def window_sums(self, rng, start, lengths):
        return -super().window_sums(rng, start, lengths)


def run(alg_cls=RandomizedPrefixSoftmax, env_cls=BernoulliProduct, mode="fast"):
    return simulate(alg_cls(1.0), env_cls(MEANS), 255, 8, {"test": "guard"}, mode=mode)


@pytest.mark.parametrize("mode", ["fast", "explicit"])
@pytest.mark.parametrize(
    "alg_cls,env_cls,field,problem",
    [
        (
            Raising,
            BernoulliProduct,
            "algorithm",
            "test_guard.Raising) failed: "
            "RuntimeError: boom at block five (in select, test_guard.py:",
        ),
        (OutOfRange, BernoulliProduct, "algorithm", "returned actions outside 0..2"),
        (NanLaw, BernoulliProduct, "algorithm", "not probabilities (NaN, inf or < 0)"),
    ],
    ids=["raises-at-block-5", "out-of-range", "nan-law"],
)
def test_a_failing_algorithm_is_one_line_naming_it(alg_cls, env_cls, field, problem, mode):
    with pytest.raises(RunFailure) as info:
        run(alg_cls, env_cls, mode)
    assert info.value.field == field and problem in str(info.value), str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "env_cls,problem",
    [(NanSums, "NaN or infinite"), (NegativeSums, r"outside \[0, window length\]")],
)
def test_a_loss_model_with_nan_or_negative_window_sums_is_refused(env_cls, problem):
    with pytest.raises(RunFailure, match=problem) as info:
        run(env_cls=env_cls)
    assert info.value.field == "env" and f"loss model '{env_cls.name}'" in str(info.value)


def test_a_well_behaved_pair_passes_and_the_engine_s_own_error_keeps_its_traceback():
    assert np.isfinite(run().regret).all()
    from privdtol.engine.guard import blame

    try:
        raise KeyError("engine")
    except KeyError as err:  # raised here, in no method or module of theirs
        assert blame(RandomizedPrefixSoftmax(1.0), BernoulliProduct(MEANS), err) is None
