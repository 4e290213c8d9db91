"""14.1 continuous (straight pool): the referee as a deterministic state machine over event logs.

The package implements ``shared/spec/rules-14-1.md`` (R1-R30, configuration section C, choices of section D)
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
- Warning (``Ruling.warning``): ``two_fouls`` on the ruling of a player's second successive
  standard foul (R16; WPA 4.11 requires the warning), for the ruling's ``player``; the text adds
  "A is on two successive fouls: a third costs 15 more points".

Modules (README.md): ``config`` (section C), ``stroke`` (what a stroke's log says), ``fouls``
(R6, R12, R15-R17), ``rack`` (R4, R18, R21-R23), ``near_rail`` (R24), ``lag`` (R3), ``game``.

Interpretations (where the spec leaves room): statistics count every charged foul in
``fouls`` (breaking fouls also in ``breaking_fouls``) and both F1 and F2 as ``scratches``; a
third successive foul is charged as 1 standard + 15 serious penalty points, an R17 serious
foul entirely as serious; a shot-clock foul on an opening break leaves the rack for the
opponent to play in position; the ``frozen_two_each`` variant counts, per player, legal
strokes that pocket nothing and first contact a ball frozen to a rail.
"""

from rules.straight_pool.config import (
    CUE,
    DECISIONS,
    DEFAULT_CONFIG,
    OBJECT_BALLS,
    SEAT_NAMES,
    STANDING_RIGHTS,
    STROKE_PHASES,
    TABLE_PRESETS,
    normalize_config,
)
from rules.straight_pool.fouls import FOUL_TEXT, IN_HAND_FOULS, OTHER_FOULS, STROKE_FLAGS, WARNING_TWO_FOULS
from rules.straight_pool.game import StraightPool
from rules.straight_pool.stroke import StrokeFacts

__all__ = [
    "CUE",
    "DECISIONS",
    "DEFAULT_CONFIG",
    "FOUL_TEXT",
    "IN_HAND_FOULS",
    "OBJECT_BALLS",
    "OTHER_FOULS",
    "SEAT_NAMES",
    "STANDING_RIGHTS",
    "STROKE_FLAGS",
    "STROKE_PHASES",
    "StraightPool",
    "StrokeFacts",
    "TABLE_PRESETS",
    "WARNING_TWO_FOULS",
    "normalize_config",
]
