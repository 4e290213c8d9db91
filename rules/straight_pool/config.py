"""14.1 configuration (spec section C), the constants and the small helpers every module here shares.

Ball ids (cue ball 0, object balls 1-15), seat names as the ruling texts write them, the lag and
spot-request tolerances, the table presets, the section C defaults with their validation
(:func:`normalize_config`), the decision names, and seat/position helpers.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Tuple

from physics.table import Vec2
from rules.base import check_clock_extensions, check_clock_limit

CUE = 0
OBJECT_BALLS: Tuple[int, ...] = tuple(range(1, 16))
SEAT_NAMES = ("A", "B")

LAG_BEHIND = 0.035  # m: lag balls start this far behind the head string (0.60 m on a 9-ft table, R3)
LAG_TIE = 0.0005  # m: lag distances equal within this -> lag again (R3)
SPOT_REQUEST_TIE = 1.0e-6  # m: equally near the head string (R14)
SAME_POS = 1.0e-9  # m: a simulated start layout must match the game's layout to this

TABLE_PRESETS = {"9ft": "pool-9ft", "8ft": "pool-8ft", "7ft": "pool-7ft"}

DEFAULT_CONFIG: Dict[str, object] = {
    "table": "9ft",
    "target_points": 150,
    "cap_final_score": False,
    "rack_order": "wpa_random",
    "three_foul_mode": "mandatory_rebreak",
    "spot_request": "shooter_requests",
    "object_ball_off_table_is_foul": True,
    "near_rail_limit": "off",
    "interference_table": "wpa",
    "serious_foul_preset": "wsr",
    "scoop_is_foul": False,
    "lag_mode": "simulated",
    "stalemate": "agreement",
    "shot_clock": None,
    "breaker": None,
}

_CHOICES = {
    "rack_order": ("wpa_random", "wsr_1_5", "classic_15_apex"),
    "three_foul_mode": ("mandatory_rebreak", "opponent_option"),
    "spot_request": ("shooter_requests", "automatic_lowest"),
    "near_rail_limit": ("off", "wsr", "frozen_two_each"),
    "interference_table": ("wpa", "t14"),
    "serious_foul_preset": ("wsr", "s2", "referee_free"),
    "lag_mode": ("simulated", "random"),
}

STANDING_RIGHTS = ("OFFER_STALEMATE", "EXTENSION")  # always available, never listed as an offer
DECISIONS = (
    "CHOOSE_BREAKER",
    "ACCEPT_TABLE",
    "REQUIRE_REBREAK",
    "RERACK_OFFENDER_BREAKS",
    "SPOT_REQUEST",
    "OFFER_STALEMATE",
    "ACCEPT_STALEMATE",
    "DECLINE_STALEMATE",
    "EXTENSION",
)


# ------------------------------------------------------------------------------------------
# configuration


def _parse_stalemate(v) -> object:
    if v == "agreement":
        return "agreement"
    if isinstance(v, str) and v.startswith("auto(") and v.endswith(")"):
        body = v[5:-1]
        if body.isdigit() and int(body) >= 1:
            return f"auto({int(body)})"
    raise ValueError(f"stalemate: expected 'agreement' or 'auto(N)' with N >= 1, got {v!r}")


def stalemate_innings(v: str) -> int:
    """N of a ``stalemate`` setting 'auto(N)' (R28), 0 for 'agreement'."""
    return int(v[5:-1]) if v.startswith("auto(") else 0


def _check_target(v) -> object:
    def one(x):
        if isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 1000:
            raise ValueError(f"target_points: expected an integer 1-1000 or a list of two, got {v!r}")
        return int(x)

    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ValueError(f"target_points: a per-player override needs two values, got {v!r}")
        return [one(v[0]), one(v[1])]
    return one(v)


def normalize_config(config: Optional[Mapping]) -> Dict[str, object]:
    """The full configuration (section C defaults filled in) from ``config``.

    Keys: ``table`` (9ft/8ft/7ft), ``target_points`` (1-1000, or [A, B] for handicaps),
    ``cap_final_score``, ``rack_order``, ``three_foul_mode``, ``spot_request``,
    ``object_ball_off_table_is_foul``, ``near_rail_limit``, ``interference_table``,
    ``serious_foul_preset``, ``scoop_is_foul``, ``lag_mode``, ``stalemate`` ('agreement' or
    'auto(N)'), ``shot_clock`` (None or {"limit_s": s in [2, 3600], "extensions": n in [0, 10]}) and
    ``breaker`` (None: a lag decides; 0 or 1: that seat breaks, e.g. the loser of the previous
    game, R26). Raises ``ValueError`` naming the key for an unknown key or a bad value.
    """
    out = dict(DEFAULT_CONFIG)
    if config is None:
        return out
    if not isinstance(config, Mapping):
        raise ValueError(f"config: expected a mapping, got {type(config).__name__}")
    for k, v in config.items():
        if k not in DEFAULT_CONFIG:
            raise ValueError(f"{k}: unknown configuration key for straight_pool")
        if k == "table":
            if v in TABLE_PRESETS.values():
                v = [n for n, p in TABLE_PRESETS.items() if p == v][0]
            if not isinstance(v, str) or v not in TABLE_PRESETS:  # a dict or list is no preset (and not hashable)
                raise ValueError(f"table: expected one of {sorted(TABLE_PRESETS)}, got {v!r}")
        elif k == "target_points":
            v = _check_target(v)
        elif k in ("cap_final_score", "object_ball_off_table_is_foul", "scoop_is_foul"):
            if not isinstance(v, bool):
                raise ValueError(f"{k}: expected true or false, got {v!r}")
        elif k in _CHOICES:
            if v not in _CHOICES[k]:
                raise ValueError(f"{k}: expected one of {list(_CHOICES[k])}, got {v!r}")
        elif k == "stalemate":
            v = _parse_stalemate(v)
        elif k == "shot_clock":
            if v in (None, "off", False):
                v = None
            else:
                if not isinstance(v, Mapping) or set(v) - {"limit_s", "extensions"} or "limit_s" not in v:
                    raise ValueError(f"shot_clock: expected null or {{'limit_s': s, 'extensions': n}}, got {v!r}")
                v = {"limit_s": check_clock_limit(v["limit_s"]),
                     "extensions": check_clock_extensions(v.get("extensions", 0), "extensions")}
        elif k == "breaker":
            if v is not None and (isinstance(v, bool) or v not in (0, 1)):
                raise ValueError(f"breaker: expected null, 0 or 1, got {v!r}")
        out[k] = v
    return out


STROKE_PHASES = ("break", "play")  # the phases in which a stroke is played


# ------------------------------------------------------------------------------------------
# seats and positions


def opponent(p: int) -> int:
    """The other seat."""
    return 1 - p


def offer(*names: str) -> List[dict]:
    """Decisions without an argument as ``pending["options"]`` lists them: ``[{"name": n, "args": []}, ...]``."""
    return [{"name": n, "args": []} for n in names]


def xy_keys(pos: Mapping[int, Vec2]) -> Dict[str, List[float]]:
    """``{ball id as str: [x, y]}`` in ascending ball order (re-rack positions in a ruling)."""
    return {str(b): [float(p[0]), float(p[1])] for b, p in sorted(pos.items())}
