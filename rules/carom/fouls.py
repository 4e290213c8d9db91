# cython: annotation_typing=False
"""Carom fouls (rules-carom C17; K-F1..K-F13): their kinds and words, the fouls of a stroke, and
the two foul actions that are not strokes: the shot clock (K-F13, C24) and the moderator's
deliberate foul (K-F9).

A foul ends the inning and scores nothing; there are no penalty points (C17) and no
successive-foul rule, so a carom ruling's ``warning`` is always None. :class:`CaromFouls` is a part
of :class:`rules.carom.game.CaromGame`.
"""

from __future__ import annotations

from typing import List

from rules.base import IllegalAction, Ruling
from rules.carom.config import BREAK, DECISION, PLAY
from rules.carom.stroke import CaromStroke


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


def stroke_fouls(st: CaromStroke, flags, break_pending: bool, red_first_direct: bool) -> List[str]:
    """The fouls of a stroke that arise in simulation, in this order: K-F6 (played into a touching
    ball or cushion), K-F10 (a break not attacking the red, ``red_first_direct`` as C5's
    ``break_red_first = direct``), K-F1 (a ball off the table), K-F5 (the physics' ``flags``).
    The zone foul (K-F11) comes after, from the zones (:mod:`rules.zones`)."""
    fouls = []
    if st.played_into_touching:
        fouls.append(FOUL_FROZEN)
    if break_pending and not st.red_first(red_first_direct):
        fouls.append(FOUL_BREAK)
    if st.off_table:
        fouls.append(FOUL_OFF_TABLE)
    fouls += [_FLAG_FOULS[f] for f in flags if f in _FLAG_FOULS]
    return fouls


class CaromFouls:
    """The shot-clock foul (C24) and the moderator's deliberate foul (K-F9) for the game."""

    def _count_foul(self, seat: int, kind: str) -> None:
        """One more foul of ``kind`` in ``seat``'s statistics (C26: fouls by kind)."""
        fouls = self.stats[seat]["fouls"]
        fouls[kind] = fouls.get(kind, 0) + 1

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
        ruling = Ruling(seat, [0, 0], [0, 0], foul=FOUL_SHOT_CLOCK, fouls=[FOUL_SHOT_CLOCK], text="Foul: shot clock expired")
        self._count_foul(seat, FOUL_SHOT_CLOCK)
        self._inning_over()
        return self._finish_ruling(ruling)

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
        seat = self._acting_seat(player, "no foul can be ruled during the lag")
        if penalty not in (None, 0) or isinstance(penalty, bool):
            raise IllegalAction("bad_arg", f"penalty: carom has no penalty points, got {penalty!r}", "penalty")
        if not isinstance(loss_of_game, bool):
            raise IllegalAction("bad_arg", f"loss_of_game: expected true or false, got {loss_of_game!r}", "loss_of_game")
        self._count_foul(seat, FOUL_DELIBERATE)
        ruling = Ruling(seat, [0, 0], [0, 0], foul=FOUL_DELIBERATE, fouls=[FOUL_DELIBERATE])
        if loss_of_game:
            reason = "deliberate foul: loss of the game"
            self._record_frame(1 - seat, reason)
            self._finish(1 - seat, reason)
            ruling.text = f"Foul: deliberate foul by seat {seat}, loss of the game"
        elif self.phase in (BREAK, PLAY, DECISION) and self.striker == seat:
            ruling.text = f"Foul: deliberate foul by seat {seat}; the inning ends"
            self._inning_over()
        else:
            ruling.text = f"Foul: deliberate foul by seat {seat} (recorded)"
        return self._finish_ruling(ruling)

