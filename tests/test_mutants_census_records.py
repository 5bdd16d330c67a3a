"""Guards found by the mutation census of ``privdtol.analysis.records`` and
``privdtol.analysis.registry`` (issue 24): the text a notebook prints of a check record with an
interval (both ends, or only one of them), the field named by :func:`read_check`'s one-line
defects and :func:`load_check` reading UTF-8 whatever the locale; a record's defaults, pandas'
missing values in JSON, and the loss-model controls a config simulates."""

from __future__ import annotations

import json
import locale
import sys

import pandas as pd
import pytest

from privdtol.analysis import records, registry
from privdtol.errors import InputError

HEAD = records.Heading("C4", "Rate form", "largest factor", "within [1/2, 2]")


def test_check_text_shows_the_statistic_and_both_ends_of_its_interval():
    """A record with statistic 1.5 and interval [1.25, 1.75] (all exact in 6 significant
    digits, so :func:`records.plain` keeps them) prints the statistic, then the interval as
    ``[low, high]`` in that order."""
    rec = records.make_check(HEAD, 1.5, 1.25, 1.75, "PASS", "4 rps cells.")
    assert records.check_text("C4", rec) == (
        "**C4: PASS**: Rate form\n"
        "- statistic: largest factor = 1.5 [1.25, 1.75]\n"
        "- threshold: within [1/2, 2]\n"
        "- summary: 4 rps cells."
    )


def test_check_text_shows_a_one_sided_interval():
    """The interval is left out only when BOTH ends are missing: a record whose lower end is
    not finite (NaN → null by :func:`records.plain`) and upper end 2.0 prints ``[None, 2.0]``."""
    rec = records.make_check(HEAD, 1.0, float("nan"), 2.0, "INCONCLUSIVE", "one-sided.")
    assert rec["ci_low"] is None
    assert records.check_text("C4", rec).splitlines()[1] == (
        "- statistic: largest factor = 1.0 [None, 2.0]"
    )


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
    assert str(err.value) == f"results: {path}: not a readable parquet file (MemoryError)"


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


def test_controls_for_finds_the_blocked_loss_model_of_a_slice():
    """C5's controls are ``uniform`` (an algorithm) and ``blocked`` (a loss model of
    ``ENV_CONTROLS``): a ``dependent`` experiment on Bernoulli losses with one slice on blocked
    losses and no uniform play simulates the loss-model control only; the ``horizon``
    experiment with rps alone simulates no control of C2, C2b or C3."""
    config = {
        "experiments": [
            {"name": "horizon", "algorithms": ["rps"], "env": "bernoulli"},
            {
                "name": "dependent",
                "algorithms": ["rps"],
                "env": "bernoulli",
                "slices": [{"name": "blocked", "env": "blocked"}],
            },
        ]
    }
    assert registry.controls_for(config) == [("C5", "blocked")]
