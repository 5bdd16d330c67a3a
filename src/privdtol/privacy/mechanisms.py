"""Exact selection laws of the audited block algorithms, in log space, batched over datasets.

One *selection* maps the data of block r (a dataset d of n = 2^r loss vectors in [0,1]^K) to
the next block's action A_(r+1).  What is released is the law of A_(r+1) given d, *after*
averaging over the algorithm's internal randomness, so for RPS it is the mixture over the
data-independent prefix M_r (paper Section 4, Lemma 3)::

    P(j | d) = (1/|S_r|) sum_(m in S_r) softmax_j(-eta L^d(m)),   S_r = supp(M_r),

with S_0 = {1} and S_r = {2^(r-1)+1, ..., 2^r}.  The audited laws:

===================  =======================================================================
``rps``              uniform mixture over S_r of softmax(-eta L(m)), eta = min(eps/2, 1/8)
``rps_uncapped``     same, eta = eps/2
``rps_full_prefix``  softmax(-eta L(2^r))  (M_r = 2^r, a point mass)
``wu_wang_gumbel``   softmax(-(eps/2) S), S the full block sums of the Bernoulli-resampled
                     losses; audited on {0,1} data, where the resampling is the identity
``rnm_ftnl``,        argmin_j (S_j - Z_j), Z_j i.i.d. Laplace(2/eps): evaluated by
``wu_wang``          one-dimensional quadrature with a *relative* tolerance (small
                     probabilities stay accurate); {0,1} data for ``wu_wang``
``rps_eta_eps``      negative control: the ``rps`` mixture with eta = eps
``rps_data_prefix``  negative control: softmax(-eta L(m*(d))), m*(d) the data-chosen prefix
other algorithms     by their declarations (:mod:`privdtol.algorithms.declarations`): a
                     declared softmax or Gumbel law over the declared ``prefix_rule``; without
                     one, the class's own ``law`` method (``law_method``, e.g. a plugin's
                     permute-and-flip), mixed over the prefix rule the same way
===================  =======================================================================

Everything is computed as log-probabilities (:func:`logsumexp`), so a ratio of two
probabilities of order 1e-30 is still exact to rounding.
"""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import ALGORITHMS, BlockAlgorithm
from privdtol.errors import InputError
from privdtol.privacy.audit_controls import (
    AUDIT_ONLY,
    DataDependentPrefix,
    data_chosen_prefix,
    prefix_support,
)


def _has_law_method(cls) -> bool:
    """Whether a block algorithm class overrides :meth:`BlockAlgorithm.law` (its law given the
    rounds it reads; the base returns None)."""
    return cls.law is not BlockAlgorithm.law


def _auditable(cls) -> bool:
    """A private block algorithm whose selection law the audits compute: a declared pure law,
    or a ``law`` method (a law mixed with uniform play, the control of Lemma 5, included)."""
    if not (cls.private and issubclass(cls, BlockAlgorithm)):
        return False
    law = cls.exact_law
    return (law is not None and not law.uniform_mix) or _has_law_method(cls)


#: private registered algorithms the audits accept (block algorithms with a computable law:
#: :func:`_auditable`), plugins included
PRIVATE = tuple(n for n, c in ALGORITHMS.items() if _auditable(c))
#: every algorithm ``privdtol audit`` accepts: the private ones, then the negative controls
AUDITABLE = PRIVATE + tuple(AUDIT_ONLY)
#: the laws with a closed form (exact audits); the Laplace ones need quadrature
LAW_KINDS = ("softmax_mixture", "softmax_point", "softmax_data_prefix", "laplace_quadrature")


def make_audited(name: str, epsilon: float) -> BlockAlgorithm:
    """Instantiate a private algorithm or a negative control by name."""
    if name in PRIVATE:
        return ALGORITHMS[name](epsilon)
    if name in AUDIT_ONLY:
        return AUDIT_ONLY[name](epsilon)
    raise InputError(
        "algorithm", f"{name!r} is not an auditable (private) algorithm", ", ".join(AUDITABLE)
    )


def audited(algorithm: str | BlockAlgorithm, epsilon: float | None = None) -> BlockAlgorithm:
    """The algorithm an audit is given: an instance as it is, a name by :func:`make_audited`."""
    return make_audited(algorithm, epsilon) if isinstance(algorithm, str) else algorithm


def is_negative_control(alg_or_name) -> bool:
    name = alg_or_name if isinstance(alg_or_name, str) else alg_or_name.name
    return name in AUDIT_ONLY


def law_kind(alg: BlockAlgorithm) -> str:
    """Which exact law the selection of ``alg`` has (see the module table), from its
    declarations: a softmax (or Gumbel) law over the random prefix M_r (``softmax_mixture``)
    or over one deterministic prefix (``softmax_point``), a Laplace report-noisy-min
    (``laplace_quadrature``), or the class's ``law`` method (``law_method``)."""
    if isinstance(alg, DataDependentPrefix):
        return "softmax_data_prefix"
    law = getattr(alg, "exact_law", None)
    if law is not None and not law.uniform_mix:
        if not law.softmax:
            return "laplace_quadrature"
        return "softmax_mixture" if alg.prefix_rule == "random" else "softmax_point"
    if isinstance(alg, BlockAlgorithm) and _has_law_method(type(alg)):
        return "law_method"  # no declared law, or one mixed with uniform play
    raise InputError("algorithm", f"no exact law for {alg.name!r}", ", ".join(AUDITABLE))


def temperature(alg: BlockAlgorithm, K: int | None = None) -> float:
    """Inverse temperature of a declared softmax selection (eta; 1/scale for Gumbel noise)."""
    law = getattr(alg, "exact_law", None)
    if law is None or not law.softmax:
        raise InputError("algorithm", f"{alg.name!r} is not a softmax selection", "softmax laws")
    try:
        return law.temperature(alg, K)
    except AttributeError as err:
        raise InputError("algorithm", f"{alg.name!r}: {err}", "one temperature") from None


def selection_eta(alg: BlockAlgorithm, K: int | None = None) -> float:
    """:func:`temperature` of a softmax selection (at ``K`` actions); NaN for the laws that
    have none."""
    return temperature(alg, K) if law_kind(alg).startswith("softmax") else float("nan")


def lemma3_bound(alg: BlockAlgorithm) -> float:
    """The per-selection privacy bound the algorithm declares
    (``privacy.selection_epsilon``, :class:`~privdtol.algorithms.declarations.Privacy`): 2 eta
    for softmax selections (Lemma 3; for ``wu_wang_gumbel`` the exponential mechanism with
    eta = eps/2), eps for the Laplace report-noisy-min (scale 2/eps, sensitivity 1 in every
    coordinate)."""
    return float(alg.privacy.selection_epsilon(alg))


def uses_resampling(alg: BlockAlgorithm) -> bool:
    """True when the selection reads Bernoulli-resampled losses: audits then use {0,1} data."""
    return bool(getattr(alg, "resampled", False))


def block_index(block: int) -> int:
    """r with 2^r = block; the audited block lengths are powers of two (dyadic blocks)."""
    if int(block) != block or block < 1 or (int(block) & (int(block) - 1)):
        raise InputError("block", f"got {block}", "powers of two 1, 2, 4, ..., 1024")
    if block > 1024:
        raise InputError("block", f"got {block}", "powers of two 1, 2, 4, ..., 1024")
    return int(block).bit_length() - 1


def logsumexp(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    """log(sum(exp(x))) along ``axis``, shifted by the maximum so that nothing over- or
    underflows (-inf where every term is -inf).  The same value as ``scipy.special.logsumexp``
    for real input, without its per-call overhead (array-API dispatch, about 0.5 ms a call),
    which dominated the audits' tens of thousands of calls on small arrays."""
    x = np.asarray(x, dtype=float)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def log_softmax(x: np.ndarray) -> np.ndarray:
    return x - logsumexp(x, axis=-1, keepdims=True)


def prefix_sums(data: np.ndarray) -> np.ndarray:
    """(B, n, K) data -> (B, n + 1, K) with [:, m, :] = L(m), the sum of the first m rows."""
    data = np.asarray(data, dtype=float)
    zero = np.zeros((*data.shape[:-2], 1, data.shape[-1]))
    return np.concatenate([zero, np.cumsum(data, axis=-2)], axis=-2)


def prefix_law(alg: BlockAlgorithm, cum: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """The law of the prefix length given the data: (support (S,), log-weights (B, S)).

    Data-independent (uniform on S_r, or a point mass) for every registered algorithm; a point
    mass at the data-chosen m for ``rps_data_prefix``.
    """
    B, n = cum.shape[0], cum.shape[1] - 1
    kind = law_kind(alg)
    if kind == "softmax_data_prefix":
        support = prefix_support(r)
        chosen = data_chosen_prefix(cum, r)
        logw = np.where(support[None, :] == chosen[:, None], 0.0, -np.inf)
        return support, logw
    if kind != "laplace_quadrature" and alg.prefix_rule == "random":
        support = prefix_support(r)
        return support, np.full((B, support.size), -np.log(support.size))
    if kind != "laplace_quadrature" and alg.prefix_rule == "fixed":
        n = int(alg.prefix_lengths(None, r, 1)[0])  # deterministic: reads no rng
    return np.array([n], dtype=np.int64), np.zeros((B, 1))


def log_prefix_laws(alg: BlockAlgorithm, sums: np.ndarray, r: int) -> np.ndarray:
    """log P(j | the selection reads the prefix sums ``sums``), shape (..., K): the declared
    softmax law, or the class's ``law`` method (``law_method``)."""
    sums = np.asarray(sums, dtype=float)
    if law_kind(alg) != "law_method":
        return log_softmax(-temperature(alg, sums.shape[-1]) * sums)
    flat = np.asarray(alg.law(sums.reshape(-1, sums.shape[-1]), r), dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(flat).reshape(sums.shape)


#: Gauss-Legendre nodes per integration segment (segments are at most one noise scale wide, the
#: integrand analytic on each): 16 nodes give the same log-probabilities as 40 to 3e-14 over
#: K = 2..8, eps = 0.01..8 and sums in 0..64 (tests/privacy/test_mechanisms.py), at 40% of the work
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)


def laplace_noisy_min_logprob(sums: np.ndarray, scale: float) -> np.ndarray:
    """log P(argmin_j (S_j - Z_j) = j), Z_j i.i.d. Laplace(scale), one vector of sums.

    P(j) = int f(z) prod_(i != j) P(Z_i < z + S_i - S_j) dz.  The integrand is analytic between
    its kinks (z = 0 and z = S_j - S_i), so piecewise Gauss-Legendre quadrature on segments at
    most one noise scale wide, split at every kink and summed in log space, is accurate to
    rounding *relative* to P(j), however small (unlike
    :func:`privdtol.algorithms.rnm_ftnl.laplace_noisy_min_law`, whose absolute tolerance is 1e-13).
    Tests compare the two where both are accurate, and K = 2 with the closed form of the
    difference of two Laplace variables.  The integral is truncated 60 scales beyond the
    kinks (relative error < e^-60).
    """
    s = np.asarray(sums, dtype=float)
    K = s.size
    shift = s[:, None] - s[None, :]  # shift[j, i] = S_j - S_i: j's integrand has kinks there
    off = ~np.eye(K, dtype=bool)
    # one set of segments for every j: the union of all kinks (a finer split of each j's own
    # segments, so every j's integrand is still analytic on each piece)
    kinks = np.unique(np.concatenate([[0.0], shift[off]]))
    lo, hi = kinks.min() - 60 * scale, kinks.max() + 60 * scale
    edges = np.unique(np.concatenate([kinks, np.arange(lo, hi, scale), [hi]]))
    a, b = edges[:-1, None], edges[1:, None]
    z = (0.5 * (b - a) * _GL_NODES[None, :] + 0.5 * (a + b)).ravel()
    logw = np.log((0.5 * (b - a) * _GL_WEIGHTS[None, :]).ravel())
    x = z[None, :, None] - shift[:, None, :]  # (j, node, i): z + S_i - S_j
    neg, pos = np.minimum(x, 0.0), np.maximum(x, 0.0)
    log_cdf = np.where(x < 0, np.log(0.5) + neg / scale, np.log1p(-0.5 * np.exp(-pos / scale)))
    logf = -np.log(2 * scale) - np.abs(z)[None, :] / scale + (log_cdf * off[:, None, :]).sum(2)
    out = logsumexp(logw[None, :] + logf, axis=1)
    return out - logsumexp(out)


_LAPLACE_CACHE: dict = {}


def _laplace_cached(scale: float, shifted: tuple) -> np.ndarray:
    """Memoised quadrature: the law is invariant to adding a constant to every sum."""
    key = (scale, shifted)
    if key not in _LAPLACE_CACHE:
        if len(_LAPLACE_CACHE) > 200_000:
            _LAPLACE_CACHE.clear()
        _LAPLACE_CACHE[key] = laplace_noisy_min_logprob(np.array(shifted), scale)
    return _LAPLACE_CACHE[key]


def log_selection_law(alg: BlockAlgorithm, data: np.ndarray, r: int) -> np.ndarray:
    """log P(A_(r+1) = j | d) for a batch of block datasets ``data`` (B, n, K) -> (B, K).

    ``n`` must be 2^r (the whole block); only the rows the algorithm reads matter.
    """
    data = np.asarray(data, dtype=float)
    if data.ndim == 2:
        return log_selection_law(alg, data[None], r)[0]
    n = data.shape[1]
    if n != 1 << r:
        raise InputError("block", f"dataset of {n} rows for block r={r}", f"{1 << r} rows")
    cum = prefix_sums(data)
    kind = law_kind(alg)
    if kind == "laplace_quadrature":
        scale = float(alg.noise_scale)
        return np.vstack(
            [_laplace_cached(scale, tuple((row - row.min()).tolist())) for row in cum[:, n, :]]
        )
    support, logw = prefix_law(alg, cum, r)
    logp = log_prefix_laws(alg, cum[:, support, :], r)  # (B, S, K)
    return logsumexp(logp + logw[:, :, None], axis=1)


def pair_loss(logp: np.ndarray, logq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Privacy loss of each pair, ``max_j |log p_j - log q_j|``, and the maximising action."""
    diff = np.abs(np.asarray(logp) - np.asarray(logq))
    diff = np.where(np.isnan(diff), np.inf, diff)
    return diff.max(axis=-1), diff.argmax(axis=-1)
