"""14.1 continuous (straight pool): the referee as a deterministic state machine over event logs.

Implements ``shared/spec/rules-14-1.md`` (R1-R30, configuration section C, choices of section D)
behind the game interface of rules/README.md. Sources are cited per rule as in the spec: WPA
*Rules of Play* 14.1 (4.1-4.12) and *General Rules* (1.x, 6.x, 8.x), the World Standardized
Rules (WSR), the seed texts S0/S2, the 14dot1.com rack-interference table (T14).

The referee reads a stroke only through the :class:`physics.events.SimResult` of the layout
:meth:`StraightPool.prepare_shot` returned: its collisions in order (rules/base.py
``stroke_contacts``, with initial-freeze continuations marked, D6), pocketed and off-table
balls, the resting layout, and trajectory queries (the cue ball crossing the head string).
All geometry (head string, spots, rack sites and outline, long string, pockets) comes from the
:mod:`physics.table` preset.

Seats are 0 (player A) and 1 (player B); ball 0 is the cue ball, 1-15 the object balls.
The only randomness (rack order, random lag) comes from a counter-based generator seeded by
the match seed and kept in the state, so a restored game continues identically.

14.1 specifics of the interface:

- Phases: ``lag`` (both seats submit a lag stroke; ``to_act`` is None; ``legal_actions()``
  gives ``lag_balls`` {seat: start [x, y]}, seat s strikes ball id s), ``decision``, ``break``
  (the next stroke is an opening break, R5), ``play``, ``over``.
- Calls: ``{"ball": n, "pocket": "FL"}``, ``{"safety": True}``, or None (opening break only).
- Decisions (``apply_decision``): ``CHOOSE_BREAKER`` (arg: seat; lag winner), ``ACCEPT_TABLE``
  and ``REQUIRE_REBREAK`` (after a breaking foul, R6), ``ACCEPT_TABLE`` and
  ``RERACK_OFFENDER_BREAKS`` (three fouls with ``opponent_option``, R16; serious foul ``wsr``,
  R17), ``SPOT_REQUEST`` (arg: ball; R14), ``OFFER_STALEMATE`` / ``ACCEPT_STALEMATE`` /
  ``DECLINE_STALEMATE`` (R28 ``agreement``), ``EXTENSION`` (shot clock). The standing rights
  OFFER_STALEMATE and EXTENSION appear in ``legal_actions()`` but not in ``Ruling.options``.
- Other actions: ``apply_lag(sim)``, ``apply_timeout(player)`` (F9), ``apply_forfeit(player,
  reason)``, ``apply_serious_foul(player, penalty=None, loss_of_game=False)`` (admin, R17).
- Ruling extras (besides rules/base.py ``Ruling``): ``break``, ``break_legal``,
  ``balls_driven`` (opening breaks), ``call_fulfilled``, ``scored`` (balls that scored),
  ``run``, ``stalemate``, ``frozen_ball_limit`` (R24 S2 variant), ``lag_winner``/``bad``/
  ``distances`` (lag), ``decision``, ``serious_foul`` (preset), and always ``phase`` and
  ``layout`` ({id: [x, y]} for the next stroke, the cue ball absent while in hand).
- Foul kinds: ``breaking_foul``, ``third_successive_foul``, ``scratch`` (F1),
  ``cue_ball_off_table`` (F2), ``no_contact``/``no_rail`` (F3), ``object_ball_off_table``
  (F4), ``bad_kitchen_play`` (F5a), ``kitchen_not_left`` (F5b: the cue ball in hand neither
  crossed the head string nor contacted a ball, F5a not applying), ``double_hit``/``push``
  (F6), ``scoop`` (F7), ``touched_ball`` (F8), ``shot_clock`` (F9), ``serious_foul`` (R17).

Interpretations (where the spec leaves room): statistics count every charged foul in
``fouls`` (breaking fouls also in ``breaking_fouls``) and both F1 and F2 as ``scratches``; a
third successive foul is charged as 1 standard + 15 serious penalty points, an R17 serious
foul entirely as serious; a shot-clock foul on an opening break leaves the rack for the
opponent to play in position; the ``frozen_two_each`` variant counts, per player, legal
strokes that pocket nothing and first contact a ball frozen to a rail.
"""

from __future__ import annotations

import math
import random
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from physics.events import SimResult
from physics.simulate import on_playing_surface
from physics.table import Table, Vec2, get_table
from rules.base import (
    EPS_LEAVE,
    GameBase,
    IllegalAction,
    Ruling,
    check_clock_extensions,
    check_clock_limit,
    frozen_pairs,
    off_table_balls,
    pocketed_balls,
    stroke_contacts,
)
from rules.spotting import (
    EPS_LINE,
    behind_head_string,
    kitchen_x_max,
    blocks_spot,
    interferes_with_rack,
    overlaps_any,
    spot_position,
)

CUE = 0
OBJECT_BALLS: Tuple[int, ...] = tuple(range(1, 16))
SEAT_NAMES = ("A", "B")

LAG_BEHIND = 0.035  # m: lag balls start this far behind the head string (0.60 m on a 9-ft table, R3)
LAG_TIE = 0.0005  # m: lag distances equal within this -> lag again (R3)
SPOT_REQUEST_TIE = 1.0e-6  # m: equally near the head string (R14)
_SAME_POS = 1.0e-9  # m: a simulated start layout must match the game's layout to this

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

# foul kinds (R12, R6, R16) and their words
FOUL_TEXT = {
    "breaking_foul": "breaking foul",
    "third_successive_foul": "third successive foul",
    "scratch": "cue ball pocketed",
    "cue_ball_off_table": "cue ball off the table",
    "kitchen_not_left": "cue ball in hand did not leave the kitchen",
    "no_contact": "no object ball contacted",
    "no_rail": "no rail after contact",
    "object_ball_off_table": "object ball off the table",
    "bad_kitchen_play": "first ball contacted behind the head string",
    "double_hit": "double hit",
    "push": "push shot",
    "scoop": "scoop (cue ball dug under)",
    "touched_ball": "ball touched by the cue",
    "shot_clock": "shot clock expired",
    "serious_foul": "serious foul",
}
# R15: fouls giving the opponent cue ball in hand rank above the others
IN_HAND_FOULS = ("scratch", "cue_ball_off_table", "kitchen_not_left")
OTHER_FOULS = (
    "no_contact",
    "no_rail",
    "object_ball_off_table",
    "bad_kitchen_play",
    "double_hit",
    "push",
    "scoop",
    "touched_ball",
    "shot_clock",
)
# stroke flags the physics or the cue model may report (D8, R12 F6-F8)
STROKE_FLAGS = {"double_hit": "double_hit", "push": "push", "scoop": "scoop", "cue_touch": "touched_ball"}

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


def _stalemate_innings(v: str) -> int:
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
            if v not in TABLE_PRESETS:
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


# ------------------------------------------------------------------------------------------
# the game


def _opp(p: int) -> int:
    return 1 - p


def _xy(p) -> Vec2:
    return (float(p[0]), float(p[1]))


def _new_stats() -> dict:
    return {
        "innings": 0,
        "strokes": 0,
        "points": 0,
        "penalties": {"standard": 0, "breaking": 0, "serious": 0},
        "high_run": 0,
        "fouls": 0,
        "breaking_fouls": 0,
        "safeties": 0,
        "scratches": 0,
    }


STROKE_PHASES = ("break", "play")  # the phases in which a stroke is played


class StraightPool(GameBase):
    """A 14.1 continuous game between seats 0 (A) and 1 (B) (rules-14-1; interface rules/README.md).

    ``StraightPool(config=None, seed=0)``: ``config`` holds section C keys (see
    :func:`normalize_config`), ``seed`` (int) seeds the rack order and the random lag.
    Phases: ``lag`` (both players lag, R3), ``decision`` (a player must choose an option),
    ``break`` (the next stroke is an opening break, R5), ``play``, ``over``.

    Every action method validates first and raises :class:`rules.base.IllegalAction` (with a
    code) without changing the state when the action is not allowed now.
    """

    discipline = "straight_pool"
    CLOCK_PHASES = STROKE_PHASES  # R12 F9: the clock times strokes; no decision has one

    def __init__(self, config: Optional[Mapping] = None, seed=0):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed: expected an integer, got {seed!r}")
        self.config = normalize_config(config)
        self.table: Table = get_table(TABLE_PRESETS[str(self.config["table"])])
        self.seed = int(seed)
        self.rng_count = 0
        self.phase = "lag"
        self.to_act: Optional[int] = None
        self.balls: Dict[int, Vec2] = {}
        self.in_hand: Optional[str] = None
        self.scores = [0, 0]
        self.fouls_in_row = [0, 0]
        self.pending: Optional[dict] = None
        self.shooter: Optional[int] = None
        self.run = 0
        self.inning_clean = True
        self.stalemate_count = 0
        self.offer_blocked = False
        self.stats = [_new_stats(), _new_stats()]
        self.near_rail: List[Optional[dict]] = [None, None]
        self.rack_number = 0
        self.rack_points = [0, 0]
        self.strokes = 0
        sc = self.config["shot_clock"]
        self.extensions = [int(sc["extensions"]), int(sc["extensions"])] if sc else [0, 0]
        self.result: Optional[dict] = None
        if self.config["breaker"] is not None:
            self._start_break(int(self.config["breaker"]))
        elif self.config["lag_mode"] == "random":
            self._random_lag()
        else:
            self._start_lag()

    # ----- state -------------------------------------------------------------------------
    def to_state(self) -> dict:
        """The whole game as plain msgpack/JSON types (str keys); ``from_state`` restores it exactly."""
        return {
            "discipline": self.discipline,
            "version": self.state_version,
            "config": _plain(self.config),
            "seed": self.seed,
            "rng_count": self.rng_count,
            "phase": self.phase,
            "to_act": self.to_act,
            "balls": {str(b): [p[0], p[1]] for b, p in sorted(self.balls.items())},
            "in_hand": self.in_hand,
            "scores": list(self.scores),
            "fouls_in_row": list(self.fouls_in_row),
            "pending": _plain(self.pending),
            "shooter": self.shooter,
            "run": self.run,
            "inning_clean": self.inning_clean,
            "stalemate_count": self.stalemate_count,
            "offer_blocked": self.offer_blocked,
            "stats": _plain(self.stats),
            "near_rail": _plain(self.near_rail),
            "rack_number": self.rack_number,
            "rack_points": list(self.rack_points),
            "strokes": self.strokes,
            "extensions": list(self.extensions),
            "result": _plain(self.result),
        }

    def _load(self, d: Mapping) -> None:
        self.config = normalize_config(d["config"])
        self.table = get_table(TABLE_PRESETS[str(self.config["table"])])
        self.seed = int(d["seed"])
        self.rng_count = int(d["rng_count"])
        self.phase = str(d["phase"])
        self.to_act = d["to_act"]
        self.balls = {int(b): _xy(p) for b, p in d["balls"].items()}
        self.in_hand = d["in_hand"]
        self.scores = [int(x) for x in d["scores"]]
        self.fouls_in_row = [int(x) for x in d["fouls_in_row"]]
        self.pending = _plain(d["pending"])
        self.shooter = d["shooter"]
        self.run = int(d["run"])
        self.inning_clean = bool(d["inning_clean"])
        self.stalemate_count = int(d["stalemate_count"])
        self.offer_blocked = bool(d["offer_blocked"])
        self.stats = _plain(d["stats"])
        self.near_rail = _plain(d["near_rail"])
        self.rack_number = int(d["rack_number"])
        self.rack_points = [int(x) for x in d["rack_points"]]
        self.strokes = int(d["strokes"])
        self.extensions = [int(x) for x in d["extensions"]]
        self.result = _plain(d["result"])


    # ----- public queries ----------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase == "over"

    def layout(self) -> Dict[int, Vec2]:
        """Balls on the bed now: id -> (x, y) m (the cue ball is absent while in hand)."""
        return dict(self.balls)

    def targets(self) -> List[int]:
        t = self.config["target_points"]
        return [int(t[0]), int(t[1])] if isinstance(t, list) else [int(t), int(t)]

    def lag_layout(self) -> Dict[int, Vec2]:
        """Start layout of the simulated lag (R3): seat 0's ball (id 0) at (hx - 0.035, W/4), seat 1's (id 1) at 3W/4."""
        x = self.table.head_string_x - LAG_BEHIND
        W = self.table.width
        return {0: (x, W / 4.0), 1: (x, 3.0 * W / 4.0)}

    def object_balls_on_table(self) -> List[int]:
        return sorted(b for b in self.balls if b != CUE)

    def legal_actions(self) -> dict:
        """What the player to act may do now (shape in rules/README.md)."""
        out = {"player": self.to_act, "phase": self.phase, "shoot": None, "decisions": []}
        if self.phase == "over":
            return out
        if self.phase == "lag":
            out["shoot"] = {
                "cue_ball": None,
                "in_hand": None,
                "call": "none",
                "balls": [],
                "pockets": [],
                "lag": True,
                "lag_balls": {str(s): list(p) for s, p in self.lag_layout().items()},
            }
            return out
        if self.phase == "decision":
            out["decisions"] = [dict(o) for o in self.pending["options"]]
            return out
        in_hand = None
        if self.in_hand == "kitchen":
            in_hand = {"region": "kitchen", "x_max": kitchen_x_max(self.table)}
        out["shoot"] = {
            "cue_ball": CUE,
            "in_hand": in_hand,
            "call": "optional" if self.phase == "break" else "required",
            "balls": self.object_balls_on_table(),
            "pockets": list(self.table.pocket_names),
            "lag": False,
        }
        decisions = []
        cands = self._spot_request_candidates()
        if cands and self.config["spot_request"] == "shooter_requests":
            decisions.append({"name": "SPOT_REQUEST", "args": cands})
        if self.config["stalemate"] == "agreement" and self.phase == "play" and not self.offer_blocked:
            decisions.append({"name": "OFFER_STALEMATE", "args": []})
        if self.config["shot_clock"] and self.extensions[self.to_act] > 0:
            decisions.append({"name": "EXTENSION", "args": []})
        out["decisions"] = decisions
        return out

    def scoreboard(self) -> dict:
        """Scores, foul counters (R16 warning), innings, current run, high run, average, statistics (R25, R27)."""
        boards = []
        for p in (0, 1):
            st = self.stats[p]
            inn = st["innings"]
            boards.append(
                {
                    "score": self.scores[p],
                    "target": self.targets()[p],
                    "fouls_in_row": self.fouls_in_row[p],
                    "innings": inn,
                    "run": self.run if self.shooter == p else 0,
                    "high_run": st["high_run"],
                    "average": round(st["points"] / inn, 4) if inn else 0.0,
                    "points": st["points"],
                    "penalties": dict(st["penalties"]),
                    "fouls": st["fouls"],
                    "breaking_fouls": st["breaking_fouls"],
                    "safeties": st["safeties"],
                    "scratches": st["scratches"],
                    "strokes": st["strokes"],
                    "extensions": self.extensions[p],
                }
            )
        return {
            "scores": list(self.scores),
            "fouls_in_row": list(self.fouls_in_row),
            "shooter": self.shooter,
            "to_act": self.to_act,
            "phase": self.phase,
            "rack": self.rack_number,
            "balls_on_table": len(self.object_balls_on_table()),
            "players": boards,
        }

    # ----- RNG and racks (R4) ------------------------------------------------------------
    def _rng(self) -> random.Random:
        """A fresh generator for draw number ``rng_count`` of this match (counter-based, in the state)."""
        r = random.Random(f"billar-14.1:{self.seed}:{self.rng_count}")
        self.rng_count += 1
        return r

    def rack_positions(self, balls: Sequence[int], full: bool) -> Dict[int, Vec2]:
        """Sites for ``balls`` in a rack (R4): all 15 sites if ``full`` else the 14 without the apex.

        Order per ``rack_order``: ``wpa_random`` a uniform permutation from the match RNG;
        ``wsr_1_5`` ball 1 on the racker's right back corner (the breaker's left, y = W/2 + 4R),
        ball 5 on the other back corner, the rest random; ``classic_15_apex`` ball 15 on the apex,
        1 and 5 as wsr_1_5, the others by rows from the apex in descending number (S2 §3).
        Consumes one RNG draw for the random orders.
        """
        sites = self.table.rack_sites()
        free = list(range(15)) if full else list(range(1, 15))
        balls = sorted(balls)
        if len(balls) != len(free):
            raise ValueError(f"rack: {len(balls)} balls for {len(free)} sites")
        order = self.config["rack_order"]
        out: Dict[int, Vec2] = {}
        if order == "wpa_random":
            perm = list(balls)
            self._rng().shuffle(perm)
            for b, i in zip(perm, free):
                out[b] = sites[i]
            return out
        corners = {1: 14, 5: 10}  # row 4: site 14 at y = W/2 + 4R, site 10 at y = W/2 - 4R
        rest = list(balls)
        for b, i in corners.items():
            if b in rest:
                out[b] = sites[i]
                rest.remove(b)
                free.remove(i)
        if order == "wsr_1_5":
            self._rng().shuffle(rest)
            for b, i in zip(rest, free):
                out[b] = sites[i]
            return out
        for b, i in zip(sorted(rest, reverse=True), free):  # classic_15_apex
            out[b] = sites[i]
        return out

    def _rack_all(self) -> Dict[int, Vec2]:
        """All fifteen object balls racked (apex filled); the cue ball goes in hand behind the head string."""
        self.rack_number += 1
        self.rack_points = [0, 0]
        pos = self.rack_positions(OBJECT_BALLS, True)
        self.balls = dict(pos)
        self.in_hand = "kitchen"
        return pos

    # ----- phase changes -----------------------------------------------------------------
    def _start_lag(self) -> None:
        self.phase = "lag"
        self.to_act = None
        self.balls = {}
        self.in_hand = None
        self.pending = None

    def _random_lag(self) -> int:
        winner = self._rng().randrange(2)
        self._offer_choose_breaker(winner)
        return winner

    def _offer_choose_breaker(self, winner: int) -> None:
        self.balls = {}
        self.in_hand = None
        self.phase = "decision"
        self.to_act = winner
        self.pending = {
            "kind": "lag",
            "player": winner,
            "options": [{"name": "CHOOSE_BREAKER", "args": [0, 1]}],
        }

    def _start_break(self, breaker: int) -> Dict[int, Vec2]:
        pos = self._rack_all()
        self.phase = "break"
        self.to_act = breaker
        self.pending = None
        return pos

    def _end_inning(self) -> None:
        """The shooter's turn is over (R27); counts innings without progress for ``auto(N)`` (R28)."""
        if self.shooter is None:
            return
        if self.inning_clean:
            self.stalemate_count += 1
        else:
            self.stalemate_count = 0
        self.shooter = None
        self.run = 0

    def _begin_stroke(self, p: int) -> None:
        if self.shooter != p:
            self._end_inning()
            self.shooter = p
            self.run = 0
            self.inning_clean = True
            self.stats[p]["innings"] += 1
        self.offer_blocked = False

    def _decide(self, player: int, kind: str, options: List[dict], **extra) -> None:
        self.phase = "decision"
        self.to_act = player
        self.pending = {"kind": kind, "player": player, "options": options}
        self.pending.update(extra)

    def _options(self) -> List[str]:
        """Decisions offered to the player to act (standing rights, OFFER_STALEMATE and EXTENSION, left out)."""
        if self.phase == "decision":
            return [o["name"] for o in self.pending["options"]]
        if self.phase in STROKE_PHASES:
            return [o["name"] for o in self.legal_actions()["decisions"] if o["name"] not in STANDING_RIGHTS]
        return []

    # ----- validation --------------------------------------------------------------------
    def _check_open(self) -> None:
        if self.phase == "over":
            raise IllegalAction("game_over", "the game is over")

    def _check_player(self, player) -> int:
        if isinstance(player, bool) or player not in (0, 1):
            raise IllegalAction("bad_player", f"player: expected seat 0 or 1, got {player!r}", "player")
        return int(player)

    def _check_shooter(self, player) -> int:
        self._check_open()
        p = self._check_player(player)
        if self.phase not in STROKE_PHASES:
            raise IllegalAction("bad_phase", f"no stroke can be played in phase {self.phase!r}", "phase")
        if p != self.to_act:
            raise IllegalAction("not_your_turn", f"it is {SEAT_NAMES[self.to_act]}'s turn", "player")
        return p

    def _check_call(self, call) -> Optional[dict]:
        """The declaration (R8): None (opening break only), {"safety": True} or {"ball": n, "pocket": P}."""
        if call is None:
            if self.phase == "break":
                return None
            raise IllegalAction("call_required", "every stroke must be called: a ball and a pocket, or safety", "call")
        if not isinstance(call, Mapping):
            raise IllegalAction("bad_call", f"call: expected a mapping, got {type(call).__name__}", "call")
        keys = set(call)
        if keys == {"safety"}:
            if call["safety"] is not True:
                raise IllegalAction("bad_call", "call: safety must be true", "call")
            return {"safety": True}
        if keys != {"ball", "pocket"}:
            raise IllegalAction("bad_call", f"call: expected {{ball, pocket}} or {{safety}}, got keys {sorted(map(str, keys))}", "call")
        b, pk = call["ball"], call["pocket"]
        if isinstance(b, bool) or not isinstance(b, int) or b not in self.balls or b == CUE:
            raise IllegalAction("bad_call", f"call: ball {b!r} is not an object ball on the table", "call")
        if not isinstance(pk, str) or pk not in self.table.pocket_names:
            raise IllegalAction("bad_call", f"call: unknown pocket {pk!r}", "call")
        return {"ball": int(b), "pocket": pk}

    def _check_placement(self, pos) -> Vec2:
        """Cue ball in hand behind the head string (R13): on the bed clear of the pocket circles and jaws
        (``Table.on_bed`` and ``physics.simulate.on_playing_surface``), x < L/4 - eps, not overlapping a ball."""
        if not isinstance(pos, (list, tuple)) or len(pos) != 2:
            raise IllegalAction("bad_placement", "cue_ball_position: expected [x, y] in metres", "cue_ball_position")
        try:
            x, y = float(pos[0]), float(pos[1])
        except (TypeError, ValueError):
            raise IllegalAction("bad_placement", "cue_ball_position: x and y must be numbers", "cue_ball_position") from None
        if not (math.isfinite(x) and math.isfinite(y)) or not self.table.on_bed((x, y)) or not on_playing_surface(self.table, (x, y)):
            raise IllegalAction("bad_placement", "cue_ball_position: the cue ball must lie on the bed", "cue_ball_position")
        if not behind_head_string(self.table, (x, y)):
            raise IllegalAction(
                "bad_placement", "cue_ball_position: the cue ball must be behind the head string", "cue_ball_position"
            )
        hit = overlaps_any(self.table, (x, y), self.balls)
        if hit is not None:
            raise IllegalAction("bad_placement", f"cue_ball_position: overlaps ball {hit}", "cue_ball_position")
        return (x, y)

    def prepare_shot(self, player, call, cue_ball_position=None) -> Dict[int, Vec2]:
        """Validate a stroke request and return the start layout to simulate (id -> (x, y) m).

        In the lag phase (simulated lag) returns :meth:`lag_layout` (both lag balls). Raises
        :class:`IllegalAction`: ``game_over``, ``bad_player``, ``bad_phase``, ``not_your_turn``,
        ``call_required``, ``bad_call``, ``bad_placement``, ``not_in_hand``. Never changes state.
        """
        self._check_open()
        if self.phase == "lag":
            self._check_player(player)
            if self.config["lag_mode"] != "simulated":
                raise IllegalAction("bad_phase", "the lag is drawn at random in this match", "phase")
            return self.lag_layout()
        self._check_shooter(player)
        self._check_call(call)
        start = dict(self.balls)
        if self.in_hand:
            if cue_ball_position is None:
                raise IllegalAction("bad_placement", "cue_ball_position: place the cue ball (in hand)", "cue_ball_position")
            start[CUE] = self._check_placement(cue_ball_position)
        elif cue_ball_position is not None:
            raise IllegalAction("not_in_hand", "cue_ball_position: the cue ball is not in hand", "cue_ball_position")
        return start

    def _check_sim(self, sim) -> Dict[int, Vec2]:
        if not isinstance(sim, SimResult):
            raise IllegalAction("bad_sim", "sim: expected a physics SimResult", "sim")
        if sim.table.name != self.table.name:
            raise IllegalAction("bad_sim", f"sim: simulated on {sim.table.name}, the game uses {self.table.name}", "sim")
        start = {b: _xy(s.r) for b, s in sim.initial.items()}
        expected = set(self.balls) | {CUE}
        if set(start) != expected:
            raise IllegalAction("layout_mismatch", "sim: the simulated balls are not the balls on the table", "sim")
        for b, p in self.balls.items():
            q = start[b]
            if abs(p[0] - q[0]) > _SAME_POS or abs(p[1] - q[1]) > _SAME_POS:
                raise IllegalAction("layout_mismatch", f"sim: ball {b} does not start where it lies", "sim")
        if self.in_hand:
            self._check_placement(start[CUE])
        return start

    # ----- the stroke ----------------------------------------------------------------------
    def apply_shot(self, player, call, sim, flags=()) -> Ruling:
        """Rule a simulated stroke (R5-R27) and advance the game; returns the :class:`Ruling`.

        ``call`` as in :meth:`prepare_shot`; ``sim`` the SimResult of the layout prepare_shot
        returned (the cue ball at the chosen place when in hand); ``flags``: stroke flags the
        cue model reports beyond ``sim.flags`` (``double_hit``, ``push``, ``scoop``, ``cue_touch``:
        R12 F6-F8). The flags the physics gives (``sim.flags``: ``double_hit``, ``push`` from the
        cue stick's follow-through, physics/follow_through.pyx) are always read; the two sets are
        joined. Raises :class:`IllegalAction`
        (also ``layout_mismatch``/``bad_sim`` when ``sim`` does not start from the game's layout,
        ``bad_flag``) with the state unchanged.
        """
        return self._guarded(self._apply_shot, player, call, sim, flags)

    def _apply_shot(self, player, call, sim, flags) -> Ruling:
        p = self._check_shooter(player)
        call = self._check_call(call)
        flag_fouls = []
        for f in tuple(flags or ()) + tuple(sim.flags if isinstance(sim, SimResult) else ()):
            if f not in STROKE_FLAGS:
                raise IllegalAction("bad_flag", f"flags: unknown stroke flag {f!r}", "flags")
            if f == "scoop" and not self.config["scoop_is_foul"]:
                continue
            if STROKE_FLAGS[f] not in flag_fouls:
                flag_fouls.append(STROKE_FLAGS[f])
        start = self._check_sim(sim)
        facts = _StrokeFacts(self, sim, start, p)
        self._begin_stroke(p)
        self.stats[p]["strokes"] += 1
        self.strokes += 1
        fouls = facts.fouls(self.config) + flag_fouls
        if facts.ob_pocketed or fouls:
            self.inning_clean = False
        if self.phase == "break":
            ruling = self._rule_break(p, call, facts, fouls)
        else:
            ruling = self._rule_stroke(p, call, facts, fouls)
        return self._finish(ruling)

    def _rule_break(self, p: int, call, facts: "_StrokeFacts", fouls: List[str]) -> Ruling:
        """Opening break (R5-R7)."""
        made = call is not None and "ball" in call and facts.pocketed.get(call["ball"]) == call["pocket"]
        driven = facts.object_balls_driven()
        legal = made or (facts.first is not None and facts.cue_driven_after_first() and len(driven) >= 2)
        extras = {"break": True, "break_legal": legal, "balls_driven": sorted(driven)}
        if not legal:
            return self._breaking_foul(p, facts, ["breaking_foul"] + fouls, extras)
        if fouls:
            return self._standard_foul(p, facts, fouls, extras)
        self.phase = "play"
        if made:
            return self._fulfilled(p, call, facts, extras)
        return self._not_fulfilled(p, call, facts, extras)

    def _rule_stroke(self, p: int, call, facts: "_StrokeFacts", fouls: List[str]) -> Ruling:
        """Any stroke after the opening break (R8-R12, R16, R19-R24)."""
        extras = {"break": False}
        if fouls:
            return self._standard_foul(p, facts, fouls, extras)
        if self.config["near_rail_limit"] == "frozen_two_each":
            limit = self._frozen_two_each(p, call, facts)
            if limit is not None:
                return limit
        if call is not None and "ball" in call and facts.pocketed.get(call["ball"]) == call["pocket"]:
            return self._fulfilled(p, call, facts, extras)
        return self._not_fulfilled(p, call, facts, extras)

    # ----- outcomes ---------------------------------------------------------------------
    def _ruling(self, p: Optional[int], points: Sequence[int], text: str, **kw) -> Ruling:
        r = Ruling(player=p, points=list(points), scores=list(self.scores), text=text)
        for k, v in kw.items():
            setattr(r, k, v)
        return r

    def _spot(self, balls: Sequence[int]) -> Dict[int, Vec2]:
        """Spot ``balls`` one by one in ascending number on the long string (R18); returns their places."""
        out: Dict[int, Vec2] = {}
        for b in sorted(balls):
            occupied = [q for k, q in self.balls.items() if k != CUE]
            cue = self.balls.get(CUE)
            pos = spot_position(self.table, occupied, cue)
            self.balls[b] = pos
            out[b] = pos
        return out

    def _penalise(self, p: int, standard: int = 0, breaking: int = 0, serious: int = 0) -> int:
        total = standard + breaking + serious
        self.scores[p] -= total
        pen = self.stats[p]["penalties"]
        pen["standard"] += standard
        pen["breaking"] += breaking
        pen["serious"] += serious
        self.stats[p]["fouls"] += 1
        return total

    def _count_foul_stats(self, p: int, fouls: Sequence[str]) -> None:
        if "scratch" in fouls or "cue_ball_off_table" in fouls:
            self.stats[p]["scratches"] += 1

    def _breaking_foul(self, p: int, facts: "_StrokeFacts", fouls: List[str], extras: dict) -> Ruling:
        """R6: -2, not a standard foul (R16 counter unchanged); the opponent chooses."""
        q = _opp(p)
        penalty = self._penalise(p, breaking=2)
        self.stats[p]["breaking_fouls"] += 1
        self._count_foul_stats(p, fouls)
        self.balls = dict(facts.resting)
        cue_in_hand = CUE not in self.balls
        spotted = self._spot(facts.to_spot())
        self._end_inning()
        self._decide(
            q,
            "breaking_foul",
            [{"name": "ACCEPT_TABLE", "args": []}, {"name": "REQUIRE_REBREAK", "args": []}],
            offender=p,
            cue_in_hand=cue_in_hand,
        )
        pts = [0, 0]
        pts[p] = -penalty
        return self._ruling(
            p,
            pts,
            f"Breaking foul, -2: {SEAT_NAMES[q]} chooses",
            foul="breaking_foul",
            fouls=fouls,
            penalty=penalty,
            spotted=spotted,
            extras=extras,
        )

    def _standard_foul(self, p: int, facts: "_StrokeFacts", fouls: List[str], extras: dict) -> Ruling:
        """R12 with R15 (one penalty) and R16 (the third successive foul)."""
        q = _opp(p)
        main = _main_foul(fouls)
        self._count_foul_stats(p, fouls)
        in_hand = any(f in IN_HAND_FOULS for f in fouls)
        pts = [0, 0]
        if self.fouls_in_row[p] + 1 >= 3:
            penalty = self._penalise(p, standard=1, serious=15)
            self.fouls_in_row[p] = 0
            pts[p] = -penalty
            all_fouls = fouls + ["third_successive_foul"]
            self._end_inning()
            if self.config["three_foul_mode"] == "mandatory_rebreak":
                pos = self._start_break(p)
                return self._ruling(
                    p,
                    pts,
                    f"Third successive foul ({FOUL_TEXT[main]}), -16: all fifteen re-racked, {SEAT_NAMES[p]} breaks",
                    foul="third_successive_foul",
                    fouls=all_fouls,
                    penalty=penalty,
                    rerack={"balls": list(OBJECT_BALLS), "positions": _xy_keys(pos)},
                    extras=extras,
                )
            self.balls = dict(facts.resting)
            if in_hand:
                self.balls.pop(CUE, None)
            spotted = self._spot(facts.to_spot())
            self._decide(
                q,
                "three_fouls",
                [{"name": "ACCEPT_TABLE", "args": []}, {"name": "RERACK_OFFENDER_BREAKS", "args": []}],
                offender=p,
                cue_in_hand=CUE not in self.balls,
            )
            return self._ruling(
                p,
                pts,
                f"Third successive foul ({FOUL_TEXT[main]}), -16: {SEAT_NAMES[q]} chooses",
                foul="third_successive_foul",
                fouls=all_fouls,
                penalty=penalty,
                spotted=spotted,
                extras=extras,
            )
        penalty = self._penalise(p, standard=1)
        self.fouls_in_row[p] += 1
        pts[p] = -penalty
        self.balls = dict(facts.resting)
        if in_hand:
            self.balls.pop(CUE, None)
        self.in_hand = "kitchen" if CUE not in self.balls else None
        spotted = self._spot(facts.to_spot())
        self._end_inning()
        self.phase = "play"
        self.to_act = q
        self.pending = None
        self._reset_near_rail(p)
        tail = f"; {SEAT_NAMES[q]} has ball in hand behind the head string" if self.in_hand else f"; {SEAT_NAMES[q]} to shoot"
        return self._ruling(
            p,
            pts,
            f"Foul: {FOUL_TEXT[main]}, -1{tail}",
            foul=main,
            fouls=fouls,
            penalty=penalty,
            spotted=spotted,
            extras=extras,
        )

    def _fulfilled(self, p: int, call: dict, facts: "_StrokeFacts", extras: dict) -> Ruling:
        """R10: the call is fulfilled: every pocketed object ball scores; R21-R23, R26."""
        scored = sorted(facts.ob_pocketed)
        n = len(scored)
        self.scores[p] += n
        self.stats[p]["points"] += n
        self.rack_points[p] += n
        self.run += n
        self.stats[p]["high_run"] = max(self.stats[p]["high_run"], self.run)
        self.fouls_in_row[p] = 0
        self.balls = dict(facts.resting)
        spotted = self._spot(facts.jumped_object_balls())  # only when off-table is not a foul (R20 variant)
        self._update_near_rail(p, facts)
        self.phase = "play"
        self.to_act = p
        self.pending = None
        self.in_hand = None
        pts = [0, 0]
        pts[p] = n
        extras = dict(extras, call_fulfilled=True, scored=scored, run=self.run)
        what = ", ".join(f"{b} in {facts.pocketed[b]}" for b in scored)
        target = self.targets()[p]
        if self.scores[p] >= target:
            if self.config["cap_final_score"]:
                self.scores[p] = target
            self._game_over(p, "target")
            return self._ruling(
                p,
                pts,
                f"Scored {n} ({what}): {SEAT_NAMES[p]} wins {self.scores[p]} to {self.scores[_opp(p)]}",
                spotted=spotted,
                game_over=True,
                winner=p,
                extras=extras,
            )
        rerack, placed, note = self._continuous_rerack()
        text = f"Scored {n} ({what}); {SEAT_NAMES[p]} continues"
        if note:
            text += f"; {note}"
        return self._ruling(p, pts, text, spotted=spotted, rerack=rerack, placed=placed, extras=extras)

    def _not_fulfilled(self, p: int, call, facts: "_StrokeFacts", extras: dict) -> Ruling:
        """R10 miss / R11 safety / legal break without a made call: nothing scores, the turn passes."""
        q = _opp(p)
        self.fouls_in_row[p] = 0
        self.balls = dict(facts.resting)
        spotted = self._spot(facts.to_spot())
        self._update_near_rail(p, facts)
        safety = call is not None and call.get("safety") is True
        if safety:
            self.stats[p]["safeties"] += 1
        self._end_inning()
        self.phase = "play"
        self.to_act = q
        self.pending = None
        self.in_hand = None
        if extras.get("break"):
            head = "Legal break"
        elif safety:
            head = "Safety"
        else:
            head = f"Miss: {call['ball']} not in {call['pocket']}" if call else "Miss"
        return self._ruling(
            p,
            [0, 0],
            f"{head}; {SEAT_NAMES[q]} to shoot",
            spotted=spotted,
            extras=dict(extras, call_fulfilled=False, scored=[]),
        )

    def _game_over(self, winner: Optional[int], reason: str) -> None:
        self._end_inning()
        self.phase = "over"
        self.to_act = None
        self.pending = None
        self.result = {"winner": winner, "scores": list(self.scores), "reason": reason}

    # ----- R21-R23: continuous play ------------------------------------------------------
    def _continuous_rerack(self) -> Tuple[Optional[dict], Dict[int, Vec2], str]:
        """After a fulfilled call: re-rack when one object ball (R21, R22) or none (R23) is left."""
        obs = self.object_balls_on_table()
        if len(obs) > 1:
            return None, {}, ""
        T = self.table
        cue = self.balls.get(CUE)
        cb_in = cue is not None and interferes_with_rack(T, cue)
        pocketed = [b for b in OBJECT_BALLS if b not in self.balls]
        placed: Dict[int, Vec2] = {}
        if not obs:  # R23
            self.rack_number += 1
            self.rack_points = [0, 0]
            pos = self.rack_positions(pocketed, True)
            self.balls.update(pos)
            note = "all fifteen re-racked"
            if cb_in:
                del self.balls[CUE]
                self.in_hand = "kitchen"
                note += "; cue ball in hand behind the head string"
            return {"balls": sorted(pos), "positions": _xy_keys(pos)}, placed, note
        ob = obs[0]
        obp = self.balls[ob]
        hs, cs = T.head_spot, T.centre_spot
        ob_in = interferes_with_rack(T, obp)
        cb_blocks_hs = cue is not None and not cb_in and blocks_spot(T, cue, hs)
        full = False
        note = ""
        if ob_in:  # R22 row 2
            if cb_in:
                full = True
                note = "both balls interfere: all fifteen re-racked; cue ball in hand behind the head string"
            elif cb_blocks_hs:
                placed[ob] = cs
                note = f"{ob} to the centre spot"
            else:
                placed[ob] = hs
                note = f"{ob} to the head spot"
        elif cb_in:  # R22 rows 3-5
            ob_behind = behind_head_string(T, obp)
            ob_blocks_hs = blocks_spot(T, obp, hs)
            if self.config["interference_table"] == "t14" and ob_blocks_hs:
                placed[CUE] = cs
                note = "cue ball to the centre spot"
            elif ob_behind and ob_blocks_hs:
                placed[CUE] = cs
                note = "cue ball to the centre spot"
            elif ob_behind:
                placed[CUE] = hs
                note = "cue ball to the head spot"
            else:
                del self.balls[CUE]
                self.in_hand = "kitchen"
                note = "cue ball in hand behind the head string"
        self.rack_number += 1
        self.rack_points = [0, 0]
        if full:
            del self.balls[CUE]
            self.in_hand = "kitchen"
            pos = self.rack_positions(pocketed + [ob], True)
        else:
            pos = self.rack_positions(pocketed, False)
        self.balls.update(placed)
        self.balls.update(pos)
        head = "all fifteen re-racked" if full else "fourteen re-racked"
        return {"balls": sorted(pos), "positions": _xy_keys(pos)}, placed, f"{head}; {note}" if note else head

    # ----- R24 variants ------------------------------------------------------------------
    def _restricted_rails(self, p: int, start: Mapping[int, Vec2], frozen) -> Dict[int, str]:
        """R24 ``wsr``: object balls whose contact with their near rail does not count for ``p`` now."""
        if self.config["near_rail_limit"] != "wsr":
            return {}
        near = _near_rail_balls(self.table, start, frozen)
        if self.fouls_in_row[p] >= 1:
            return near
        nr = self.near_rail[p]
        if nr and nr["count"] >= 2 and near.get(nr["ball"]) == nr["rail"]:
            return {nr["ball"]: nr["rail"]}
        return {}

    def _update_near_rail(self, p: int, facts: "_StrokeFacts") -> None:
        """Count consecutive near-rail safeties (R24 ``wsr``) after a legal stroke of ``p``."""
        if self.config["near_rail_limit"] != "wsr":
            return
        x = facts.first_ball
        near = _near_rail_balls(self.table, facts.start, facts.frozen)
        rail = near.get(x) if x is not None else None
        ok = rail is not None and not facts.ob_pocketed and not facts.off
        if ok:
            after = facts.rails_after_first()
            ok = bool(after) and all(c.ball == x and c.cushion == rail for c in after)
        if not ok:
            self.near_rail[p] = None
            return
        nr = self.near_rail[p]
        if nr and nr["ball"] == x and nr["rail"] == rail:
            nr["count"] += 1
        else:
            self.near_rail[p] = {"ball": x, "rail": rail, "count": 1}

    def _reset_near_rail(self, p: int) -> None:
        if self.config["near_rail_limit"] in ("wsr", "frozen_two_each"):
            self.near_rail[p] = None

    def _frozen_two_each(self, p: int, call, facts: "_StrokeFacts") -> Optional[Ruling]:
        """R24 ``frozen_two_each`` (S2 §12): two safeties each on a ball frozen to a rail; the third must
        drive that ball to another rail or the cue ball to a rail after the contact, else all fifteen are
        re-racked and the shooter breaks. Counts legal strokes that pocket nothing and first contact
        a ball frozen to a rail; any other stroke of the player resets his count."""
        x = facts.first_ball
        rail = None
        if x is not None:
            for pair in facts.frozen:
                if pair[0] == x and isinstance(pair[1], str):
                    rail = pair[1]
                    break
        if rail is None or facts.ob_pocketed:
            self.near_rail[p] = None
            return None
        nr = self.near_rail[p]
        count = nr["count"] if nr and nr["ball"] == x and nr["rail"] == rail else 0
        if count >= 2:
            after = facts.rails_after_first()
            good = any(c.ball == x and c.cushion != rail for c in after) or any(c.ball == CUE for c in after)
            self.near_rail[p] = None
            if not good:
                self.fouls_in_row[p] = 0
                self._end_inning()
                pos = self._start_break(p)
                return self._ruling(
                    p,
                    [0, 0],
                    f"Third safety on frozen ball {x} without a new rail: all fifteen re-racked, {SEAT_NAMES[p]} breaks",
                    rerack={"balls": list(OBJECT_BALLS), "positions": _xy_keys(pos)},
                    extras={"break": False, "frozen_ball_limit": True},
                )
            return None
        self.near_rail[p] = {"ball": x, "rail": rail, "count": count + 1}
        return None

    # ----- after every action --------------------------------------------------------------
    def _spot_request_candidates(self) -> List[int]:
        """R14: balls that may be spotted on request (nearest the head string, ties), or []."""
        if self.phase != "play" or self.in_hand != "kitchen":
            return []
        obs = self.object_balls_on_table()
        if not obs or not all(behind_head_string(self.table, self.balls[b]) for b in obs):
            return []
        best = max(self.balls[b][0] for b in obs)
        return [b for b in obs if best - self.balls[b][0] <= SPOT_REQUEST_TIE]

    def _finish(self, ruling: Ruling) -> Ruling:
        """Automatic consequences (R14 automatic_lowest, R28 auto(N)), then the ruling's next-state fields."""
        if self.phase != "over":
            n = _stalemate_innings(str(self.config["stalemate"]))
            if n and self.stalemate_count >= n and self.shooter is None:
                ruling.text += f"; stalemate after {self.stalemate_count} innings without progress"
                ruling.extras["stalemate"] = True
                self._stalemate(ruling)
            cands = self._spot_request_candidates()
            if cands and self.config["spot_request"] == "automatic_lowest":
                b = min(cands)
                pos = self._spot([b])
                ruling.spotted.update(pos)
                ruling.text += f"; {b} spotted (every object ball behind the head string)"
        ruling.scores = list(self.scores)
        ruling.fouls_in_row = list(self.fouls_in_row)
        ruling.next_player = self.to_act
        ruling.cue_ball_in_hand = self.in_hand if self.phase in STROKE_PHASES else None
        ruling.options = self._options()
        ruling.game_over = self.phase == "over"
        ruling.winner = self.result["winner"] if self.result else None
        ruling.extras["phase"] = self.phase
        ruling.extras["layout"] = {str(b): [p[0], p[1]] for b, p in sorted(self.balls.items())}
        return ruling

    def _stalemate(self, ruling: Optional[Ruling] = None) -> None:
        """R28: a new lag decides who breaks; scores, foul counters and statistics carry over."""
        self.stalemate_count = 0
        self.near_rail = [None, None]
        self.shooter = None
        self.run = 0
        if self.config["lag_mode"] == "random":
            w = self._random_lag()
            if ruling is not None:
                ruling.text += f"; lag drawn: {SEAT_NAMES[w]} chooses who breaks"
        else:
            self._start_lag()
            if ruling is not None:
                ruling.text += "; new lag"

    # ----- the lag (R3) --------------------------------------------------------------------
    def apply_lag(self, sim) -> Ruling:
        """Rule the simulated lag (R3): one simulation of both lag balls from :meth:`lag_layout`.

        A lag is bad if its ball crosses the long string, touches the foot cushion other than
        exactly once, touches any other rail (side rails, pocket facings or jaws), touches the
        other lag ball, is pocketed or leaves the table, or rests beyond the head cushion nose.
        The good lag resting nearer the head cushion wins (ball edge distance); both bad or equal
        within 0.5 mm: lag again. The winner is offered ``CHOOSE_BREAKER``.
        """
        return self._guarded(self._apply_lag, sim)

    def _apply_lag(self, sim) -> Ruling:
        self._check_open()
        if self.phase != "lag":
            raise IllegalAction("bad_phase", "there is no lag to play now", "phase")
        if self.config["lag_mode"] != "simulated":
            raise IllegalAction("bad_phase", "the lag is drawn at random in this match", "phase")
        if not isinstance(sim, SimResult) or sim.table.name != self.table.name:
            raise IllegalAction("bad_sim", "sim: expected the SimResult of the lag on this table", "sim")
        lay = self.lag_layout()
        start = {b: _xy(s.r) for b, s in sim.initial.items()}
        if set(start) != set(lay) or any(
            abs(start[b][0] - lay[b][0]) > _SAME_POS or abs(start[b][1] - lay[b][1]) > _SAME_POS for b in lay
        ):
            raise IllegalAction("layout_mismatch", "sim: the lag balls must start from lag_layout()", "sim")
        T = self.table
        contacts = stroke_contacts(sim)
        pocketed = pocketed_balls(sim)
        off = off_table_balls(sim)
        y0 = T.long_string_y
        bad: Dict[int, str] = {}
        dist: Dict[int, float] = {}
        touched = any(c.kind == "ball_ball" and not c.frozen for c in contacts)
        crossed = {}
        for s in (0, 1):
            n = (0.0, 1.0) if lay[s][1] < y0 else (0.0, -1.0)
            lim = y0 if n[1] > 0 else -y0
            crossed[s] = sim.max_projection(s, n) > lim + EPS_LINE
        for s in (0, 1):
            reasons = []
            if crossed[s]:
                reasons.append("crossed the long string")
            rails = [c.cushion for c in contacts if c.kind == "ball_cushion" and c.ball == s and not c.frozen]
            if rails.count("foot") != 1:
                reasons.append(f"touched the foot cushion {rails.count('foot')} times")
            if any(r not in ("foot", "head") for r in rails):
                reasons.append("touched a side rail")
            if s in pocketed:
                reasons.append("pocketed")
            if s in off:
                reasons.append("left the table")
            if touched and not crossed[0] and not crossed[1]:
                reasons.append("touched the other lag ball")
            if not reasons:
                edge = sim.final[s].r[0] - T.R
                if edge < -EPS_LINE:
                    reasons.append("rests beyond the head cushion nose")
                dist[s] = edge
            if reasons:
                bad[s] = ", ".join(reasons)
        text_bad = "; ".join(f"{SEAT_NAMES[s]}'s lag is bad ({r})" for s, r in sorted(bad.items()))
        extras = {"lag": True, "bad": {str(s): r for s, r in bad.items()}, "distances": {str(s): d for s, d in dist.items()}}
        winner: Optional[int] = None
        if len(dist) == 2:
            if abs(dist[0] - dist[1]) > LAG_TIE:
                winner = 0 if dist[0] < dist[1] else 1
        elif len(dist) == 1:
            winner = next(iter(dist))
        if winner is None:
            text = (text_bad + "; " if text_bad else "") + "lag again"
            ruling = self._ruling(None, [0, 0], text[0].upper() + text[1:], extras=extras)
            return self._finish(ruling)
        self._offer_choose_breaker(winner)
        text = (text_bad + "; " if text_bad else "") + f"{SEAT_NAMES[winner]} wins the lag and chooses who breaks"
        extras["lag_winner"] = winner
        return self._finish(self._ruling(None, [0, 0], text[0].upper() + text[1:], extras=extras))

    # ----- decisions -------------------------------------------------------------------------
    def apply_decision(self, player, decision, arg=None) -> Ruling:
        """Apply an option on offer (see :meth:`legal_actions`): ``CHOOSE_BREAKER`` (arg seat),
        ``ACCEPT_TABLE``, ``REQUIRE_REBREAK`` (R6), ``RERACK_OFFENDER_BREAKS`` (R16 variant, R17),
        ``SPOT_REQUEST`` (arg ball, R14), ``OFFER_STALEMATE``/``ACCEPT_STALEMATE``/
        ``DECLINE_STALEMATE`` (R28 agreement), ``EXTENSION`` (shot clock).

        Raises :class:`IllegalAction` (``no_such_decision``, ``bad_arg``, ``not_your_turn``,
        ``game_over``) with the state unchanged.
        """
        return self._guarded(self._apply_decision, player, decision, arg)

    def _apply_decision(self, player, decision, arg) -> Ruling:
        self._check_open()
        p = self._check_player(player)
        if p != self.to_act:
            raise IllegalAction("not_your_turn", "no decision is offered to this player now", "player")
        offered = {o["name"]: o["args"] for o in self.legal_actions()["decisions"]}
        if not isinstance(decision, str) or decision not in offered:
            raise IllegalAction("no_such_decision", f"decision: {decision!r} is not on offer", "decision")
        args = offered[decision]
        if args and (isinstance(arg, bool) or arg not in args):
            raise IllegalAction("bad_arg", f"arg: expected one of {args}, got {arg!r}", "arg")
        if not args and arg is not None:
            raise IllegalAction("bad_arg", f"arg: {decision} takes no argument, got {arg!r}", "arg")
        q = _opp(p)
        pend = self.pending
        if decision == "CHOOSE_BREAKER":
            self._start_break(int(arg))
            r = self._ruling(p, [0, 0], f"{SEAT_NAMES[p]} chooses {SEAT_NAMES[int(arg)]} to break", extras={"decision": decision})
            r.rerack = {"balls": list(OBJECT_BALLS), "positions": _xy_keys({b: self.balls[b] for b in OBJECT_BALLS})}
            return self._finish(r)
        if decision == "ACCEPT_TABLE":
            self.phase = "play"
            self.to_act = p
            self.pending = None
            if pend["kind"] == "serious" or pend.get("cue_in_hand"):
                self.balls.pop(CUE, None)
                self.in_hand = "kitchen"
            else:
                self.in_hand = None
            tail = " with ball in hand behind the head string" if self.in_hand else ""
            return self._finish(self._ruling(p, [0, 0], f"{SEAT_NAMES[p]} accepts the table{tail}", extras={"decision": decision}))
        if decision in ("REQUIRE_REBREAK", "RERACK_OFFENDER_BREAKS"):
            off = int(pend["offender"])
            pos = self._start_break(off)
            r = self._ruling(
                p,
                [0, 0],
                f"{SEAT_NAMES[p]} has all fifteen re-racked: {SEAT_NAMES[off]} breaks again"
                if decision == "REQUIRE_REBREAK"
                else f"{SEAT_NAMES[p]} has all fifteen re-racked: {SEAT_NAMES[off]} breaks",
                rerack={"balls": list(OBJECT_BALLS), "positions": _xy_keys(pos)},
                extras={"decision": decision},
            )
            return self._finish(r)
        if decision == "SPOT_REQUEST":
            pos = self._spot([int(arg)])
            return self._finish(
                self._ruling(p, [0, 0], f"{int(arg)} spotted on request", spotted=pos, extras={"decision": decision})
            )
        if decision == "OFFER_STALEMATE":
            self._decide(
                q,
                "stalemate_offer",
                [{"name": "ACCEPT_STALEMATE", "args": []}, {"name": "DECLINE_STALEMATE", "args": []}],
                offered_by=p,
                resume_phase=self.phase,
                resume_to_act=p,
            )
            return self._finish(self._ruling(p, [0, 0], f"{SEAT_NAMES[p]} offers a stalemate", extras={"decision": decision}))
        if decision == "ACCEPT_STALEMATE":
            self.pending = None
            r = self._ruling(p, [0, 0], "Stalemate agreed", extras={"decision": decision, "stalemate": True})
            self._end_inning()
            self._stalemate(r)
            return self._finish(r)
        if decision == "DECLINE_STALEMATE":
            self.phase = str(pend["resume_phase"])
            self.to_act = int(pend["resume_to_act"])
            self.pending = None
            self.offer_blocked = True
            return self._finish(self._ruling(p, [0, 0], f"{SEAT_NAMES[p]} declines the stalemate", extras={"decision": decision}))
        if decision == "EXTENSION":
            self.extensions[p] -= 1
            return self._finish(
                self._ruling(p, [0, 0], f"Extension: {SEAT_NAMES[p]} has {self.extensions[p]} left", extras={"decision": decision})
            )
        raise IllegalAction("no_such_decision", f"decision: {decision!r} is not on offer", "decision")  # pragma: no cover

    # ----- time-outs, forfeits, referee actions ------------------------------------------
    def apply_timeout(self, player) -> Ruling:
        """Shot clock expired (R12 F9, only with ``shot_clock`` on): a standard foul, -1, counted by R16;
        the opponent plays the table in position (the cue ball stays in hand if it was)."""
        return self._guarded(self._apply_timeout, player)

    def _apply_timeout(self, player) -> Ruling:
        if not self.config["shot_clock"]:
            raise IllegalAction("no_shot_clock", "this match has no shot clock", "shot_clock")
        p = self._check_shooter(player)
        self._begin_stroke(p)
        self.inning_clean = False
        facts = _StrokeFacts.idle(self)
        return self._finish(self._standard_foul(p, facts, ["shot_clock"], {"break": self.phase == "break"}))

    def apply_forfeit(self, player, reason="resigned") -> Ruling:
        """``player`` resigns or abandons: the game is over and the opponent wins."""
        return self._guarded(self._apply_forfeit, player, reason)

    def _apply_forfeit(self, player, reason) -> Ruling:
        self._check_open()
        p = self._check_player(player)
        q = _opp(p)
        self._game_over(q, f"forfeit: {reason}")
        return self._finish(
            self._ruling(p, [0, 0], f"{SEAT_NAMES[p]} forfeits ({reason}): {SEAT_NAMES[q]} wins", game_over=True, winner=q)
        )

    def apply_serious_foul(self, player, penalty=None, loss_of_game=False) -> Ruling:
        """A referee/moderator applies a serious (intentional, unsportsmanlike) foul to ``player`` (R17, REF).

        Preset ``wsr``: -16, foul counter reset, the opponent chooses ``ACCEPT_TABLE`` (cue ball
        in hand behind the head string) or ``RERACK_OFFENDER_BREAKS``. ``s2``: -15, the opponent
        plays the table as it lies. ``referee_free``: ``penalty`` points (>= 0) and/or
        ``loss_of_game``; otherwise the opponent plays the table as it lies.
        """
        return self._guarded(self._apply_serious_foul, player, penalty, loss_of_game)

    def _apply_serious_foul(self, player, penalty, loss_of_game) -> Ruling:
        self._check_open()
        p = self._check_player(player)
        if self.phase == "lag":
            raise IllegalAction("bad_phase", "no serious foul can be applied during the lag", "phase")
        preset = self.config["serious_foul_preset"]
        if preset != "referee_free" and (penalty is not None or loss_of_game):
            raise IllegalAction("bad_arg", "penalty and loss_of_game are set by the preset", "penalty")
        q = _opp(p)
        if preset == "wsr":
            amount = 16
        elif preset == "s2":
            amount = 15
        else:
            if penalty is None:
                penalty = 0
            if isinstance(penalty, bool) or not isinstance(penalty, int) or penalty < 0:
                raise IllegalAction("bad_arg", f"penalty: expected an integer >= 0, got {penalty!r}", "penalty")
            amount = int(penalty)
        pts = [0, 0]
        if amount:
            self._penalise(p, serious=amount)
        else:
            self.stats[p]["fouls"] += 1
        pts[p] = -amount
        self.fouls_in_row[p] = 0
        self.inning_clean = False
        self._end_inning()
        base = {"foul": "serious_foul", "fouls": ["serious_foul"], "penalty": amount, "extras": {"serious_foul": preset}}
        if loss_of_game:
            self._game_over(q, "serious foul")
            return self._finish(
                self._ruling(p, pts, f"Serious foul, -{amount}, loss of game: {SEAT_NAMES[q]} wins", game_over=True, winner=q, **base)
            )
        if preset == "wsr":
            self._decide(
                q,
                "serious",
                [{"name": "ACCEPT_TABLE", "args": []}, {"name": "RERACK_OFFENDER_BREAKS", "args": []}],
                offender=p,
                cue_in_hand=True,
            )
            return self._finish(self._ruling(p, pts, f"Serious foul, -16: {SEAT_NAMES[q]} chooses", **base))
        # s2 / referee_free: the opponent plays the table as it lies
        if self.phase == "decision":
            pend = self.pending
            if pend and pend.get("cue_in_hand"):
                self.balls.pop(CUE, None)
        self.phase = "play" if self.phase in ("play", "decision") else self.phase
        self.pending = None
        self.to_act = q
        self.in_hand = "kitchen" if CUE not in self.balls else None
        return self._finish(self._ruling(p, pts, f"Serious foul, -{amount}: {SEAT_NAMES[q]} plays the table as it lies", **base))

    @property
    def state(self) -> dict:
        """Alias of :meth:`to_state` (DESIGN.md calls it ``game.state``)."""
        return self.to_state()


# ------------------------------------------------------------------------------------------
# reading a stroke


class _StrokeFacts:
    """What the rules read from one stroke's event log (D4-D6, D8).

    ``start``: layout at the strike; ``contacts``: rules/base.py contacts in order, aligned with
    ``events``; ``first``: index of the cue ball's first contact with an object ball (D6: a
    frozen cue ball pushing its object ball counts), ``first_ball`` that ball; ``pocketed``
    ball -> pocket; ``off`` off-table balls; ``resting`` the balls left on the bed.
    """

    def __init__(self, game: Optional[StraightPool], sim: Optional[SimResult], start, shooter: int):
        self.game = game
        self.sim = sim
        self.start: Dict[int, Vec2] = dict(start) if start else {}
        self.shooter = shooter
        self.in_hand = game.in_hand if game is not None else None
        self.contacts = []
        self.events = []
        self.pocketed: Dict[int, str] = {}
        self.off = frozenset()
        self.first: Optional[int] = None
        self.first_ball: Optional[int] = None
        self.resting: Dict[int, Vec2] = {}
        self.frozen = frozenset()
        self.restricted: Dict[int, str] = {}
        self.ob_pocketed: Dict[int, str] = {}
        if sim is None:
            return
        T = sim.table
        self.frozen = frozen_pairs(T, self.start)
        self.contacts = stroke_contacts(sim, self.frozen)
        self.events = [e for e in sim.events if e.kind in ("ball_ball", "ball_cushion", "ball_pocket", "off_table")]
        self.pocketed = pocketed_balls(sim)
        self.off = off_table_balls(sim)
        self.ob_pocketed = {b: pk for b, pk in self.pocketed.items() if b != CUE}
        self.resting = {
            b: _xy(s.r) for b, s in sim.final.items() if s.state != "pocketed" and b not in self.off and b not in self.pocketed
        }
        for i, c in enumerate(self.contacts):
            if c.kind != "ball_ball" or not c.involves(CUE):
                continue
            other = c.other if c.ball == CUE else c.ball
            if other == CUE or other is None:
                continue
            if c.frozen and not self._frozen_push(i, other):
                continue
            self.first = i
            self.first_ball = other
            break
        self.restricted = game._restricted_rails(shooter, self.start, self.frozen) if game is not None else {}

    @classmethod
    def idle(cls, game: StraightPool) -> "_StrokeFacts":
        """No stroke (shot-clock foul): every ball stays where it lies."""
        f = cls(game, None, game.balls, game.to_act)
        f.resting = dict(game.balls)
        return f

    def _frozen_push(self, i: int, ball: int) -> bool:
        """D6 exception: the cue ball frozen to ``ball`` and the stroke moves that ball at this contact."""
        st = self.events[i].states.get(ball)
        if st is not None and (st.state in ("sliding", "rolling") or abs(st.v[0]) + abs(st.v[1]) > 0.0):
            return True
        for c in self.contacts[:i]:
            if c.involves(ball):
                return False
        p0 = self.start[ball]
        if ball in self.pocketed or ball in self.off:
            return True
        p1 = self.resting.get(ball, p0)
        return math.hypot(p1[0] - p0[0], p1[1] - p0[1]) > EPS_LEAVE

    # ----- derived facts ---------------------------------------------------------------------
    def rails_after_first(self) -> list:
        """Rail contacts (D4) after the first contact, the R24 restrictions applied."""
        if self.first is None:
            return []
        out = []
        for c in self.contacts[self.first + 1:]:
            if c.kind != "ball_cushion" or c.frozen:
                continue
            if self.restricted.get(c.ball) == c.cushion and c.ball == self.first_ball:
                continue
            out.append(c)
        return out

    def cue_driven_after_first(self) -> bool:
        """The cue ball is driven to a rail after its first object-ball contact (D4, R5b)."""
        if self.first is None:
            return False
        if CUE in self.pocketed or CUE in self.off:
            return True
        return any(c.ball == CUE for c in self.rails_after_first())

    def object_balls_driven(self) -> set:
        """Object balls driven to a rail on the stroke: a rail contact, pocketed or off the table (D4)."""
        out = {b for b in self.ob_pocketed}
        out |= {b for b in self.off if b != CUE}
        for c in self.contacts:
            if c.kind == "ball_cushion" and not c.frozen and c.ball != CUE:
                out.add(c.ball)
        return out

    def rail_requirement_met(self) -> bool:
        """R9: after the first contact an object ball is pocketed, or the cue ball or an object ball is
        driven to a rail (pocketed or off-table counts, D4)."""
        if self.first is None:
            return False
        if self.ob_pocketed or self.off or CUE in self.pocketed:
            return True
        return bool(self.rails_after_first())

    def fouls(self, config: Mapping) -> List[str]:
        """The standard fouls of the stroke (R12 F1-F5), in detection order."""
        T = self.sim.table
        out = []
        if CUE in self.pocketed:
            out.append("scratch")
        if CUE in self.off:
            out.append("cue_ball_off_table")
        if self.first is None:
            out.append("no_contact")
        elif not self.rail_requirement_met():
            out.append("no_rail")
        if config["object_ball_off_table_is_foul"] and any(b != CUE for b in self.off):
            out.append("object_ball_off_table")
        if self.in_hand == "kitchen":
            hx = T.head_string_x
            if self.first is not None:
                t1 = self.contacts[self.first].t
                first_pos = self.sim.ball_state_at(self.first_ball, t1).r
                crossed = self.sim.max_projection(CUE, (1.0, 0.0), 0.0, t1) > hx + EPS_LINE
                if behind_head_string(T, first_pos) and not crossed:
                    out.append("bad_kitchen_play")  # F5a
                    return out
            crossed_ever = self.sim.max_projection(CUE, (1.0, 0.0), 0.0, math.inf) > hx + EPS_LINE
            front_contact = False
            for c in self.contacts:
                if c.kind == "ball_ball" and c.involves(CUE) and not c.frozen:
                    o = c.other if c.ball == CUE else c.ball
                    if not behind_head_string(T, self.sim.ball_state_at(o, c.t).r):
                        front_contact = True
                        break
            if not crossed_ever and not front_contact:
                out.append("kitchen_not_left")  # F5b
        return out

    def to_spot(self) -> List[int]:
        """Object balls spotted after a stroke that scores nothing (a foul R12, a miss or safety R19,
        a breaking foul R6): every pocketed and every off-table object ball (R20)."""
        return sorted(set(self.ob_pocketed) | {b for b in self.off if b != CUE})

    def jumped_object_balls(self) -> List[int]:
        """Off-table object balls (spotted after a scoring stroke under the R20 variant)."""
        return sorted(b for b in self.off if b != CUE)


def _near_rail_balls(table: Table, start: Mapping[int, Vec2], frozen) -> Dict[int, str]:
    """R24 ``wsr``: object balls not frozen to a cushion whose gap to the nearest rail nose is < 2R."""
    R = table.R
    rails = [c for c in table.cushions if "." not in c.name]
    frozen_to_cushion = {a for a, b in frozen if isinstance(b, str)}
    out: Dict[int, str] = {}
    for b, p in start.items():
        if b == CUE or b in frozen_to_cushion:
            continue
        best, name = math.inf, None
        for c in rails:
            dx, dy = c.p2[0] - c.p1[0], c.p2[1] - c.p1[1]
            s = ((p[0] - c.p1[0]) * dx + (p[1] - c.p1[1]) * dy) / (dx * dx + dy * dy)
            if not 0.0 <= s <= 1.0:
                continue
            gap = (p[0] - c.p1[0]) * c.normal[0] + (p[1] - c.p1[1]) * c.normal[1] - R
            if gap < best:
                best, name = gap, c.name
        if name is not None and best < 2.0 * R:
            out[b] = name
    return out


def _main_foul(fouls: Sequence[str]) -> str:
    """R15: the foul charged when several happen on one stroke."""
    for f in IN_HAND_FOULS + OTHER_FOULS:
        if f in fouls:
            return f
    return fouls[0]


def _xy_keys(pos: Mapping[int, Vec2]) -> Dict[str, List[float]]:
    return {str(b): [float(p[0]), float(p[1])] for b, p in sorted(pos.items())}


def _plain(v):
    """A deep copy made of plain dict/list/scalars (tuples become lists)."""
    if isinstance(v, dict):
        return {k if isinstance(k, str) else str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v
