"""What an audit will cost, estimated before it runs: every audit of
:mod:`privdtol.privacy` holds arrays whose size follows from its parameters alone, so a command
or a config block that would exhaust the memory is refused in one line naming the flag or the
config key, in microseconds, instead of after gigabytes and tens of seconds.

- per-selection search (:func:`~privdtol.privacy.exact_selection.audit_selection`): its
  candidate pairs of (block, K) matrices -- the fixed extreme pairs, ``n_random`` random ones
  (with their draws) and each local-search step's single moves (2 block K + block of them);
- whole sequence (:func:`~privdtol.privacy.whole_sequence.audit_sequence`): the enumerated
  sequences, K^R times the prefix combinations, against
  :data:`~privdtol.privacy.whole_sequence.MAX_SEQUENCES`; and its per-block searches;
- statistical (:func:`~privdtol.privacy.statistical.audit_statistical`): a Monte Carlo chunk
  plus, per run, the block regrets and the block actions (over their copies).

Measured on this machine: the statistical audit at 10^6 runs peaks at 0.68 GB (model 0.78); the
per-selection search at K = 16, block 1024 at 11.8 GB (model 11.9), at K = 16, block 256 with
4000 random pairs at 2.2 GB (model 2.0).
"""

from __future__ import annotations

from privdtol.errors import InputError
from privdtol.pipeline.limits import BASE_BYTES, gb
from privdtol.privacy.audit_controls import prefix_support
from privdtol.privacy.mechanisms import law_kind, make_audited
from privdtol.privacy.whole_sequence import MAX_SEQUENCES

#: copies of one candidate matrix alive per pair (D and D')
PAIR_COPIES = 2
#: copies of a random candidate (the draws beside D and D')
RANDOM_COPIES = 4
#: statistical audit: bytes per run and block (block regrets, realized regrets, actions, copies)
RUN_BLOCK_BYTES = 64
#: the per-block searches of the whole-sequence audit (as ``audit_sequence`` runs them)
SEQUENCE_SEARCH = {"n_random": 500, "max_steps": 20}


def extreme_pair_count(K: int, block: int) -> int:
    """Pairs of the first stage (:func:`~privdtol.privacy.exact_selection.extreme_pairs`)."""
    groups = min(int(K), 3)
    patterns = 4 if block > 1 else 2
    n = int(block)
    first_optional = int(prefix_support(n.bit_length() - 1)[0])  # the changed rows tried
    positions = len({0, min(first_optional, n - 1), n - 1})
    vectors = 2**groups
    return patterns**groups * positions * vectors * (vectors - 1)


def selection_bytes(K: int, block: int, n_random: int, max_steps: int) -> float:
    """Peak bytes of one per-selection search (rough)."""
    cell = 8.0 * block * K
    local = (2 * block * K + block) if max_steps > 0 else 0
    pairs = PAIR_COPIES * (extreme_pair_count(K, block) + local) + RANDOM_COPIES * n_random
    return BASE_BYTES + cell * pairs


def sequence_count(algorithm: str, epsilon: float, K: int, horizon: int) -> int:
    """Sequences the whole-sequence audit enumerates: K^R times the prefix combinations."""
    R = int(horizon).bit_length()
    kind = law_kind(make_audited(algorithm, epsilon))
    combos = 1
    if kind in ("softmax_mixture", "softmax_data_prefix"):
        for r in range(R - 1):
            combos *= prefix_support(r).size
    return int(K) ** R * combos


def statistical_bytes(K: int, block: int, runs: int) -> float:
    """Peak bytes of one statistical audit (T = 4 block - 1 rounds)."""
    from privdtol.engine.fast import CHUNK_ELEMENTS

    blocks = (4 * int(block) - 1).bit_length()
    return BASE_BYTES + 64.0 * max(CHUNK_ELEMENTS, K) + RUN_BLOCK_BYTES * (blocks + 1) * runs


def _refuse(field: str, what: str, need: float, max_bytes: float, bound: str) -> None:
    if need > max_bytes:
        raise InputError(
            field,
            f"{what} needs about {gb(need)} of memory",
            f"audits within {bound} = {gb(max_bytes)}",
        )


def check_selection(K, block, n_random, max_steps, max_bytes, bound, fields) -> None:
    """One per-selection search against ``max_bytes``; ``fields``: the names of ``block`` and
    ``n_random`` (flags or config keys); the larger term is named."""
    need = selection_bytes(K, block, n_random, max_steps)
    random_part = selection_bytes(K, block, n_random, 0) - selection_bytes(K, block, 0, 0)
    field = fields["n_random"] if random_part > (need - BASE_BYTES) / 2 else fields["block"]
    what = f"the per-selection search at K={K}, block={block}, {n_random} random pairs"
    _refuse(field, what, need, max_bytes, bound)


def check_sequence(algorithm, epsilon, K, horizon, max_bytes, bound, field) -> None:
    """The whole-sequence enumeration against :data:`MAX_SEQUENCES`, and its per-block searches
    against ``max_bytes`` (``field``: the name of the horizon, flag or config key)."""
    count = sequence_count(algorithm, epsilon, K, horizon)
    if count > MAX_SEQUENCES:
        raise InputError(
            field,
            f"{algorithm} at K={K}, T={horizon} enumerates {count:.3g} action sequences",
            f"at most {MAX_SEQUENCES} (a smaller T or K)",
        )
    R = int(horizon).bit_length()
    if R >= 2:
        need = selection_bytes(K, 1 << (R - 2), **SEQUENCE_SEARCH)
        _refuse(field, f"the sequence audit's search at K={K}, T={horizon}", need, max_bytes, bound)


def check_statistical(K, block, runs, max_bytes, bound, field) -> None:
    need = statistical_bytes(K, block, runs)
    _refuse(
        field,
        f"the statistical audit of {runs} runs at K={K}, block={block}",
        need,
        max_bytes,
        bound,
    )


def check_grid(grid: dict, max_bytes: float, bound: str) -> None:
    """A merged privacy grid (:func:`~privdtol.privacy.audit_grid.merge_grid`) against
    ``max_bytes``, before any audit: one InputError naming the ``privacy.`` key."""
    ex, seq, st = grid["exact"], grid["sequence"], grid["statistical"]
    names = {"n_random": "privacy.exact.n_random", "block": "privacy.blocks"}
    for K in grid["K"]:
        for block in grid["blocks"]:
            check_selection(
                int(K),
                int(block),
                int(ex["n_random"]),
                int(ex["max_steps"]),
                max_bytes,
                bound,
                names,
            )
    for name in [*grid["algorithms"], *grid["negative_controls"]]:
        for K in seq["K"]:
            check_sequence(
                name, 1.0, int(K), int(seq["horizon"]), max_bytes, bound, "privacy.sequence.horizon"
            )
    for K in st["K"]:
        check_statistical(
            int(K), int(st["block"]), int(st["runs"]), max_bytes, bound, "privacy.statistical.runs"
        )


def check_privacy_block(config: dict) -> None:
    """A validated config's ``privacy:`` block against ``limits.max_memory_gb`` (and the
    sequence audit's enumeration bound), before any audit runs: one InputError naming the
    ``privacy.`` key (``privdtol check-config`` and the workflow call it after the config
    loader, which is a layer below and cannot)."""
    from privdtol.privacy.audit_grid import merge_grid

    if config.get("privacy") is None:
        return
    max_bytes = config["limits"]["max_memory_gb"] * 1e9
    check_grid(merge_grid(config["privacy"]), max_bytes, "limits.max_memory_gb")
