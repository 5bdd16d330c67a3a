"""Tests of :mod:`privdtol.cli.report`: ``privdtol report-assets`` refuses a broken config in
one line naming the file."""

from __future__ import annotations

from support.paths import SMOKE

from privdtol.cli import main


def test_bad_config_is_one_line_error(tmp_path, capsys):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("experiments: [\n")
    assert main(["report-assets", "--config", str(cfg), "--results", str(tmp_path)]) == 2
    assert "bad.yaml" in capsys.readouterr().err


def test_assets_out_an_existing_file_is_one_line(tmp_path, capsys):
    """Before the fix: a FileExistsError traceback."""
    out = tmp_path / "generated"
    out.write_text("x")
    args = ["report-assets", "--config", str(SMOKE), "--out", str(out)]
    assert main([*args, "--results", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("privdtol report-assets: error: --out:")
