"""``privdtol list``: the registered algorithms and loss models, with their sources."""

from __future__ import annotations

import sys

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
        print(f"  {name:<16} {first_sentence(sys.modules[cls.__module__].__doc__)}")
    return 0


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring's first paragraph, whole (never cut at a line end)."""
    paragraph = " ".join((doc or "").strip().split("\n\n")[0].split())
    head, dot, _ = paragraph.partition(". ")
    return head + "." if dot else paragraph
