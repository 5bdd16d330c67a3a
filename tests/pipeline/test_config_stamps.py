"""Tests of :mod:`privdtol.pipeline.config_stamps`: a piece of the config is named by its
content (digests pinned from ``sha256sum``), written once, left alone when it exists, and the
same whatever the order of its keys; a description is not part of the analysis piece."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from privdtol.errors import InputError
from privdtol.pipeline.config_stamps import (
    canonical_text,
    config_stamp,
    piece,
    with_checks,
    without_descriptions,
)

CONFIG = {
    "description": "a run",
    "runs": 20,
    "checks": {"confidence": 0.95, "rate_form_factor": 1.5},
    "experiments": [{"name": "gap", "description": "d", "K": [2]}],
}


def test_a_piece_holds_the_dotted_keys_that_exist():
    assert piece(CONFIG, ["checks.confidence", "runs"]) == {
        "checks.confidence": 0.95,
        "runs": 20,
    }
    assert piece(CONFIG, ["checks.absent", "nothing.here"]) == {}


def test_the_stamp_is_named_by_the_content_digest(tmp_path):
    # printf '{"checks.confidence":0.95}\n' | sha256sum -> 44c697fcb2f11d7d...
    path = config_stamp(tmp_path, "check-C2", piece(CONFIG, ["checks.confidence"]))
    assert Path(path).name == "check-C2-44c697fcb2f11d7d.json"
    assert Path(path).read_text() == '{"checks.confidence":0.95}\n'
    # printf '{"a":[1,2],"b":"x"}\n' | sha256sum -> a93bdb1f1c4789d6...; key order and tuples
    # do not matter
    other = config_stamp(tmp_path, "x", {"b": "x", "a": (1, 2)})
    assert Path(other).name == "x-a93bdb1f1c4789d6.json"
    assert canonical_text({"b": "x", "a": [1, 2]}) == '{"a":[1,2],"b":"x"}'


def test_an_existing_stamp_is_never_touched_and_a_change_is_a_new_file(tmp_path):
    first = Path(config_stamp(tmp_path, "n", {"v": 1}))
    os.utime(first, (1_000_000_000, 1_000_000_000))
    assert config_stamp(tmp_path, "n", {"v": 1}) == str(first)
    assert first.stat().st_mtime == 1_000_000_000
    second = Path(config_stamp(tmp_path, "n", {"v": 2}))
    assert second != first and second.exists() and first.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("name", ["", "../x", "a b", "-x", "a/b"])
def test_a_bad_stamp_name_is_one_line_naming_the_field(tmp_path, name):
    with pytest.raises(InputError, match=r"^stamp: "):
        config_stamp(tmp_path, name, {})


def test_without_descriptions_drops_prose_only():
    assert without_descriptions(CONFIG) == {
        "runs": 20,
        "checks": {"confidence": 0.95, "rate_form_factor": 1.5},
        "experiments": [{"name": "gap", "K": [2]}],
    }


def test_with_checks_keeps_the_named_thresholds_only():
    """The piece of a rule that runs some claims' checks: a threshold none of them declares
    is not in it (editing it does not rerun the rule); absent keys are left out."""
    assert with_checks(CONFIG, ["rate_form_factor", "absent"]) == {
        "runs": 20,
        "checks": {"rate_form_factor": 1.5},
        "experiments": [{"name": "gap", "K": [2]}],
    }
    assert with_checks(CONFIG, [])["checks"] == {}
    assert with_checks({"runs": 1}, ["confidence"]) == {"runs": 1, "checks": {}}
