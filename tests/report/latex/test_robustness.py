"""Tests of :mod:`privdtol.report.latex.robustness`: the power record and the multiverse record
rendered, their absence a note, a defective record one line naming the file."""

from __future__ import annotations

import pytest

from privdtol.errors import InputError
from privdtol.report.latex.robustness import load_multiverse, load_power, multiverse_tex, power_tex


def test_power_record_is_rendered():
    power = {
        "noise": 0.05,
        "replicates": 200,
        "rows": [
            {
                "claim": "C4a",
                "check": "exponent of 1/gap",
                "control": "rps_short_prefix",
                "false_fail_rate": 0.015,
                "control_fail_rate": 0.98,
            }
        ],
    }
    text = power_tex(power)
    assert r"\num{0.015}" in text and r"\num{0.98}" in text and "200 synthetic tables" in text
    assert "1/$\\Delta_{\\min}$" in text
    assert "not available" in power_tex(None)


def test_absent_records_are_none_and_render_as_a_note(tmp_path):
    assert load_power(tmp_path) is None and load_multiverse(tmp_path) is None
    assert "not available" in multiverse_tex(None)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("power", "{"),
        ("power", '{"noise": 1}'),
        ("power", "[1, 2]"),  # not an object: was a TypeError traceback
        ("multiverse", '{"rows": 3}'),
    ],
)
def test_a_defective_record_is_one_line_naming_it(tmp_path, name, text):
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / f"{name}.json").write_text(text)
    load = {"power": load_power, "multiverse": load_multiverse}[name]
    with pytest.raises(InputError) as err:
        load(tmp_path)
    assert f"checks/{name}.json" in str(err.value) and "\n" not in str(err.value)
