"""Tests of :mod:`privdtol.analysis.records`: the check records (their fields, verdicts and
JSON form), reading the aggregated tables a claim needs and writing them (the ``check``
command's records: tests/cli/test_check.py)."""

from __future__ import annotations

import json
import locale
import sys

import numpy as np
import pandas as pd
import pytest
from support.records import c2_record, check_json

from privdtol.analysis import (
    records,
)
from privdtol.analysis.records import (
    load_check,
    read_check,
)
from privdtol.errors import InputError


def test_write_check_is_deterministic_json(tmp_path):
    c = records.make_check(
        records.Heading("C9", "t", "s", "thr"),
        1 / 3,
        float("nan"),
        np.float64(2.0),
        "PASS",
        "sum",
        [{"b": np.int64(1), "a": np.nan}],
        ["z", "a"],
    )
    p1 = records.write_check(c, tmp_path / "a.json")
    p2 = records.write_check(dict(reversed(list(c.items()))), tmp_path / "b.json")
    assert p1.read_bytes() == p2.read_bytes()
    d = json.loads(p1.read_text())
    assert d["statistic"] == 0.333333 and d["ci_low"] is None and d["inputs"] == ["a", "z"]
    assert list(d) == sorted(d)
    with pytest.raises(ValueError):
        records.write_check({"claim": "x"}, tmp_path / "c.json")
    assert records.read_check(tmp_path / "missing.json") is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "{",
            "not readable JSON (Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1))",
        ),
        (
            json.dumps({**c2_record(), "statistic": "x"}),
            "key 'statistic' has type str (allowed: number or null)",
        ),
        (
            json.dumps({**c2_record(), "verdict": "MAYBE"}),
            "key 'verdict' is 'MAYBE' (allowed: PASS, FAIL, INCONCLUSIVE)",
        ),
    ],
)
def test_load_check_names_the_file_and_the_defect(tmp_path, text, problem):
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert str(err.value) == f"results: {path}: {problem}"


def test_a_sub_check_quotes_its_claim():
    quote, source = records.claim_words("C5/C2/beta")
    assert quote.startswith("Although the open problem is stated for the usual product-over")
    assert source == "Section 1 (Contributions), on Theorem 1"


def test_an_unreadable_parquet_file_is_one_line_on_the_agg_dir(tmp_path):
    path = tmp_path / "grid.parquet"
    path.write_text("not parquet")
    with pytest.raises(InputError) as err:
        records.load_agg(tmp_path, ["grid"])
    assert err.value.field == "agg-dir"
    assert str(err.value).startswith(  # the reader of every table (pipeline/io.py)
        f"agg-dir: {path}: not a readable Parquet file (Could not open Parquet input source "
        f"'{path}': Parquet magic bytes not found in footer."
    )


def test_load_check_refuses_a_top_level_list(tmp_path):
    path = tmp_path / "c.json"
    path.write_text("[1]")
    with pytest.raises(InputError) as err:
        records.load_check(path, field="checks")
    assert str(err.value) == f"checks: {path}: top level is not an object (allowed: a check record)"


def test_the_record_of_a_check_without_data():
    head = records.Heading("C4", "Rate form", "largest factor", "within [1/2, 2]")
    got = records.no_data(head, "2 rps cells; the form fit needs 4.", ["b.parquet", "a.parquet"])
    quote, source = records.claim_words("C4")
    assert got == {
        "claim": "C4",
        "title": "Rate form",
        "quote": quote,
        "source": source,
        "algorithm": "rps",
        "control_of": None,
        "statistic_label": "largest factor",
        "statistic": None,
        "ci_low": None,
        "ci_high": None,
        "interval": [None, None],
        "threshold": "within [1/2, 2]",
        "verdict": "INCONCLUSIVE",
        "summary": "2 rps cells; the form fit needs 4.",
        "cells": [],
        "inputs": ["a.parquet", "b.parquet"],
    }
    assert quote and source


HEAD = records.Heading("C4", "Rate form", "largest factor", "within [1/2, 2]")


def _write(tmp_path, data):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    return path


def test_load_check_names_the_first_missing_key(tmp_path):
    path = _write(tmp_path, {"title": "t"})
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert err.value.field == "results"
    assert str(err.value) == f"results: {path}: missing key 'claim'"


def test_load_check_names_the_types_a_key_allows(tmp_path):
    good = records.no_data(HEAD, "no cells")
    path = _write(tmp_path, {**good, "claim": 3})
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert str(err.value) == f"results: {path}: key 'claim' has type int (allowed: str)"
    path = _write(tmp_path, {**good, "control_of": 5})
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert str(err.value) == (
        f"results: {path}: key 'control_of' has type int (allowed: str or NoneType)"
    )


def test_read_check_refuses_a_top_level_list(tmp_path):
    path = _write(tmp_path, [1])
    with pytest.raises(InputError) as err:
        records.read_check(path)
    assert str(err.value) == (
        f"checks: {path}: top level is not an object (allowed: a check record)"
    )


def test_as_control_marks_the_record_with_its_claim():
    rec = {"claim": "C2", "control_of": None, "verdict": "FAIL"}
    assert records.as_control(rec, "C2") == {"claim": "C2", "control_of": "C2", "verdict": "FAIL"}


def test_read_check_names_the_checks_field_when_the_path_is_not_a_file(tmp_path):
    """A path that exists but is a directory is not "absent": :func:`records.read_check`
    raises the one-line defect of :func:`privdtol.pipeline.io.read_json` on field
    ``checks`` (not the reader's default ``input``)."""
    path = tmp_path / "C3.json"
    path.mkdir()
    with pytest.raises(InputError) as err:
        records.read_check(path)
    assert str(err.value) == f"checks: {path}: no such file (allowed: an existing JSON file)"


@pytest.fixture
def ascii_locale():
    """The process's LC_CTYPE set to "C" (an ASCII locale) for the test, restored after: what
    ``open()`` without an encoding decodes with when Python's UTF-8 mode is off."""
    if sys.flags.utf8_mode:
        pytest.skip("UTF-8 mode on: the locale does not choose the default encoding")
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        assert locale.getencoding() == "ANSI_X3.4-1968"
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, old)


def test_load_check_reads_utf8_under_an_ascii_locale(tmp_path, ascii_locale):
    """A check record whose summary holds U+03B5 written raw in UTF-8 (a hand-edited
    results/checks file; the 2 bytes 0xCE 0xB5, neither ASCII) is read back as it was written:
    :func:`records.load_check` decodes UTF-8, not the locale's ASCII."""
    rec = {**records.no_data(HEAD, "no cells"), "summary": "\u03b5 = 1"}
    path = tmp_path / "C4.json"
    path.write_bytes(json.dumps(rec, ensure_ascii=False).encode("utf-8"))
    assert records.load_check(path)["summary"] == "\u03b5 = 1"


def test_check_json_is_sorted_indented_by_two_and_ends_with_a_newline():
    """The JSON text of a record: keys sorted, every nesting level indented by 2 spaces, one
    item a line, a final newline (written out by hand from ``json.dumps(..., indent=2)``)."""
    text = records.check_json({"verdict": "PASS", "interval": [1.5, 2.0], "cells": []})
    assert text == (
        '{\n  "cells": [],\n  "interval": [\n    1.5,\n    2.0\n  ],\n  "verdict": "PASS"\n}\n'
    )


def test_write_check_names_the_missing_keys_in_record_order(tmp_path):
    """A record without ``verdict`` and ``claim`` is refused before anything is written; the
    message lists the missing keys in the order of :data:`records.CHECK_KEYS`."""
    rec = records.no_data(HEAD, "no cells")
    del rec["verdict"], rec["claim"]
    path = tmp_path / "C4.json"
    with pytest.raises(ValueError) as err:
        records.write_check(rec, path)
    assert str(err.value) == "check record lacks ['claim', 'verdict']"
    assert not path.exists()


def test_no_data_records_the_algorithm_it_was_given():
    """The INCONCLUSIVE record of a check of the ablation ``rps_full_prefix`` says so (not the
    default ``rps``), with no statistic, no interval and the reason as its summary."""
    rec = records.no_data(HEAD, "No rps_full_prefix cells in the input.", [], "rps_full_prefix")
    assert rec["algorithm"] == "rps_full_prefix"
    assert (rec["verdict"], rec["statistic"], rec["interval"]) == (
        "INCONCLUSIVE",
        None,
        [None, None],
    )
    assert rec["summary"] == "No rps_full_prefix cells in the input."


def test_load_agg_names_a_reader_error_without_a_message_by_its_type(tmp_path, monkeypatch):
    """A parquet reader that fails with an empty message (a bare ``MemoryError`` when a table
    does not fit) is reported by the error's type name, on the field given."""

    def out_of_memory(path):
        raise MemoryError

    (tmp_path / "grid.parquet").write_bytes(b"")
    monkeypatch.setattr(records.pd, "read_parquet", out_of_memory)
    with pytest.raises(InputError) as err:
        records.load_agg(tmp_path, ["horizon", "grid"], field="results")
    path = tmp_path / "grid.parquet"
    assert str(err.value) == f"results: {path}: not a readable Parquet file (MemoryError)"


def test_make_check_defaults_to_rps_and_a_claim_outside_the_registry_quotes_nothing():
    """Without ``algorithm`` a record is of ``rps``; a claim id the registry does not know
    ("C9") has an empty quote and an empty source."""
    rec = records.make_check(records.Heading("C9", "t", "s", "thr"), 1.0, 0.5, 1.5, "PASS", "x")
    assert (rec["algorithm"], rec["quote"], rec["source"]) == ("rps", "", "")


def test_make_check_refuses_a_verdict_outside_the_verdicts():
    """A verdict not in :data:`~privdtol.analysis.verdict.VERDICTS` is refused, the message
    quoting it."""
    with pytest.raises(ValueError) as err:
        records.make_check(HEAD, 1.0, 0.5, 1.5, "MAYBE", "x")
    assert str(err.value) == "bad verdict 'MAYBE'"


def test_plain_turns_pandas_missing_values_into_null():
    """``pd.NA`` and ``pd.NaT`` (a missing cell of a nullable column) become None, at the top
    level and inside a record."""
    assert records.plain(pd.NA) is None
    assert records.plain(pd.NaT) is None
    assert records.plain({"a": [pd.NA, 1]}) == {"a": [None, 1]}


@pytest.mark.parametrize("text", ['{"claim": "C3", "verd', "[1, 2]", "\xff"])
def test_truncated_check_json_named(tmp_path, text):
    path = tmp_path / "C3.json"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as err:
        read_check(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_check_records_are_validated(tmp_path):
    path = tmp_path / "C3.json"
    path.write_text(json.dumps({**check_json("C3", "PASS"), "verdict": "MAYBE"}))
    with pytest.raises(InputError, match=r"C3\.json: key 'verdict'"):
        load_check(path)


# ----------------------------------------------------------------- data files refused
@pytest.mark.parametrize(
    ("corrupt", "says"),
    [
        (
            lambda df: df.assign(mean=np.where(df.index == 0, np.nan, df["mean"])),
            "'mean' holds nan",
        ),
        (lambda df: df.assign(se=np.where(df.index == 0, np.inf, df["se"])), "'se' holds inf"),
        (lambda df: df.drop(columns=["tail_se"]), "lacks the columns tail_se"),
        (lambda df: df.assign(K=df["K"].astype(str)), "column 'K' has type"),
        (lambda df: pd.concat([df, df.iloc[:1]]), "a (cell_id, horizon) pair on two rows"),
        (lambda df: df.assign(experiment="other"), "rows of experiment 'other'"),
    ],
)
def test_a_corrupt_aggregated_table_is_refused_before_any_verdict(
    tiny_agg, tmp_path, corrupt, says
):
    """Before the fix a NaN mean reached C2, C2b and the multiverse (pandas tracebacks) and
    turned C3 INCONCLUSIVE; the others were read as they were."""
    corrupt(pd.read_parquet(tiny_agg / "grid.parquet")).to_parquet(tmp_path / "grid.parquet")
    with pytest.raises(InputError) as err:
        records.load_agg(tmp_path, ["grid"])
    assert str(err.value).startswith(f"agg-dir: {tmp_path / 'grid.parquet'}: ")
    assert says in str(err.value)


def test_the_pipeline_s_own_tables_are_not_held_to_the_regret_contract(tmp_path):
    pd.DataFrame({"a": [1.0]}).to_parquet(tmp_path / "privacy.parquet")
    assert list(records.load_agg(tmp_path, ["privacy"])) == ["privacy"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"claim": "C2", "verd', "not readable JSON"),
        (json.dumps(c2_record())[:-1].replace('"statistic": 1.5', '"statistic": NaN') + "}", "NaN"),
        (json.dumps({k: v for k, v in c2_record().items() if k != "verdict"}), "'verdict'"),
    ],
)
def test_read_check_is_the_validating_reader(tmp_path, text, says):
    """read_check (the explorer's, the notebook pages', the index's reader) validates like
    load_check: before the fix a record without a verdict was a KeyError in the explorer and a
    NaN statistic was accepted."""
    path = tmp_path / "C2.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        records.read_check(path)
    assert str(err.value).startswith(f"checks: {path}: ") and says in str(err.value)
