"""``privdtol lemmas``: the exact terms of Lemmas 4 and 5 of Cesari & Colomboni (Sections
5.3-5.4) for one instance (:func:`privdtol.engine.exact.proof.proof_terms`), as one JSON
object: F_m summed, its small- and large-gap parts, the dyadic groups, sum_m E[V_m], eq. (4)'s
largest ratio, the drift of the potential, Reg_T, every bound and an error bound per number."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from privdtol.cli.common import add_cell_arguments, cell_spec_from_args
from privdtol.engine.exact import EXACT_ENVS
from privdtol.engine.exact.proof import PROOF_ALGORITHMS

#: default horizon: the largest checkpoint of the engine, 2^40 - 1
DEFAULT_HORIZON = (1 << 40) - 1


def add_parser(sub):
    p = sub.add_parser(
        "lemmas",
        help="the exact terms of Lemmas 4 and 5 (the proof of Theorem 1) for one instance",
        description="Compute every term of the proof of Theorem 1 exactly (no Monte Carlo): "
        "sum_m F_m and its split (3) into small- and large-gap parts, the dyadic groups H_l, "
        "eq. (4)'s largest ratio, sum_m E[V_m] and the potential's drift, Reg_T; each against "
        "its bound (Lemma 4, Lemma 5, eqs. (5) and (6)), with a numerical error bound.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_cell_arguments(p, PROOF_ALGORITHMS, EXACT_ENVS, horizon=DEFAULT_HORIZON)
    p.add_argument("--out", help="output JSON file; default: print it")
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.core import clock
    from privdtol.engine.exact.proof import fmt_check, proof_terms
    from privdtol.errors import InputError

    out = Path(args.out) if args.out else None
    if out is not None and out.suffix != ".json":
        raise InputError("out", f"unknown extension {out.suffix!r} in {out}", ".json")
    spec = cell_spec_from_args(args, mode="exact")
    env = spec.build_env()  # validates the means (a unique best action, values in [0, 1])
    clock.check_horizon(spec.horizon)
    try:
        terms = proof_terms(spec.algorithm, env.means, spec.epsilon, spec.horizon, env.name)
    except ValueError as err:  # the engine's limits (eta too small for its kernel)
        raise InputError("epsilon", str(err)) from None
    text = json.dumps(terms, indent=2, sort_keys=True, allow_nan=False) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        from privdtol.pipeline.io import atomic_path

        with atomic_path(out) as tmp:
            tmp.write_text(text, encoding="utf-8")
    print(fmt_check(terms) + (f" -> {out}" if out else ""), file=sys.stderr)
    return 0
