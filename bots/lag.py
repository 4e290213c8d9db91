"""The lag stroke of both families: straight up the table at the speed that comes back nearest home.

14.1 (rules-14-1 R3) and carom (rules-carom C4) lag alike: each player's ball is struck straight
along the table (``phi_deg = 0``, toward the far cushion) and should come back to rest as near
the near cushion (x = 0) as it can. :func:`lag_speed` finds that speed by simulating the lag
ball at each candidate speed; bots/pool.py and bots/carom_search.py use it with their own
speeds and conditions.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional, Tuple

from physics import Shot, simulate
from physics.table import Table

Layout = Tuple[Tuple[int, Tuple[float, float]], ...]


@lru_cache(maxsize=64)
def lag_speed(table: Table, layout: Layout, ball: int, speeds: Tuple[float, ...], cushion: Optional[str] = None) -> float:
    """The cue speed (m/s) among ``speeds`` whose lag of ``ball`` rests nearest the near cushion.

    ``layout``: the balls simulated with the stroke, ``((id, (x, y)), ...)`` in m (the lag ball
    among them; a tuple, so that the answer is cached); ``speeds`` are tried in order and the
    first of equally good ones wins; ``cushion``: the name of the far cushion the ball must touch,
    or None for any cushion. A speed counts when the ball touches that cushion, meets no other
    ball and is not pocketed; its distance is the resting ball's edge from x = 0 (``x - R``).
    Raises ``RuntimeError`` when no speed counts.
    """
    balls = dict(layout)
    best = None
    for V0 in speeds:
        sim = simulate(table, balls, Shot(ball, phi_deg=0.0, V0=V0))
        if not any(e.kind == "ball_cushion" and e.balls[0] == ball and (cushion is None or e.cushion == cushion)
                   for e in sim.events):
            continue
        if any(e.kind == "ball_ball" for e in sim.events):
            continue
        fin = sim.final[ball]
        if fin.state == "pocketed":
            continue
        d = fin.r[0] - table.R
        if best is None or d < best[0]:
            best = (d, V0)
    if best is None:
        raise RuntimeError(f"lag: no speed reaches the {cushion or 'far'} cushion and comes back")
    return best[1]
