"""Guard for a survivor of ``make mutation GROUPS=pipeline`` (issue 24, docs/testing.md):
:func:`privdtol.pipeline.plan.make_batches` closes a batch when its cells' JSON would exceed
:data:`~privdtol.pipeline.plan.MAX_JSON_CHARS` (100 000) characters, so a batch whose cells
count exactly 100 000 is kept whole, the first batch and every later one (whose count starts
again from 0 when the previous batch closes)."""

from __future__ import annotations

import dataclasses

from privdtol.pipeline import plan

#: one Monte Carlo cell; its JSON estimate is, per value, len(json.dumps(value)) + 1:
#: "rps" 6, "bernoulli" 12, "standard" 11, 8 2, 0.5 4, null 5, 1.0 4, 1023 5, 100 4, null 5,
#: null 5, 0 2 (the "auto" engine is left out): 65, or 66 with a 5-digit horizon
CELL = plan.Cell(
    algorithm="rps",
    env="bernoulli",
    instance="standard",
    K=8,
    gap=0.5,
    mu_best=None,
    epsilon=1.0,
    horizon=1023,
    runs=100,
    rho=None,
    kappa=None,
    seed=0,
)


def _full_batch(seed: int, five_digit: int = 30) -> list[plan.Cell]:
    """1538 cells of 100 000 JSON characters with the default 30 five-digit horizons:
    1508 x 65 + 30 x 66 = 98 020 + 1 980."""
    short = [
        dataclasses.replace(CELL, horizon=1000 + i, seed=seed) for i in range(1538 - five_digit)
    ]
    long = [dataclasses.replace(CELL, horizon=10_000 + i, seed=seed) for i in range(five_digit)]
    return short + long


def test_batches_of_exactly_max_json_chars_stay_whole():
    assert plan.MAX_JSON_CHARS == 100_000
    assert plan._json_chars(CELL) == 65
    assert plan._json_chars(dataclasses.replace(CELL, horizon=10_000)) == 66
    cells = _full_batch(0) + _full_batch(1)
    batches = plan.make_batches(cells, "x", target_seconds=1e6, max_cells=10_000)
    assert [len(b.cells) for b in batches] == [1538, 1538]
    assert [b.name for b in batches] == ["x_000", "x_001"]
    assert batches[1].cells[0] == dataclasses.replace(CELL, horizon=1000, seed=1)
    # one character more in the second batch (a 31st five-digit horizon): its last cell moves on
    over = plan.make_batches(
        _full_batch(0) + _full_batch(1, five_digit=31), "x", target_seconds=1e6, max_cells=10_000
    )
    assert [len(b.cells) for b in over] == [1538, 1537, 1]
