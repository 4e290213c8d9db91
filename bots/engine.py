"""The shot-selection engine: one entry point for every discipline and level.

``Player(level, seed).choose(game, seat)`` looks at a referee game (the game interface of
rules/README.md: the server's own game, a copy, or a :class:`bots.mirror.Mirror` kept in step
with a table's stream) and returns the :class:`bots.action.Action` of ``seat``: a lag stroke,
a decision on offer, the opening break or a stroke (with its call and cue-ball placement in
14.1). It never changes the game. 14.1 goes to :mod:`bots.pool`, every carom discipline (and
pentathlon/triathlon) to :mod:`bots.carom`.

Why a package of its own and not a server seat type: the same engine plays in the server (the
computer seat, server/computer.py), over the network (``billar bots``, the Locust players) and
in the benchmarks (games straight through the referee); bots may import physics, rules and
protocol, and nothing here knows a connection.
"""

from __future__ import annotations

import random
from typing import Any, Optional

from bots import carom, pool
from bots.action import Action
from bots.levels import Level, get_level


def is_pool(game: Any) -> bool:
    return game.discipline == "straight_pool"


class Player:
    """A computer player of ``level`` 1..5 (bots/levels.py) with its own random generator.

    ``seed`` makes its execution noise (and so its games) reproducible. ``ValueError`` for a
    level outside 1..5.
    """

    def __init__(self, level: int = 3, seed: Optional[int] = None):
        self.level: Level = get_level(level)
        self.rng = random.Random(seed)

    def choose(self, game: Any, seat: Optional[int] = None) -> Action:
        """The action of ``seat`` (default: the seat to act; in a lag, seat 0 unless given).

        Raises ``ValueError`` when ``seat`` has nothing to do now (game over, not its turn).
        """
        if game.over:
            raise ValueError("game: the game is over")
        acts = game.legal_actions()
        shoot = acts.get("shoot")
        if shoot and shoot.get("lag"):
            s = 0 if seat is None else seat
            mod = pool if is_pool(game) else carom
            return mod.choose_lag(game, s, self.level, self.rng)
        s = game.to_act if seat is None else seat
        if s != game.to_act:
            raise ValueError(f"seat: seat {s} is not to act (seat {game.to_act} is)")
        if is_pool(game):
            d = pool.decide(game, s, self.level)
            if d is not None:
                return d
            if game.phase == "break":
                return pool.choose_break(game, s, self.level, self.rng)
            return pool.choose_stroke(game, s, self.level, self.rng)
        d = carom.decide(game, s, self.level)
        if d is not None:
            return d
        return carom.choose_stroke(game, s, self.level, self.rng)
