"""``wps config show [flags]``: print the effective run configuration as TOML."""

from __future__ import annotations

import argparse
import sys

from .segment import add_pipeline_arguments, pipeline_options_from_args, run_config_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "config",
        help="print the effective configuration (TOML) for a profile, a config file and flags",
        description="config show: the packaged defaults (wps/defaults.toml) overlaid by "
        "--profile, the --config file and the flags given, as `wps segment` and `wps batch` "
        "would run with them. The output is a valid --config file.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION",
                                    help="show: print the effective configuration")
    show = actions.add_parser("show", help="print the effective configuration as TOML",
                              description=parser.description)
    add_pipeline_arguments(show)
    show.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..settings import run_config, to_toml

    pipeline_options_from_args(args)  # what `wps segment` would refuse is refused here too
    config = run_config_from_args(args)
    run_config(config, "command line")
    sys.stdout.write(to_toml(config))
    return 0
