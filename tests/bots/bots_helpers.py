"""Helpers of the bot tests: games placed in a chosen position (through the referee's own state format), the
check that a server is empty again."""

from __future__ import annotations

import asyncio
from typing import Mapping, Optional

from rules.registry import game_from_state, new_game
from server.metrics import parse_text


def pool_at(balls: Mapping[int, tuple], *, to_act: int = 0, in_hand: Optional[str] = None, phase: str = "play",
            config: Optional[dict] = None):
    """A 14.1 game in play with ``balls`` on the bed (no cue ball when ``in_hand``), seat ``to_act`` to shoot."""
    cfg = dict(config or {})
    cfg.setdefault("breaker", 0)
    st = new_game("straight_pool", cfg, 1).to_state()
    st.update(balls={str(b): [float(p[0]), float(p[1])] for b, p in balls.items()}, phase=phase, to_act=to_act,
              in_hand=in_hand, pending=None, shooter=None)
    return game_from_state(st)


async def counters_back_to_zero(srv, timeout: float = 10.0) -> dict:
    """Wait until the server holds no connection, table or spectator and its lobby is empty; returns the gauges."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        m = parse_text(srv.render_metrics())
        gauges = {k: m[k] for k in ("billar_connections", "billar_tables_active", "billar_spectators", "billar_players_connected")}
        lobby = await srv.store.lobby_list()
        if not any(gauges.values()) and not lobby:
            return gauges
        if loop.time() > end:
            raise AssertionError(f"counters not back to zero: {gauges}, lobby {lobby}")
        await asyncio.sleep(0.05)
