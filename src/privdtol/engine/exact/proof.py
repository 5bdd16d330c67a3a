"""The terms of the proof of Theorem 1 (Cesari & Colomboni, Lemmas 4 and 5, Sections 5.3-5.4),
computed exactly by the engine's selection laws (no Monte Carlo), each with an error bound.

- F_m = E[sum_j Delta_j P_(m,j)], the expected gap of one softmax selection from m i.i.d. loss
  vectors (Section 5.3): the engine's law from m rounds (:meth:`_Spec.laws`) weighted by the
  gaps (:func:`selection_errors`);
- sum_(m>=1) F_m in dyadic ranges {2^(r-1)+1..2^r} (the support of M_r), each summed by the
  engine's M-averager (:class:`.averaging._Averager`), until the Chernoff bound on the rest is
  below STOP of the sum, the rest then bounded (added as half its bound, +- half);
- the split (3) of Lemma 5's proof: the small-gap part (Delta_j <= 4 eta), its dyadic groups
  H_l with their bounds, eq. (4)'s ratio E[P_(m,j)] / (2 e^(-m Delta_j^2/8)) at every m whose
  law the engine computed; the large-gap part (Delta_j > 4 eta) and sum_(m>=0) E[V_m], V_m the
  restricted softmax's gap (F_m of the instance restricted to the best and large-gap actions,
  the same eta: :func:`restricted_errors`); the drift inequality of the potential
  (:mod:`.potential`) on :data:`DRIFT_MS`;
- Reg_T of the algorithm's own law (:func:`privdtol.engine.exact.expected_regret`) and, for a
  random prefix, lim_T Reg_T = E[Delta_(A_0)] + 2 F_1 + 4 sum_(m>=2) F_m (Lemma 4's block
  accounting with equality).

``eta`` of the bounds is the paper's min(eps/2, 1/8); the selections use the algorithm's
temperature (``eta_selection``; equal for ``rps``, smaller for ``rps_eta_logk``, 4 for
``rps_hot``).

A selection mixed with the uniform law, (1 - gamma) softmax + gamma uniform
(``rps_uniform_mix``, gamma = ``uniform_mix``), is linear in its softmax component: its law
from m rounds is (1 - gamma) P_m + gamma / K per action, so F_m = (1 - gamma) F_m^softmax +
gamma sum_j Delta_j / K, and likewise each part of the split (3) and each group H_l with the
gaps of its own actions.  Those sums over m are INFINITE (the uniform term does not vanish)
wherever the part has an action; what is reported is a certified LOWER value of each:
(1 - gamma) times the softmax component's whole sum plus the uniform term summed over
m = 1..:data:`MIX_M_MAX` = 2^40 - 1 (the engine's largest checkpoint), i.e. less than the
partial sums of the true series beyond some m, so a left side above its bound (beyond the
error bounds) is a certified FAIL.  The blocks run over the ranges of m up to 2^40 - 1;
``sum_m_max`` says where the uniform term was cut (None for the convergent sums of a pure
softmax).  E[V_m], sum_V and the drift remain those of the softmax component's restricted
softmax Q (the potential argument of eq. (6) is about a softmax; P <= Q is the step a
mixture breaks), and lim_T Reg_T is infinite (Reg_T grows like gamma T sum_j Delta_j / K):
``regret_limit`` is None, and Lemma 4's left side is Reg_T at the horizon.
"""

from __future__ import annotations

import math

import numpy as np

from privdtol.algorithms import make_algorithm
from privdtol.algorithms.rps import prefix_range
from privdtol.core import bounds
from privdtol.engine.exact import EXACT_ALGORITHMS, expected_regret
from privdtol.engine.exact.averaging import _Averager
from privdtol.engine.exact.numerics import U
from privdtol.engine.exact.potential import expected_log_z, large_gap, restricted_means
from privdtol.engine.exact.spec import _Spec, rule

#: the m-sum stops when the Chernoff bound on its rest is below STOP x the sum so far
STOP = 1e-13
#: wanted error of each block's sum, relative to the sum so far (the bounds reported are
#: rigorous whatever it is; 1e-9 gives sums that agree with 1e-10's to ~1e-12, 25% faster)
REL_TOL = 1e-9
#: blocks r < R_MAX at most (m < 2^62); the rest, if any, is bounded
R_MAX = 62
#: where the drift inequality is evaluated: m = 0..4 and the powers of two up to 2^12
DRIFT_MS = tuple(sorted(set(range(5)) | {1 << k for k in range(13)}))

#: where the uniform term of a mixed selection's divergent m-sums is cut (module docstring):
#: the engine's largest checkpoint horizon, 2^40 - 1 (:data:`privdtol.core.clock.MAX_HORIZON`
#: - 1)
MIX_M_MAX = (1 << 40) - 1

#: the softmax algorithms of the exact engine (the lemmas are about softmax selections; a
#: softmax mixed with the uniform law, ``rps_uniform_mix``, is among them)
PROOF_ALGORITHMS = tuple(a for a in EXACT_ALGORITHMS if rule(make_algorithm(a, 1.0), 2)[0])


def _spec(algorithm, means, epsilon, env, eta=None):
    spec = _Spec(algorithm, means, epsilon, env, eta=eta)
    if not spec.softmax:
        raise ValueError(f"{algorithm!r} is not a softmax rule: Lemmas 4-5 are about softmax")
    return spec


def selection_errors(algorithm, means, epsilon, ms, env="bernoulli"):
    """(F_m, error bound) at each m of ``ms`` (>= 1): F_m = E[sum_j Delta_j P_(m,j)] at the
    algorithm's temperature (Section 5.3), of its selection's law (mixed with the uniform law
    for ``rps_uniform_mix``)."""
    return _weighted_laws(_spec(algorithm, means, epsilon, env), ms, mixed=True)


def restricted_errors(algorithm, means, epsilon, ms, env="bernoulli"):
    """(E[V_m], error bound) at each m of ``ms`` (>= 0): V_m = sum_(j large) Delta_j Q_(m,j),
    the restricted softmax's gap (Lemma 5's proof); zero when no action is large-gap."""
    ms = np.atleast_1d(np.asarray(ms, dtype=np.int64))
    mu, eta = restricted_means(algorithm, means, epsilon, env)
    V, E = np.zeros(ms.size), np.zeros(ms.size)
    if mu is None:
        return V, E
    V[ms == 0] = float((mu[1:] - mu[0]).sum()) / mu.size
    E[ms == 0] = 4 * U * V[ms == 0]
    if np.any(ms > 0):
        V[ms > 0], E[ms > 0] = _weighted_laws(_spec(algorithm, mu, epsilon, env, eta), ms[ms > 0])
    return V, E


def _weighted_laws(spec, ms, mixed=False):
    """(sum_j Delta_j P(A = j | m rounds), error bound) at each m of ``ms``: the rule's law,
    or with ``mixed`` the selection's (:meth:`_Spec.mixed`)."""
    P, E = spec.laws(np.atleast_1d(ms))
    if mixed:
        P, E = spec.mixed(P, E)
    w = spec.ns * spec.delta
    return P @ w, E @ w + 4 * U * (P @ w)


def dyadic_sums(spec, base=None, rel_tol=REL_TOL):
    """Per range r (r = 0: m = 1; r >= 1: 2^(r-1)+1..2^r): (S, E) per group, S[r, g] = sum of
    P(A = a member of g | m rounds) over the range, E its error bound; and (tail, averager):
    tail[g] bounds the sum over the m beyond the last range (zero if it ends the sum).
    ``base``: the averager of the instance's exact regret (:func:`~privdtol.engine.exact.
    regret_and_averager`, the same laws), whose panels sum the m it covers; its laws are shared.
    ``rel_tol``: the error wanted of each range, relative to the sum so far (the error bounds
    returned are rigorous whatever it is)."""
    w = spec.ns * spec.delta
    avg = _Averager(spec, 1 << R_MAX, w)
    if base is not None:
        if base.spec.eta != spec.eta or not np.array_equal(base.spec.mu, spec.mu):
            raise ValueError("base: the averager of another instance or temperature")
        avg.cache = base.cache
    S, E, cum = [], [], 0.0
    tail = np.zeros(spec.mu.size)
    for r in range(R_MAX):
        lo, hi = prefix_range(r)
        if r == 0:
            P, err = avg.laws([1])
            s, e = P[0], err[0]
        else:
            avg.tol = rel_tol * cum / (hi - lo + 1)
            s, e = _range_sum(avg, base, lo, hi)
        S.append(s)
        E.append(e)
        cum += float(w @ s)
        tail = spec.chernoff_sum(hi + 1, 1 << R_MAX)
        tail[0] = 0.0
        if float(w @ tail) <= STOP * cum:
            break
    return np.array(S), np.array(E), tail, avg


def _range_sum(avg, base, lo, hi):
    """sum_(m=lo..hi) of the laws: by ``base``'s panels up to its last m, beyond by ``avg``."""
    if base is None or lo > base.mmax:
        return avg.sum(lo, hi)
    base.tol = avg.tol
    if hi <= base.mmax:
        return base.sum(lo, hi)
    s1, e1 = base.sum(lo, base.mmax)
    s2, e2 = avg.sum(base.mmax + 1, hi)
    return s1 + s2, e1 + e2


def mixed_sums(spec, S, E, tail):
    """:func:`dyadic_sums`' (S, E, tail) of a softmax turned into those of the selection
    (1 - gamma) softmax + gamma uniform (module docstring): per range r of m and group,
    (1 - gamma) S + gamma n_r / K, n_r the number of m <= :data:`MIX_M_MAX` in the range
    (ranges added up to the one holding MIX_M_MAX: the uniform term never vanishes), errors
    (1 - gamma) E plus rounding, tail (1 - gamma) tail (the uniform term is cut at
    MIX_M_MAX, which makes every sum a lower value).  Unchanged when gamma = 0."""
    if not spec.mix:
        return S, E, tail
    rows = max(S.shape[0], MIX_M_MAX.bit_length() + 1)
    lo = np.array([prefix_range(r)[0] for r in range(rows)], dtype=float)
    hi = np.minimum([prefix_range(r)[1] for r in range(rows)], MIX_M_MAX).astype(float)
    n = np.maximum(hi - lo + 1, 0.0)
    S0, E0 = np.zeros((2, rows, spec.mu.size))
    S0[: S.shape[0]], E0[: E.shape[0]] = S, E
    out = (1 - spec.mix) * S0 + (spec.mix / spec.K) * n[:, None]
    return out, (1 - spec.mix) * E0 + 3 * U * out, (1 - spec.mix) * tail


def _levels(delta, gap):
    """The dyadic level l of each gap: 2^(l-1) Delta_min <= Delta_j < 2^l Delta_min."""
    ratio = np.where(delta > 0, delta, gap) / gap
    return np.floor(np.log2(ratio)).astype(int) + 1


def _eq4_ratios(spec, avg, small):
    """E[P_(m,j)] / (2 e^(-m Delta_j^2/8)) (and its upper limit with the law's error) at every
    m the averager computed a law for, over the small-gap groups whose law is valued there."""
    out, hi = [], []
    for m, (P, E) in sorted(avg.cache.items()):
        P, E = spec.mixed(P, E)  # the selection's law (mixed with the uniform law)
        rhs = bounds.eq4(m, spec.delta)
        ok = small & (P > 0) & (E <= 0.1 * P) & (rhs > 1e-300)
        out += list(P[ok] / rhs[ok])
        hi += list((P[ok] + E[ok]) / rhs[ok])
    return np.array(out), np.array(hi)


def _weighted(S, E, tail, w):
    """sum over ranges and groups of w S, with its error bound (the tail as half +- half)."""
    value = float((S @ w).sum() + w @ tail / 2)
    return value, float((E @ w).sum() + w @ tail / 2 + 4 * U * S.shape[0] * value)


def _drift(algorithm, means, epsilon, env, eta):
    """Largest E[log Z_(m+1)] - E[log Z_m] + (eta/4) E[V_m] over DRIFT_MS (<= 0 by the proof),
    its m and error bound; E[log Z_m] at the same m."""
    ms = np.array(DRIFT_MS)
    at = np.union1d(ms, ms + 1)
    lz, lze = expected_log_z(algorithm, means, epsilon, at, env)
    now, nxt = np.searchsorted(at, ms), np.searchsorted(at, ms + 1)
    V, Ve = restricted_errors(algorithm, means, epsilon, ms, env)
    gap = lz[nxt] - lz[now] + eta / 4 * V
    err = lze[nxt] + lze[now] + eta / 4 * Ve
    i = int(np.argmax(gap + err))
    return {
        "max_gap": float(gap[i]),
        "at_m": int(ms[i]),
        "m_max": int(ms[-1]),
        "error_bound": float(err[i]),
        "log_z": [
            {"m": int(m), "value": float(lz[k]), "error_bound": float(lze[k])}
            for m, k in zip(ms, now, strict=True)
        ],
    }


def sum_terms(algorithm, means, epsilon, env="bernoulli", base=None) -> dict:
    """The terms of Lemma 5 and of Lemma 4's right side for one instance: everything of
    :func:`proof_terms` but the regret, which alone depends on the algorithm's prefix rule (two
    algorithms with one temperature, e.g. ``rps`` and ``rps_short_prefix``, share these).
    ``base``: the averager of the instance's exact regret, whose laws are reused
    (:func:`dyadic_sums`)."""
    spec = _spec(algorithm, means, epsilon, env)
    eta, eta_sel = float(bounds.eta(epsilon)), float(spec.eta)
    K, gap = spec.K, float(spec.delta[1])
    w = spec.ns * spec.delta
    small = bounds.small_gap(spec.delta, eta) & (spec.delta > 0)
    big = large_gap(spec, epsilon)
    S, E, tail, avg = dyadic_sums(spec, base)
    pure = _weighted(S, E, tail, w)  # the softmax's (component's) sum_m F_m
    S, E, tail = mixed_sums(spec, S, E, tail)
    sum_f, sum_f_err = _weighted(S, E, tail, w)
    small_v, small_e = _weighted(S, E, tail, w * small)
    large_v, large_e = _weighted(S, E, tail, w * big)

    groups = []
    lev = _levels(spec.delta, gap)
    for level in sorted(set(lev[small].tolist())):
        member = small & (lev == level)
        v, e = _weighted(S, E, tail, w * member)
        size = float(spec.ns[member].sum())
        bound = float(bounds.group_bound(size, level, gap))
        groups.append(
            {"level": int(level), "size": int(size), "sum": v, "bound": bound, "error_bound": e}
        )
    ratios, ratios_hi = _eq4_ratios(spec, avg, small)

    sum_v, sum_v_e, drift = 0.0, 0.0, None
    if big.any():
        mu_r, _ = restricted_means(algorithm, means, epsilon, env)
        if small.any():
            rspec = _spec(algorithm, mu_r, epsilon, env, eta_sel)
            rS, rE, rtail, _ = dyadic_sums(rspec)
            v_rest, v_rest_e = _weighted(rS, rE, rtail, rspec.ns * rspec.delta)
        else:  # every suboptimal action is large-gap: Q = P, V_m = the gap of P (m >= 1)
            v_rest, v_rest_e = pure
        v0 = float((mu_r[1:] - mu_r[0]).sum()) / mu_r.size
        sum_v, sum_v_e = v0 + v_rest, v_rest_e + 4 * U * v0
        drift = _drift(algorithm, means, epsilon, env, eta_sel)
    n_large = float(spec.ns[big].sum())
    return {
        "env": env,
        "means": [float(x) for x in np.asarray(means, dtype=float)],
        "K": int(K),
        "gap": gap,
        "epsilon": float(epsilon),
        "eta": eta,
        "eta_selection": eta_sel,
        "uniform_mix": float(spec.mix),
        "sum_m_max": MIX_M_MAX if spec.mix else None,
        "n_small": int(spec.ns[small].sum()),
        "n_large": int(n_large),
        "sum_F": sum_f,
        "small_gap": small_v,
        "large_gap": large_v,
        "sum_V": sum_v,
        "max_ratio_eq4": float(ratios.max()) if ratios.size else None,
        "median_ratio_eq4": float(np.median(ratios)) if ratios.size else None,
        "groups": groups,
        "drift": drift,
        "bounds": {
            "lemma4": float(bounds.lemma4(sum_f)),
            "lemma5": float(bounds.lemma5(K, gap, eta)),
            "eq5": float(bounds.eq5(K, gap)),
            "eq5_groups": float(bounds.eq5_groups(K, gap)),
            "eq6": float(bounds.eq6(K, eta)),
            "drift": float(bounds.drift(n_large, eta_sel)) if n_large else 0.0,
            "theorem1": float(bounds.theorem1(K, gap, epsilon)),
        },
        "error_bound": {
            "sum_F": sum_f_err,
            "small_gap": small_e,
            "large_gap": large_e,
            "sum_V": sum_v_e,
            "max_ratio_eq4": float(ratios_hi.max() - ratios.max()) if ratios.size else None,
            "drift": drift["error_bound"] if drift else None,
        },
        "blocks": [
            {"r": r, "sum": float(S[r] @ w), "error_bound": float(E[r] @ w)}
            for r in range(S.shape[0])
        ],
        "F": [
            {"m": int(m), "value": float(P @ w), "error_bound": float(Er @ w)}
            for m, (P, Er) in ((m, spec.mixed(*law)) for m, law in sorted(avg.cache.items()))
        ],
        "tail_bound": float(w @ tail),
    }


def large_gap_part(algorithm, means, epsilon, env="bernoulli", rel_tol=REL_TOL):
    """(the large-gap part of sum_m F_m, error bound): the left side of eq. (6),
    sum_(m>=1) E[sum_(j: Delta_j > 4 eta) Delta_j P_(m,j)] (:func:`sum_terms`' ``large_gap``
    alone, without the restricted softmax and the drift: the worst-instance search's ``eq6``
    objective reads it for every instance, at its ranking tolerance ``rel_tol``); (0, 0) when
    no action is large-gap."""
    spec = _spec(algorithm, means, epsilon, env)
    big = large_gap(spec, epsilon)
    if not big.any():
        return 0.0, 0.0
    S, E, tail, _ = dyadic_sums(spec, rel_tol=rel_tol)
    S, E, tail = mixed_sums(spec, S, E, tail)
    return _weighted(S, E, tail, spec.ns * spec.delta * big)


def regret_limit(sums: dict) -> tuple[float, float]:
    """lim_T Reg_T = E[Delta_(A_0)] + 2 F_1 + 4 sum_(m>=2) F_m of a random prefix (Lemma 4's
    block accounting with equality), and its error bound, from :func:`sum_terms`' blocks."""
    mu = np.asarray(sums["means"], dtype=float)
    a0 = float((mu - mu.min()).mean())
    blocks = sums["blocks"]
    rest = sum(b["sum"] for b in blocks[1:]) + sums["tail_bound"] / 2
    value = a0 + 2 * blocks[0]["sum"] + 4 * rest
    err = 2 * blocks[0]["error_bound"] + 4 * sum(b["error_bound"] for b in blocks[1:])
    return value, err + 2 * sums["tail_bound"] + 8 * U * len(blocks) * value


def proof_terms(
    algorithm, means, epsilon, horizon=(1 << 40) - 1, env="bernoulli", regret=None, sums=None
) -> dict:
    """Every term of Lemmas 4 and 5 for one instance (see the module docstring), as the JSON
    object of ``privdtol lemmas``: numbers, their bounds and an error bound per number.
    ``regret``: (Reg_T, error bound) at ``horizon`` if already computed (the pipeline reads
    the cell's exact table), else computed here; ``sums``: :func:`sum_terms` of the instance
    if already computed."""
    spec = _spec(algorithm, means, epsilon, env)
    terms = dict(sums if sums is not None else sum_terms(algorithm, means, epsilon, env))
    if terms["eta_selection"] != float(spec.eta):
        raise ValueError("sums: computed at another temperature")
    if terms.get("uniform_mix", 0.0) != spec.mix:
        raise ValueError("sums: computed for another selection (uniform mixture)")
    if regret is None:
        reg, reg_e = expected_regret(algorithm, means, epsilon, [int(horizon)], env)
        regret = float(reg[0]), float(reg_e[0])
    # a mixed selection's Reg_T grows linearly: no finite limit (module docstring)
    limit = regret_limit(terms) if spec.random_prefix and not spec.mix else (None, None)
    errors = {**terms["error_bound"], "regret": float(regret[1]), "regret_limit": limit[1]}
    return {
        **terms,
        "algorithm": algorithm,
        "horizon": int(horizon),
        "regret": float(regret[0]),
        "regret_limit": limit[0],
        "error_bound": errors,
    }


def fmt_check(terms: dict) -> str:
    """One line: the lemmas' exact sides against their bounds (for the CLI's stderr)."""
    b = terms["bounds"]
    lhs4 = terms["regret_limit"] if terms["regret_limit"] is not None else terms["regret"]
    return (
        f"{terms['algorithm']}: K={terms['K']} gap={terms['gap']:.6g} eps={terms['epsilon']:.6g}"
        f"  Lemma 4 {lhs4:.6g} <= {b['lemma4']:.6g}  Lemma 5 {terms['sum_F']:.6g} <= "
        f"{b['lemma5']:.6g}  eq.(5) {terms['small_gap']:.6g} <= {b['eq5']:.6g}  eq.(6) "
        f"{terms['large_gap']:.6g} <= {terms['sum_V']:.6g} <= {b['eq6']:.6g}"
        + ("" if math.isfinite(lhs4) else " (not finite)")
    )
