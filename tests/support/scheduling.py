"""How ``make test`` schedules the suite on its pytest-xdist workers (``--dist loadgroup``;
applied by tests/conftest.py's collection hook): which tests share a worker, and in what order
the workers take them."""

from __future__ import annotations


def schedule_rank(item) -> int:
    """Where a test goes in the run (a stable sort: collection order within a rank).  Under
    ``make test`` the workers take tests in this order, so the long ones start first and the
    many short unit tests fill the end, instead of one worker finishing a build alone while the
    other idles: 0 the slow tests that share a module's build (a project built for the file),
    1 the other slow tests (the session's smoke build, notebooks, installs), 2 the unit tier."""
    if item.get_closest_marker("slow") is None:
        return 2
    return 0 if shared_fixture_group(item) else 1


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
