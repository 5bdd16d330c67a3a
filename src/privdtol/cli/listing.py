"""``privdtol list``: the registered algorithms and loss models, with their sources."""

from __future__ import annotations

from privdtol.algorithms import ALGORITHMS
from privdtol.environments import MODELS


def add_parser(sub):
    p = sub.add_parser("list", help="name the algorithms and loss models")
    p.set_defaults(handler=run)


def run(args) -> int:
    print("algorithms:")
    for name, cls in ALGORITHMS.items():
        kind = "private" if cls.private else "non-private"
        print(f"  {name:<16} {cls.kind:<5} {kind:<11} {cls.source}")
    print("loss models:")
    for name, cls in MODELS.items():
        first = (cls.__module__ and __import__(cls.__module__, fromlist=["x"]).__doc__) or ""
        print(f"  {name:<16} {first.strip().splitlines()[0]}")
    return 0
