"""Games placed in a chosen position for the engine tests (through the referee's own state format)."""

from __future__ import annotations

from typing import Mapping, Optional

from rules.registry import game_from_state, new_game


def pool_at(balls: Mapping[int, tuple], *, to_act: int = 0, in_hand: Optional[str] = None, phase: str = "play",
            config: Optional[dict] = None):
    """A 14.1 game in play with ``balls`` on the bed (no cue ball when ``in_hand``), seat ``to_act`` to shoot."""
    cfg = dict(config or {})
    cfg.setdefault("breaker", 0)
    st = new_game("straight_pool", cfg, 1).to_state()
    st.update(balls={str(b): [float(p[0]), float(p[1])] for b, p in balls.items()}, phase=phase, to_act=to_act,
              in_hand=in_hand, pending=None, shooter=None)
    return game_from_state(st)
