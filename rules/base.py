"""What every referee shares: errors, the game interface, and the frozen-ball facts of a stroke.

The rules contract (DESIGN.md): a discipline is a deterministic state machine with a
serialisable ``state``; ``legal_actions()`` says what the player to act may do;
``apply_shot(call, sim_result)`` and ``apply_decision(player, decision)`` return a ruling. No
randomness except a seeded RNG kept in the state, no clock, no I/O.

Frozen balls (rules-14-1 D6, rules-carom K6): at stroke start a ball is frozen to a cushion or
another ball when the gap is at most ``EPS_FROZEN``. A contact event of a pair frozen at stroke
start that happens before the pair has separated by more than ``EPS_LEAVE`` is an *initial-freeze
continuation*: not a contact, not a cushion impact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Tuple

from physics.events import SimResult
from physics.table import LinearCushion, Table, Vec2

EPS_FROZEN = 1.0e-4  # m, gap at or below which two bodies touch at stroke start (D6, K6)
EPS_LEAVE = 5.0e-4  # m, separation that ends an initial freeze (D6, K6)
#: s, the range of a shot clock's limit (ours: below 2 s a table would rule a time-out every
#: moment, a load anybody could put on the server; above an hour it is no clock)
SHOT_CLOCK_RANGE = (2.0, 3600.0)


def check_clock_limit(lim) -> float:
    """``shot_clock.limit_s`` as a float; ``ValueError`` naming ``shot_clock`` outside :data:`SHOT_CLOCK_RANGE`."""
    lo, hi = SHOT_CLOCK_RANGE
    if isinstance(lim, bool) or not isinstance(lim, (int, float)) or not (math.isfinite(lim) and lo <= lim <= hi):
        raise ValueError(f"shot_clock: limit_s must be a number of seconds in [{lo:g}, {hi:g}], got {lim!r}")
    return float(lim)


CLOCK_EXTENSIONS_MAX = 10
"""Most shot-clock extensions (14.1 R12) or time-outs (carom C24) a player may have in a game: each
buys a fresh period, so an unbounded count would let a player stall the table for ever."""


def check_clock_extensions(n, name: str) -> int:
    """A count of shot-clock extensions or time-outs (``name``: the key) as an int in [0,
    :data:`CLOCK_EXTENSIONS_MAX`]; ``ValueError`` naming ``shot_clock`` otherwise."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= CLOCK_EXTENSIONS_MAX:
        raise ValueError(f"shot_clock: {name} must be an integer in [0, {CLOCK_EXTENSIONS_MAX}], got {n!r}")
    return int(n)


class IllegalAction(ValueError):
    """An action the rules do not allow now (wrong player, bad call, decision not on offer, ...).

    ``code`` is a short machine-readable reason (``not_your_turn``, ``bad_call``,
    ``bad_placement``, ``no_such_decision``, ``game_over``, ...); ``field`` names the offending
    input when there is one. Raising it never changes the game state.
    """

    def __init__(self, code: str, message: str, field: Optional[str] = None):
        super().__init__(message)
        self.code = code
        self.field = field


Pair = Tuple[int, object]  # (ball, other ball id) or (ball, cushion name)


def plain_copy(v):
    """A deep copy of plain game data (dicts, lists, tuples, scalars), the same as ``copy.deepcopy``
    for such data and several times faster (the referees copy their state at every action)."""
    if isinstance(v, dict):
        return {k: plain_copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain_copy(x) for x in v]
    if isinstance(v, tuple):
        return tuple([plain_copy(x) for x in v])
    return v


def as_xy(p) -> Vec2:
    """A position ``(x, y)`` in m as a tuple of two floats (from a list, a tuple or a msgpack array)."""
    return (float(p[0]), float(p[1]))


def frozen_pairs(table: Table, layout: Mapping[int, Vec2], eps: float = EPS_FROZEN) -> FrozenSet[Pair]:
    """Pairs touching at stroke start: ``(a, b)`` with a < b for balls, ``(a, cushion_name)`` for cushions.

    ``layout`` maps ball id -> centre (m) of every ball on the bed. Straight cushions only (a ball
    resting against a pocket jaw is vanishingly rare and never matters to a rule).
    """
    R = table.R
    out = set()
    ids = sorted(layout)
    for i, a in enumerate(ids):
        ra = layout[a]
        for b in ids[i + 1:]:
            rb = layout[b]
            if math.hypot(ra[0] - rb[0], ra[1] - rb[1]) - 2.0 * R <= eps:
                out.add((a, b))
        for c in table.cushions:
            if _cushion_gap(c, ra, R) <= eps and _on_segment(c, ra):
                out.add((a, c.name))
    return frozenset(out)


def _cushion_gap(c: LinearCushion, r: Vec2, R: float) -> float:
    return (r[0] - c.p1[0]) * c.normal[0] + (r[1] - c.p1[1]) * c.normal[1] - R


def _on_segment(c: LinearCushion, r: Vec2) -> bool:
    dx, dy = c.p2[0] - c.p1[0], c.p2[1] - c.p1[1]
    s = ((r[0] - c.p1[0]) * dx + (r[1] - c.p1[1]) * dy) / (dx * dx + dy * dy)
    return 0.0 <= s <= 1.0


@dataclass(frozen=True)
class Contact:
    """A collision of the stroke as the referees read it.

    ``kind`` is ``ball_ball``, ``ball_cushion``, ``ball_pocket`` or ``off_table``; ``ball`` and
    ``other`` (a ball id for ball_ball, else None); ``cushion``/``pocket`` names; ``frozen``
    True for an initial-freeze continuation (D6/K6), which no rule counts as a contact.
    """

    t: float
    kind: str
    ball: int
    other: Optional[int] = None
    cushion: Optional[str] = None
    pocket: Optional[str] = None
    frozen: bool = False

    def involves(self, ball: int) -> bool:
        return self.ball == ball or self.other == ball


def stroke_contacts(sim: SimResult, frozen: Optional[FrozenSet[Pair]] = None) -> List[Contact]:
    """The stroke's collisions in time order, with initial-freeze continuations marked.

    ``frozen`` defaults to :func:`frozen_pairs` of the start layout. A ``ball_ball`` event of
    balls a, b gives one :class:`Contact` with ``ball`` = a, ``other`` = b (the event's order).
    """
    table = sim.table
    if frozen is None:
        frozen = frozen_pairs(table, {b: s.r for b, s in sim.initial.items() if s.state != "pocketed"})
    R = table.R
    cushions = {c.name: c for c in table.cushions}
    released: set = set()
    out: List[Contact] = []
    for e in sim.events:
        if e.kind == "ball_ball":
            a, b = e.balls[0], e.balls[1]
            key = (min(a, b), max(a, b))
            cont = False
            if key in frozen and key not in released:
                if sim.pair_apart(a, b, 0.0, e.t, 2.0 * R + EPS_LEAVE):
                    released.add(key)
                else:
                    cont = True
            out.append(Contact(e.t, "ball_ball", a, b, frozen=cont))
        elif e.kind == "ball_cushion":
            a = e.balls[0]
            key = (a, e.cushion)
            cont = False
            if key in frozen and key not in released:
                c = cushions[e.cushion]
                n = c.normal
                far = sim.max_projection(a, n, 0.0, e.t) - (c.p1[0] * n[0] + c.p1[1] * n[1]) - R
                if far > EPS_LEAVE:
                    released.add(key)
                else:
                    cont = True
            out.append(Contact(e.t, "ball_cushion", a, cushion=e.cushion, frozen=cont))
        elif e.kind == "ball_pocket":
            out.append(Contact(e.t, "ball_pocket", e.balls[0], pocket=e.pocket))
        elif e.kind == "off_table":
            out.append(Contact(e.t, "off_table", e.balls[0]))
    return out


def pocketed_balls(sim: SimResult) -> Dict[int, str]:
    """Ball id -> pocket name for every ball that ends the stroke in a pocket."""
    out: Dict[int, str] = {}
    for e in sim.events:
        if e.kind == "ball_pocket":
            out[e.balls[0]] = e.pocket
    return {b: p for b, p in out.items() if sim.final.get(b) is None or sim.final[b].state == "pocketed"}


def off_table_balls(sim: SimResult) -> FrozenSet[int]:
    """Balls that left the table on the stroke (only hand-written records have them: the 2D engine keeps balls on the bed)."""
    return frozenset(e.balls[0] for e in sim.events if e.kind == "off_table")


def first_index(items: Iterable[Contact], pred) -> Optional[int]:
    for i, c in enumerate(items):
        if pred(c):
            return i
    return None


class GameBase:
    """What every referee's game object shares (rules/README.md): restoring from a state dict,
    equality by state, and actions that leave the state untouched when they fail.

    A subclass sets ``discipline`` and ``state_version`` and provides ``to_state()`` (which
    writes both, with ``config`` and ``seed``: a dict literal, as every action snapshots the
    state) and ``_load(d)``; it may override ``_after_action(ruling)`` for work every successful
    action needs (a multi-discipline match moves to its next game there).
    """

    discipline: str = ""
    state_version: int = 1
    #: phases in which the referee rules a shot-clock time-out (``apply_timeout``); none by default
    CLOCK_PHASES: Tuple[str, ...] = ()

    def clock_applies(self) -> bool:
        """True when a shot clock may run now: the game is on, a seat is to act, and the phase is one
        where the referee rules its expiry (:data:`CLOCK_PHASES`). Elsewhere (a lag, a choice of
        breaker) a clock would expire into a refused time-out, so the server arms none."""
        return not self.over and self.to_act is not None and self.phase in self.CLOCK_PHASES

    def scores_now(self) -> list:
        """The scoreboard's ``scores`` ([a, b]), without building the whole scoreboard (the server's lobby
        entries read it after every stroke); a referee with a cheaper way overrides it."""
        return list(self.scoreboard().get("scores", []))

    def to_state(self) -> dict:  # pragma: no cover - every referee defines it
        raise NotImplementedError

    def _load(self, d: Mapping) -> None:  # pragma: no cover - every referee defines it
        raise NotImplementedError

    @classmethod
    def from_state(cls, d: Mapping):
        """Restore a game from :meth:`to_state` output (also after a msgpack round trip).

        Raises ``ValueError`` naming ``discipline`` or ``version`` when the state is for another
        discipline or an unsupported state version.
        """
        if d.get("discipline") != cls.discipline:
            raise ValueError(f"discipline: state is for {d.get('discipline')!r}, not {cls.discipline!r}")
        if d.get("version") != cls.state_version:
            raise ValueError(f"version: unsupported state version {d.get('version')!r}")
        game = cls.__new__(cls)
        game._load(d)
        return game

    def _after_action(self, ruling):
        return ruling

    def _guarded(self, fn, *args):
        """Run an action; on any error restore the state it started from and re-raise."""
        snap = self.to_state()
        try:
            return self._after_action(fn(*args))
        except BaseException:
            self._load(snap)
            raise

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.to_state() == self.to_state()

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # mutable


def _xy_map(d: Mapping) -> Dict[str, List[float]]:
    return {str(k): [float(v[0]), float(v[1])] for k, v in d.items()}


@dataclass
class Ruling:
    """The referee's decision on one action (stroke, lag, decision, time-out, forfeit).

    Shared by every discipline (rules/README.md). ``player``: the seat that acted (None for a
    lag); ``points``: change per seat this action; ``scores``: scores per seat after it;
    ``foul``: the main foul kind or None, ``fouls``: every foul detected; ``penalty``: points
    deducted (14.1; always 0 in carom); ``fouls_in_row`` per seat; ``spotted``/``placed``: ball
    id -> (x, y) m of balls spotted after the stroke / set up or placed by the rules;
    ``rerack``: 14.1 re-rack or None; ``next_player``: seat to act next (None when over);
    ``cue_ball_in_hand``: None or the region name; ``options``: decision names now on offer;
    ``game_over``/``winner`` (seat, or None for a draw or while playing); ``text``: the ruling
    in words; ``warning``: None, or a short code of a warning the referee gives ``player`` with
    this ruling (``"two_fouls"``: 14.1 R16, WPA 4.11, after a second successive foul; the text says
    it too); ``extras``: discipline-specific keys merged into :meth:`to_dict`.
    """

    player: Optional[int]
    points: List[int]
    scores: List[int]
    foul: Optional[str] = None
    fouls: List[str] = field(default_factory=list)
    penalty: int = 0
    fouls_in_row: List[int] = field(default_factory=lambda: [0, 0])
    spotted: Dict[int, Vec2] = field(default_factory=dict)
    rerack: Optional[dict] = None
    placed: Dict[int, Vec2] = field(default_factory=dict)
    next_player: Optional[int] = None
    cue_ball_in_hand: Optional[str] = None
    options: List[str] = field(default_factory=list)
    game_over: bool = False
    winner: Optional[int] = None
    text: str = ""
    warning: Optional[str] = None
    extras: Dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Plain msgpack/JSON types only; ball-id keys become strings (msgpack's strict map keys)."""
        d = {
            "player": self.player,
            "points": list(self.points),
            "scores": list(self.scores),
            "foul": self.foul,
            "fouls": list(self.fouls),
            "penalty": self.penalty,
            "fouls_in_row": list(self.fouls_in_row),
            "spotted": _xy_map(self.spotted),
            "rerack": self.rerack,
            "placed": _xy_map(self.placed),
            "next_player": self.next_player,
            "cue_ball_in_hand": self.cue_ball_in_hand,
            "options": list(self.options),
            "game_over": self.game_over,
            "winner": self.winner,
            "text": self.text,
            "warning": self.warning,
        }
        d.update(self.extras)
        return d
