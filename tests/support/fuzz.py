"""Shared by the fuzz tests (tests/workflow/test_config_input.py, test_cli_arguments.py,
test_data_files.py): the hypothesis settings and the contract every input must meet (exit 0,
or exit 2 with one line naming a key, file or argument; never a traceback).  Each example runs
the CLI in process under a time and a memory limit: ``support.cli.run_cli(*args,
in_process=True, limited=True)``."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

FAST = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


SLOW = settings(FAST, max_examples=100)


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
