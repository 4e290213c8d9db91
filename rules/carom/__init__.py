"""Carom (three balls, no pockets): what every carom game shares: the carom test, innings and runs, fouls, set-ups, match formats.

Specification: ``shared/spec/rules-carom.md`` (C1-C27, K1-K9, sections C and D); every rule
below cites it. The discipline classes (:mod:`rules.carom_disciplines`) add only their own
validity condition (cushions before the second object ball) and their zone set; everything else
lives in this package once:

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

from rules.carom.config import (BALL_NAMES, BALLS, BREAK, CHOOSE_BREAKER, D_CHOOSE_BREAKER, D_EXTENSION, D_PLAY_ON,
                                D_SET_UP, D_STARTING_SPOT, DECISION, DEFAULT_DISTANCE, LAG, OVER, PLAY, RED, WHITE,
                                YELLOW, carom_config)
from rules.carom.fouls import (FOUL_BREAK, FOUL_DELIBERATE, FOUL_DOUBLE_HIT, FOUL_FROZEN, FOUL_OFF_TABLE, FOUL_PUSH,
                               FOUL_SHOT_CLOCK, FOUL_TEXT, FOUL_ZONE)
from rules.carom.game import CaromGame
from rules.carom.stroke import CaromStroke

__all__ = [
    "BALL_NAMES", "BALLS", "BREAK", "CHOOSE_BREAKER", "D_CHOOSE_BREAKER", "D_EXTENSION", "D_PLAY_ON", "D_SET_UP",
    "D_STARTING_SPOT", "DECISION", "DEFAULT_DISTANCE", "LAG", "OVER", "PLAY", "RED", "WHITE", "YELLOW", "carom_config",
    "FOUL_BREAK", "FOUL_DELIBERATE", "FOUL_DOUBLE_HIT", "FOUL_FROZEN", "FOUL_OFF_TABLE", "FOUL_PUSH", "FOUL_SHOT_CLOCK",
    "FOUL_TEXT", "FOUL_ZONE", "CaromGame", "CaromStroke",
]
