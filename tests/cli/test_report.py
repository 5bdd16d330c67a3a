"""Tests of :mod:`privdtol.cli.report`: ``privdtol report-assets`` refuses a broken config in
one line naming the file."""

from __future__ import annotations

from privdtol.cli import main


def test_bad_config_is_one_line_error(tmp_path, capsys):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("experiments: [\n")
    assert main(["report-assets", "--config", str(cfg), "--results", str(tmp_path)]) == 2
    assert "bad.yaml" in capsys.readouterr().err
