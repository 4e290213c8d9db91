# cython: annotation_typing=False
"""Carom configuration (spec section C), ball ids, phases, decisions and the tolerances every module here shares.

Seats are 0 and 1; ball 0 is the white (the first breaker's cue ball, C3), 1 the yellow, 2 the red
(K2). :func:`carom_config` fills in and validates the section C keys of one discipline.
"""

from __future__ import annotations

import math
from typing import Mapping, Optional

from physics.table import Table
from rules.base import IllegalAction, check_clock_extensions, check_clock_limit

WHITE = 0
YELLOW = 1
RED = 2
BALLS = (WHITE, YELLOW, RED)
BALL_NAMES = {WHITE: "white", YELLOW: "yellow", RED: "red"}

EPS_TIE = 5.0e-4  # s, simultaneous events (K8)
DELTA_SPOT = 1.0e-3  # m, spot clearance (K8, C16)
LAG_EQUAL = 5.0e-4  # m, lag distances equal within this (C4)
LAG_CUSHION_OFFSET = 0.30  # m, lag balls about 30 cm from each long cushion (C4)
POSITION_TOL = 1.0e-6  # m, a simulated start layout must match the referee's to this

# phases
LAG = "lag"
CHOOSE_BREAKER = "choose_breaker"
BREAK = "break"
PLAY = "play"
DECISION = "decision"
OVER = "over"

# decisions
D_CHOOSE_BREAKER = "CHOOSE_BREAKER"
D_STARTING_SPOT = "STARTING_SPOT"
D_PLAY_ON = "PLAY_ON"
D_SET_UP = "SET_UP"
D_EXTENSION = "EXTENSION"

# C25 online default distances
DEFAULT_DISTANCE = {
    "libre": 100,
    "balkline_47_2": 100,
    "balkline_47_1": 80,
    "balkline_71_2": 100,
    "one_cushion": 50,
    "three_cushion": 30,
}

_CHOICES = {
    "limit_last_inning": ("from_layout", "from_opening_position"),
    "set_equalizing": ("none", "first_inning_only"),
    "draw_resolution": ("draw", "penalty_shootout", "extra_inning"),
    "libre_frozen_reset": ("spots", "opening_position"),
    "break_red_first": ("direct", "first_ball"),
    "lag_mode": ("simulated", "random"),
}
_BOOLS = ("equalizing_inning", "anchors")


# ----------------------------------------------------------------------------------------
# configuration (section C)


def pos_int(key: str, v, minimum: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ValueError(f"{key}: must be an integer >= {minimum}, got {v!r}")
    return int(v)


def pos_float(key: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ValueError(f"{key}: must be a positive number, got {v!r}")
    return float(v)


def carom_config(discipline: str, config: Optional[Mapping], table: Table) -> dict:
    """The full configuration of a carom game: the keys of spec section C with defaults filled in.

    Keys: ``distance`` (C19/C25), ``inning_limit`` (None or int, C20), ``limit_last_inning``,
    ``equalizing_inning`` (bool), ``sets`` (None or ``{"sets_to_win": 2|3, "set_distance":
    int}``, C21), ``set_equalizing``, ``draw_resolution``, ``anchors`` (bool, balkline),
    ``corner_zone_legs`` ([a, b] m, libre), ``libre_frozen_reset``, ``break_red_first``,
    ``lag_mode``, ``shot_clock`` (None or ``{"limit_s", "warn_s", "timeouts"}``, C24), and
    ``breaker`` (None, or the seat that takes the first break: no lag; used by multi-discipline
    matches and rematches). ``discipline`` may be given and must match. Raises ``ValueError``
    naming the key for an unknown key or a bad value.
    """
    cfg = dict(config or {})
    out = {
        "discipline": discipline,
        "distance": DEFAULT_DISTANCE[discipline],
        "inning_limit": None,
        "limit_last_inning": "from_layout",
        "equalizing_inning": True,
        "sets": None,
        "set_equalizing": "none",
        "draw_resolution": "draw",
        "anchors": True,
        "corner_zone_legs": [float(table.corner_zone_legs[0]), float(table.corner_zone_legs[1])],
        "libre_frozen_reset": "spots",
        "break_red_first": "direct",
        "lag_mode": "simulated",
        "shot_clock": None,
        "breaker": None,
    }
    for key, v in cfg.items():
        if key not in out:
            raise ValueError(f"{key}: unknown configuration key for {discipline}")
        if key == "discipline":
            if v != discipline:
                raise ValueError(f"discipline: expected {discipline!r}, got {v!r}")
        elif key == "distance":
            out[key] = pos_int(key, v)
        elif key == "inning_limit":
            out[key] = None if v is None else pos_int(key, v)
        elif key in _CHOICES:
            if v not in _CHOICES[key]:
                raise ValueError(f"{key}: must be one of {list(_CHOICES[key])}, got {v!r}")
            out[key] = v
        elif key in _BOOLS:
            if not isinstance(v, bool):
                raise ValueError(f"{key}: must be true or false, got {v!r}")
            out[key] = v
        elif key == "corner_zone_legs":
            if not isinstance(v, (list, tuple)) or len(v) != 2:
                raise ValueError(f"corner_zone_legs: must be [long, short] in m, got {v!r}")
            a, b = pos_float(key, v[0]), pos_float(key, v[1])
            if a > table.length / 2.0 or b > table.width / 2.0:
                raise ValueError(f"corner_zone_legs: legs must fit half the table, got {v!r}")
            out[key] = [a, b]
        elif key == "sets":
            if v is None:
                out[key] = None
                continue
            if not isinstance(v, Mapping) or set(v) - {"sets_to_win", "set_distance"}:
                raise ValueError(f"sets: must be {{sets_to_win: 2 or 3, set_distance: int}}, got {v!r}")
            stw = v.get("sets_to_win", 2)
            if stw not in (2, 3) or isinstance(stw, bool):
                raise ValueError(f"sets: sets_to_win must be 2 (best of 3) or 3 (best of 5), got {stw!r}")
            out[key] = {"sets_to_win": int(stw), "set_distance": pos_int("sets", v.get("set_distance", 15))}
        elif key == "shot_clock":
            if v is None or v is False:
                out[key] = None
                continue
            if not isinstance(v, Mapping) or set(v) - {"limit_s", "warn_s", "timeouts"}:
                raise ValueError(f"shot_clock: must be {{limit_s, warn_s, timeouts}} or null, got {v!r}")
            limit = check_clock_limit(v.get("limit_s", 30))
            # the warning comes at two thirds of the limit unless given (UMB: 20 s of 30)
            warn = pos_float("shot_clock", v["warn_s"]) if "warn_s" in v else limit * 2.0 / 3.0
            if warn >= limit:
                raise ValueError(f"shot_clock: warn_s ({warn:g} s) must be below limit_s ({limit:g} s)")
            timeouts = check_clock_extensions(v.get("timeouts", 2), "timeouts")
            out[key] = {"limit_s": limit, "warn_s": warn, "timeouts": timeouts}
        elif key == "breaker":
            if v is not None and (isinstance(v, bool) or v not in (0, 1)):
                raise ValueError(f"breaker: must be null, 0 or 1, got {v!r}")
            out[key] = v
    if out["sets"] is not None and out["inning_limit"] is not None:
        raise ValueError("inning_limit: not available with sets (C21 sets end at the set distance)")
    return out



def check_seat(player, field: str = "player") -> int:
    """``player`` as seat 0 or 1; :class:`rules.base.IllegalAction` ``bad_player`` naming ``field`` otherwise."""
    if isinstance(player, bool) or not isinstance(player, int) or player not in (0, 1):
        raise IllegalAction("bad_player", f"{field}: must be seat 0 or 1, got {player!r}", field)
    return int(player)
