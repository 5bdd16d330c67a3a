"""Keep freed heap memory in the process while the exact engine runs.

Every selection law of :mod:`privdtol.engine.exact` allocates and frees temporaries of tens of
megabytes. glibc's malloc hands such memory back to the kernel when it is freed (it trims the
top of the heap), so the next law page-faults it in again: on a staircase target that
was 890,000 page faults and 2.6 s of system time in 10.6 s of CPU time. ``M_TOP_PAD`` asks
malloc to keep that much freed memory at the top of the heap instead (mallopt(3)); the
process's peak memory does not change. Elsewhere than glibc this does nothing."""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache

#: mallopt(3) parameter number of M_TOP_PAD (glibc's malloc.h) and the pad kept
M_TOP_PAD, TOP_PAD = -2, 256 << 20


@lru_cache(maxsize=1)
def retain_freed_heap() -> bool:
    """Set glibc's M_TOP_PAD once per process; whether it was set (False: not glibc)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_TOP_PAD, TOP_PAD))
    except (OSError, AttributeError):
        return False
