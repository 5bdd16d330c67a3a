"""The repository's places, defined once (``conftest.py`` also offers them as fixtures)."""

from __future__ import annotations

import sys
from pathlib import Path

#: the repository (the clone under test)
ROOT = Path(__file__).resolve().parents[2]
#: the directory of the running interpreter's scripts (snakemake, privdtol, pytest)
BIN = Path(sys.executable).parent
SRC = ROOT / "src"
CONFIG = ROOT / "config"
SMOKE = CONFIG / "smoke.yaml"
