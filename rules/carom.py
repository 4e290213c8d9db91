# cython: annotation_typing=False
"""What every carom game shares: the carom test, innings and runs, fouls, set-ups, match formats.

Specification: ``shared/spec/rules-carom.md`` (C1-C27, K1-K9, sections C and D); every rule
below cites it. The discipline classes (:mod:`rules.carom_disciplines`) add only their own
validity condition (cushions before the second object ball) and their zone set; everything else
lives here once:

- the event-level carom test (C6) on the log, read through :func:`rules.base.stroke_contacts`
  (initial-freeze continuations marked, K6), cue-ball cushion impacts counted per K4 and ties
  within ``EPS_TIE`` ordered in the shooter's favour (K8);
- the break (C5): red on the top spot, the opponent's ball on the bottom spot, the breaker's
  ball on a starting spot of his choice; the first stroke must attack the red directly;
- fouls that arise in simulation (C17): ball off the table (K-F1, with the set-ups of C18),
  playing directly into a touching ball or cushion (K-F6, C14-C15), a break not attacking the
  red (K-F10), the zone foul (K-F11, C12, :mod:`rules.zones`), the shot clock (K-F13, C24);
- touching balls (C15) and the set-up on the spots with the occupied-spot rule (C16);
- the lag (C4: simulated from both players' lag strokes, or a seeded draw), ball assignment (C3);
- match formats: distance, equalising inning and draw (C19), inning limit (C20), sets (C21),
  tie-breaks (``draw_resolution``), the optional rest (C22), statistics (C26).

Seats are 0 and 1. The seat that takes the first break plays the white (ball 0) for the whole
game, sets included (C3); the other plays the yellow (ball 1); the red is ball 2 (K2). A game is
a deterministic state machine: its whole state is :meth:`CaromGame.to_state` (plain
msgpack types, the seeded lag draw included) and :meth:`CaromGame.from_state` restores it.
Illegal actions raise :class:`rules.base.IllegalAction` before anything changes.
"""

from __future__ import annotations

import hashlib
import math
from typing import Dict, List, Mapping, Optional, Tuple

from physics.events import SimResult
from physics.table import Table, get_table
from rules.base import (EPS_LEAVE, GameBase, IllegalAction, Ruling, check_clock_extensions, check_clock_limit, frozen_pairs,
                        off_table_balls, plain_copy, stroke_contacts)
from rules.zones import FREE, IN, INSIDE, ZoneSet

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


# foul kinds (C17 numbering in the comments)
FOUL_OFF_TABLE = "off_table"  # K-F1, C18
FOUL_FROZEN = "played_into_touching"  # K-F6, C14, C15
FOUL_BREAK = "break_not_red_first"  # K-F10, C5
FOUL_ZONE = "zone"  # K-F11, C12
FOUL_SHOT_CLOCK = "shot_clock"  # K-F13, C24
FOUL_DELIBERATE = "deliberate"  # K-F9 (REF: a moderator's ruling)
FOUL_DOUBLE_HIT = "double_hit"  # K-F5 (PHYS: physics.SimResult.flags, the cue stick's follow-through)
FOUL_PUSH = "push"  # K-F5 ("arrastra o retaca"; PHYS as above)

FOUL_TEXT = {
    FOUL_OFF_TABLE: "ball off the table",
    FOUL_FROZEN: "played directly into the touching ball or cushion",
    FOUL_BREAK: "the break must attack the red directly",
    FOUL_ZONE: "zone foul",
    FOUL_SHOT_CLOCK: "shot clock expired",
    FOUL_DELIBERATE: "deliberate foul (moderator)",
    FOUL_DOUBLE_HIT: "double hit (the cue touched the cue ball twice)",
    FOUL_PUSH: "push (the cue stayed on the cue ball)",
}
#: K-F5: stroke flag of physics.SimResult.flags -> foul
_FLAG_FOULS = {"double_hit": FOUL_DOUBLE_HIT, "push": FOUL_PUSH}

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


def _pos_int(key: str, v, minimum: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ValueError(f"{key}: must be an integer >= {minimum}, got {v!r}")
    return int(v)


def _pos_float(key: str, v) -> float:
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
            out[key] = _pos_int(key, v)
        elif key == "inning_limit":
            out[key] = None if v is None else _pos_int(key, v)
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
            a, b = _pos_float(key, v[0]), _pos_float(key, v[1])
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
            out[key] = {"sets_to_win": int(stw), "set_distance": _pos_int("sets", v.get("set_distance", 15))}
        elif key == "shot_clock":
            if v is None or v is False:
                out[key] = None
                continue
            if not isinstance(v, Mapping) or set(v) - {"limit_s", "warn_s", "timeouts"}:
                raise ValueError(f"shot_clock: must be {{limit_s, warn_s, timeouts}} or null, got {v!r}")
            limit = check_clock_limit(v.get("limit_s", 30))
            # the warning comes at two thirds of the limit unless given (UMB: 20 s of 30)
            warn = _pos_float("shot_clock", v["warn_s"]) if "warn_s" in v else limit * 2.0 / 3.0
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


# ----------------------------------------------------------------------------------------
# the stroke as the carom rules read it


class CaromStroke:
    """Facts of one stroke for cue ball ``cue`` (C5, C6, C14, C15, C18; K4-K6, K8).

    ``first_event``: the cue ball's first collision (:class:`rules.base.Contact`, initial-freeze
    continuations included) or None; ``first_contact``: object ball id -> time (s) of the cue
    ball's first real contact with it (K5); ``impacts``: ``[(t, cushion)]`` cue-ball cushion
    impacts (K4: a repeated event on the same cushion counts only after the ball separated from
    it by more than ``EPS_LEAVE``); ``off_table``: balls that left the table.
    """

    def __init__(self, sim: SimResult, cue: int):
        self.cue = cue
        self.object_balls = tuple(b for b in BALLS if b != cue)
        self.first_event = None
        self.first_contact: Dict[int, float] = {}
        self.impacts: List[Tuple[float, str]] = []
        cushions = {c.name: c for c in sim.table.cushions}
        R = sim.table.R
        previous: Dict[str, float] = {}
        for c in stroke_contacts(sim):
            if c.kind == "ball_ball" and c.involves(cue):
                if self.first_event is None:
                    self.first_event = c
                if c.frozen:
                    continue
                other = c.other if c.ball == cue else c.ball
                if other in self.object_balls and other not in self.first_contact:
                    self.first_contact[other] = c.t
            elif c.kind == "ball_cushion" and c.ball == cue:
                if self.first_event is None:
                    self.first_event = c
                before = previous.get(c.cushion)
                previous[c.cushion] = c.t
                if c.frozen:
                    continue
                if before is not None and c.cushion in cushions:
                    cu = cushions[c.cushion]
                    n = cu.normal
                    gap = sim.max_projection(cue, n, before, c.t) - (cu.p1[0] * n[0] + cu.p1[1] * n[1]) - R
                    if gap <= EPS_LEAVE:
                        continue  # still in contact since the previous event: one impact (K4)
                self.impacts.append((c.t, c.cushion))
        self.off_table = off_table_balls(sim)

    @property
    def played_into_touching(self) -> bool:
        """K-F6 (C14, C15): the cue ball's first event pushes into a ball or cushion it touched."""
        return self.first_event is not None and self.first_event.frozen

    def second_ball_time(self) -> Optional[float]:
        """t2 of C6: time of the first contact with the second object ball, or None (no carom)."""
        if len(self.first_contact) < len(self.object_balls):
            return None
        return max(self.first_contact.values())

    def cushions_before_second(self) -> int:
        """n of C6: cue-ball impacts before t2 (ties within ``EPS_TIE`` count as before); all impacts if no t2."""
        t2 = self.second_ball_time()
        if t2 is None:
            return len(self.impacts)
        return sum(1 for t, _ in self.impacts if t <= t2 + EPS_TIE)

    def is_carom(self, min_cushions: int) -> bool:
        """C6: both object balls contacted, with at least ``min_cushions`` impacts before the second."""
        return self.second_ball_time() is not None and self.cushions_before_second() >= min_cushions

    def red_first(self, direct: bool) -> bool:
        """C5: the cue ball's first contact is with the red (``direct``: nothing, not even a cushion,
        before it); the red wins ties within ``EPS_TIE`` (K8)."""
        t_red = self.first_contact.get(RED)
        if t_red is None:
            return False
        rivals = [t for b, t in self.first_contact.items() if b != RED]
        if direct:
            rivals.extend(t for t, _ in self.impacts)
        return all(t_red <= t + EPS_TIE for t in rivals)


# ----------------------------------------------------------------------------------------
# the game


def _seat(player, field: str = "player") -> int:
    if isinstance(player, bool) or not isinstance(player, int) or player not in (0, 1):
        raise IllegalAction("bad_player", f"{field}: must be seat 0 or 1, got {player!r}", field)
    return int(player)


def _xy(p) -> Tuple[float, float]:
    return (float(p[0]), float(p[1]))


class CaromGame(GameBase):
    """A carom game (one discipline) with its match format; see the module docstring.

    Subclasses set ``discipline``, ``min_cushions`` (C6/C13), ``frozen_setup`` (C15: ``auto``
    libre, ``all`` balkline, ``touching`` cushion games), ``off_table_setup`` (C18: ``all`` or
    ``off_only``) and :meth:`build_zones` (C8-C11; None for the cushion games).

    ``CaromGame(config=None, seed=0)``: ``config`` keys as :func:`carom_config` (ValueError
    naming the key), ``seed`` an int for the random lag draw (kept in the state).
    """

    discipline = ""
    CLOCK_PHASES = (BREAK, PLAY, DECISION)  # C24: strokes, and decisions (an EXTENSION is asked for on the clock)
    min_cushions = 0
    frozen_setup = "touching"
    off_table_setup = "off_only"

    def __init__(self, config: Optional[Mapping] = None, seed: int = 0):
        if not self.discipline:
            raise TypeError("CaromGame is abstract: use a discipline class (rules.carom_disciplines)")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed: must be an integer, got {seed!r}")
        self.table = get_table("carom")
        self.config = carom_config(self.discipline, config, self.table)
        self.zoneset = self.build_zones()
        self.seed = int(seed)
        self.rng_n = 0
        self.phase = LAG
        self.lag_winner: Optional[int] = None
        self.white_seat: Optional[int] = None
        self.positions: Dict[int, Tuple[float, float]] = self.lag_layout()
        self.striker = 0
        self.break_pending = False
        self.spot_side = "right"
        self.equalizing = False
        self.last_inning = False
        self.run = 0
        self.frame = self._new_frame(0, 1)
        self.frames: List[dict] = []
        self.sets_won = [0, 0]
        self.stats = [self._new_stats(), self._new_stats()]
        self.zones: Dict[str, str] = {}
        self.options: List[str] = []
        self.tiebreak: Optional[dict] = None
        self.result: Optional[dict] = None
        self.rest_offered = False
        clock = self.config["shot_clock"]
        self.timeouts_left = [clock["timeouts"], clock["timeouts"]] if clock else [0, 0]
        self._placed: Dict[int, Tuple[float, float]] = {}
        self._rest_now = False
        if self.config["breaker"] is not None:
            self._start_game(self.config["breaker"])
        elif self.config["lag_mode"] == "random":
            self.lag_winner = self._draw(2)
            self.phase = CHOOSE_BREAKER

    # ----- discipline hooks ----------------------------------------------------------------
    def build_zones(self) -> Optional[ZoneSet]:
        """The discipline's restricted zones (C8-C11), or None."""
        return None

    # ----- small helpers -------------------------------------------------------------------
    @staticmethod
    def _new_stats() -> dict:
        return {"points": 0, "innings": 0, "strokes": 0, "caroms": 0, "high_run": 0, "fouls": {}, "zone_fouls": 0}

    @staticmethod
    def _new_frame(index: int, starter: int) -> dict:
        return {"index": index, "starter": starter, "scores": [0, 0], "innings": [0, 0], "high_run": [0, 0]}

    def _draw(self, n: int) -> int:
        """Seeded draw in [0, n): SHA-256 of (seed, counter); the counter lives in the state."""
        h = hashlib.sha256(f"billar-carom:{self.seed}:{self.rng_n}".encode()).digest()
        self.rng_n += 1
        return int.from_bytes(h[:8], "big") % n

    def cue_ball(self, seat: int) -> int:
        """Ball id seat ``seat`` plays (C3): white for the first breaker, yellow for the other."""
        if self.white_seat is None:
            return seat  # the lag: seat s lags ball s
        return WHITE if seat == self.white_seat else YELLOW

    def object_balls(self, seat: int) -> Tuple[int, int]:
        cue = self.cue_ball(seat)
        return tuple(b for b in BALLS if b != cue)

    @property
    def target(self) -> int:
        """Points to win the current game or set (C19, C21)."""
        sets = self.config["sets"]
        return sets["set_distance"] if sets else self.config["distance"]

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def to_act(self) -> Optional[int]:
        """Seat expected to act next; None during the lag (both seats submit a stroke) and when over."""
        if self.phase in (OVER, LAG):
            return None
        if self.phase == CHOOSE_BREAKER:
            return self.lag_winner
        return self.striker

    def lag_layout(self) -> Dict[int, Tuple[float, float]]:
        """C4: seat 0's ball (0) at (L/4, 0.30), seat 1's ball (1) at (L/4, W - 0.30), red on the top spot."""
        t = self.table
        x = t.bottom_spot[0]
        return {0: (x, LAG_CUSHION_OFFSET), 1: (x, t.width - LAG_CUSHION_OFFSET), RED: _xy(t.top_spot)}

    def layout(self) -> Dict[int, Tuple[float, float]]:
        """Balls on the bed now, ball id -> (x, y) m (during the lag: the lag layout)."""
        return dict(self.positions)

    # ----- equality and serialisation ------------------------------------------------------
    def to_state(self) -> dict:
        """The whole game as msgpack-serialisable data (str keys, lists, numbers, bools, None)."""
        return {
            "version": self.state_version,
            "discipline": self.discipline,
            "config": plain_copy(self.config),
            "seed": self.seed,
            "rng_n": self.rng_n,
            "phase": self.phase,
            "lag_winner": self.lag_winner,
            "white_seat": self.white_seat,
            "layout": {str(b): [p[0], p[1]] for b, p in sorted(self.positions.items())},
            "striker": self.striker,
            "break_pending": self.break_pending,
            "spot_side": self.spot_side,
            "equalizing": self.equalizing,
            "last_inning": self.last_inning,
            "run": self.run,
            "frame": plain_copy(self.frame),
            "frames": plain_copy(self.frames),
            "sets_won": list(self.sets_won),
            "stats": plain_copy(self.stats),
            "zones": dict(sorted(self.zones.items())),
            "options": list(self.options),
            "tiebreak": plain_copy(self.tiebreak),
            "result": plain_copy(self.result),
            "rest_offered": self.rest_offered,
            "timeouts_left": list(self.timeouts_left),
        }

    def _load(self, d: Mapping) -> None:
        game = self
        game.table = get_table("carom")
        game.config = carom_config(self.discipline, d["config"], game.table)
        game.zoneset = game.build_zones()
        game.seed = int(d["seed"])
        game.rng_n = int(d["rng_n"])
        game.phase = d["phase"]
        game.lag_winner = d["lag_winner"]
        game.white_seat = d["white_seat"]
        game.positions = {int(b): _xy(p) for b, p in d["layout"].items()}
        game.striker = int(d["striker"])
        game.break_pending = bool(d["break_pending"])
        game.spot_side = d["spot_side"]
        game.equalizing = bool(d["equalizing"])
        game.last_inning = bool(d["last_inning"])
        game.run = int(d["run"])
        game.frame = plain_copy(dict(d["frame"]))
        game.frames = plain_copy(list(d["frames"]))
        game.sets_won = list(d["sets_won"])
        game.stats = plain_copy(list(d["stats"]))
        game.zones = dict(d["zones"])
        game.options = list(d["options"])
        game.tiebreak = plain_copy(d["tiebreak"])
        game.result = plain_copy(d["result"])
        game.rest_offered = bool(d["rest_offered"])
        game.timeouts_left = list(d["timeouts_left"])
        game._placed = {}
        game._rest_now = False


    # ----- what may be done now ------------------------------------------------------------
    def legal_actions(self) -> dict:
        """``{"player", "phase", "shoot", "decisions"}`` as rules/README.md describes.

        Carom never has ball in hand nor a call: ``shoot`` is ``{"cue_ball", "in_hand": None,
        "call": "none", "balls": [], "pockets": [], "lag": bool}``; during the lag ``cue_ball`` is
        None and ``lag_balls`` maps each seat (as a str) to the start [x, y] of its lag ball
        (seat s lags ball s). Decisions: ``CHOOSE_BREAKER``, ``STARTING_SPOT`` (at a break),
        ``PLAY_ON``/``SET_UP`` (touching balls), ``EXTENSION`` (shot clock, while time-outs last).
        """
        out = {"player": self.to_act, "phase": self.phase, "shoot": None, "decisions": []}
        if self.phase == LAG:
            lay = self.lag_layout()
            out["shoot"] = {"cue_ball": None, "in_hand": None, "call": "none", "balls": [], "pockets": [], "lag": True,
                            "lag_balls": {"0": list(lay[0]), "1": list(lay[1])}}
        elif self.phase in (BREAK, PLAY):
            out["shoot"] = {"cue_ball": self.cue_ball(self.striker), "in_hand": None, "call": "none", "balls": [],
                            "pockets": [], "lag": False}
            if self.phase == BREAK:
                out["decisions"].append({"name": D_STARTING_SPOT, "args": ["left", "right"]})
        elif self.phase == CHOOSE_BREAKER:
            out["decisions"].append({"name": D_CHOOSE_BREAKER, "args": [0, 1]})
        elif self.phase == DECISION:
            out["decisions"].extend({"name": o, "args": []} for o in self.options)
        if self.phase in (BREAK, PLAY, DECISION) and self.config["shot_clock"] and self.timeouts_left[self.striker] > 0:
            out["decisions"].append({"name": D_EXTENSION, "args": []})
        return out

    def _require_turn(self, player, phases: Tuple[str, ...]) -> int:
        if self.phase == OVER:
            raise IllegalAction("game_over", "the game is over")
        seat = _seat(player)
        if self.phase not in phases:
            if self.phase == DECISION:
                raise IllegalAction("decision_pending", f"seat {self.striker} must first choose one of {self.options}")
            if self.phase == CHOOSE_BREAKER:
                raise IllegalAction("decision_pending", f"seat {self.lag_winner} must first choose who breaks")
            if self.phase == LAG:
                raise IllegalAction("bad_phase", "the lag decides who breaks first: submit a lag stroke", "phase")
            raise IllegalAction("bad_phase", f"not allowed in phase {self.phase}", "phase")
        if self.phase != LAG and seat != self.to_act:
            raise IllegalAction("not_your_turn", f"seat {self.to_act} is to act, not seat {seat}", "player")
        return seat

    @staticmethod
    def _check_call(call, cue_ball_position) -> None:
        if call not in (None, {}):
            raise IllegalAction("bad_call", f"call: carom takes no call, got {call!r}", "call")
        if cue_ball_position is not None:
            raise IllegalAction("bad_placement", "cue_ball_position: carom has no ball in hand", "cue_ball_position")

    def prepare_shot(self, player, call=None, cue_ball_position=None) -> Dict[int, Tuple[float, float]]:
        """Validate a stroke request and return the layout to simulate (ball id -> (x, y) m).

        During the lag it is the lag layout (the server simulates both lag strokes at once and
        calls :meth:`apply_lag`). Raises :class:`IllegalAction` (``game_over``, ``bad_player``,
        ``not_your_turn``, ``decision_pending``, ``bad_call``, ``bad_placement``); never changes
        the state.
        """
        self._require_turn(player, (LAG, BREAK, PLAY))
        self._check_call(call, cue_ball_position)
        if self.phase == LAG:
            return self.lag_layout()
        return self.layout()

    def _check_sim(self, sim, layout: Mapping[int, Tuple[float, float]], struck: List[int]) -> None:
        if not isinstance(sim, SimResult):
            raise IllegalAction("bad_sim", "sim: expected a physics SimResult", "sim")
        t = sim.table
        if t.kind != "carom" or abs(t.length - self.table.length) > 1e-9 or abs(t.width - self.table.width) > 1e-9:
            raise IllegalAction("bad_sim", f"sim: simulated on table {t.name!r}, not a carom table", "sim")
        if set(sim.initial) != set(layout):
            raise IllegalAction("bad_sim", f"sim: balls {sorted(sim.initial)} differ from the layout {sorted(layout)}", "sim")
        for b, p in layout.items():
            r = sim.initial[b].r
            if abs(r[0] - p[0]) > POSITION_TOL or abs(r[1] - p[1]) > POSITION_TOL:
                raise IllegalAction("bad_sim", f"sim: ball {b} starts at {tuple(r)}, the layout has {p}", "sim")
        got = sorted(b for e in sim.events if e.kind == "strike" for b in e.balls)
        if got != sorted(struck):
            raise IllegalAction("wrong_ball", f"sim: struck balls {got}, expected {sorted(struck)}", "sim")

    # ----- the lag (C4) --------------------------------------------------------------------
    def apply_lag(self, sim: SimResult) -> Ruling:
        """Judge the simulated lag (C4, ``lag_mode = simulated``): both lag strokes in one simulation.

        Seat s lags ball s from :meth:`lag_layout`. A ball that touches the red, leaves the table,
        does not reach the top cushion (INTERPRETATION of "to the top cushion and back"), or
        crossed the long string (y = W/2) before a collision of the two balls loses; a collision whose fault cannot be told (both or neither crossed),
        both balls faulty, or distances equal within 0.5 mm mean a repeat. Otherwise the ball that
        stops nearer the bottom cushion (distance x - R) wins, and its seat chooses who breaks.
        Raises :class:`IllegalAction` outside the lag or for a simulation of another layout.
        """
        return self._guarded(self._apply_lag, sim)

    def _apply_lag(self, sim) -> Ruling:
        if self.phase == OVER:
            raise IllegalAction("game_over", "the game is over")
        if self.phase != LAG:
            raise IllegalAction("bad_phase", f"no lag in phase {self.phase}", "phase")
        self._check_sim(sim, self.lag_layout(), [0, 1])
        t = self.table
        top = [c for c in t.cushions if c.normal[0] < -0.5][0].name
        contacts = stroke_contacts(sim)
        faults = {0: [], 1: []}
        t_meet = None
        reached_top = {0: False, 1: False}
        for c in contacts:
            if c.kind == "ball_ball" and not c.frozen:
                pair = {c.ball, c.other}
                if pair == {0, 1}:
                    if t_meet is None:
                        t_meet = c.t
                else:
                    for s in (0, 1):
                        if s in pair and RED in pair and "touched the red" not in faults[s]:
                            faults[s].append("touched the red")
            elif c.kind == "ball_cushion" and c.ball in (0, 1) and c.cushion == top:
                reached_top[c.ball] = True
        off = off_table_balls(sim)
        for s in (0, 1):
            if s in off:
                faults[s].append("left the table")
            if not reached_top[s]:
                faults[s].append("did not reach the top cushion")
        undetermined = False
        if t_meet is not None:
            half = t.width / 2.0
            crossed = {
                0: sim.max_projection(0, (0.0, 1.0), 0.0, t_meet) > half,
                1: sim.max_projection(1, (0.0, -1.0), 0.0, t_meet) > -half,
            }
            if crossed[0] != crossed[1]:
                s = 0 if crossed[0] else 1
                faults[s].append("crossed the long string before the collision")
            else:
                undetermined = True
        dist = [None, None]
        for s in (0, 1):
            if s not in off:
                dist[s] = sim.final[s].r[0] - t.R
        faulty = [s for s in (0, 1) if faults[s]]
        winner = None
        if len(faulty) == 1:
            winner = 1 - faulty[0]
        elif not faulty and not undetermined:
            if abs(dist[0] - dist[1]) > LAG_EQUAL:
                winner = 0 if dist[0] < dist[1] else 1
        ruling = Ruling(None, [0, 0], list(self.frame["scores"]))
        ruling.extras["lag"] = {"distances": dist, "faults": [faults[0], faults[1]], "winner": winner,
                                "repeat": winner is None}
        if winner is None:
            ruling.next_player = None
            why = "both balls faulty" if len(faulty) == 2 else ("the collision's fault cannot be told" if undetermined
                                                              else "equal distances")
            ruling.text = f"Lag repeated: {why}"
            return ruling
        self.lag_winner = winner
        self.phase = CHOOSE_BREAKER
        ruling.next_player = winner
        ruling.options = [D_CHOOSE_BREAKER]
        loser = 1 - winner
        why = f" (seat {loser}: " + "; ".join(faults[loser]) + ")" if faults[loser] else ", nearer the bottom cushion"
        ruling.text = f"Lag won by seat {winner}{why}; seat {winner} chooses who breaks"
        return ruling

    # ----- starting a game, a set, an inning -----------------------------------------------
    def _start_game(self, breaker: int) -> None:
        """C3, C5: the first breaker plays white for the whole game; set 1 starts from the opening position."""
        self.white_seat = breaker
        self.frame = self._new_frame(1, breaker)
        self._begin_inning(breaker, opening=True)

    def _set_opening(self, breaker: int) -> None:
        """C5: red on the top spot, the opponent's ball on the bottom spot, the breaker's ball on a starting spot."""
        t = self.table
        cue = self.cue_ball(breaker)
        other = WHITE if cue == YELLOW else YELLOW
        self.spot_side = "right"
        self.positions = {RED: _xy(t.top_spot), other: _xy(t.bottom_spot), cue: _xy(t.starting_spots["right"])}
        self.phase = BREAK
        self.break_pending = True
        self.options = []

    def _begin_inning(self, seat: int, opening: bool) -> None:
        self.striker = seat
        self.run = 0
        self.options = []
        if self.tiebreak is None:
            self.frame["innings"][seat] += 1
            self.stats[seat]["innings"] += 1
        if opening:
            self._set_opening(seat)
        else:
            self.phase = PLAY
            self.break_pending = False
        self._recompute_zones()
        if not opening:
            self._check_touching()

    def _recompute_zones(self) -> None:
        """C12 item 1 (inning start, or after a set-up)."""
        if self.zoneset is None:
            self.zones = {}
            return
        a, b = self.object_balls(self.striker)
        self.zones = self.zoneset.inning_start(self.positions[a], self.positions[b])

    def _touching_balls(self) -> List[int]:
        cue = self.cue_ball(self.striker)
        pairs = frozen_pairs(self.table, self.positions)
        return [b for b in self.object_balls(self.striker) if (min(cue, b), max(cue, b)) in pairs]

    def _check_touching(self) -> None:
        """C15 at the start of a stroke: the striker's cue ball touches one or both object balls."""
        if not self._touching_balls():
            return
        if self.frozen_setup == "auto":
            if self.config["libre_frozen_reset"] == "opening_position":
                self._set_opening(self.striker)
            else:
                self._set_up(list(BALLS), self.striker)
            self._recompute_zones()
        else:
            self.phase = DECISION
            self.options = [D_PLAY_ON, D_SET_UP]

    def _set_up(self, balls: List[int], striker: int) -> None:
        """C16: lift ``balls`` and place them on their spots (red top, the striker's ball bottom,
        the other ball centre), in that order; a covered spot sends the ball to the covering ball's spot."""
        t = self.table
        cue = self.cue_ball(striker)
        spots = {RED: _xy(t.top_spot), cue: _xy(t.bottom_spot), (WHITE if cue == YELLOW else YELLOW): _xy(t.centre_spot)}
        staying = {b: p for b, p in self.positions.items() if b not in balls}
        clear = 2.0 * t.R + DELTA_SPOT
        for b in (RED, cue, WHITE if cue == YELLOW else YELLOW):
            if b not in balls:
                continue
            owner = b
            for _ in range(len(BALLS) + 1):
                spot = spots[owner]
                cover = None
                best = clear
                for o, p in staying.items():
                    d = math.hypot(p[0] - spot[0], p[1] - spot[1])
                    if d <= best:
                        cover, best = o, d
                if cover is None:
                    break
                owner = cover
            else:  # pragma: no cover - three spots 0.71 m apart cannot all be covered (C16)
                raise RuntimeError("set-up: no free spot")
            staying[b] = spot
            self._placed[b] = spot
        self.positions = staying

    # ----- decisions -----------------------------------------------------------------------
    def apply_decision(self, player, decision, arg=None) -> Ruling:
        """An option on offer: ``CHOOSE_BREAKER`` (arg seat 0 or 1; the lag winner, C4),
        ``STARTING_SPOT`` (arg ``left`` or ``right``; the breaker, C5), ``PLAY_ON`` / ``SET_UP``
        (touching balls, C15-C16), ``EXTENSION`` (shot clock, C24). Raises :class:`IllegalAction` (``no_such_decision``,
        ``bad_argument``, ``not_your_turn``, ...) without changing the state.
        """
        return self._guarded(self._apply_decision, player, decision, arg)

    def _apply_decision(self, player, decision, arg) -> Ruling:
        if self.phase == OVER:
            raise IllegalAction("game_over", "the game is over")
        seat = _seat(player)
        if self.phase == LAG:
            raise IllegalAction("bad_phase", "no decision during the lag: submit a lag stroke", "phase")
        if seat != self.to_act:
            raise IllegalAction("not_your_turn", f"seat {self.to_act} is to act, not seat {seat}", "player")
        offered = [d["name"] for d in self.legal_actions()["decisions"]]
        if decision not in offered:
            raise IllegalAction("no_such_decision", f"decision: {decision!r} is not on offer (offered: {offered})", "decision")
        self._placed = {}
        ruling = Ruling(seat, [0, 0], list(self.frame["scores"]))
        if decision == D_CHOOSE_BREAKER:
            if arg not in (0, 1) or isinstance(arg, bool):
                raise IllegalAction("bad_argument", f"arg: the breaker is seat 0 or 1, got {arg!r}", "arg")
            self._start_game(int(arg))
            ruling.text = f"Seat {arg} breaks and plays the white"
        elif decision == D_STARTING_SPOT:
            if arg not in ("left", "right"):
                raise IllegalAction("bad_argument", f"arg: starting spot 'left' or 'right', got {arg!r}", "arg")
            cue = self.cue_ball(seat)
            spot = _xy(self.table.starting_spots[arg])
            self.positions[cue] = spot
            self.spot_side = arg
            self._placed[cue] = spot
            ruling.text = f"Cue ball on the {arg} starting spot"
        elif decision == D_PLAY_ON:
            self.phase = PLAY
            self.options = []
            ruling.text = "Play on from the touching position"
        elif decision == D_EXTENSION:
            self.timeouts_left[seat] -= 1
            ruling.extras["extension"] = True
            ruling.text = f"Extension: the shot clock restarts ({self.timeouts_left[seat]} left)"
        elif decision == D_SET_UP:
            touching = self._touching_balls()
            balls = list(BALLS) if self.frozen_setup in ("all", "auto") else [self.cue_ball(seat)] + touching
            self._set_up(balls, seat)
            self._recompute_zones()
            self.phase = PLAY
            self.options = []
            ruling.text = "Balls set up on the spots"
        self._finish_ruling(ruling)
        return ruling

    # ----- strokes -------------------------------------------------------------------------
    def evaluate_stroke(self, player, sim: SimResult) -> dict:
        """What ``sim`` would earn seat ``player`` now, without changing the game.

        Returns ``{"carom": bool, "cushions": n (C6), "both_balls": bool, "fouls": [kinds],
        "zone_foul": zone name or None, "scores": bool, "left": {zone: bool}, "off_table": [ids]}``.
        Raises :class:`IllegalAction` as :meth:`apply_shot`. Used by :meth:`apply_shot` and by
        bots searching for strokes.
        """
        seat = self._require_turn(player, (BREAK, PLAY))
        self._check_sim(sim, self.positions, [self.cue_ball(seat)])
        return self._judge(seat, sim)

    def _judge(self, seat: int, sim: SimResult) -> dict:
        cue = self.cue_ball(seat)
        st = CaromStroke(sim, cue)
        fouls = []
        if st.played_into_touching:
            fouls.append(FOUL_FROZEN)
        if self.break_pending and not st.red_first(self.config["break_red_first"] == "direct"):
            fouls.append(FOUL_BREAK)
        if st.off_table:
            fouls.append(FOUL_OFF_TABLE)
        fouls += [_FLAG_FOULS[f] for f in sim.flags if f in _FLAG_FOULS]
        carom = st.is_carom(self.min_cushions)
        zone_foul = None
        left: Dict[str, bool] = {}
        if carom and not fouls and self.zoneset is not None:
            left = self.zoneset.left_during(sim, st.object_balls, sorted(self.zones))
            zone_foul = self.zoneset.zone_foul(self.zones, left)
            if zone_foul is not None:
                fouls.append(FOUL_ZONE)
        return {"carom": carom, "cushions": st.cushions_before_second(), "fouls": fouls, "zone_foul": zone_foul,
                "both_balls": st.second_ball_time() is not None,
                "scores": carom and not fouls, "left": left, "off_table": sorted(st.off_table)}

    def apply_shot(self, player, call, sim: SimResult) -> Ruling:
        """Rule the simulated stroke ``sim`` of seat ``player`` (C5, C6, C12, C14-C21, C26).

        ``call`` must be None (carom has no call). ``sim`` must start from the layout
        :meth:`prepare_shot` returned, with a strike of the player's cue ball. A scoring stroke
        adds one point and the player continues; any other stroke ends the inning; fouls score
        nothing and leave the balls where they stopped except balls off the table (C18). The
        physics' stroke flags (``sim.flags``: ``double_hit``, ``push``) are K-F5 fouls.
        Raises :class:`IllegalAction` without changing the state.
        """
        return self._guarded(self._apply_shot, player, call, sim)

    def _apply_shot(self, player, call, sim) -> Ruling:
        seat = self._require_turn(player, (BREAK, PLAY))
        self._check_call(call, None)
        self._check_sim(sim, self.positions, [self.cue_ball(seat)])
        verdict = self._judge(seat, sim)
        self._placed = {}
        st = self.stats[seat]
        st["strokes"] += 1
        for f in verdict["fouls"]:
            st["fouls"][f] = st["fouls"].get(f, 0) + 1
        if verdict["zone_foul"] is not None:
            st["zone_fouls"] += 1
        was_zones = dict(self.zones)
        off = set(verdict["off_table"])
        self.positions = {b: _xy(s.r) for b, s in sim.final.items() if b in BALLS and b not in off}
        points = [0, 0]
        ruling = Ruling(seat, points, [0, 0])
        words = []
        foul = verdict["fouls"][0] if verdict["fouls"] else None
        ruling.foul = foul
        ruling.fouls = list(verdict["fouls"])
        ruling.extras.update({"carom": verdict["carom"], "cushions": verdict["cushions"], "zone_foul": verdict["zone_foul"],
                              "break": self.break_pending, "equalizing": self.equalizing})
        if foul is not None:
            names = [FOUL_TEXT[f] for f in verdict["fouls"]]
            if verdict["zone_foul"] is not None:
                names = [f"zone foul: {verdict['zone_foul']} was dentro and no object ball left it"]
            words.append("Foul: " + "; ".join(names) + (", carom not counted" if verdict["carom"] else ""))
        if off:
            striker_next = 1 - seat
            balls = list(BALLS) if self.off_table_setup == "all" else sorted(off)
            self._set_up(balls, striker_next)
        if verdict["scores"]:
            a, b = self.object_balls(seat)
            if self.zoneset is not None:
                self.zones = self.zoneset.after_stroke(was_zones, verdict["left"], self.positions[a], self.positions[b])
            self.break_pending = False
            self.phase = PLAY
            if self.tiebreak is not None:
                self.tiebreak["points"][seat] += 1
                self.run += 1
                words.append(f"Carom: tie-break point ({self.tiebreak['points'][seat]})")
                if self.tiebreak["mode"] == "penalty_shootout":
                    self._tiebreak_next()
                else:
                    self._check_touching()
            else:
                points[seat] = 1
                self.run += 1
                self.frame["scores"][seat] += 1
                st["points"] += 1
                st["caroms"] += 1
                self.frame["high_run"][seat] = max(self.frame["high_run"][seat], self.run)
                st["high_run"] = max(st["high_run"], self.run)
                words.append(f"Carom, 1 point (run {self.run})")
                if not self._after_point():
                    self._check_touching()
        else:
            if foul is None:
                if self.min_cushions and verdict["both_balls"]:
                    words.append(f"No carom: {verdict['cushions']} cushion(s) before the second ball, "
                                 f"{self.min_cushions} needed")
                else:
                    words.append("No carom")
            if self.tiebreak is not None:
                self._tiebreak_next()
            else:
                self._end_inning()
        ruling.text = "; ".join(words)
        self._finish_ruling(ruling)
        return ruling

    def _after_point(self) -> bool:
        """C19/C21 after a point: True when the game, set or inning ended because of the distance."""
        s = self.striker
        p1 = self.frame["starter"]
        p2 = 1 - p1
        if self.frame["scores"][s] < self.target:
            return False
        if self.equalizing:  # the second player equalised (C19): draw
            self.equalizing = False
            self._frame_tied("equalizing inning: distance reached by both")
            return True
        if s == p2:
            self._frame_won(p2, "distance")
            return True
        if self._equalizing_due():
            self.equalizing = True
            self._begin_inning(p2, opening=True)
            return True
        self._frame_won(p1, "distance")
        return True

    def _equalizing_due(self) -> bool:
        """C19 (no sets: ``equalizing_inning``) and C21 (sets: only with ``first_inning_only``
        when the starter won the set in his first inning)."""
        if self.config["sets"] is None:
            return self.config["equalizing_inning"]
        return self.config["set_equalizing"] == "first_inning_only" and self.frame["innings"][self.frame["starter"]] == 1

    def _end_inning(self) -> None:
        """The striker's inning ended without reaching the distance (C19, C20)."""
        s = self.striker
        p1 = self.frame["starter"]
        p2 = 1 - p1
        self._maybe_offer_rest()
        if self.equalizing:
            self.equalizing = False
            self._frame_won(p1, "equalizing inning ended below the distance")
            return
        limit = self.config["inning_limit"]
        if limit is not None:
            if s == p2 and self.frame["innings"][p2] >= limit:
                self._frame_by_score("inning limit")
                return
            if s == p1 and self.frame["innings"][p1] >= limit and self.config["limit_last_inning"] == "from_opening_position":
                self.last_inning = True
                self._begin_inning(p2, opening=True)
                return
        self._begin_inning(1 - s, opening=False)

    def _maybe_offer_rest(self) -> None:
        """C22: offer the optional rest once, at the end of an inning, at half distance (or half the
        inning limit) with at least 15 innings each."""
        if self.rest_offered or self.config["sets"] is not None:
            return
        inn = self.frame["innings"]
        if min(inn) < 15 or inn[0] != inn[1]:
            return
        half = max(self.frame["scores"]) * 2 >= self.target
        limit = self.config["inning_limit"]
        if limit is not None and inn[0] * 2 >= limit:
            half = True
        if half:
            self.rest_offered = True
            self._rest_now = True

    def _frame_by_score(self, reason: str) -> None:
        sc = self.frame["scores"]
        if sc[0] == sc[1]:
            self._frame_tied(reason)
        else:
            self._frame_won(0 if sc[0] > sc[1] else 1, reason)

    def _record_frame(self, winner: Optional[int], reason: str) -> None:
        f = plain_copy(self.frame)
        f["winner"] = winner
        f["reason"] = reason
        self.frames.append(f)

    def _frame_won(self, winner: int, reason: str) -> None:
        self._record_frame(winner, reason)
        sets = self.config["sets"]
        if sets is None:
            self._finish(winner, reason)
            return
        self.sets_won[winner] += 1
        if self.sets_won[winner] >= sets["sets_to_win"]:
            self._finish(winner, "sets")
            return
        stw = sets["sets_to_win"]
        if not self.rest_offered and ((stw == 2 and self.sets_won == [1, 1]) or (stw == 3 and sorted(self.sets_won) in ([0, 2], [1, 2]))):
            self.rest_offered = True
            self._rest_now = True
        self._next_frame()

    def _frame_tied(self, reason: str) -> None:
        if self.config["sets"] is not None:
            # a set cannot be drawn: it is replayed (INTERPRETATION; only possible with first_inning_only)
            self._record_frame(None, reason)
            self._next_frame()
            return
        mode = self.config["draw_resolution"]
        if mode == "draw":
            self._record_frame(None, reason)
            self._finish(None, reason)
            return
        p1 = self.frame["starter"]
        self.tiebreak = {"mode": mode, "round": 1, "points": [0, 0], "order": [p1, 1 - p1], "turn": 0, "rounds": []}
        self._begin_inning(p1, opening=True)

    def _tiebreak_next(self) -> None:
        """``draw_resolution`` (C19): rounds of one inning (``extra_inning``) or one stroke
        (``penalty_shootout``) each from the opening position, the starter first; a round with
        different points decides."""
        tb = self.tiebreak
        tb["turn"] += 1
        if tb["turn"] < 2:
            self._begin_inning(tb["order"][tb["turn"]], opening=True)
            return
        pts = tb["points"]
        tb["rounds"].append(list(pts))
        if pts[0] != pts[1]:
            winner = 0 if pts[0] > pts[1] else 1
            self._record_frame(winner, f"tie-break ({tb['mode']})")
            self._finish(winner, f"tie-break ({tb['mode']})")
            return
        tb["round"] += 1
        tb["points"] = [0, 0]
        tb["turn"] = 0
        self._begin_inning(tb["order"][0], opening=True)

    def _next_frame(self) -> None:
        """C21: the next set from the opening position; the first breaker breaks odd sets."""
        index = self.frame["index"] + 1
        breaker = self.white_seat if index % 2 == 1 else 1 - self.white_seat
        self.frame = self._new_frame(index, breaker)
        self.equalizing = False
        self.last_inning = False
        self._begin_inning(breaker, opening=True)

    def _finish(self, winner: Optional[int], reason: str) -> None:
        self.phase = OVER
        self.options = []
        self.zones = {}
        self.result = self._result(winner, reason)

    def _result(self, winner: Optional[int], reason: str) -> dict:
        st = self.stats
        res = {
            "winner": winner,
            "draw": winner is None,
            "reason": reason,
            "scores": list(self.frame["scores"]),
            "innings": list(self.frame["innings"]),
            "points": [st[0]["points"], st[1]["points"]],
            "innings_total": [st[0]["innings"], st[1]["innings"]],
            "averages": [self._avg(st[s]["points"], st[s]["innings"]) for s in (0, 1)],
            "high_runs": [st[0]["high_run"], st[1]["high_run"]],
            "white_seat": self.white_seat,
        }
        if self.config["sets"] is not None:
            res["sets_won"] = list(self.sets_won)
            res["sets"] = [list(f["scores"]) for f in self.frames]
            res["set_innings"] = [list(f["innings"]) for f in self.frames]
            # C26 over a match: general average (all sets) and best set average
            res["general_average"] = list(res["averages"])
            res["best_set_average"] = [max([self._avg(f["scores"][s], f["innings"][s]) for f in self.frames] or [0.0])
                                       for s in (0, 1)]
        if self.tiebreak is not None:
            res["tiebreak"] = {"mode": self.tiebreak["mode"], "rounds": plain_copy(self.tiebreak["rounds"])}
        return res

    @staticmethod
    def _avg(points: int, innings: int) -> float:
        return round(points / innings, 3) if innings else 0.0

    # ----- shot clock, forfeit -------------------------------------------------------------
    def apply_timeout(self, player) -> Ruling:
        """C24: the shot clock of the seat to act expired (the server owns the clock; a player
        extends it with the ``EXTENSION`` decision while time-outs last). Foul K-F13: no point,
        the inning ends, balls stay. Raises :class:`IllegalAction` (``no_shot_clock``,
        ``not_your_turn``, ...).
        """
        return self._guarded(self._apply_timeout, player)

    def _apply_timeout(self, player) -> Ruling:
        if self.config["shot_clock"] is None:
            raise IllegalAction("no_shot_clock", "this game has no shot clock", "shot_clock")
        seat = self._require_turn(player, self.CLOCK_PHASES)
        self._placed = {}
        ruling = Ruling(seat, [0, 0], [0, 0])
        ruling.foul = FOUL_SHOT_CLOCK
        ruling.fouls = [FOUL_SHOT_CLOCK]
        fouls = self.stats[seat]["fouls"]
        fouls[FOUL_SHOT_CLOCK] = fouls.get(FOUL_SHOT_CLOCK, 0) + 1
        ruling.text = "Foul: shot clock expired"
        if self.tiebreak is not None:
            self._tiebreak_next()
        else:
            self._end_inning()
        self._finish_ruling(ruling)
        return ruling

    def apply_serious_foul(self, player, penalty=None, loss_of_game=False) -> Ruling:
        """K-F9 (REF): a moderator rules a deliberate foul by seat ``player``.

        Carom has no penalty points (C17), so ``penalty`` must be None or 0. ``loss_of_game``
        (an event rule): the opponent wins the game at once. Otherwise, when ``player`` is the
        seat to play, his inning ends with no point and the balls stay (C17); when it is not,
        the foul is only recorded. Raises :class:`IllegalAction` (``bad_phase`` during the lag,
        ``bad_arg``, ``bad_player``, ``game_over``) without changing the state.
        """
        return self._guarded(self._apply_serious_foul, player, penalty, loss_of_game)

    def _apply_serious_foul(self, player, penalty, loss_of_game) -> Ruling:
        if self.phase == OVER:
            raise IllegalAction("game_over", "the game is over")
        seat = _seat(player)
        if self.phase == LAG:
            raise IllegalAction("bad_phase", "no foul can be ruled during the lag", "phase")
        if penalty not in (None, 0) or isinstance(penalty, bool):
            raise IllegalAction("bad_arg", f"penalty: carom has no penalty points, got {penalty!r}", "penalty")
        if not isinstance(loss_of_game, bool):
            raise IllegalAction("bad_arg", f"loss_of_game: expected true or false, got {loss_of_game!r}", "loss_of_game")
        self._placed = {}
        fouls = self.stats[seat]["fouls"]
        fouls[FOUL_DELIBERATE] = fouls.get(FOUL_DELIBERATE, 0) + 1
        ruling = Ruling(seat, [0, 0], [0, 0], foul=FOUL_DELIBERATE, fouls=[FOUL_DELIBERATE])
        if loss_of_game:
            reason = "deliberate foul: loss of the game"
            self._record_frame(1 - seat, reason)
            self._finish(1 - seat, reason)
            ruling.text = f"Foul: deliberate foul by seat {seat}, loss of the game"
        elif self.phase in (BREAK, PLAY, DECISION) and self.striker == seat:
            ruling.text = f"Foul: deliberate foul by seat {seat}; the inning ends"
            if self.tiebreak is not None:
                self._tiebreak_next()
            else:
                self._end_inning()
        else:
            ruling.text = f"Foul: deliberate foul by seat {seat} (recorded)"
        self._finish_ruling(ruling)
        return ruling

    def apply_forfeit(self, player, reason: str = "forfeit") -> Ruling:
        """Seat ``player`` resigns or abandons (C22: forfeit policy): the other seat wins the game."""
        return self._guarded(self._apply_forfeit, player, reason)

    def _apply_forfeit(self, player, reason) -> Ruling:
        if self.phase == OVER:
            raise IllegalAction("game_over", "the game is over")
        seat = _seat(player)
        self._placed = {}
        self._record_frame(1 - seat, f"forfeit: {reason}")
        self._finish(1 - seat, f"forfeit: {reason}")
        ruling = Ruling(seat, [0, 0], [0, 0], text=f"Seat {seat} forfeits ({reason}); seat {1 - seat} wins")
        self._finish_ruling(ruling)
        return ruling

    # ----- ruling and scoreboard -----------------------------------------------------------
    def _finish_ruling(self, ruling: Ruling) -> None:
        ruling.scores = list(self.frame["scores"])
        ruling.placed = dict(self._placed)
        ruling.next_player = self.to_act
        ruling.options = [d["name"] for d in self.legal_actions()["decisions"]]
        ruling.game_over = self.over
        ruling.winner = self.result["winner"] if self.result else None
        ruling.extras["phase"] = self.phase
        ruling.extras["run"] = self.run
        ruling.extras["innings"] = list(self.frame["innings"])
        ruling.extras["zones"] = dict(self.zones)
        ruling.extras["announce"] = self.announce()
        if self.config["sets"] is not None:
            ruling.extras["sets_won"] = list(self.sets_won)
            ruling.extras["set"] = self.frame["index"]
        if self.result is not None:
            ruling.extras["result"] = plain_copy(self.result)
        if self._rest_now:
            ruling.extras["rest_offered"] = True
            self._rest_now = False
        self._placed = {}
        if self.over:
            w = ruling.winner
            tail = "draw" if w is None else f"seat {w} wins"
            sc = self.result["scores"]
            ruling.text = (ruling.text + "; " if ruling.text else "") + f"Game over: {tail} {sc[0]}-{sc[1]}"

    def announce(self) -> List[str]:
        """The zone call before the next stroke (C12 item 5), e.g. ``["entran"]``; [] when none."""
        if self.zoneset is None or self.phase not in (BREAK, PLAY, DECISION):
            return []
        a, b = self.object_balls(self.striker)
        return self.zoneset.announce(self.zones, self.positions[a], self.positions[b])

    def scoreboard(self) -> dict:
        """Scores, innings, run, averages, high runs, fouls, zone states and sets (C26).

        Shape: ``{"discipline", "phase", "striker", "white_seat", "distance", "scores": [a, b],
        "innings": [a, b], "inning": n, "run", "high_run": [a, b], "average": [a, b],
        "fouls_in_row": [0, 0], "fouls": [{kind: n}, ...], "zone_fouls": [a, b], "zones":
        {zone: "in"|"inside"}, "announce": [...], "equalizing": bool, "sets": None or
        {"sets_to_win", "won", "set", "frames": [[a, b], ...]}, "match": {"points", "innings",
        "average", "high_run"}, "tiebreak", "frozen": see :meth:`frozen`}``.
        """
        f = self.frame
        st = self.stats
        sets = self.config["sets"]
        return {
            "discipline": self.discipline,
            "phase": self.phase,
            "striker": None if self.phase in (LAG, CHOOSE_BREAKER, OVER) else self.striker,
            "white_seat": self.white_seat,
            "distance": self.target,
            "scores": list(f["scores"]),
            "innings": list(f["innings"]),
            "inning": f["innings"][self.striker],
            "run": self.run,
            "high_run": list(f["high_run"]),
            "average": [self._avg(f["scores"][s], f["innings"][s]) for s in (0, 1)],
            "fouls_in_row": [0, 0],
            "fouls": [dict(st[0]["fouls"]), dict(st[1]["fouls"])],
            "zone_fouls": [st[0]["zone_fouls"], st[1]["zone_fouls"]],
            "zones": dict(self.zones),
            "announce": self.announce(),
            "equalizing": self.equalizing,
            "sets": None if sets is None else {"sets_to_win": sets["sets_to_win"], "won": list(self.sets_won),
                                                 "set": f["index"], "frames": [list(x["scores"]) for x in self.frames]},
            "match": {
                "points": [st[0]["points"], st[1]["points"]],
                "innings": [st[0]["innings"], st[1]["innings"]],
                "average": [self._avg(st[s]["points"], st[s]["innings"]) for s in (0, 1)],
                "high_run": [st[0]["high_run"], st[1]["high_run"]],
            },
            "tiebreak": plain_copy(self.tiebreak),
            "frozen": self.frozen(),
        }

    def frozen(self) -> List[list]:
        """K6, published before each stroke: touching pairs of the layout now, ``[[ball, ball or
        cushion name], ...]`` sorted (empty during the lag and when over)."""
        if self.phase in (LAG, OVER):
            return []
        pairs = frozen_pairs(self.table, self.positions)
        return sorted(([a, b] for a, b in pairs), key=lambda p: (p[0], str(p[1])))

    def table_zones(self) -> List[dict]:
        """The zone polygons of this game for drawing (empty for the cushion games)."""
        return [] if self.zoneset is None else self.zoneset.to_json()
