"""The drills library: standard practice positions of 14.1 and carom, each with a goal a referee can judge.

Every position is built here from the table preset's own landmarks (foot spot, rack sites, diamond
grid, pockets, balklines), never from copied numbers: a drill on a 9-ft pool table is a drill of that
table's geometry. A *diamond* is the table's sight-mark spacing, L/8 (= W/4) on every preset
(physics/table.py ``_diamonds``), so ``_at(t, i, j)`` is the point i diamonds up the table from the
bottom/head cushion and j diamonds across from the right long cushion.

Goal kinds (:class:`Goal`; :func:`achieved` judges one on a simulated stroke):

- ``called_ball``: the called ``ball`` is pocketed in ``pocket`` and the cue ball is not (14.1);
- ``carom``: the stroke scores under the drill's discipline (its referee's ``evaluate_stroke``:
  cushions before the second ball, zone fouls, stroke fouls);
- ``cue_ball_area``: the called ball (when the goal names one) is made as for ``called_ball`` and
  the cue ball comes to rest with its centre inside ``area`` (x0, y0, x1, y1 m, the table frame).

Touching balls are kept :data:`GAP` apart so every position survives the code's 0.1 mm grid
(rules/position.py). :func:`game_at` sets a referee up at a drill's position (the practice table's
start, and the drill tests).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from physics.table import TABLES, Table, Vec2, rotate, unit_vector
from rules.position import Position, encode, validate
from rules.registry import game_class

GAP = 2.0e-4  # m, between balls a rack would freeze together (two grid steps of the position code)
GOAL_KINDS = ("called_ball", "carom", "cue_ball_area")
CUE, WHITE, YELLOW, RED = 0, 0, 1, 2


@dataclass(frozen=True)
class Goal:
    """What a drill asks: ``kind`` (one of :data:`GOAL_KINDS`), ``text`` (in words), and by kind the called
    ``ball`` and ``pocket``, the target ``area`` (x0, y0, x1, y1 m) of the cue ball."""

    kind: str
    text: str
    ball: Optional[int] = None
    pocket: Optional[str] = None
    area: Optional[Tuple[float, float, float, float]] = None

    def to_json(self) -> Dict[str, Any]:
        return {"kind": self.kind, "ball": self.ball, "pocket": self.pocket,
                "area": None if self.area is None else list(self.area)}


@dataclass(frozen=True)
class Drill:
    """A drill: ``id`` (stable, URL-safe), ``name``, ``group`` (``14.1``, ``three-cushion``, ``balkline``), the
    :class:`Goal` and the :class:`~rules.position.Position` (its ``discipline`` is the drill's)."""

    id: str
    name: str
    group: str
    goal: Goal
    position: Position

    @property
    def discipline(self) -> str:
        return self.position.discipline

    def code(self) -> str:
        return encode(self.position)

    def to_json(self) -> Dict[str, Any]:
        """The API's shape: ``{"id", "name", "group", "discipline", "goal", "goal_kind", "target", "code"}``."""
        return {"id": self.id, "name": self.name, "group": self.group, "discipline": self.discipline,
                "goal": self.goal.text, "goal_kind": self.goal.kind, "target": self.goal.to_json(),
                "code": self.code()}


# ----- geometry helpers -----------------------------------------------------------------------

def diamond(t: Table) -> float:
    """The diamond spacing of ``t`` (m): L/8, equal to W/4 on every preset."""
    return t.length / 8.0


def _at(t: Table, i: float, j: float) -> Vec2:
    d = diamond(t)
    return (i * d, j * d)


def _square(c: Vec2, side: float) -> Tuple[float, float, float, float]:
    h = side / 2.0
    return (c[0] - h, c[1] - h, c[0] + h, c[1] + h)


def _rack(t: Table, skip_apex: bool) -> List[Vec2]:
    """The 15 rack sites (``Table.rack_sites`` order: row by row from the apex on the foot spot) spaced by
    2R + GAP instead of 2R; the apex site left out when ``skip_apex`` (14.1: the 14-ball rack)."""
    fx, fy = t.foot_spot
    s = (2.0 * t.R + GAP) / 2.0  # half the centre spacing
    out = []
    for row in range(5):
        for k in range(row + 1):
            out.append((fx + row * math.sqrt(3.0) * s, fy + (2 * k - row) * s))
    return out[1:] if skip_apex else out


def _frozen_to(t: Table, cushion_y0: bool, x: float) -> Vec2:
    """A ball frozen to the right (y = 0) or left long cushion at ``x``."""
    return (x, t.R if cushion_y0 else t.width - t.R)


# ----- 14.1 -----------------------------------------------------------------------------------

def _straight_pool(t: Table) -> List[Drill]:
    name = t.name
    d = diamond(t)
    fr = t.pocket_by_name("FR").corner
    rack = _rack(t, skip_apex=True)
    balls = {b: p for b, p in zip(range(2, 16), rack)}  # balls 2-15 in the 14-ball rack
    # the break ball: level with the apex, one short-rail diamond below the long string
    brk = (t.foot_spot[0], t.foot_spot[1] - d)
    # the cue ball for the break shot: on the line through the ghost ball for FR, 1.5 diamonds back
    u = unit_vector(fr[0] - brk[0], fr[1] - brk[1])
    ghost = (brk[0] - 2.0 * t.R * u[0], brk[1] - 2.0 * t.R * u[1])
    cut = rotate(u, math.radians(-35.0))  # a 35-degree cut: the cue ball glances up into the rack
    cue_brk = (ghost[0] - 1.5 * d * cut[0], ghost[1] - 1.5 * d * cut[1])
    drills = [Drill(
        f"{name}-break-shot", "Break shot", "14.1",
        Goal("called_ball", "Pocket the break ball (1) in the foot-right corner and open the rack", 1, "FR"),
        Position.make(name, "straight_pool", {CUE: cue_brk, 1: brk, **balls}))]
    # the key ball: into the right side pocket, leaving the cue ball where the break shot above is played
    sr = t.pocket_by_name("SR").corner
    key = (sr[0] + 0.25 * d, sr[1] + 1.0 * d)
    ku = unit_vector(sr[0] - key[0], sr[1] - key[1])
    cue_key = (key[0] - 1.5 * d * ku[0] - 0.4 * d, key[1] - 1.5 * d * ku[1])
    drills.append(Drill(
        f"{name}-key-ball", "Key ball", "14.1",
        Goal("cue_ball_area", "Pocket the key ball (2) in the right side pocket and leave the cue ball in the "
                              "break-shot area", 2, "SR", _square(cue_brk, d)),
        Position.make(name, "straight_pool", {CUE: cue_key, 1: brk, 2: key,
                                              **{b: p for b, p in zip(range(3, 16), rack[1:])}})))
    # the stop-and-follow ladder: a straight-in shot into the foot-right corner along the corner's
    # bisector; the object ball one diamond crossing from the pocket, the cue ball k diamonds behind it
    diag = unit_vector(-1.0, 1.0)
    ob = (fr[0] + diag[0] * d * math.sqrt(2.0), fr[1] + diag[1] * d * math.sqrt(2.0))
    follow_to = (fr[0] + diag[0] * d * math.sqrt(2.0) / 2.0, fr[1] + diag[1] * d * math.sqrt(2.0) / 2.0)
    for k in (1, 2):
        cb = (ob[0] + diag[0] * k * d * math.sqrt(2.0), ob[1] + diag[1] * k * d * math.sqrt(2.0))
        pos = Position.make(name, "straight_pool", {CUE: cb, 1: ob})
        drills.append(Drill(f"{name}-stop-{k}", f"Stop shot, {k} diamond{'s' if k > 1 else ''}", "14.1",
                            Goal("cue_ball_area", "Pocket the 1 in the foot-right corner and stop the cue ball dead "
                                                  "where the 1 was", 1, "FR", _square(ob, d / 4.0)), pos))
        drills.append(Drill(f"{name}-follow-{k}", f"Follow shot, {k} diamond{'s' if k > 1 else ''}", "14.1",
                            Goal("cue_ball_area", "Pocket the 1 in the foot-right corner and follow half-way to the "
                                                  "pocket", 1, "FR", _square(follow_to, d / 4.0)), pos))
    return drills


# ----- three-cushion --------------------------------------------------------------------------

def _three_cushion(t: Table) -> List[Drill]:
    """The standard positions of three-cushion (textbook layouts, on the diamond grid)."""
    name = t.name
    goal = Goal("carom", "Score a three-cushion carom: both object balls, three cushions before the second")

    def drill(key: str, title: str, white: Tuple[float, float], red: Tuple[float, float],
              yellow: Tuple[float, float]) -> Drill:
        pos = Position.make(name, "three_cushion", {WHITE: _at(t, *white), RED: _at(t, *red), YELLOW: _at(t, *yellow)})
        return Drill(f"3c-{key}", title, "three-cushion", goal, pos)

    return [
        # white near the bottom, the red ahead of it: off the red into the top corner, around to the yellow
        drill("corner-to-corner", "Corner to corner", (1.0, 1.0), (2.5, 1.5), (7.3, 0.4)),
        # the umbrella: off the red to the long rail, the top rail and the opposite long rail back down
        drill("umbrella", "Umbrella", (2.0, 1.5), (4.0, 3.2), (3.0, 0.5)),
        # reverse: a cut off the red to the short rail against the natural angle
        drill("reverse", "Reverse end", (5.0, 2.5), (6.6, 3.0), (5.5, 0.5)),
        # double the rail: across and back, the yellow on the white's own side
        drill("double-the-rail", "Double the rail", (2.0, 0.5), (3.0, 1.0), (6.0, 0.4)),
        # ticky: the red near the long rail, the white into it and the rail behind it
        drill("ticky", "Ticky", (3.0, 2.0), (4.0, 0.25), (6.5, 2.5)),
    ]


# ----- balkline -------------------------------------------------------------------------------

def _balkline(t: Table) -> List[Drill]:
    """Nursing positions of balkline 47/2 (the balls gathered along a rail across a balkline, where the
    zone rules leave them free)."""
    name = t.name
    b47 = t.balkline_47
    R = t.R
    goal = Goal("carom", "Score a balkline carom with the balls kept together (no zone foul)")
    out = []
    # rail nurse: red and yellow frozen to the right rail astride the 47 cm line, the white behind them
    x0 = b47
    out.append(Drill("balk-rail-nurse", "Rail nurse", "balkline", goal, Position.make(name, "balkline_47_2", {
        RED: _frozen_to(t, True, x0 - 1.5 * R), YELLOW: _frozen_to(t, True, x0 + 2.5 * R),
        WHITE: (x0 - 4.0 * R, 3.0 * R)})))
    # chuck nurse: the red frozen to the rail, the yellow a ball off it, the white facing the red
    out.append(Drill("balk-chuck-nurse", "Chuck nurse", "balkline", goal, Position.make(name, "balkline_47_2", {
        RED: _frozen_to(t, True, t.length / 2.0), YELLOW: (t.length / 2.0 + 2.0 * R + GAP + 0.01, R + 2.0 * R),
        WHITE: (t.length / 2.0 - 0.01, R + 5.0 * R)})))
    # the gather at the top: the balls close together near the top rail, across the top 47 cm line
    xt = t.length - b47
    out.append(Drill("balk-gather", "Gathered at the top rail", "balkline", goal, Position.make(name, "balkline_47_2", {
        RED: (xt + 1.5 * R, t.width / 2.0), YELLOW: (xt - 2.0 * R, t.width / 2.0 + 3.0 * R),
        WHITE: (xt - 6.0 * R, t.width / 2.0 - 2.0 * R)})))
    return out


# ----- the library ----------------------------------------------------------------------------

def _library() -> Tuple[Drill, ...]:
    drills = _straight_pool(TABLES["pool-9ft"]) + _three_cushion(TABLES["carom"]) + _balkline(TABLES["carom"])
    for d in drills:
        validate(d.position)
        assert d.goal.kind in GOAL_KINDS
    ids = [d.id for d in drills]
    assert len(ids) == len(set(ids)), "drill ids are unique"
    return tuple(drills)


DRILLS: Tuple[Drill, ...] = _library()


def drill_by_id(drill_id: str) -> Drill:
    """The drill ``drill_id``; ``KeyError`` otherwise."""
    for d in DRILLS:
        if d.id == drill_id:
            return d
    raise KeyError(drill_id)


# ----- judging and set-up ---------------------------------------------------------------------

_SOLO_DROPPED = re.compile(r"; [AB] (?:to shoot|continues)(?=;|$)")
_SOLO_IN_HAND = re.compile(r"; [AB] has ball in hand")


def solo_text(text: str) -> str:
    """A ruling's ``text`` for one player on their own (a practice table, a puzzle): the clauses that name the next
    player ("; B to shoot", "; A continues") are left out, "; B has ball in hand ..." says "; ball in hand ...".
    "Safety; B to shoot" -> "Safety"; the fouls, points and everything else are said as the referee said them."""
    return _SOLO_IN_HAND.sub("; ball in hand", _SOLO_DROPPED.sub("", text))


def game_at(position: Position, seat: int = 0, check: bool = True):
    """A referee of ``position.discipline`` in play at ``position``, ``seat`` to shoot (a fresh game's state
    with the layout put in; the practice table's start). Carom: seat 0 plays white; a position whose cue
    stroke names the yellow makes seat 1 the striker. 14.1: the cue ball on the bed (a position without
    it: cue ball in hand behind the head string). Raises ``ValueError`` for pentathlon and triathlon.
    ``check=False`` skips the placement test: a layout where a stroke left the balls (one may rest in a
    pocket's jaws, where nobody may place it) goes on from where the balls lie (the practice table)."""
    if check:
        validate(position)
    cls = game_class(position.discipline)
    layout = position.layout()
    if position.discipline == "straight_pool":
        g = cls({"breaker": 0, "table": position.table.split("-")[1]}, 1)
        s = g.to_state()
        s["balls"] = {str(b): [x, y] for b, (x, y) in layout.items()}
        s.update(phase="play", to_act=seat, shooter=None, pending=None, in_hand=None if CUE in layout else "kitchen")
        return cls.from_state(s)
    if position.discipline in ("pentathlon", "triathlon"):
        raise ValueError(f"discipline: {position.discipline} positions are played as one of its games")
    g = cls(config={"breaker": 0})
    s = g.to_state()
    if position.cue is not None and position.cue.cue_ball == YELLOW:
        seat = 1
    s["layout"] = {str(b): [x, y] for b, (x, y) in sorted(layout.items())}
    s.update(phase="play", break_pending=False, striker=seat)
    return cls.from_state(s)


def achieved(drill: Drill, game, seat: int, sim) -> bool:
    """Whether the stroke ``sim`` (a ``physics`` SimResult from the drill's position) meets the drill's goal;
    ``game`` is :func:`game_at` of the position (unchanged: carom goals ask its ``evaluate_stroke``)."""
    g = drill.goal
    if g.kind == "carom":
        return bool(game.evaluate_stroke(seat, sim)["scores"])
    pocketed = {e.balls[0]: e.pocket for e in sim.events if e.kind == "ball_pocket"}
    if CUE in pocketed:
        return False
    if g.ball is not None and pocketed.get(g.ball) != g.pocket:
        return False
    if g.kind == "called_ball":
        return True
    x, y = sim.final[CUE].r[0], sim.final[CUE].r[1]
    x0, y0, x1, y1 = g.area
    return x0 <= x <= x1 and y0 <= y <= y1
