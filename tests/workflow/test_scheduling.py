"""The order ``make test`` hands tests to its workers (support.scheduling.schedule_rank): the
slow tests that share a module's build first, then the other slow ones, the unit tier last."""

from __future__ import annotations

from types import SimpleNamespace

from support.scheduling import schedule_rank


def test_the_session_runs_long_tests_first(request):
    ranks = [schedule_rank(item) for item in request.session.items]
    assert ranks == sorted(ranks)
    # this very test is a unit test: it comes after every slow test of the session
    assert schedule_rank(request.node) == 2


def _item(slow: bool, scope: str):
    """A stand-in for a collected test: its markers and the scope of its one fixture."""
    fixture = SimpleNamespace(scope=scope)
    return SimpleNamespace(
        nodeid="tests/x/test_y.py::test_z",
        get_closest_marker=lambda name: object() if (slow and name == "slow") else None,
        _fixtureinfo=SimpleNamespace(name2fixturedefs={"build": [fixture]}),
    )


def test_a_slow_test_sharing_a_module_build_ranks_first():
    assert schedule_rank(_item(slow=True, scope="module")) == 0
    assert schedule_rank(_item(slow=True, scope="session")) == 1
    assert schedule_rank(_item(slow=False, scope="module")) == 2
    assert schedule_rank(_item(slow=False, scope="function")) == 2
