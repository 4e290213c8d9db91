"""The ``billar`` command: one entry point, one sub-command per concern.

Each sub-command lives with the code it drives and exposes ``register(subparsers)``, which
adds its parser and sets ``func`` (called with the parsed arguments, returning an exit code):

- ``billar sim``      physics/cli.py    simulate one shot
- ``billar referee``  rules/replay.py   re-judge a recorded game
- ``billar serve``    server/app.py     run the game server
- ``billar bots``     bots/cli.py       play games with bot players over the protocol
- ``billar db``       server/db/migrate.py  database migrations (``billar db upgrade``)
- ``billar puzzles``  server/puzzles/service.py  shot puzzles (``billar puzzles seed``, ``billar puzzles mine``)

This module lives in ``server`` because it is the one package allowed to import every other.
Bad arguments exit 2 with a one-line message (argparse's convention).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

COMMAND_MODULES = ("physics.cli", "rules.replay", "server.app", "bots.cli", "server.db.migrate", "server.puzzles.service")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="billar", description="billar: online billiards server and tools")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if name == exc.name or name.startswith(f"{exc.name}."):  # command not in this build yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:
        sys.stderr.write(f"billar {args.command}: error: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
