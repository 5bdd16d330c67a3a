"""Tests of :mod:`privdtol.privacy.cost`: the audits' estimates, and a config's privacy block
refused before any audit (check-config, the workflow's parse)."""

from __future__ import annotations

import pytest
from support.configs import SMALL, smoke_with_one

from privdtol.errors import InputError
from privdtol.privacy import cost
from privdtol.privacy.exact_selection import extreme_pairs
from privdtol.privacy.whole_sequence import MAX_SEQUENCES


@pytest.mark.parametrize(("K", "block"), [(2, 1), (2, 16), (3, 4), (8, 64)])
def test_extreme_pair_count_is_the_search_s(K, block):
    assert cost.extreme_pair_count(K, block) == len(extreme_pairs(K, block.bit_length() - 1)[0])


def test_sequence_count_of_the_default_grid_fits():
    assert cost.sequence_count("rps", 1.0, 3, 63) == 3**6 * 64 <= MAX_SEQUENCES
    assert cost.sequence_count("rnm_ftnl", 1.0, 3, 63) == 3**6


def test_statistical_estimate_grows_with_runs():
    assert cost.statistical_bytes(2, 16, 10**6) < 1e9 < cost.statistical_bytes(2, 16, 10**8)


@pytest.mark.parametrize(
    ("privacy", "key"),
    [
        ({"sequence": {"K": [4], "horizon": 1023}}, "privacy.sequence.horizon"),
        ({"statistical": {"runs": 10_000_000}}, "privacy.statistical.runs"),
        ({"K": [16], "blocks": [1024]}, "privacy.blocks"),
        ({"exact": {"n_random": 1_000_000}, "blocks": [1024]}, "privacy.exact.n_random"),
    ],
)
def test_costly_privacy_block_refused_by_the_config(privacy, key):
    """Before the fix check-config accepted these and audit-grid used gigabytes first; the
    config loader accepts them (the audits are a layer above it), check_privacy_block, which
    check-config and the workflow call next, refuses them naming the key."""
    from privdtol.pipeline.config import load_config

    cfg = load_config(
        smoke_with_one(**SMALL) | {"privacy": privacy, "limits": {"max_memory_gb": 2}}
    )
    with pytest.raises(InputError) as err:
        cost.check_privacy_block(cfg)
    assert str(err.value).startswith(f"{key}: ")
    cost.check_privacy_block({**cfg, "privacy": None})  # no block: nothing to check


def test_check_grid_names_the_key():
    from privdtol.privacy.audit_grid import merge_grid

    with pytest.raises(InputError, match=r"privacy\.statistical\.runs"):
        cost.check_grid(merge_grid({"statistical": {"runs": 10**7}}), 1e9, "x")
