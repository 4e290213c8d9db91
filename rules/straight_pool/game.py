"""The 14.1 game: state, queries, validation, the stroke, its scoring outcomes and the decisions.

:class:`StraightPool` is the referee of rules/README.md for ``straight_pool`` (the package
docstring, :mod:`rules.straight_pool`, gives the phases, calls, decisions, ruling extras and foul
kinds). Its concepts live beside it: :mod:`~rules.straight_pool.config` (section C),
:mod:`~rules.straight_pool.stroke` (what a stroke's log says), :mod:`~rules.straight_pool.fouls`
(R6, R12, R15-R17), :mod:`~rules.straight_pool.rack` (R4, R18, R21-R23),
:mod:`~rules.straight_pool.near_rail` (R24) and :mod:`~rules.straight_pool.lag` (R3).
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence

from physics.events import SimResult
from physics.table import Table, Vec2, get_table
from rules.base import GameBase, IllegalAction, Ruling, as_xy, plain_copy
from rules.spotting import behind_head_string, kitchen_x_max, overlaps_any, surface_fault
from rules.straight_pool.config import (
    CUE,
    SAME_POS,
    SEAT_NAMES,
    SPOT_REQUEST_TIE,
    STANDING_RIGHTS,
    STROKE_PHASES,
    TABLE_PRESETS,
    normalize_config,
    offer,
    opponent,
    stalemate_innings,
)
from rules.straight_pool.fouls import FoulRulings, stroke_flag_fouls
from rules.straight_pool.lag import Lag
from rules.straight_pool.near_rail import NearRail
from rules.straight_pool.rack import Racks
from rules.straight_pool.stroke import StrokeFacts


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



class StraightPool(Lag, Racks, NearRail, FoulRulings, GameBase):
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
            "config": plain_copy(self.config),
            "seed": self.seed,
            "rng_count": self.rng_count,
            "phase": self.phase,
            "to_act": self.to_act,
            "balls": {str(b): [p[0], p[1]] for b, p in sorted(self.balls.items())},
            "in_hand": self.in_hand,
            "scores": list(self.scores),
            "fouls_in_row": list(self.fouls_in_row),
            "pending": plain_copy(self.pending),
            "shooter": self.shooter,
            "run": self.run,
            "inning_clean": self.inning_clean,
            "stalemate_count": self.stalemate_count,
            "offer_blocked": self.offer_blocked,
            "stats": plain_copy(self.stats),
            "near_rail": plain_copy(self.near_rail),
            "rack_number": self.rack_number,
            "rack_points": list(self.rack_points),
            "strokes": self.strokes,
            "extensions": list(self.extensions),
            "result": plain_copy(self.result),
        }

    def _load(self, d: Mapping) -> None:
        self.config = normalize_config(d["config"])
        self.table = get_table(TABLE_PRESETS[str(self.config["table"])])
        self.seed = int(d["seed"])
        self.rng_count = int(d["rng_count"])
        self.phase = str(d["phase"])
        self.to_act = d["to_act"]
        self.balls = {int(b): as_xy(p) for b, p in d["balls"].items()}
        self.in_hand = d["in_hand"]
        self.scores = [int(x) for x in d["scores"]]
        self.fouls_in_row = [int(x) for x in d["fouls_in_row"]]
        self.pending = plain_copy(d["pending"])
        self.shooter = d["shooter"]
        self.run = int(d["run"])
        self.inning_clean = bool(d["inning_clean"])
        self.stalemate_count = int(d["stalemate_count"])
        self.offer_blocked = bool(d["offer_blocked"])
        self.stats = plain_copy(d["stats"])
        self.near_rail = plain_copy(d["near_rail"])
        self.rack_number = int(d["rack_number"])
        self.rack_points = [int(x) for x in d["rack_points"]]
        self.strokes = int(d["strokes"])
        self.extensions = [int(x) for x in d["extensions"]]
        self.result = plain_copy(d["result"])


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

    def scores_now(self) -> List[int]:
        return list(self.scores)

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

    # ----- phase changes -----------------------------------------------------------------
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
        """Raises :class:`IllegalAction` ``game_over`` once the game is over."""
        if self.phase == "over":
            raise IllegalAction("game_over", "the game is over")

    def _acting_player(self, player) -> int:
        """The start of an action by ``player``: the game is on and ``player`` is seat 0 or 1 (returned)."""
        self._check_open()
        if isinstance(player, bool) or player not in (0, 1):
            raise IllegalAction("bad_player", f"player: expected seat 0 or 1, got {player!r}", "player")
        return int(player)

    def _check_shooter(self, player) -> int:
        p = self._acting_player(player)
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
        (``rules.spotting.surface_fault``: ``Table.on_bed`` and ``physics.simulate.on_playing_surface``), x < L/4 - eps,
        not overlapping a ball (``rules.spotting.overlaps_any``)."""
        if not isinstance(pos, (list, tuple)) or len(pos) != 2:
            raise IllegalAction("bad_placement", "cue_ball_position: expected [x, y] in metres", "cue_ball_position")
        try:
            x, y = float(pos[0]), float(pos[1])
        except (TypeError, ValueError):
            raise IllegalAction("bad_placement", "cue_ball_position: x and y must be numbers", "cue_ball_position") from None
        if surface_fault(self.table, (x, y)) is not None:
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
            self._acting_player(player)
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
        start = {b: as_xy(s.r) for b, s in sim.initial.items()}
        expected = set(self.balls) | {CUE}
        if set(start) != expected:
            raise IllegalAction("layout_mismatch", "sim: the simulated balls are not the balls on the table", "sim")
        for b, p in self.balls.items():
            q = start[b]
            if abs(p[0] - q[0]) > SAME_POS or abs(p[1] - q[1]) > SAME_POS:
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
        flag_fouls = stroke_flag_fouls(flags, sim, self.config["scoop_is_foul"])
        start = self._check_sim(sim)
        facts = StrokeFacts(sim, start, p, self.in_hand, self._restricted_rails)
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

    def _rule_break(self, p: int, call, facts: StrokeFacts, fouls: List[str]) -> Ruling:
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

    def _rule_stroke(self, p: int, call, facts: StrokeFacts, fouls: List[str]) -> Ruling:
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

    def _fulfilled(self, p: int, call: dict, facts: StrokeFacts, extras: dict) -> Ruling:
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
                f"Scored {n} ({what}): {SEAT_NAMES[p]} wins {self.scores[p]} to {self.scores[opponent(p)]}",
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

    def _not_fulfilled(self, p: int, call, facts: StrokeFacts, extras: dict) -> Ruling:
        """R10 miss / R11 safety / legal break without a made call: nothing scores, the turn passes."""
        q = opponent(p)
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
        st = self.stats
        # R25/R27 statistics over the game, under the same keys as the carom result (rules/carom/)
        self.result = {
            "winner": winner,
            "scores": list(self.scores),
            "reason": reason,
            "points": [st[0]["points"], st[1]["points"]],
            "innings_total": [st[0]["innings"], st[1]["innings"]],
            "high_runs": [st[0]["high_run"], st[1]["high_run"]],
            "averages": [round(st[s]["points"] / st[s]["innings"], 4) if st[s]["innings"] else 0.0 for s in (0, 1)],
        }

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
            n = stalemate_innings(str(self.config["stalemate"]))
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
        p = self._acting_player(player)
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
        q = opponent(p)
        pend = self.pending
        if decision == "CHOOSE_BREAKER":
            rerack = self._rerack_to_break(int(arg))
            r = self._ruling(p, [0, 0], f"{SEAT_NAMES[p]} chooses {SEAT_NAMES[int(arg)]} to break", extras={"decision": decision})
            r.rerack = rerack
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
            rerack = self._rerack_to_break(off)
            r = self._ruling(
                p,
                [0, 0],
                f"{SEAT_NAMES[p]} has all fifteen re-racked: {SEAT_NAMES[off]} breaks again"
                if decision == "REQUIRE_REBREAK"
                else f"{SEAT_NAMES[p]} has all fifteen re-racked: {SEAT_NAMES[off]} breaks",
                rerack=rerack,
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
                offer("ACCEPT_STALEMATE", "DECLINE_STALEMATE"),
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
    def apply_forfeit(self, player, reason="resigned") -> Ruling:
        """``player`` resigns or abandons: the game is over and the opponent wins."""
        return self._guarded(self._apply_forfeit, player, reason)

    def _apply_forfeit(self, player, reason) -> Ruling:
        p = self._acting_player(player)
        q = opponent(p)
        self._game_over(q, f"forfeit: {reason}")
        return self._finish(
            self._ruling(p, [0, 0], f"{SEAT_NAMES[p]} forfeits ({reason}): {SEAT_NAMES[q]} wins", game_over=True, winner=q)
        )

    @property
    def state(self) -> dict:
        """Alias of :meth:`to_state` (DESIGN.md calls it ``game.state``)."""
        return self.to_state()
