"""What a game action does, as pure functions: a stroke, the lag, a decision, a forfeit, a claim.

No asyncio, no sockets, no Redis: each function takes the game (a referee of ``rules/``), the
seat and the validated inbound message, and returns either a :class:`Refusal` (the error the
sender gets; the game is unchanged) or the outcome the actor then commits (the ruling, the
stream message parts and the record entry). The physics runs here, inline: ``simulate``
releases the GIL and takes well under a millisecond (bench/physics_speed.py).

The rules these functions enforce on top of the referee's: sequence numbers (a ``seq`` equal to
the seat's last one is a duplicate, a lower one is stale), a game with both seats taken, and
the claim of an abandoned game (:func:`claim`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import protocol
from physics import Shot, simulate
from protocol import inbound as I
from protocol.errors import ErrorCode
from rules.base import IllegalAction
from rules.carom.diamonds import cushion_diamonds

#: the referees' argument names (IllegalAction.field) -> the field of the shot/decision message
WIRE_FIELD = {"call": "call", "cue_ball_position": "cue_ball", "decision": "name", "arg": "arg"}

#: phases before the game proper has begun: the lag and the lag winner's choice of breaker
PRE_GAME_PHASES = ("lag", "choose_breaker")
CHOOSE_BREAKER = "CHOOSE_BREAKER"  # the referees' decision of the lag winner (rules/straight_pool.py, rules/carom.py)


def before_game(game: Any) -> bool:
    """Whether the game proper has not begun: the lag, or the lag winner's choice of breaker is on offer."""
    if game.phase in PRE_GAME_PHASES:
        return True
    decisions = game.legal_actions().get("decisions") or ()
    return any(d.get("name") == CHOOSE_BREAKER for d in decisions)


@dataclass
class Refusal:
    """An action refused: ``code`` (protocol.errors.ErrorCode), the message, the wire ``field`` at fault,
    the referee's ``rule`` code and, for a duplicate, the version ``v`` at which the original was played."""

    code: str
    message: str
    field: Optional[str] = None
    rule: Optional[str] = None
    v: Optional[int] = None

    def extra(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        if self.rule is not None:
            out["rule"] = self.rule
        if self.v is not None:
            out["v"] = self.v
        return out


@dataclass
class Outcome:
    """A stroke, lag, decision or forfeit the referee ruled: ``ruling`` (rules.base.Ruling), ``record`` (the
    record entry without ``ruling``, which the actor adds), and for strokes ``shots`` (the ``shots`` of the
    stream message: seat, seq, stroke, call, cue_ball), ``log`` (the wire event log) and the physics and
    referee times and the wire log's encoding time (s); ``ruling_extra`` and ``text_extra``: what a practice
    table adds to the ruling."""

    ruling: Any
    record: Dict[str, Any]
    shots: List[Dict[str, Any]] = field(default_factory=list)
    log: Optional[Dict[str, Any]] = None
    decision: Optional[Dict[str, Any]] = None
    sim_s: float = 0.0
    referee_s: float = 0.0
    encode_s: float = 0.0
    ruling_extra: Dict[str, Any] = field(default_factory=dict)  # keys added to the ruling's dict (a drill's verdict)
    text_extra: Optional[str] = None  # a sentence added to the ruling's text


def illegal(exc: IllegalAction) -> Refusal:
    """The refusal of an action the referee refused, naming the wire field it came from (none when the
    referee names its own state, e.g. ``phase``)."""
    code = ErrorCode.NOT_YOUR_TURN if exc.code == "not_your_turn" else (
        ErrorCode.GAME_OVER if exc.code == "game_over" else ErrorCode.ILLEGAL_ACTION)
    return Refusal(code, str(exc), WIRE_FIELD.get(exc.field), rule=exc.code)


def check_seq(last_seq: int, last_v: int, seq: int) -> Optional[Refusal]:
    """A ``seq`` equal to the seat's last accepted one is a duplicate (played at version ``last_v``); a lower
    one is stale."""
    if seq == last_seq:
        return Refusal(ErrorCode.DUPLICATE_SEQUENCE, f"seq: {seq} was already played (version {last_v})", "seq", v=last_v)
    if seq < last_seq:
        return Refusal(ErrorCode.STALE_SEQUENCE, f"seq: must be greater than {last_seq}", "seq")
    return None


def ready(game: Any, both_seated: bool) -> Optional[Refusal]:
    """Whether a game action may be played at all: the game is on and both seats are taken."""
    if game.over:
        return Refusal(ErrorCode.GAME_OVER, "the game is over")
    if not both_seated:
        return Refusal(ErrorCode.NOT_YOUR_TURN, "waiting for an opponent to take the other seat")
    return None


def shoot_options(game: Any) -> Dict[str, Any]:
    """The referee's ``legal_actions()["shoot"]`` (empty when no stroke may be played now)."""
    return game.legal_actions().get("shoot") or {}


def simulated(game: Any, seat: int, msg: I.Shot, cue_ball: int) -> Union[Tuple[Any, float], Refusal]:
    """The stroke ``msg`` of ``seat`` prepared by the referee (the call, the cue ball in hand placed) and
    simulated with ``cue_ball`` struck: ``(SimResult, simulate's CPU-bound time in s)``; or the
    :class:`Refusal` of the referee (an illegal placement or call) or of the physics (a field out of its
    range: ``bad_field``, naming ``stroke.<field>`` when the stroke holds it)."""
    try:
        layout = game.prepare_shot(seat, msg.call, msg.cue_ball)
    except IllegalAction as exc:
        return illegal(exc)
    t0 = time.perf_counter()
    try:
        sim = simulate(game.table, layout, Shot(cue_ball=cue_ball, **msg.stroke))
    except ValueError as exc:
        key = str(exc).split(":", 1)[0]
        return Refusal(ErrorCode.BAD_FIELD, str(exc), f"stroke.{key}" if key in msg.stroke else key)
    return sim, time.perf_counter() - t0


def _judged(rule: Callable[[], Any], sim: Any, ids: Tuple[Mapping[str, int], Mapping[str, int]]):
    """``rule()`` (the referee's ruling of ``sim``) and the wire log of ``sim``, timed: ``(ruling, wire log,
    referee s, encode s)``."""
    t1 = time.perf_counter()
    ruling = rule()
    t2 = time.perf_counter()
    log_map = protocol.encode_log(sim, *ids)
    return ruling, log_map, t2 - t1, time.perf_counter() - t2


def ruled_stroke(game: Any, ids: Tuple[Mapping[str, int], Mapping[str, int]], seat: int, striker: int, msg: I.Shot,
                 cue_ball: int, sim: Any, sim_s: float, now: Optional[float] = None, practice: bool = False) -> Outcome:
    """The :class:`Outcome` of a simulated non-lag stroke (``sim``, from :func:`simulated`; ``sim_s`` its time):
    the referee's ruling of it as ``striker``'s stroke (it changes the game), then the wire log, the stream's
    ``shots`` and the record entry (``practice``: marked as a practice stroke; at carom, the cue ball's cushion
    diamonds the history shows). ``seat`` is the sender's seat (a practice table's coach may play the striker's)."""
    ruling, log_map, referee_s, encode_s = _judged(lambda: game.apply_shot(striker, msg.call, sim), sim, ids)
    cue_pos = list(msg.cue_ball) if msg.cue_ball else None
    shots = [{"seat": seat, "seq": msg.seq, "stroke": msg.stroke, "call": msg.call, "cue_ball": cue_pos}]
    record = {"player": seat, "seq": msg.seq, "call": msg.call, "cue_ball_position": cue_pos, "stroke": msg.stroke,
              "log": log_map, "ts": time.time() if now is None else now}
    if practice:
        record["practice"] = True
    if game.table.kind == "carom":  # the diamond readout the history shows (a few microseconds)
        record["diamonds"] = cushion_diamonds(game.table, sim.events, cue_ball)
    return Outcome(ruling, record, shots, log_map, sim_s=sim_s, referee_s=referee_s, encode_s=encode_s)


def stroke(game: Any, ids: Tuple[Mapping[str, int], Mapping[str, int]], seat: int, msg: I.Shot,
           shoot: Mapping[str, Any], now: Optional[float] = None) -> Union[Outcome, Refusal]:
    """Play ``msg`` (a non-lag stroke) for ``seat``: place the cue ball, simulate, rule.

    ``ids``: the table preset's (cushion ids, pocket ids) for the wire log; ``shoot``: the game's
    :func:`shoot_options` now. The game changes only when an :class:`Outcome` is returned.
    """
    r = simulated(game, seat, msg, shoot["cue_ball"])
    if isinstance(r, Refusal):
        return r
    sim, sim_s = r
    return ruled_stroke(game, ids, seat, seat, msg, shoot["cue_ball"], sim, sim_s, now)


def lag_cue_ball(seat: int, lag_balls: Mapping[str, Any], layout: Mapping[int, Any]) -> int:
    """The ball ``seat`` strikes in the lag: ``legal.shoot.lag_balls`` maps each seat (str) to its ball id or its
    ball's start position (both forms exist among the referees); seat s lags ball s otherwise."""
    v = lag_balls.get(str(seat))
    if isinstance(v, int):
        return v
    if isinstance(v, (list, tuple)) and len(v) == 2:
        for b, p in layout.items():
            if abs(p[0] - v[0]) < 1e-9 and abs(p[1] - v[1]) < 1e-9:
                return b
    return seat


def lag_stroke(game: Any, ids: Tuple[Mapping[str, int], Mapping[str, int]], pending: Mapping[int, Dict[str, Any]],
               seat: int, msg: I.Shot, shoot: Mapping[str, Any],
               now: Optional[float] = None) -> Union[Outcome, Refusal, Dict[str, Any]]:
    """One player's lag stroke (``shoot``: the game's :func:`shoot_options`, whose ``lag`` is true). ``pending``:
    the lag strokes kept so far (seat -> {"seq", "stroke"}).

    Returns a :class:`Refusal`; or the entry to keep for ``seat`` (a dict) while the other lag stroke
    is awaited; or, when it completes the pair, the :class:`Outcome` of both strokes simulated together.
    """
    if seat in pending:
        return Refusal(ErrorCode.ILLEGAL_ACTION, "lag: already played; waiting for the opponent's", rule="lag_pending")
    lag_balls = shoot.get("lag_balls") or {}
    try:
        layout = game.prepare_shot(seat, None, None)
    except IllegalAction as exc:
        return illegal(exc)
    mine = {"seq": msg.seq, "stroke": msg.stroke}
    both = dict(pending)
    both[seat] = mine
    if len(both) < 2:
        return mine
    shots = [Shot(cue_ball=lag_cue_ball(s, lag_balls, layout), **both[s]["stroke"]) for s in (0, 1)]
    t0 = time.perf_counter()
    sim = simulate(game.table, layout, shots)
    sim_s = time.perf_counter() - t0
    ruling, log_map, referee_s, encode_s = _judged(lambda: game.apply_lag(sim), sim, ids)
    played = [{"seat": s, "seq": both[s]["seq"], "stroke": both[s]["stroke"], "call": None, "cue_ball": None} for s in (0, 1)]
    record = {"lag": True, "player": None, "strokes": [both[s]["stroke"] for s in (0, 1)], "log": log_map,
              "ts": time.time() if now is None else now}
    return Outcome(ruling, record, played, log_map, sim_s=sim_s, referee_s=referee_s, encode_s=encode_s)


def decision(game: Any, seat: int, msg: I.Decision) -> Union[Outcome, Refusal]:
    """A decision the rules offer ``seat`` (accept the table, choose the breaker, ...)."""
    try:
        ruling = game.apply_decision(seat, msg.name, msg.arg)
    except IllegalAction as exc:
        return illegal(exc)
    d = {"name": msg.name, "arg": list(msg.arg) if isinstance(msg.arg, tuple) else msg.arg}
    return Outcome(ruling, {"player": seat, "seq": msg.seq, "decision": d}, decision=d)


ABORTED_TEXT = "aborted before both players had played a stroke: not rated"


def both_played(history: Sequence[Mapping[str, Any]]) -> bool:
    """Has each seat (0 and 1) played a stroke of its own in the game so far? ``history``: the game's entries as
    the snapshot lists them (``protocol.outbound.history_entry``: ``kind``, ``seat``); the lag is nobody's own
    stroke. A rated game forfeited before both have played is aborted: it is recorded but not rated (as a
    chess server aborts a game resigned before each side has moved), so that a resignation straight after the
    lag neither wins nor costs rating points."""
    return {0, 1} <= {e.get("seat") for e in history if e.get("kind") == "stroke"}


def forfeit(game: Any, seat: int, reason: str) -> Outcome:
    """``seat`` loses the game: ``reason`` is ``resigned``, ``left`` or ``abandoned`` (a granted claim)."""
    return Outcome(game.apply_forfeit(seat, reason), {"player": seat, "forfeit": reason})


def timeout(game: Any, seat: int) -> Optional[Outcome]:
    """The shot clock of ``seat`` ran out: the referee's time-out ruling, or None when it rules none now."""
    try:
        ruling = game.apply_timeout(seat)
    except IllegalAction:
        return None
    return Outcome(ruling, {"player": seat, "timeout": True})


def claim(game: Any, claimant: int, opponent_connected: bool, opponent_grace_until: Optional[float],
          now: float) -> Union[Outcome, Refusal]:
    """``claimant`` claims the game because the opponent has gone.

    Granted (a forfeit of the opponent, ``abandoned``) only when the opponent is away, the game has
    begun (not during the lag or the choice of breaker: :func:`before_game`), the opponent is the one who
    must act (their stroke or their decision: a player to act who is kept waiting has nothing to
    claim) and the opponent's grace period has run out. Otherwise the seat stays open and, where
    the table has one, the shot clock rules.
    """
    if opponent_connected:
        return Refusal(ErrorCode.NOTHING_TO_CLAIM, "the opponent is connected")
    if before_game(game):
        return Refusal(ErrorCode.NOTHING_TO_CLAIM, "the game has not begun: nothing to claim before the break")
    if game.to_act != 1 - claimant:
        return Refusal(ErrorCode.NOTHING_TO_CLAIM, "it is your turn: a claim is possible only while the opponent must act")
    if opponent_grace_until is not None and opponent_grace_until > now:
        return Refusal(ErrorCode.GRACE_NOT_EXPIRED, f"the opponent's grace period ends at {opponent_grace_until:.3f}")
    return forfeit(game, 1 - claimant, "abandoned")
