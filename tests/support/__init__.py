"""Helpers shared by the test modules (imported as ``support.<module>``: pyproject.toml puts
``tests/`` on ``sys.path`` and pytest imports test files with ``--import-mode=importlib``, so
two folders may hold test files of the same base name).  No test module imports another."""
