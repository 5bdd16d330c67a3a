"""Tests of :mod:`privdtol.pipeline.semantics`: the checks of a config beyond its schema, each
problem one InputError naming the key: an experiment named after one of the pipeline's own
tables, a reversed range (the config, then each of its multiverse values), a config of too
many values, a non-string key or a non-finite number, and an output directory outside the
working directory.  That the loader
calls them is tested with the loader (tests/pipeline/test_config.py)."""

from __future__ import annotations

import math

import pytest
from support.configs import SMALL, refusal_message, smoke_with_one

from privdtol.errors import InputError
from privdtol.pipeline.semantics import (
    MAX_VALUES,
    PIPELINE_TABLES,
    check_name,
    check_ordered,
    check_out_dirs,
    check_values,
)

#: the schema of ``checks`` as check_ordered reads it: one ordered range, one plain value
PROPS = {"exponent_range": {"ordered": True}, "confidence": {}}


def test_the_pipeline_tables_are_the_five_it_writes():
    assert PIPELINE_TABLES == ("privacy", "proof", "worst_case", "searches", "lower_bound", "floor")


@pytest.mark.parametrize("name", PIPELINE_TABLES)
def test_an_experiment_named_after_a_pipeline_table_is_refused(name):
    with pytest.raises(InputError) as err:
        check_name(name, "experiments[2].name")
    msg = str(err.value)
    assert msg.startswith("experiments[2].name: ") and "\n" not in msg
    assert f"{name!r} is the name of one of the pipeline's own tables" in msg
    assert "privacy, proof, worst_case, searches, lower_bound" in msg


@pytest.mark.parametrize("name", ["horizon", "privacy2", "Proof", "searches_k16"])
def test_other_names_pass(name):
    check_name(name, "experiments[0].name")


@pytest.mark.parametrize(
    ("checks", "where"),
    [
        ({"exponent_range": [1.2, 0.8]}, "checks.exponent_range"),
        ({"exponent_range": [1.0, 1.0]}, "checks.exponent_range"),
        (
            {"exponent_range": [0.8, 1.2], "multiverse": {"exponent_range": [[0.7, 1.3], [2, 1]]}},
            "checks.multiverse.exponent_range[1]",
        ),
    ],
)
def test_a_reversed_or_empty_range_is_refused_where_it_is(checks, where):
    with pytest.raises(InputError) as err:
        check_ordered({"checks": checks}, PROPS, "ordered")
    assert str(err.value).startswith(f"{where}: got ") and "low < high" in str(err.value)


def test_ordered_ranges_and_unmarked_keys_pass():
    checks = {
        "exponent_range": [0.8, 1.2],
        "confidence": [0.99, 0.5],  # not marked ordered: not a range
        "multiverse": {"exponent_range": [[0.7, 1.3]], "confidence": [0.9]},
    }
    check_ordered({"checks": checks}, PROPS, "ordered")
    check_ordered({"checks": {}}, PROPS, "ordered")  # no value: the schema's default applies


def test_the_loader_refuses_every_pipeline_table_as_an_experiment_name():
    for name in PIPELINE_TABLES:
        cfg = smoke_with_one(**SMALL)
        cfg["experiments"][0]["name"] = name
        msg = refusal_message(cfg)
        assert msg.startswith("experiments[0].name: ") and "pipeline's own tables" in msg


# ------------------------------------------------------------------ values and output dirs
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_check_values_refuses_a_non_finite_number_in_one_line(value):
    with pytest.raises(InputError) as err:
        check_values({"thresholds": {"z_max": value}})
    assert str(err.value) == f"thresholds.z_max: got {value!r} (allowed: finite numbers)"


def test_check_values_counts_every_value_once():
    """The root mapping, the list and its values: MAX_VALUES in all passes, one more fails,
    naming the first value over the limit."""
    n = MAX_VALUES
    check_values({"a": [0] * (n - 2)})
    with pytest.raises(InputError) as err:
        check_values({"a": [0] * (n - 1)})
    assert str(err.value) == (
        f"a[{n - 2}]: the config holds more than {n} values (allowed: a small config)"
    )


def test_check_values_refuses_a_key_that_is_not_a_string():
    with pytest.raises(InputError) as err:
        check_values({"a": {2: 2}})
    assert str(err.value) == "a: key 2 is not a string (allowed: names)"


def test_output_directories_stay_inside_the_working_directory(tmp_path):
    cfg = {"sim_dir": "results/sim", "agg_dir": "../elsewhere"}
    with pytest.raises(InputError) as err:
        check_out_dirs(cfg, cwd=tmp_path)
    assert str(err.value) == (
        f"agg_dir: '../elsewhere' lies outside the working directory {tmp_path.resolve()} "
        "(allowed: a path inside it, or allow_outside: true (--config allow_outside=true))"
    )
    check_out_dirs({**cfg, "allow_outside": True}, cwd=tmp_path)
    check_out_dirs({**cfg, "agg_dir": "results/agg"}, cwd=tmp_path)


@pytest.mark.parametrize("value", [True, "true"])
def test_allow_outside_accepts_snakemakes_string_true(tmp_path, value):
    cfg = {"sim_dir": "results/sim", "agg_dir": "../elsewhere", "allow_outside": value}
    check_out_dirs(cfg, cwd=tmp_path)
    with pytest.raises(InputError):
        check_out_dirs({**cfg, "allow_outside": "TRUE"}, cwd=tmp_path)
