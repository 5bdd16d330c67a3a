"""``privdtol audit`` (one algorithm, one audit) and ``privdtol audit-grid`` (the privacy
experiment's table), see :mod:`privdtol.privacy`."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from privdtol.errors import InputError
from privdtol.pipeline.io import check_table_path, write_table

METHODS = ("auto", "exact", "sequence", "statistical")


def add_parser(sub):
    p = sub.add_parser(
        "audit",
        help="audit the privacy loss of one algorithm",
        description="Largest privacy loss found for one algorithm against the bounds 2*eta "
        "(Lemma 3) and eps (Proposition 1).  exact: worst-case search over "
        "neighbouring block datasets of one selection; sequence: exact law of the "
        "whole action sequence for T = --horizon; statistical: Clopper-Pearson "
        "bounds from --runs replayed runs.  auto = exact, except statistical for "
        "the Laplace algorithms (rnm_ftnl, wu_wang).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--algorithm",
        required=True,
        help="a private algorithm or a negative control (rps_eta_eps, rps_data_prefix)",
    )
    p.add_argument("--epsilon", type=float, required=True, help="privacy level audited")
    p.add_argument("--K", type=int, default=2, help="number of actions")
    p.add_argument("--block", type=int, default=16, help="block length 2^r (exact, statistical)")
    p.add_argument("--method", default="auto", help="one of " + ", ".join(METHODS))
    p.add_argument("--horizon", type=int, default=63, help="T = 2^R - 1 (sequence)")
    p.add_argument("--runs", type=int, default=200000, help="runs per dataset (statistical)")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence (statistical)")
    p.add_argument("--random", type=int, default=4000, help="random pairs searched (exact)")
    p.add_argument("--seed", type=int, default=0, help="seed of the audit's random searches")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run)

    g = sub.add_parser(
        "audit-grid",
        help="run every privacy audit over a grid (the privacy experiment)",
        description="All audits over the grid of the config's 'privacy' block; one row per cell.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    src = g.add_mutually_exclusive_group()
    src.add_argument("--config", help="YAML/JSON file with a top-level 'privacy' block")
    src.add_argument("--grid-json", help="the privacy block itself, as JSON")
    g.add_argument("--out", required=True, help="output table (.parquet or .csv)")
    g.add_argument("--csv", help="also write the table as CSV here")
    g.set_defaults(handler=run_grid_command)


def _check(args):
    from privdtol.privacy.mechanisms import AUDITABLE, law_kind, make_audited

    if args.method not in METHODS:
        raise InputError("method", f"got {args.method!r}", ", ".join(METHODS))
    if args.algorithm not in AUDITABLE:
        raise InputError(
            "algorithm", f"{args.algorithm!r} is not auditable (private)", ", ".join(AUDITABLE)
        )
    if not (args.epsilon is not None and np.isfinite(args.epsilon) and args.epsilon > 0):
        raise InputError("epsilon", f"got {args.epsilon}", "a finite number > 0")
    if args.K < 2 or args.K > 16:
        raise InputError("K", f"got {args.K}", "integers 2 .. 16")
    from privdtol.cli.common import check_seed

    check_seed(args.seed)
    alg = make_audited(args.algorithm, args.epsilon)
    method = args.method
    if method == "auto":
        method = "statistical" if law_kind(alg) == "laplace_quadrature" else "exact"
    _check_cost(args, method)
    return alg, method


def _check_cost(args, method: str) -> None:
    """The audit's memory (and the sequence's enumeration) estimated before it runs, against
    this machine's memory (:mod:`privdtol.privacy.cost`): one line naming the flag."""
    from privdtol.pipeline.limits import machine_memory_bytes
    from privdtol.privacy import cost
    from privdtol.privacy.mechanisms import block_index

    bound, max_bytes = "this machine's memory", machine_memory_bytes()
    if method in ("exact", "statistical"):
        block_index(args.block)
    if method == "exact":
        fields = {"n_random": "random", "block": "block"}
        cost.check_selection(args.K, args.block, max(0, args.random), 200, max_bytes, bound, fields)
    elif method == "sequence":
        cost.check_sequence(
            args.algorithm, args.epsilon, args.K, args.horizon, max_bytes, bound, "horizon"
        )
    elif args.runs >= 1:
        cost.check_statistical(args.K, args.block, args.runs, max_bytes, bound, "runs")


def run(args) -> int:
    from privdtol.privacy import audit_selection, audit_sequence, audit_statistical

    alg, method = _check(args)
    if method == "exact":
        res = audit_selection(
            alg, K=args.K, block=args.block, seed=args.seed, n_random=max(0, args.random)
        )
    elif method == "sequence":
        res = audit_sequence(alg, K=args.K, horizon=args.horizon, seed=args.seed)
    else:
        res = audit_statistical(
            alg, K=args.K, block=args.block, runs=args.runs, seed=args.seed, alpha=args.alpha
        )
    d = res.to_dict()
    if args.json:
        print(json.dumps(_plain(d), sort_keys=True, indent=2))
        return 0
    print(_text(d))
    return 0


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if np.isfinite(v) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _mechanism(algorithm: str) -> str:
    """The selection mechanism ``algorithm`` declares (``Privacy.mechanism``), in words."""
    from privdtol.algorithms import ALGORITHMS

    cls = ALGORITHMS.get(algorithm)
    privacy = getattr(cls, "privacy", None)
    return privacy.mechanism if privacy is not None else "its declared mechanism"


def _text(d: dict) -> str:
    name = d["algorithm"] + (" [NEGATIVE CONTROL]" if d["negative_control"] else "")
    where = f"block={d['block']}" if "block" in d else f"T={d['horizon']}"
    lines = [
        f"privdtol audit: {name} eps={d['epsilon']:g} K={d['K']} {where} "
        f"({d['audit'].replace('_', ' ')} audit)"
    ]
    eps = d["epsilon"]
    if d["audit"] == "statistical":
        lines.append(
            f"  privacy loss estimate: {d['loss']:.6g}   {100 * (1 - d['alpha']):g}% "
            f"confidence bounds: [{d['loss_lower']:.6g}, {d['loss_upper']:.6g}]   "
            f"({d['runs']} runs per dataset; exact value for this pair: "
            f"{d['exact_loss']:.6g})"
        )
    else:
        lines.append(
            f"  largest privacy loss found: {d['loss']:.6g}   "
            f"(loss/eps = {d['loss'] / eps:.4f}; {d['pairs_evaluated']} "
            f"neighbouring pairs evaluated)"
        )
    label = (
        "2*eta (Lemma 3)"
        if d.get("law", "").startswith("softmax")
        else f"per-selection bound of {_mechanism(d['algorithm'])}"
    )
    lines.append(f"  bound: {label} = {d['bound_selection']:.6g}   eps = {eps:.6g}")
    if "within_selection_bound" in d:
        lines.append(
            f"  within the per-selection bound: {'yes' if d['within_selection_bound'] else 'NO'}"
        )
    lines.append(f"  verdict: {d['verdict']}" + ("  (eps-DP VIOLATED)" if d["violation"] else ""))
    if d.get("witness_text"):
        what = "audited pair" if d["audit"] == "statistical" else "worst pair found"
        lines.append(f"  {what}: {d['witness_text']}")
    if d["audit"] == "whole_sequence":
        lines.append(
            f"  largest per-block selection loss: {d['per_block_max']:.6g}; "
            f"|whole - per-block| <= {d['factorization_gap']:.2g} (Proposition 1)"
        )
    return "\n".join(lines)


def _load_grid(args) -> dict:
    if args.grid_json is not None:
        try:
            grid = json.loads(args.grid_json)
        except json.JSONDecodeError as err:
            raise InputError("grid-json", f"not JSON: {err}", "a JSON object") from None
    elif args.config is not None:
        from privdtol.pipeline.yaml_load import read_mapping

        grid = read_mapping(args.config).get("privacy", {})
    else:
        grid = {}
    if not isinstance(grid, dict):
        raise InputError(
            "grid-json" if args.grid_json else "config",
            "not a mapping",
            "a mapping of privacy grid keys",
        )
    from privdtol.pipeline.config import validate_privacy

    return validate_privacy(grid)


def _check_grid_cost(grid: dict) -> None:
    """The grid's audits against this machine's memory before the first one runs: one line
    naming the ``privacy.`` key (:func:`privdtol.privacy.cost.check_grid`)."""
    from privdtol.pipeline.limits import machine_memory_bytes
    from privdtol.privacy.audit_grid import merge_grid
    from privdtol.privacy.cost import check_grid

    check_grid(merge_grid(grid), machine_memory_bytes(), "this machine's memory")


def run_grid_command(args) -> int:
    from privdtol.privacy.audit_grid import run_grid

    out = check_table_path(args.out, "out")
    csv = check_table_path(args.csv, "csv") if args.csv else None
    grid = _load_grid(args)
    _check_grid_cost(grid)
    df = run_grid(grid, progress=(lambda s: print(s, file=sys.stderr, flush=True)))
    write_table(df, out)
    if csv is not None:
        write_table(df, csv)
    bad = df[(df.role == "private") & df.violation]
    missed = df[df.role == "negative_control"].groupby(["algorithm", "epsilon"]).violation.any()
    print(
        f"privdtol audit-grid: {len(df)} cells -> {out}; private violations: {len(bad)}; "
        f"negative controls caught: {int(missed.sum())}/{missed.size} (algorithm, eps)",
        file=sys.stderr,
    )
    return 0
