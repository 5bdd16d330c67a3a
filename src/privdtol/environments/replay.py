"""Replay of a user's loss matrix (T rows = rounds, K columns = actions, values in [0, 1]).

Every run sees the same fixed sequence, so the model is deterministic given the file; it is what
the privacy audits (neighbouring datasets) and users' own data need.  Pseudo-regret uses the
column means as mu_j (which must have a unique minimum).  Window sums come from prefix sums.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from privdtol.environments.base import LossModel
from privdtol.errors import InputError


def read_loss_matrix(path: str | Path, field: str = "losses") -> np.ndarray:
    """Read a CSV loss matrix (optional header row); one clear error for every defect."""
    path = Path(path)
    if not path.is_file():
        raise InputError(field, f"no such file: {path}", "a CSV file of T rows and K columns")
    text = path.read_text().strip().splitlines()
    if not text:
        raise InputError(field, f"{path} is empty", "a CSV file of T rows and K columns")
    rows = []
    for number, line in enumerate(text, start=1):
        cells = [c.strip() for c in line.split(",")]
        try:
            rows.append([float(c) for c in cells])
        except ValueError:
            if number == 1 and rows == []:
                continue  # header
            raise InputError(
                field, f"{path} line {number}: non-numeric value in {line!r}", "numbers in [0, 1]"
            ) from None
    if not rows:
        raise InputError(field, f"{path} has no data rows", "a CSV file of T rows and K columns")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise InputError(
            field,
            f"{path}: rows have different numbers of columns {sorted(widths)}",
            "every row with the same K >= 2 columns",
        )
    matrix = np.array(rows, dtype=float)
    if matrix.shape[1] < 2:
        raise InputError(field, f"{path}: {matrix.shape[1]} column", "K >= 2 columns")
    if not np.all(np.isfinite(matrix)) or matrix.min() < 0 or matrix.max() > 1:
        raise InputError(field, f"{path}: values outside [0, 1]", "numbers in [0, 1]")
    return matrix


class ReplayLosses(LossModel):
    name = "replay"
    order = 5
    from_file = True
    #: the loss law, typeset (LaTeX; the report's loss-model table)
    law_tex = r"$X_t$ = row $t$ of a given $T \times K$ loss matrix with entries in $[0,1]$"
    exact_sums = True

    def __init__(self, matrix: np.ndarray, source: str = "<array>"):
        matrix = np.asarray(matrix, dtype=float)
        super().__init__(matrix.mean(axis=0))
        self.matrix = matrix
        self.source = source
        self._prefix = np.vstack([np.zeros((1, matrix.shape[1])), np.cumsum(matrix, axis=0)])

    @classmethod
    def from_csv(cls, path: str | Path) -> ReplayLosses:
        return cls(read_loss_matrix(path), source=str(path))

    @property
    def max_rounds(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def bernoulli_valued(self) -> bool:  # type: ignore[override]
        return bool(np.all((self.matrix == 0) | (self.matrix == 1)))

    def params(self):
        digest = __import__("hashlib").sha256(self.matrix.tobytes()).hexdigest()[:16]
        return {**super().params(), "losses_sha256": digest}

    def _check(self, start, n):
        if start + n > self.max_rounds:
            raise InputError(
                "horizon",
                f"needs {start + n} rounds but the loss file has {self.max_rounds}",
                f"horizon <= {self.max_rounds}",
            )

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        self._check(start, n_rounds)
        block = self.matrix[start : start + n_rounds]
        return np.broadcast_to(block, (n_runs, *block.shape)).copy()

    def window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        self._check(start, int(lengths.max(initial=0)))
        return self._prefix[start + lengths] - self._prefix[start]
