"""Options shared by several ``privdtol`` subcommands."""

from __future__ import annotations

import argparse

from privdtol.errors import InputError


def add_config_files_option(parser: argparse.ArgumentParser) -> None:
    """The required, repeatable ``--config`` of the commands that read the merged pipeline
    config (:func:`privdtol.pipeline.config.load_config_files` merges the files in order)."""
    parser.add_argument(
        "--config",
        action="append",
        required=True,
        metavar="CONFIG_YAML_OR_JSON",
        help="config file; repeat to merge several in order, as Snakemake does",
    )


def add_cell_arguments(
    parser: argparse.ArgumentParser, algorithms, envs, horizon: int | None = None
) -> None:
    """The arguments that name one cell: algorithm, epsilon, the instance (``--means``, or
    ``--K --gap [--mu-best] [--instance]``), the loss model and the horizon (``simulate`` and
    ``exact`` alike; required unless a default ``horizon`` is given)."""
    from privdtol.environments import INSTANCES
    from privdtol.environments.beta import DEFAULT_KAPPA
    from privdtol.environments.correlated import DEFAULT_RHO

    parser.add_argument(
        "--algorithm",
        required=True,
        metavar="NAME",
        help=f"the algorithm (privdtol list): {', '.join(algorithms)}",
    )
    parser.add_argument("--epsilon", type=float, help="privacy level (required for private ones)")
    inst = parser.add_argument_group("instance: --means, or --K and --gap")
    inst.add_argument("--means", help="comma-separated mean losses, e.g. 0.4,0.6")
    inst.add_argument("--K", type=int, help="number of actions of a generated instance")
    inst.add_argument("--gap", type=float, help="Delta_min of a generated instance")
    inst.add_argument("--mu-best", type=float, help="best mean (default 1/2 - gap/2)")
    inst.add_argument(
        "--instance",
        choices=INSTANCES,
        default="standard",
        help="the family of the generated instance's means",
    )
    parser.add_argument("--env", choices=list(envs), default="bernoulli", help="loss model")
    if "correlated" in envs:
        parser.add_argument(
            "--rho",
            type=float,
            default=DEFAULT_RHO,
            help="shared-shock probability (correlated; < 0: antithetic best action)",
        )
    if "beta" in envs:
        parser.add_argument(
            "--kappa",
            type=float,
            default=DEFAULT_KAPPA,
            help="Beta concentration (beta)",
        )
    if "replay" in envs:
        parser.add_argument("--losses", help="CSV loss matrix, T rows x K columns (replay)")
    parser.set_defaults(algorithms=tuple(algorithms))
    if horizon is None:
        parser.add_argument("--horizon", type=int, required=True, help="horizon T of Reg_T")
    else:
        parser.add_argument("--horizon", type=int, default=horizon, help="horizon T of Reg_T")


def parse_means(text: str):
    try:
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise InputError(
            "means", f"not a list of numbers: {text!r}", "comma-separated numbers in [0, 1]"
        ) from None


def cell_spec_from_args(args, **options):
    """The :class:`~privdtol.engine.runner.CellSpec` of the arguments of
    :func:`add_cell_arguments` (``options``: runs, seed, mode); the instance is generated
    here, so its errors come before those of the other options."""
    from privdtol.algorithms import ALGORITHMS
    from privdtol.engine.runner import make_spec

    if args.algorithm not in args.algorithms:  # one line, not argparse's usage block
        raise InputError(
            "algorithm", f"unknown or unsupported {args.algorithm!r}", ", ".join(args.algorithms)
        )
    if ALGORITHMS[args.algorithm].private and args.epsilon is None:
        raise InputError("epsilon", f"{args.algorithm} is private and needs it", "numbers > 0")
    _check_numbers(args, options)
    losses = getattr(args, "losses", None)
    given = {}  # replay: no means (the loss file is the instance)
    if args.env == "replay":
        if losses is None:
            raise InputError("losses", "--env replay needs a loss file", "a CSV path")
    elif args.means is not None:
        if args.K is not None or args.gap is not None:
            raise InputError("means", "given together with --K/--gap", "one of the two forms")
        given = {"means": parse_means(args.means)}
    elif args.K is not None and args.gap is not None:
        given = {"K": args.K, "gap": args.gap, "mu_best": args.mu_best, "instance": args.instance}
    else:
        raise InputError("means", "no instance given", "--means LIST, or --K N --gap G")
    spec = make_spec(
        args.algorithm,
        args.epsilon,
        args.horizon,
        options.pop("runs", 0),
        **given,
        env=args.env,
        rho=getattr(args, "rho", None),
        kappa=getattr(args, "kappa", None),
        losses=losses,
        **options,
    )
    if spec.means is not None:  # replay: the loss file's size is its own bound
        from privdtol.pipeline.limits import check_cell, machine_memory_bytes

        exact = options.get("mode") == "exact"
        check_cell(
            spec.algorithm, spec.means, spec.epsilon, spec.horizon, max(1, spec.runs), exact,
            machine_memory_bytes(), bound="this machine's memory", unique="K" in given,
        )  # fmt: skip
        if not exact:
            _check_seconds(spec, options.get("mode", "auto"))
    return spec


def _check_seconds(spec, mode: str) -> None:
    """A Monte Carlo cell's CPU time estimated before it runs (the batching cost model,
    :func:`privdtol.pipeline.plan.monte_carlo_seconds`) against the schema's default
    ``limits.max_cpu_hours``: Beta losses and ``--mode explicit`` cost O(K T) per run."""
    from privdtol.algorithms import make_algorithm
    from privdtol.engine.fast import resolve_mode
    from privdtol.pipeline.config import load_schema
    from privdtol.pipeline.plan import monte_carlo_seconds

    env = spec.build_env()
    alg = make_algorithm(spec.algorithm, spec.epsilon)
    explicit = (  # without exact block sums (beta) a block is drawn round by round too
        not env.exact_sums
        or resolve_mode(alg, env, spec.horizon, max(1, spec.runs), mode) == "explicit"
    )
    hours = monte_carlo_seconds(env.K, max(1, spec.runs), spec.horizon, explicit) / 3600
    limit = load_schema()["properties"]["limits"]["properties"]["max_cpu_hours"]["default"]
    if hours > limit:
        how = "round by round (O(K T) per run)" if explicit else "by block sums"
        raise InputError(
            "horizon" if explicit else "runs",
            f"{spec.algorithm} at K={env.K}, T={spec.horizon}, runs={spec.runs} {how} takes "
            f"about {hours:.3g} CPU hours",
            f"cells within limits.max_cpu_hours = {limit:g} (the schema's default)",
        )


def _check_numbers(args, options) -> None:
    """Finite numbers in range, and a K and runs that fit in memory, before anything is
    allocated (a generated instance holds K means)."""
    import math

    from privdtol.pipeline.limits import MAX_K

    for name in ("epsilon", "gap", "mu_best", "rho", "kappa"):
        value = getattr(args, name, None)
        if value is not None and not math.isfinite(value):
            raise InputError(name, f"got {value}", "finite numbers")
    if args.K is not None and not (2 <= args.K <= MAX_K):
        raise InputError("K", f"got {args.K}", f"integers 2 .. {MAX_K}")
    runs = options.get("runs")
    if runs is not None and runs < 1:
        raise InputError("runs", f"got {runs}", "integers >= 1")
    check_seed(options.get("seed"))


def check_seed(seed) -> None:
    """A seed as the config's schema allows it (``seed``: integers >= 0)."""
    if seed is not None and seed < 0:
        raise InputError("seed", f"got {seed}", "integers >= 0 (as the config's seed)")
