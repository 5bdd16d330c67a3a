"""Tests of :mod:`privdtol.pipeline.semantics`: the checks of a config beyond its schema, each
problem one InputError naming the key: an experiment named after one of the pipeline's own
tables, and a reversed range (the config, then each of its multiverse values).  That the loader
calls them is tested with the loader (tests/pipeline/test_config.py)."""

from __future__ import annotations

import pytest
from support.configs import SMALL, refusal_message, smoke_with_one

from privdtol.errors import InputError
from privdtol.pipeline.semantics import PIPELINE_TABLES, check_name, check_ordered

#: the schema of ``checks`` as check_ordered reads it: one ordered range, one plain value
PROPS = {"exponent_range": {"ordered": True}, "confidence": {}}


def test_the_pipeline_tables_are_the_five_it_writes():
    assert PIPELINE_TABLES == ("privacy", "proof", "worst_case", "searches", "lower_bound")


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
