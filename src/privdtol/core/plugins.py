"""Plugins: classes that an installed package adds to a registry through an entry-point group
(``privdtol.algorithms``, ``privdtol.environments``; docs/extending.md).

Each entry point names one class (``name = "package.module:Class"``); the entry point's name
must be the class's registry ``name``.  A plugin that cannot be loaded or breaks its
registry's contract is refused when the registry is built, in one line naming it
(:class:`PluginError`); nothing is skipped silently.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from privdtol.errors import InputError


class PluginError(InputError):
    """A plugin refused at load time: ``plugin <group> <name> (<value>, from <dist>): ...``."""

    def __init__(self, group: str, ep: EntryPoint, problem: str):
        dist = getattr(ep, "dist", None)
        origin = f"{ep.value}, from {dist.name}" if dist is not None else ep.value
        super().__init__(f"plugin {group} {ep.name!r} ({origin})", problem)


def load_plugins(group: str, registry: dict, check: Callable[[type], None]) -> dict[str, type]:
    """The classes of the entry points of ``group``, sorted by name, each checked by ``check``
    (which raises ValueError/TypeError/InputError with the problem; any other exception, from
    the plugin's own code that the probe runs, refuses it too) and refused if its name
    clashes with ``registry`` (the built-in ones) or with another plugin."""
    found: dict[str, type] = {}
    for ep in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
        try:
            cls = ep.load()
        except Exception as err:  # a plugin's import can fail in any way
            raise PluginError(
                group, ep, f"cannot be loaded ({type(err).__name__}: {err})"
            ) from None
        name = getattr(cls, "name", None)
        if name != ep.name:
            raise PluginError(group, ep, f"its class's name {name!r} is not the entry point's")
        if name in registry or name in found:
            raise PluginError(group, ep, f"the name {name!r} is already registered")
        try:
            check(cls)
        except (ValueError, TypeError, AttributeError) as err:
            problem = err.problem if isinstance(err, InputError) else str(err)
            raise PluginError(group, ep, f"breaks the contract: {problem}") from None
        except Exception as err:  # the contract's probe runs the plugin's code: anything
            problem = f"raised {type(err).__name__} in the contract's probe: {err}"
            raise PluginError(group, ep, problem) from None
        found[name] = cls
    return found


__all__ = ["PluginError", "load_plugins"]
