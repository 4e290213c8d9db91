"""The practice table, as pure functions: its start, placements, strokes judged but never scored, previews, undo/redo.

A practice table is a table like the others (an actor, its inbox, its stream, spectators, the same
limits), with one shooter (seat 0) and, when the creator offers it, a coach (seat 1) who may also
place balls and shoot. Its game is a referee of the chosen discipline (14.1 or a carom discipline)
set up at a position with ``rules.drills.game_at``: fouls, caroms and pocketed balls are judged and
said, but after every stroke the game is set up afresh where the balls came to rest (the same
player to shoot, nothing scored against anyone, never over). The undo and redo stacks hold the
exact game states (``game.to_state()``, msgpack-packed), so an undo gives the positions back bit
for bit.

No asyncio, no sockets, no Redis (tests/server/test_practice.py); the actor (server/table/actor.py)
commits what these functions return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import msgpack

import protocol
from protocol import inbound as I
from protocol import limits as L
from protocol import outbound as O
from protocol.errors import ErrorCode
from rules.drills import Drill, achieved, drill_by_id, game_at, solo_text
from rules.position import Position, PositionError, decode, encode, validate
from rules.registry import canonical_name, game_from_state, new_game
from server.table.play import Outcome, Refusal, ruled_stroke, simulated

#: disciplines a practice table cannot take: their games are practised one by one
MULTI = ("pentathlon", "triathlon")
KINDS = ("drill", "position", "opening")


class PracticeError(ValueError):
    """A practice table that cannot be made: ``field`` is the wire field at fault (``discipline``,
    ``practice.position``, ``practice.drill``, ``practice``), ``rule`` the position code's reason when it is one."""

    def __init__(self, field: str, message: str, rule: Optional[str] = None):
        super().__init__(f"{field}: {message}")
        self.field, self.rule = field, rule


@dataclass
class Practice:
    """A practice table's own state: ``kind`` (``drill``, ``position`` or ``opening``), the ``drill`` id, the
    ``start`` position's code, the ``preset`` (table preset name), whether a ``coach`` seat is offered, and the
    ``undo``/``redo`` stacks of packed game states (oldest first, at most :data:`protocol.limits.PRACTICE_UNDO`)."""

    kind: str
    preset: str
    drill: Optional[str] = None
    start: Optional[str] = None
    coach: bool = False
    undo: List[bytes] = field(default_factory=list)
    redo: List[bytes] = field(default_factory=list)

    def to_state(self) -> Dict[str, Any]:
        return {"kind": self.kind, "preset": self.preset, "drill": self.drill, "start": self.start,
                "coach": self.coach, "undo": list(self.undo), "redo": list(self.redo)}

    @classmethod
    def from_state(cls, s: Mapping[str, Any]) -> "Practice":
        return cls(s["kind"], s["preset"], s.get("drill"), s.get("start"), bool(s.get("coach")),
                   list(s.get("undo", ())), list(s.get("redo", ())))

    def the_drill(self) -> Optional[Drill]:
        return drill_by_id(self.drill) if self.drill else None

    def view(self, game: Any) -> Dict[str, Any]:
        """:func:`protocol.outbound.practice_view` of the table with ``game`` now."""
        d = self.the_drill()
        return O.practice_view(self.kind, d.to_json() if d is not None else None, self.start,
                               position_code(game, self.preset), self.coach, len(self.undo), len(self.redo))

    # ----- undo and redo ---------------------------------------------------------------------
    def changed(self, before: bytes) -> None:
        """A change (stroke, placement, reset, decision) left the position packed in ``before``: it can be undone;
        what was undone before cannot be redone any more."""
        self.undo.append(before)
        del self.undo[: max(0, len(self.undo) - L.PRACTICE_UNDO)]
        self.redo.clear()

    def step_back(self, now: bytes) -> Optional[bytes]:
        """Undo: the packed state to go back to (``now`` is kept for a redo), or None when there is nothing to undo."""
        if not self.undo:
            return None
        self.redo.append(now)
        return self.undo.pop()

    def step_forward(self, now: bytes) -> Optional[bytes]:
        """Redo: the packed state to go forward to (``now`` goes back onto the undo stack), or None."""
        if not self.redo:
            return None
        self.undo.append(now)
        return self.redo.pop()


def pack(game: Any) -> bytes:
    """The exact state of ``game`` (float64 numbers kept bit for bit)."""
    return msgpack.packb(game.to_state(), use_bin_type=True)


def unpack(data: bytes) -> Any:
    return game_from_state(msgpack.unpackb(data, raw=False, strict_map_key=False))


def position_code(game: Any, preset: str) -> Optional[str]:
    """The position code of ``game``'s layout now, or None when it has none (balls closer than the code's grid keeps
    apart, a ball in a pocket's jaws). A 14.1 cue ball in hand is not on the bed: the code leaves it out."""
    try:
        return encode(Position.make(preset, game.discipline, game.layout()))
    except (PositionError, AttributeError, ValueError):
        return None


# ----- making a practice table ------------------------------------------------------------------
def opening_config(discipline: str, config: Mapping[str, Any], preset: Optional[str]) -> Dict[str, Any]:
    """The configuration of a practice game: the referee's defaults with the first player breaking and no shot
    clock; for 14.1 the table size of ``preset`` (else the creator's ``config.table``). Nothing else of the
    creator's configuration is read: nothing is scored, so no target ends a practice game (the games set up
    after each stroke, ``rules.drills.game_at``, take the defaults too)."""
    cfg: Dict[str, Any] = {"breaker": 0, "shot_clock": None}
    if discipline == "straight_pool":
        if preset is not None:
            cfg["table"] = preset.split("-", 1)[1]
        elif "table" in config:
            cfg["table"] = config["table"]
    return cfg


def setup(discipline: str, config: Mapping[str, Any], spec: Mapping[str, Any], seed: int) -> Tuple[Practice, Any]:
    """The practice state and the game of a new practice table of ``discipline`` (``spec``: the validated
    ``create_table.practice`` map). :class:`PracticeError` (or the referee's ``ValueError`` naming a
    configuration key) when it cannot be made."""
    name = canonical_name(discipline)
    if name in MULTI:
        raise PracticeError("discipline", f"{name} is practised one game at a time: choose one of its disciplines")
    code, drill_id, coach = spec.get("position"), spec.get("drill"), bool(spec.get("coach", False))
    if code is not None and drill_id is not None:
        raise PracticeError("practice", "give a position or a drill, not both")
    if drill_id is not None:
        try:
            d = drill_by_id(drill_id)
        except KeyError:
            raise PracticeError("practice.drill", f"no drill {drill_id!r} (GET /api/drills lists them)") from None
        pos, kind, start = d.position, "drill", d.code()
    elif code is not None:
        try:
            pos = decode(code)
        except PositionError as exc:
            raise PracticeError("practice.position", str(exc), exc.reason) from None
        kind, start = "position", code
    else:
        game = new_game(name, opening_config(name, config, None), seed)
        return Practice("opening", game.table.name, coach=coach), game
    if pos.discipline != name:
        raise PracticeError("discipline", f"the {kind} is a {pos.discipline} position, not {name}")
    p = Practice(kind, pos.table, drill_id, start, coach)
    return p, game_at(pos)


def rack(p: Practice, discipline: str, config: Mapping[str, Any], seed: int) -> Any:
    """A game at the discipline's opening (the 14.1 rack on the table's preset, the carom break)."""
    return new_game(discipline, opening_config(discipline, config, p.preset), seed)


def restart(p: Practice, discipline: str, config: Mapping[str, Any], seed: int) -> Any:
    """A game at the table's start: its drill (exactly as the library builds it) or position, else the opening."""
    d = p.the_drill()
    if d is not None:
        return game_at(d.position)
    if p.start is None:
        return rack(p, discipline, config, seed)
    return game_at(decode(p.start))


def striker(game: Any) -> int:
    """The referee's seat that shoots now at a practice game (0 unless a carom position made yellow the cue ball)."""
    return game.to_act if game.to_act is not None else 0


def after_stroke(game: Any, p: Practice, seat: int) -> Any:
    """The game after a stroke, set up afresh where the balls came to rest, ``seat`` (the referee's) to shoot again:
    nothing is scored, no decision is pending, the game never ends. Where that cannot be done the game is kept
    as the referee left it."""
    try:
        pos = Position.make(p.preset, game.discipline, game.layout())
        return game_at(pos, seat, check=False)
    except (ValueError, KeyError, AttributeError):
        return game


# ----- the practice steps -----------------------------------------------------------------------
def place(game: Any, p: Practice, balls: Mapping[str, Tuple[float, float]]) -> Union[Any, Refusal]:
    """The game with the balls where ``balls`` puts them (the whole layout), or the :class:`Refusal` of the
    placement test of position codes (``bad_position``, ``rule`` its reason: ``overlap``, ``pocket``, ``off_bed``,
    ``bad_ball``, ``missing_ball``, ...)."""
    pos = Position.make(p.preset, game.discipline, {int(k): v for k, v in balls.items()})
    try:
        validate(pos)
        return game_at(pos, striker(game))
    except PositionError as exc:
        return Refusal(ErrorCode.BAD_POSITION, str(exc), "balls", rule=exc.reason)
    except ValueError as exc:
        return Refusal(ErrorCode.BAD_POSITION, str(exc), "balls", rule="bad_field")


def stroke(game: Any, p: Practice, ids: Tuple[Mapping[str, int], Mapping[str, int]], seat: int, msg: I.Shot,
           shoot: Mapping[str, Any], now: Optional[float] = None) -> Union[Tuple[Outcome, Any], Refusal]:
    """Play ``msg`` from ``seat`` (shooter or coach) at the practice ``game``: ``(outcome, next game)`` (``game``
    itself is played on), or a :class:`Refusal`. At a drill the ruling says whether the stroke met its goal
    (``drill``: {``id``, ``achieved``}, and the ``text`` says it)."""
    if not shoot:
        return Refusal(ErrorCode.ILLEGAL_ACTION, "no stroke can be played now: take the decision on offer",
                       rule="no_stroke")
    rseat = striker(game)
    r = simulated(game, rseat, msg, shoot["cue_ball"])
    if isinstance(r, Refusal):
        return r
    sim, sim_s = r
    d = p.the_drill()
    met = achieved(d, game, rseat, sim) if d is not None else None   # before the referee changes the game
    out = ruled_stroke(game, ids, seat, rseat, msg, shoot["cue_ball"], sim, sim_s, now, practice=True)
    if d is not None:
        out.ruling_extra = {"drill": {"id": d.id, "achieved": met}}
        out.text_extra = f"Drill: {'goal achieved' if met else 'goal missed'}"
    return out, after_stroke(game, p, rseat)


def preview(game: Any, ids: Tuple[Mapping[str, int], Mapping[str, int]], msg: I.Preview,
            shoot: Mapping[str, Any]) -> Union[Tuple[Dict[str, Any], Dict[str, Any]], Refusal]:
    """The stroke ``msg`` simulated from ``game``'s position and ruled on a copy of the game: ``(wire event log,
    ruling dict)``; ``game`` is unchanged. A :class:`Refusal` as for a stroke."""
    if not shoot:
        return Refusal(ErrorCode.ILLEGAL_ACTION, "no stroke can be played now: take the decision on offer",
                       rule="no_stroke")
    copy = game_from_state(game.to_state())
    rseat = striker(copy)
    r = simulated(copy, rseat, msg, shoot["cue_ball"])
    if isinstance(r, Refusal):
        return r
    sim = r[0]
    ruling = copy.apply_shot(rseat, msg.call, sim).to_dict()
    ruling["text"] = solo_text(ruling.get("text") or "")
    return protocol.encode_log(sim, *ids), ruling
