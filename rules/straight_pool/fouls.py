"""14.1 fouls: their kinds and words, which one is charged (R15), and the foul rulings.

Standard fouls (R12 F1-F9: -1, counted by R16), the breaking foul (R6: -2, the opponent chooses),
the warning after a second successive foul and the third successive foul (R16: -1 and -15 more,
re-rack or the opponent's option), the shot-clock foul (F9) and the referee's serious foul (R17).
:class:`FoulRulings` is a part of :class:`rules.straight_pool.game.StraightPool`: it reads and
writes the game's state (scores, ``fouls_in_row``, statistics, balls, phase) and uses the
game's phase changes (``_end_inning``, ``_decide``, ``_start_break``), spotting (``_spot``) and
ruling helpers (``_ruling``, ``_finish``).
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Sequence

from physics.events import SimResult
from physics.table import Vec2
from rules.base import IllegalAction, Ruling
from rules.straight_pool.config import CUE, SEAT_NAMES, offer, opponent
from rules.straight_pool.stroke import StrokeFacts

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
#: the warning after a player's second successive standard foul (R16; WPA 4.11: the player on two
#: fouls must be warned, a third costs 15 more points), as ``Ruling.warning`` and in its text
WARNING_TWO_FOULS = "two_fouls"
TWO_FOULS_TEXT = "is on two successive fouls: a third costs 15 more points"
# stroke flags the physics or the cue model may report (D8, R12 F6-F8)
STROKE_FLAGS = {"double_hit": "double_hit", "push": "push", "scoop": "scoop", "cue_touch": "touched_ball"}


def main_foul(fouls: Sequence[str]) -> str:
    """R15: the foul charged when several happen on one stroke."""
    for f in IN_HAND_FOULS + OTHER_FOULS:
        if f in fouls:
            return f
    return fouls[0]


def stroke_flag_fouls(flags: Iterable[str], sim, scoop_is_foul: bool) -> List[str]:
    """The fouls (R12 F6-F8) of the stroke flags the cue model reports (``flags``) and the physics
    gives (``sim.flags`` when ``sim`` is a SimResult), each once, in that order; ``scoop`` only when
    ``scoop_is_foul``. Raises :class:`IllegalAction` ``bad_flag`` for an unknown flag."""
    out: List[str] = []
    for f in tuple(flags or ()) + tuple(sim.flags if isinstance(sim, SimResult) else ()):
        if f not in STROKE_FLAGS:
            raise IllegalAction("bad_flag", f"flags: unknown stroke flag {f!r}", "flags")
        if f == "scoop" and not scoop_is_foul:
            continue
        if STROKE_FLAGS[f] not in out:
            out.append(STROKE_FLAGS[f])
    return out


class FoulRulings:
    """The foul outcomes of :class:`rules.straight_pool.game.StraightPool` (R6, R12, R15-R17)."""

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

    def _foul_ruling(self, p: int, penalty: int, text: str, foul: str, fouls: List[str], extras: dict, **kw) -> Ruling:
        """The ruling of a foul by ``p`` that cost ``penalty`` points (``kw``: further Ruling fields)."""
        pts = [0, 0]
        pts[p] = -penalty
        return self._ruling(p, pts, text, foul=foul, fouls=fouls, penalty=penalty, extras=extras, **kw)

    def _balls_after_foul(self, facts: StrokeFacts, lift_cue: bool) -> Dict[int, Vec2]:
        """The balls as the fouled stroke left them, the cue ball lifted when the opponent gets it in
        hand (``lift_cue``), the pocketed and off-table object balls spotted (R12, R18, R20);
        returns the spotted balls."""
        self.balls = dict(facts.resting)
        if lift_cue:
            self.balls.pop(CUE, None)
        return self._spot(facts.to_spot())

    def _breaking_foul(self, p: int, facts: StrokeFacts, fouls: List[str], extras: dict) -> Ruling:
        """R6: -2, not a standard foul (R16 counter unchanged); the opponent chooses."""
        q = opponent(p)
        penalty = self._penalise(p, breaking=2)
        self.stats[p]["breaking_fouls"] += 1
        self._count_foul_stats(p, fouls)
        spotted = self._balls_after_foul(facts, False)
        self._end_inning()
        self._decide(q, "breaking_foul", offer("ACCEPT_TABLE", "REQUIRE_REBREAK"), offender=p, cue_in_hand=CUE not in self.balls)
        return self._foul_ruling(p, penalty, f"Breaking foul, -2: {SEAT_NAMES[q]} chooses", "breaking_foul", fouls, extras,
                                 spotted=spotted)

    def _standard_foul(self, p: int, facts: StrokeFacts, fouls: List[str], extras: dict) -> Ruling:
        """R12 with R15 (one penalty) and R16: the second successive foul carries the warning
        (:data:`WARNING_TWO_FOULS`, named in the text), the third is :meth:`_third_foul`."""
        q = opponent(p)
        main = main_foul(fouls)
        self._count_foul_stats(p, fouls)
        in_hand = any(f in IN_HAND_FOULS for f in fouls)
        if self.fouls_in_row[p] + 1 >= 3:
            return self._third_foul(p, main, facts, fouls, in_hand, extras)
        penalty = self._penalise(p, standard=1)
        self.fouls_in_row[p] += 1
        spotted = self._balls_after_foul(facts, in_hand)
        self.in_hand = "kitchen" if CUE not in self.balls else None
        self._end_inning()
        self.phase = "play"
        self.to_act = q
        self.pending = None
        self._reset_near_rail(p)
        tail = f"; {SEAT_NAMES[q]} has ball in hand behind the head string" if self.in_hand else f"; {SEAT_NAMES[q]} to shoot"
        warning = None
        if self.fouls_in_row[p] == 2:
            warning = WARNING_TWO_FOULS
            tail += f"; {SEAT_NAMES[p]} {TWO_FOULS_TEXT}"
        return self._foul_ruling(p, penalty, f"Foul: {FOUL_TEXT[main]}, -1{tail}", main, fouls, extras, spotted=spotted,
                                 warning=warning)

    def _third_foul(self, p: int, main: str, facts: StrokeFacts, fouls: List[str], in_hand: bool, extras: dict) -> Ruling:
        """R16: the third successive standard foul costs -1 and 15 more, the counter goes back to 0, and
        all fifteen are re-racked for ``p`` to break (``mandatory_rebreak``) or the opponent chooses
        (``opponent_option``: the table as it lies after spotting, or the re-rack)."""
        q = opponent(p)
        penalty = self._penalise(p, standard=1, serious=15)
        self.fouls_in_row[p] = 0
        self._end_inning()
        head = f"Third successive foul ({FOUL_TEXT[main]}), -16"
        all_fouls = fouls + ["third_successive_foul"]
        if self.config["three_foul_mode"] == "mandatory_rebreak":
            rerack = self._rerack_to_break(p)
            return self._foul_ruling(p, penalty, f"{head}: all fifteen re-racked, {SEAT_NAMES[p]} breaks",
                                     "third_successive_foul", all_fouls, extras, rerack=rerack)
        spotted = self._balls_after_foul(facts, in_hand)
        self._decide(q, "three_fouls", offer("ACCEPT_TABLE", "RERACK_OFFENDER_BREAKS"), offender=p,
                     cue_in_hand=CUE not in self.balls)
        return self._foul_ruling(p, penalty, f"{head}: {SEAT_NAMES[q]} chooses", "third_successive_foul", all_fouls, extras,
                                 spotted=spotted)

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
        facts = StrokeFacts.idle(self.balls, self.to_act, self.in_hand)
        return self._finish(self._standard_foul(p, facts, ["shot_clock"], {"break": self.phase == "break"}))

    def apply_serious_foul(self, player, penalty=None, loss_of_game=False) -> Ruling:
        """A referee/moderator applies a serious (intentional, unsportsmanlike) foul to ``player`` (R17, REF).

        Preset ``wsr``: -16, foul counter reset, the opponent chooses ``ACCEPT_TABLE`` (cue ball
        in hand behind the head string) or ``RERACK_OFFENDER_BREAKS``. ``s2``: -15, the opponent
        plays the table as it lies. ``referee_free``: ``penalty`` points (>= 0) and/or
        ``loss_of_game``; otherwise the opponent plays the table as it lies.
        """
        return self._guarded(self._apply_serious_foul, player, penalty, loss_of_game)

    def _apply_serious_foul(self, player, penalty, loss_of_game) -> Ruling:
        p = self._acting_player(player)
        if self.phase == "lag":
            raise IllegalAction("bad_phase", "no serious foul can be applied during the lag", "phase")
        preset = self.config["serious_foul_preset"]
        if preset != "referee_free" and (penalty is not None or loss_of_game):
            raise IllegalAction("bad_arg", "penalty and loss_of_game are set by the preset", "penalty")
        q = opponent(p)
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
        if amount:
            self._penalise(p, serious=amount)
        else:
            self.stats[p]["fouls"] += 1
        self.fouls_in_row[p] = 0
        self.inning_clean = False
        self._end_inning()

        def ruling(text: str, **kw) -> Ruling:
            return self._finish(self._foul_ruling(p, amount, text, "serious_foul", ["serious_foul"], {"serious_foul": preset}, **kw))

        if loss_of_game:
            self._game_over(q, "serious foul")
            return ruling(f"Serious foul, -{amount}, loss of game: {SEAT_NAMES[q]} wins", game_over=True, winner=q)
        if preset == "wsr":
            self._decide(q, "serious", offer("ACCEPT_TABLE", "RERACK_OFFENDER_BREAKS"), offender=p, cue_in_hand=True)
            return ruling(f"Serious foul, -16: {SEAT_NAMES[q]} chooses")
        # s2 / referee_free: the opponent plays the table as it lies
        if self.phase == "decision":
            pend = self.pending
            if pend and pend.get("cue_in_hand"):
                self.balls.pop(CUE, None)
        self.phase = "play" if self.phase in ("play", "decision") else self.phase
        self.pending = None
        self.to_act = q
        self.in_hand = "kitchen" if CUE not in self.balls else None
        return ruling(f"Serious foul, -{amount}: {SEAT_NAMES[q]} plays the table as it lies")

