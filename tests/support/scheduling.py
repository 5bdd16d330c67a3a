"""How ``make test`` schedules the suite on its pytest-xdist workers (``--dist loadgroup``;
applied by tests/conftest.py's collection hook): which tests share a worker."""

from __future__ import annotations


def shared_fixture_group(item) -> str | None:
    """The ``xdist_group`` of a test under ``make test`` (``--dist loadgroup``): its file when
    it uses a module- or class-scoped fixture (a build, a browser, a table computed once per
    module), so that the fixture is made once, on one worker; None otherwise: the test is
    scheduled alone, wherever a worker is free (a file's other tests are not held back behind
    its slowest ones).  Session fixtures need no group: ``smoke_run`` is shared by the workers
    through a lock."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for defs in info.name2fixturedefs.values():
        if any(d.scope in ("module", "class", "package") for d in defs):
            return item.nodeid.split("::", 1)[0]
    return None
