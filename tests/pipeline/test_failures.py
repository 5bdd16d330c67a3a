"""Tests of :mod:`privdtol.pipeline.failures`: a plugin that fails while its cell is simulated
costs that cell only -- simulate-batch writes the cell's file with no rows and the reason, the
aggregation leaves it out and records it; a built-in algorithm's failure still stops the job."""

from __future__ import annotations

import pytest

from privdtol.algorithms import ALGORITHMS, PLUGINS
from privdtol.algorithms.rps import RandomizedPrefixSoftmax
from privdtol.cli.batch import _cell_or_failure
from privdtol.engine.guard import RunFailure
from privdtol.pipeline import failures
from privdtol.pipeline.aggregate import aggregate_files, read_cell
from privdtol.pipeline.io import write_table
from privdtol.pipeline.plan import Cell


class Failing(RandomizedPrefixSoftmax):
    """Raises from block 5 on (the hostile probe's plugin)."""

    name = "failing"

    def select(self, rng, sums, r):
        if r >= 5:
            raise RuntimeError("boom at block five")
        return super().select(rng, sums, r)


def cell(algorithm):
    return Cell(algorithm, "bernoulli", "standard", 3, 0.25, None, 1.0, 255, 8, None, None, 0)


@pytest.fixture
def plugin(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, "failing", Failing)
    monkeypatch.setitem(PLUGINS, "failing", Failing)


def test_a_failing_plugin_costs_its_own_cell_and_the_aggregation_names_it(plugin, tmp_path):
    bad, good = cell("failing"), cell("rps")
    for c in (bad, good):
        write_table(_cell_or_failure(c, None), tmp_path / f"{c.cell_id}.parquet")
    read = read_cell(tmp_path / f"{bad.cell_id}.parquet", bad)
    reason = failures.failure_of(read)
    assert len(read) == 0 and reason.startswith(
        "plugin 'failing': algorithm: algorithm 'failing' ("
    )
    assert "test_failures.Failing) failed: RuntimeError: boom at block five (in select" in reason
    table = aggregate_files(sorted(tmp_path.glob("*.parquet")), "horizon")
    assert set(table.algorithm) == {"rps"} and len(table) > 0
    assert list(table.attrs[failures.FAILURES_ATTR]) == [bad.cell_id]


def test_a_built_in_algorithm_s_failure_stops_the_job(monkeypatch):
    """No plugin to blame: a bug of the package is raised, not written as a missing cell."""

    def select(self, rng, sums, r):
        raise RuntimeError("boom at block five")

    monkeypatch.setattr(RandomizedPrefixSoftmax, "select", select)
    assert failures.plugin_of(cell("rps")) is None
    with pytest.raises(RunFailure, match="boom at block five"):
        _cell_or_failure(cell("rps"), None)


def test_the_report_names_the_cells_left_out_and_why(plugin, tmp_path):
    """The aggregated table's metadata carries the failures to the report's provenance rows
    (escaped: a plugin's message is untrusted text)."""
    from privdtol.report.latex.provenance import failed_rows

    bad = cell("failing")
    write_table(_cell_or_failure(bad, None), tmp_path / f"{bad.cell_id}.parquet")
    agg = tmp_path / "agg"
    agg.mkdir()
    write_table(
        aggregate_files([tmp_path / f"{bad.cell_id}.parquet"], "horizon"), agg / "horizon.parquet"
    )
    found = failures.failed_cells(agg)
    assert list(found) == ["horizon"] and list(found["horizon"]) == [bad.cell_id]
    ((label, text),) = failed_rows({"agg_dir": str(agg)}, tmp_path)
    assert label == r"Cells left out of \texttt{horizon}"
    assert text.startswith(f"{bad.cell_id}: plugin 'failing': algorithm: algorithm 'failing' (")
    assert r"test\_failures.Failing) failed: RuntimeError: boom at block five" in text
    assert failed_rows({"agg_dir": str(tmp_path / "none")}, tmp_path) == []


def _agg_of_failed_cells(tmp_path, experiments: dict[str, list]):
    """An agg directory whose tables (one per experiment) left out the given cells."""
    agg = tmp_path / "agg"
    agg.mkdir()
    for experiment, cells in experiments.items():
        paths = []
        for c in cells:
            path = tmp_path / f"{c.cell_id}.parquet"
            write_table(_cell_or_failure(c, None), path)
            paths.append(path)
        write_table(aggregate_files(paths, experiment), agg / f"{experiment}.parquet")
    return agg


def test_the_report_body_says_which_plugin_failed_and_why_in_one_sentence(plugin, tmp_path):
    """Only the appendix named a failing plugin: the body's "What did not replicate" now has
    one sentence per plugin (its name, its cells missing, where, and why), escaped."""
    from privdtol.report.latex.claims import plugin_failure_items
    from privdtol.report.latex.templating import fill_template

    two = Cell("failing", "bernoulli", "standard", 4, 0.25, None, 1.0, 255, 8, None, None, 0)
    agg = _agg_of_failed_cells(tmp_path, {"horizon": [cell("failing")], "gap": [two]})
    (entry,) = failures.plugin_failures(agg)
    assert entry["plugin"] == "failing" and entry["cells"] == 2
    assert entry["experiments"] == ["gap", "horizon"]
    assert entry["reason"].startswith("algorithm: algorithm 'failing' (")
    assert entry["reason"].endswith(")") and "boom at block five" in entry["reason"]
    plugins = plugin_failure_items(agg)
    main = fill_template("failures.tex.j2", items=[], plugins=plugins, mode="main")
    (sentence,) = [line for line in main.splitlines() if line.startswith(r"\item")]
    assert sentence.startswith(
        r"\item \textbf{Plugin \texttt{f\allowbreak{}a\allowbreak{}i\allowbreak{}l\allowbreak{}"
    )
    assert (
        r"failed, so its 2 cells of \texttt{gap}, \texttt{horizon} are missing from every "
        r"table, figure and check: algorithm: algorithm 'failing' (" in sentence
    )
    assert r"test\_failures.Failing) failed: RuntimeError: boom at block five" in sentence
    assert sentence.endswith(r"(Appendix~\ref{app:provenance}).")
    assert "Every claim that was checked replicated" in main  # no claim failed
    assert failures.plugin_failures(tmp_path / "none") == []


def test_a_long_hostile_plugin_reason_is_shortened_and_escaped(monkeypatch, tmp_path):
    """A plugin's message is untrusted text of any length: the body quotes at most
    MAX_REASON characters of it, escaped (the appendix keeps it whole)."""
    from privdtol.report.latex import claims

    reason = "plugin 'evil': " + r"\input{/etc/hostname} " * 40
    monkeypatch.setattr(
        failures, "failed_cells", lambda agg: {"horizon": {"c1": reason, "c2": "no form"}}
    )
    items = claims.plugin_failure_items(tmp_path)
    assert [(i["plugin"], i["cells"]) for i in items] == [
        (r"\texttt{e\allowbreak{}v\allowbreak{}i\allowbreak{}l}", 1),
        (r"\texttt{u\allowbreak{}n\allowbreak{}k\allowbreak{}n\allowbreak{}o\allowbreak{}w"
         r"\allowbreak{}n}", 1),
    ]  # fmt: skip
    assert len(items[0]["reason"]) <= claims.MAX_REASON and items[0]["reason"].endswith(" ...")
    from privdtol.report.latex.templating import fill_template

    text = fill_template("failures.tex.j2", items=[], plugins=items, mode="main")
    assert r"\input" not in text and r"\textbackslash{}input\{/etc/hostname\}" in text
