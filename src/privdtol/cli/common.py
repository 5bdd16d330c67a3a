"""Options shared by several ``privdtol`` subcommands."""

from __future__ import annotations

import argparse


def add_config_files_option(parser: argparse.ArgumentParser) -> None:
    """The required, repeatable ``--config`` of the commands that read the merged pipeline
    config (:func:`privdtol.pipeline.config.load_config_files` merges the files in order)."""
    parser.add_argument(
        "--config",
        action="append",
        required=True,
        metavar="CONFIG_YAML_OR_JSON",
        help="config file; repeat to merge several in order, as Snakemake does",
    )
