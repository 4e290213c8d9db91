# cython: annotation_typing=False
"""The carom game: state, what may be done now, the break and set-ups, decisions, strokes and rulings.

:class:`CaromGame` is the referee of rules/README.md for one carom discipline (the package
docstring, :mod:`rules.carom`, gives the whole picture). Its concepts live beside it:
:mod:`~rules.carom.config` (section C), :mod:`~rules.carom.stroke` (what a stroke's log says,
C6), :mod:`~rules.carom.fouls` (C17), :mod:`~rules.carom.match` (C19-C22, C26) and
:mod:`~rules.carom.lag` (C4). This module keeps the break (C5), touching balls and set-ups
(C15, C16), the decisions, the stroke's ruling and the scoreboard.
"""

from __future__ import annotations

import hashlib
import math
from typing import Dict, List, Mapping, Optional, Tuple

from physics.events import SimResult
from physics.table import get_table
from rules.base import GameBase, IllegalAction, Ruling, as_xy, frozen_pairs, plain_copy
from rules.carom.config import (BALLS, BREAK, CHOOSE_BREAKER, D_CHOOSE_BREAKER, D_EXTENSION, D_PLAY_ON, D_SET_UP,
                                D_STARTING_SPOT, DECISION, DELTA_SPOT, LAG, OVER, PLAY, POSITION_TOL, RED, WHITE, YELLOW,
                                carom_config, check_seat)
from rules.carom.fouls import FOUL_TEXT, FOUL_ZONE, CaromFouls, stroke_fouls
from rules.carom.lag import Lag
from rules.carom.match import MatchFormat
from rules.carom.stroke import CaromStroke
from rules.zones import ZoneSet


class CaromGame(Lag, MatchFormat, CaromFouls, GameBase):
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
        game.positions = {int(b): as_xy(p) for b, p in d["layout"].items()}
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
        (seat s lags ball s). Decisions: ``CHOOSE_BREAKER``, ``STARTING_SPOT`` (at a break; its one arg the spot
        the cue ball is not on),
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
            if self.phase == BREAK:  # the other spot than the cue ball's (C5: the breaker's choice, which may change)
                out["decisions"].append({"name": D_STARTING_SPOT, "args": ["left" if self.spot_side == "right" else "right"]})
        elif self.phase == CHOOSE_BREAKER:
            out["decisions"].append({"name": D_CHOOSE_BREAKER, "args": [0, 1]})
        elif self.phase == DECISION:
            out["decisions"].extend({"name": o, "args": []} for o in self.options)
        if self.phase in (BREAK, PLAY, DECISION) and self.config["shot_clock"] and self.timeouts_left[self.striker] > 0:
            out["decisions"].append({"name": D_EXTENSION, "args": []})
        return out

    # ----- the guard every action starts with -------------------------------------------------
    def _check_open(self) -> None:
        """Raises :class:`IllegalAction` ``game_over`` once the game is over."""
        if self.phase == OVER:
            raise IllegalAction("game_over", "the game is over")

    def _acting_seat(self, player, lag_refusal: Optional[str] = None) -> int:
        """The start of an action by ``player``: the game is on, ``player`` is seat 0 or 1 (returned)
        and, with ``lag_refusal``, the lag is over (else ``bad_phase`` with that message); the balls
        placed by the previous action are forgotten."""
        self._check_open()
        seat = check_seat(player)
        if lag_refusal is not None and self.phase == LAG:
            raise IllegalAction("bad_phase", lag_refusal, "phase")
        self._placed = {}
        return seat

    def _require_turn(self, player, phases: Tuple[str, ...]) -> int:
        """:meth:`_acting_seat`, and the phase is one of ``phases`` and ``player`` is to act (anyone in the lag)."""
        seat = self._acting_seat(player)
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
        self.positions = {RED: as_xy(t.top_spot), other: as_xy(t.bottom_spot), cue: as_xy(t.starting_spots["right"])}
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
        spots = {RED: as_xy(t.top_spot), cue: as_xy(t.bottom_spot), (WHITE if cue == YELLOW else YELLOW): as_xy(t.centre_spot)}
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
        ``STARTING_SPOT`` (arg ``left`` or ``right``, the spot the cue ball is not on; the breaker, C5), ``PLAY_ON`` / ``SET_UP``
        (touching balls, C15-C16), ``EXTENSION`` (shot clock, C24). Raises :class:`IllegalAction` (``no_such_decision``,
        ``bad_argument``, ``not_your_turn``, ...) without changing the state.
        """
        return self._guarded(self._apply_decision, player, decision, arg)

    def _apply_decision(self, player, decision, arg) -> Ruling:
        seat = self._acting_seat(player, "no decision during the lag: submit a lag stroke")
        if seat != self.to_act:
            raise IllegalAction("not_your_turn", f"seat {self.to_act} is to act, not seat {seat}", "player")
        offered = [d["name"] for d in self.legal_actions()["decisions"]]
        if decision not in offered:
            raise IllegalAction("no_such_decision", f"decision: {decision!r} is not on offer (offered: {offered})", "decision")
        ruling = Ruling(seat, [0, 0], list(self.frame["scores"]))
        if decision == D_CHOOSE_BREAKER:
            if arg not in (0, 1) or isinstance(arg, bool):
                raise IllegalAction("bad_argument", f"arg: the breaker is seat 0 or 1, got {arg!r}", "arg")
            self._start_game(int(arg))
            ruling.text = f"Seat {arg} breaks and plays the white"
        elif decision == D_STARTING_SPOT:
            if arg not in ("left", "right"):
                raise IllegalAction("bad_argument", f"arg: starting spot 'left' or 'right', got {arg!r}", "arg")
            if arg == self.spot_side:
                raise IllegalAction("bad_argument", f"arg: the cue ball is on the {arg} starting spot already", "arg")
            cue = self.cue_ball(seat)
            spot = as_xy(self.table.starting_spots[arg])
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
        return self._finish_ruling(ruling)

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
        fouls = stroke_fouls(st, sim.flags, self.break_pending, self.config["break_red_first"] == "direct")
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
        st = self.stats[seat]
        st["strokes"] += 1
        for f in verdict["fouls"]:
            self._count_foul(seat, f)
        if verdict["zone_foul"] is not None:
            st["zone_fouls"] += 1
        was_zones = dict(self.zones)
        off = set(verdict["off_table"])
        self.positions = {b: as_xy(s.r) for b, s in sim.final.items() if b in BALLS and b not in off}
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
            self._inning_over()
        ruling.text = "; ".join(words)
        return self._finish_ruling(ruling)

    # ----- shot clock, forfeit -------------------------------------------------------------
    def apply_forfeit(self, player, reason: str = "forfeit") -> Ruling:
        """Seat ``player`` resigns or abandons (C22: forfeit policy): the other seat wins the game."""
        return self._guarded(self._apply_forfeit, player, reason)

    def _apply_forfeit(self, player, reason) -> Ruling:
        seat = self._acting_seat(player)
        self._record_frame(1 - seat, f"forfeit: {reason}")
        self._finish(1 - seat, f"forfeit: {reason}")
        ruling = Ruling(seat, [0, 0], [0, 0], text=f"Seat {seat} forfeits ({reason}); seat {1 - seat} wins")
        return self._finish_ruling(ruling)

    # ----- ruling and scoreboard -----------------------------------------------------------
    def _finish_ruling(self, ruling: Ruling) -> Ruling:
        """The end of every action: the ruling's next-state fields filled in from the game (returned)."""
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
        return ruling

    def announce(self) -> List[str]:
        """The zone call before the next stroke (C12 item 5), e.g. ``["entran"]``; [] when none."""
        if self.zoneset is None or self.phase not in (BREAK, PLAY, DECISION):
            return []
        a, b = self.object_balls(self.striker)
        return self.zoneset.announce(self.zones, self.positions[a], self.positions[b])

    def scores_now(self) -> List[int]:
        return list(self.frame["scores"])

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
