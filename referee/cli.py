"""The `referee` command: one sub-command per job, each registered by the module that owns it."""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that define sub-commands. Each has `register(subparsers)`, which adds its parsers and
# sets `func` (taking the parsed arguments, returning an exit status) as their default.
COMMAND_MODULES: tuple[str, ...] = (
    "referee.demo",
    "referee.rules_cli",
    "referee.evaluation.cli",
    "referee.session.cli",
    "referee.signals.cli",
    "referee.scenes.cli",
    "referee.record.cli",
    "referee.vision.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee", description="A camera referee for over-the-board nardy."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
