"""One exception type for bad input, so every front end (CLI, pipeline) reports it in one line;
and the by-name registries (of algorithms, loss models, claims), whose lookup raises it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


class InputError(ValueError):
    """Bad user input: names the offending field and the allowed values.

    ``str(err)`` is a single line of the form ``<field>: <problem> (allowed: <values>)``.
    """

    def __init__(self, field: str, problem: str, allowed: str | None = None):
        self.field = field
        self.problem = problem
        self.allowed = allowed
        text = f"{field}: {problem}"
        if allowed:
            text += f" (allowed: {allowed})"
        super().__init__(printable(text))


def printable(text: str) -> str:
    """``text`` on one line: control characters (a newline in a key of a hostile config)
    escaped as Python writes them (``\\n``)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def by_name(*classes: T) -> dict[str, T]:
    """A registry: each class under its ``name``, in the order given (the display order)."""
    registry = {cls.name: cls for cls in classes}
    if len(registry) != len(classes):
        raise ValueError(f"two classes share a name in {[cls.name for cls in classes]}")
    return registry


def lookup(registry: Mapping[str, T], name: str, field: str, what: str) -> T:
    """``registry[name]``, or an :class:`InputError` on ``field`` that says
    ``unknown <what> <name>`` and lists the registered names (in registry order)."""
    if name not in registry:
        raise InputError(field, f"unknown {what} {name!r}", ", ".join(registry))
    return registry[name]
