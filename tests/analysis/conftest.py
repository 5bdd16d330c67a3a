"""Fixtures of the analysis tests: the smoke config's decision thresholds, the synthetic
tables of the regret model, and a small aggregated directory computed by the real engine."""

from __future__ import annotations

import pytest
from support.paths import SMOKE
from support.synthetic_regret import CONTROLS, rate_tables
from support.tiny_agg import build_tiny_agg

from privdtol.pipeline.config import load_config_files


@pytest.fixture(scope="module")
def thresholds():
    """The ``checks:`` block of the smoke config."""
    return load_config_files([SMOKE])["checks"]


@pytest.fixture(scope="module")
def synthetic():
    """The rate experiments' tables of rps and of each control, on the regret model."""
    return {alg: rate_tables(alg) for alg in ("rps", *CONTROLS)}


@pytest.fixture(scope="module")
def tiny_agg(tmp_path_factory):
    """The grid and gap experiments of :func:`support.tiny_agg.build_tiny_agg`, 20 runs."""
    return build_tiny_agg(tmp_path_factory.mktemp("agg"), runs=20, experiments=("grid", "gap"))
