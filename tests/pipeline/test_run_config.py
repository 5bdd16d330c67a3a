"""Tests of :mod:`privdtol.pipeline.run_config` and ``privdtol run-config``: the run's merged
config is written as a config file that reads back as the same config (the same hash), its
sources record each file's sha256 and every override, and bad input is one line."""

from __future__ import annotations

import json

import pytest
import yaml
from support.paths import SMOKE

from privdtol.archive.layout import config_hash
from privdtol.cli import main
from privdtol.pipeline.config import load_config, load_config_files
from privdtol.pipeline.run_config import (
    file_sha256,
    flat_overrides,
    read_sources,
    sources_json,
    write_merged,
)


def test_the_merged_config_reads_back_as_the_same_config(tmp_path):
    raw = yaml.safe_load(SMOKE.read_text())
    raw["runs"] = 7
    config = load_config(raw)
    out = tmp_path / "config.merged.yaml"
    assert main(["run-config", "--merged", json.dumps(config), "--out", str(out)]) == 0
    back = load_config_files([out])
    assert back["runs"] == 7 and config_hash(back) == config_hash(config)
    assert out.read_text().startswith("# The validated, merged config")


def test_the_sources_list_each_file_with_its_sha256_and_every_override(tmp_path):
    out = tmp_path / "config.sources.json"
    overrides = {"runs": 7, "checks": {"confidence": 0.9}}
    assert (
        main(["run-config", "--sources", sources_json([SMOKE], overrides), "--out", str(out)]) == 0
    )
    record = read_sources(out)
    assert record["files"] == [{"path": str(SMOKE), "sha256": file_sha256(SMOKE)}]
    assert flat_overrides(record["overrides"]) == [("checks.confidence", 0.9), ("runs", 7)]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--merged", "{not json"], "merged: not JSON"),
        (["--merged", "[1]"], "merged: a JSON list"),
        (["--merged", json.dumps({"runs": 7})], "experiments"),
        (
            ["--sources", json.dumps({"files": ["/no/such.yaml"], "overrides": {}})],
            "does not exist",
        ),
        (["--sources", json.dumps({"files": "x"})], "sources:"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, args, says):
    assert main(["run-config", *args, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err, err
    assert not (tmp_path / "x").exists()


def test_a_sources_file_that_is_not_one_is_refused_in_one_line(tmp_path):
    from privdtol.errors import InputError

    path = tmp_path / "s.json"
    path.write_text(json.dumps({"files": [{"path": 1}], "overrides": {}}))
    with pytest.raises(InputError, match="not a config-sources record"):
        read_sources(path)


def test_write_merged_refuses_a_config_that_does_not_read_back(tmp_path, monkeypatch):
    from privdtol.errors import InputError
    from privdtol.pipeline import config as loader

    config = load_config(yaml.safe_load(SMOKE.read_text()))
    monkeypatch.setattr(loader, "load_config", lambda c: {**c, "runs": 1})
    with pytest.raises(InputError, match="does not read back"):
        write_merged(config, tmp_path / "m.yaml")
    assert not (tmp_path / "m.yaml").exists()


def test_a_build_of_other_config_files_over_a_run_is_refused_naming_both(tmp_path):
    from privdtol.errors import InputError
    from privdtol.pipeline.run_config import check_same_run

    record = tmp_path / "results" / "config.sources.json"
    check_same_run(record, ["config/config.yaml"])  # nothing recorded: nothing to refuse
    record.parent.mkdir()
    record.write_text(
        '{"files": [{"path": "config/config.yaml", "sha256": "0"}], "overrides": {}}\n'
    )
    check_same_run(record, ["config/config.yaml"])  # the same files (values may differ)
    check_same_run(record, ["config/config.yaml", "results/config.merged.yaml"])  # its own
    with pytest.raises(InputError) as err:
        check_same_run(record, ["config/config.yaml", "config/smoke.yaml"])
    text = str(err.value)
    assert text.startswith("configfile: ") and "\n" not in text, text
    both = "holds the build of config/config.yaml; this build is of config/config.yaml + "
    assert both + "config/smoke.yaml" in text and "move" in text, text
    record.write_text("not json")
    check_same_run(record, ["other.yaml"])  # an unreadable record: rewritten by the build
