"""Tests of :mod:`privdtol.report.build.notebook_run`: an executed notebook's metadata stripped of
its timing, so that it is the same bytes on every run, and its defaults cell folded when papermill
injected the run's parameters; the parameters its rule passes declared by every notebook."""

from __future__ import annotations

import pytest
from support.paths import ROOT

from privdtol.analysis.registry import NOTEBOOKS
from privdtol.errors import InputError
from privdtol.report.build.notebook_run import (
    RULE_PARAMETERS,
    check_parameters,
    declared_parameters,
    execute_notebook,
    fold_defaults_cell,
    notebook_parameters,
    strip_metadata,
)


def test_strip_metadata_removes_timing():
    nb = {
        "metadata": {
            "papermill": {
                "start_time": "x",
                "end_time": "y",
                "duration": 1.0,
                "input_path": "/a/b/n.input.ipynb",
                "parameters": {},
            }
        },
        "cells": [
            {
                "metadata": {
                    "execution": {"iopub.status.busy": "t"},
                    "papermill": {
                        "duration": 0.1,
                        "status": "completed",
                        "start_time": "s",
                        "end_time": "e",
                    },
                }
            }
        ],
    }
    out = strip_metadata(nb)
    assert out["metadata"]["papermill"] == {"input_path": "n.input.ipynb", "parameters": {}}
    assert out["cells"][0]["metadata"] == {"papermill": {"status": "completed"}}


def _cell(*tags):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": ""}


def test_the_defaults_cell_is_folded_beside_injected_parameters():
    nb = {"cells": [_cell("parameters"), _cell("injected-parameters"), _cell()]}
    hidden = [
        c["metadata"].get("jupyter", {}).get("source_hidden")
        for c in fold_defaults_cell(nb)["cells"]
    ]
    assert hidden == [True, None, None]


def test_a_notebook_without_injected_parameters_keeps_its_defaults_open():
    nb = {"cells": [_cell("parameters"), _cell()]}
    assert all("jupyter" not in c["metadata"] for c in fold_defaults_cell(nb)["cells"])


# ----------------------------------------------------------------------------- parameters
# (a past bug: notebooks/horizon.py declared confidence and horizon_free_c but not the
# ``thresholds`` its rule passes; papermill only logged "Passed unknown parameter")


def _declared(name):
    import jupytext

    return declared_parameters(jupytext.read(str(ROOT / "notebooks" / f"{name}.py")))


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_every_notebook_declares_every_parameter_its_rule_passes(name):
    from privdtol.pipeline.config import check_defaults

    passed = notebook_parameters(name, check_defaults(), agg_dir="a", checks_dir="c", out_dir="o")
    assert set(passed) == set(RULE_PARAMETERS)
    missing = set(passed) - set(_declared(name))
    assert not missing, f"notebooks/{name}.py does not declare {sorted(missing)}"


def test_the_rule_passes_the_config_thresholds_of_the_notebook_claims():
    from privdtol.analysis.registry import notebook_thresholds
    from privdtol.pipeline.config import check_defaults

    checks = {**check_defaults(), "horizon_free_c": 64}
    passed = notebook_parameters("horizon", checks, agg_dir="a", checks_dir="c", out_dir="o")
    assert passed["thresholds"]["horizon_free_c"] == 64
    assert set(passed["thresholds"]) == set(notebook_thresholds("horizon"))


def test_an_undeclared_parameter_is_refused_in_one_line():
    with pytest.raises(InputError) as err:
        check_parameters("n.py", {"agg_dir": "a", "thresholds": {}}, {"agg_dir": {}})
    assert str(err.value).count("\n") == 0
    assert "thresholds" in str(err.value) and "agg_dir" in str(err.value)
    check_parameters("n.py", {"agg_dir": "a"}, {"agg_dir": {}, "out_dir": {}})  # fewer: fine


def test_execute_notebook_refuses_an_unknown_parameter_before_running(tmp_path):
    source = tmp_path / "n.py"
    source.write_text('# %% tags=["parameters"]\nagg_dir = "x"\n\n# %%\nraise SystemExit("ran")\n')
    with pytest.raises(InputError, match="horizon_free_c"):
        execute_notebook(
            source,
            {"agg_dir": "y", "horizon_free_c": 3},
            converted=tmp_path / "in.ipynb",
            executed=tmp_path / "out.ipynb",
            ipynb=tmp_path / "r.ipynb",
            html=tmp_path / "r.html",
        )
    assert not (tmp_path / "out.ipynb").exists()
