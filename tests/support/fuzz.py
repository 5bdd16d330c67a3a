"""Shared by the fuzz tests (tests/workflow/test_fuzz_inputs.py, test_fuzz_data.py): the
hypothesis settings, a time and memory limit around each example, the CLI run in process and
the contract every input must meet (exit 0, or exit 2 with one line naming a key, file or
argument; never a traceback)."""

from __future__ import annotations

import contextlib
import io
import resource
import signal

from hypothesis import HealthCheck, settings

from privdtol.cli import main

#: seconds an example may take; memory it may add to the process
SECONDS, EXTRA_BYTES = 20, 3 << 30


FAST = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


SLOW = settings(FAST, max_examples=100)


class Timeout(Exception):
    pass


@contextlib.contextmanager
def limited():
    """A real-time alarm of :data:`SECONDS` and an address-space limit of the current size +
    :data:`EXTRA_BYTES` (soft limits, restored afterwards)."""
    with open("/proc/self/statm") as fh:
        size = int(fh.read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + EXTRA_BYTES if hard == resource.RLIM_INFINITY else min(hard, size + EXTRA_BYTES)

    def alarm(signum, frame):
        raise Timeout(f"more than {SECONDS} s")

    old = signal.signal(signal.SIGALRM, alarm)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    signal.alarm(SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, old)


def run_cli(args) -> tuple[int, str]:
    err = io.StringIO()
    with limited(), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:  # argparse
            code = exit_.code
    return code, err.getvalue()


def assert_contract(code, err, names):
    """exit 0, or exit 2 with one line naming one of ``names`` (keys, files, arguments; or a
    predicate of the line)."""
    assert "Traceback" not in err, err
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        named = names(lines[0]) if callable(names) else any(n in lines[0] for n in names)
        assert named, (lines[0], names)
