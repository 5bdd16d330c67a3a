"""Tests of :mod:`privdtol.environments.replay`: losses replayed from a CSV matrix, whose window
sums are prefix sums, and the refusal of malformed loss files."""

from __future__ import annotations

import numpy as np
import pytest
from support.laws import explicit_window_sums

from privdtol.environments import (
    ReplayLosses,
    read_loss_matrix,
)
from privdtol.errors import InputError


def test_replay_window_sums_are_prefix_sums(tmp_path):
    matrix = np.random.default_rng(0).random((37, 3))
    matrix[:, 0] *= 0.5
    path = tmp_path / "losses.csv"
    np.savetxt(path, matrix, delimiter=",", header="a,b,c", comments="")
    env = ReplayLosses.from_csv(path)
    lengths = np.array([1, 4, 10])
    expected = np.array([matrix[6 : 6 + n].sum(axis=0) for n in lengths])
    np.testing.assert_allclose(env.window_sums(None, 6, lengths), expected)
    np.testing.assert_allclose(
        explicit_window_sums(env, np.random.default_rng(0), 6, lengths), expected
    )
    with pytest.raises(InputError, match="horizon"):
        env.window_sums(None, 30, np.array([10]))


@pytest.mark.parametrize(
    "content,problem",
    [
        ("", "empty"),
        ("a,b\n0.1,x\n", "non-numeric"),
        ("0.1,0.2\n0.3\n", "different numbers"),
        ("0.1,1.5\n", "outside"),
        ("0.5\n0.2\n", "column"),
        ("a,b\n", "no data rows"),
    ],
)
def test_malformed_loss_files_are_rejected(tmp_path, content, problem):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(InputError, match=problem):
        read_loss_matrix(path)
