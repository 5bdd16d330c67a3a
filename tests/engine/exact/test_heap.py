"""Tests of :mod:`privdtol.engine.exact.heap`: glibc's M_TOP_PAD set once per process so that
freed heap is kept for the next law, and the answer without glibc."""

from __future__ import annotations

import pytest

from privdtol.engine.exact import heap


class _FakeLibc:
    """Stands in for libc: records mallopt calls and returns ``result``."""

    def __init__(self, result):
        self.result, self.calls = result, []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return self.result


@pytest.fixture
def cleared_heap_cache():
    heap.retain_freed_heap.cache_clear()
    yield
    heap.retain_freed_heap.cache_clear()


@pytest.mark.parametrize(("result", "expected"), [(1, True), (0, False)])
def test_retain_freed_heap_sets_m_top_pad_once(monkeypatch, cleared_heap_cache, result, expected):
    """mallopt(M_TOP_PAD = -2 (glibc's malloc.h), 256 MiB) once per process, whatever the
    number of calls; its return value (1 on success, 0 on error, mallopt(3)) is reported."""
    libc = _FakeLibc(result)
    monkeypatch.setattr(heap.ctypes, "CDLL", lambda name: libc)
    assert [heap.retain_freed_heap() for _ in range(3)] == [expected] * 3
    assert libc.calls == [(-2, 268435456)]


@pytest.mark.parametrize("error", [OSError, AttributeError])
def test_retain_freed_heap_without_glibc(monkeypatch, cleared_heap_cache, error):
    """No libc, or a libc without mallopt: nothing is set and the answer is False."""

    def missing(name):
        raise error(name)

    monkeypatch.setattr(heap.ctypes, "CDLL", missing)
    assert heap.retain_freed_heap() is False


def test_retain_freed_heap_on_this_glibc(cleared_heap_cache):
    """On this (glibc) machine the real mallopt accepts M_TOP_PAD."""
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert heap.retain_freed_heap() is True
