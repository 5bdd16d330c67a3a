"""Tests of :mod:`privdtol.report.notebook_run`: an executed notebook's metadata stripped of its
timing, so that it is the same bytes on every run, and its defaults cell folded when papermill
injected the run's parameters."""

from __future__ import annotations

from privdtol.report.notebook_run import fold_defaults_cell, strip_metadata


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
