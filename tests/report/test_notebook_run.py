"""Tests of :mod:`privdtol.report.notebook_run`: an executed notebook's metadata stripped of its
timing, so that it is the same bytes on every run."""

from __future__ import annotations

from privdtol.report.notebook_run import strip_metadata


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
