"""A bot's seat at a table, sans I/O: what it makes of each message it receives and when it must move.

Used by the asyncio bots of ``billar bots`` (bots/client.py) and by the Locust players
(loadtest/locustfile.py, gevent): each feeds received messages to :meth:`SeatPlay.feed` and,
when :meth:`SeatPlay.position_to_move` gives a game, asks the engine for an
:class:`bots.action.Action` and sends :meth:`SeatPlay.message_for` of it.

Resuming (docs/protocol.md section 5): every ``shot``/``decision`` sent stays in
:attr:`SeatPlay.pending` until the stream message that carries its ``seq`` (or an error naming
that ``seq``) arrives. A ``seated`` for the seat already held (after the client's own ``resume``
on a new connection, or sent by the server when the table moved to another process) sets
``Feedback.reseated``: the caller then sends :meth:`SeatPlay.resend` again, same ``seq``. The
server plays such a message once; when it had played it before, its ``duplicate_sequence``
answer is expected and not an error. A stream message at a version already applied is ignored
(``Feedback.repeat``), never applied twice to the mirror.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set

import protocol
from bots.action import Action
from bots.mirror import Mirror, MirrorError
from protocol import inbound as I
from rules.registry import game_from_state


class Stream:
    """Version bookkeeping of one table's stream as one connection receives it."""

    def __init__(self):
        self.v: Optional[int] = None

    def is_repeat(self, msg: Dict[str, Any]) -> bool:
        """True for a stream message (not a snapshot) at a version already seen: to be ignored, not checked."""
        return msg["type"] != "table_snapshot" and self.v is not None and msg["v"] <= self.v

    def check(self, msg: Dict[str, Any]) -> Optional[str]:
        """Accept a stream message; returns a failure text for a gap or a repeat, else None."""
        v = msg["v"]
        if msg["type"] == "table_snapshot":
            self.v = v
            return None
        if self.v is not None and v != self.v + 1:
            text = f"version {v} after {self.v}"
            self.v = v
            return text
        self.v = v
        return None


@dataclass
class Feedback:
    """What one received message told: ``errors`` (texts), ``gap`` (a version gap text or None),
    ``latency_s`` (shot-to-broadcast of this seat's own moves, lags left out), ``resync`` (a
    snapshot in the middle of a game), ``stroke``/``decision`` (a stroke or a decision ruled),
    ``over`` (the game just ended; ``result`` its result); after a drop: ``reseated`` (a
    ``seated`` for the seat already held: send :meth:`SeatPlay.resend`), ``repeat`` (the version of
    a stream message already applied, ignored), ``duplicate`` (a resent action the server had
    played before), ``retry`` (a ``shot``/``decision`` answered ``unavailable``/``busy``: send
    :meth:`SeatPlay.resend` again after a pause), ``resume_error`` (the code of an ``error``
    answering ``resume``; not counted in ``errors``: the caller decides)."""

    errors: List[str] = field(default_factory=list)
    gap: Optional[str] = None
    latency_s: List[float] = field(default_factory=list)
    resync: bool = False
    stroke: bool = False
    decision: bool = False
    over: bool = False
    result: Optional[Dict[str, Any]] = None
    reseated: bool = False
    repeat: Optional[int] = None
    duplicate: bool = False
    retry: bool = False
    resume_error: Optional[str] = None


RETRY_CODES = frozenset({"unavailable", "busy", "shutting_down"})  # error codes that mean "try again later"


class SeatPlay:
    """One seat of one table as a bot holds it: seat and token, the mirror of the game, sequence numbers."""

    def __init__(self):
        self.table: Optional[str] = None
        self.seat: Optional[int] = None
        self.token: Optional[str] = None
        self.mirror: Optional[Mirror] = None
        self.stream = Stream()
        self.seq = 0
        self.sent: Dict[int, float] = {}  # seq -> send time (s, the caller's clock); latency of first sends only
        self.pending: Dict[int, I.Inbound] = {}  # seq -> shot/decision sent and not answered yet
        self.resent: Set[int] = set()  # seqs sent more than once (their duplicate_sequence answers are expected)
        self.acted_v: Optional[int] = None  # the position (version) this seat last moved in
        self.state: Optional[Dict[str, Any]] = None
        self.state_v: Optional[int] = None  # version of the last message that carried a position
        self.seats_full = False
        self.over = False
        self.mirror_game: Optional[int] = None  # the game number of the table's last snapshot

    def feed(self, msg: Dict[str, Any], now: float) -> Feedback:
        """Take one decoded server message received at ``now`` (s)."""
        fb = Feedback()
        t = msg["type"]
        if t == "error":
            self._error(msg, fb)
            return fb
        if t == "seated":
            fb.reseated = self.token is not None and msg["table"] == self.table and msg["seat"] == self.seat
            self.table, self.seat, self.token = msg["table"], msg["seat"], msg["token"]
            return fb
        if t not in protocol.STREAM_TYPES or msg.get("table") != self.table:
            return fb
        if self.stream.is_repeat(msg):
            fb.repeat = msg["v"]
            return fb
        fb.gap = self.stream.check(msg)
        try:
            if t == "table_snapshot":
                if self.mirror is None:
                    self.mirror = Mirror(msg)
                else:
                    fb.resync = msg["v"] != self.mirror.v + 1 and msg["game"] == self.mirror_game
                    self.mirror.apply(msg)
                self.mirror_game = msg["game"]
            elif self.mirror is not None:
                self.mirror.apply(msg)
        except MirrorError as exc:
            fb.errors.append(str(exc))
            self.over = True
            return fb
        if t in ("stroke", "ruling"):
            mine = msg["shots"] if t == "stroke" else [{"seat": msg["seat"], "seq": msg["seq"]}]
            for s in mine:
                if s.get("seat") == self.seat:
                    self.pending.pop(s.get("seq"), None)
                    if s.get("seq") in self.sent:
                        t0 = self.sent.pop(s["seq"])
                        if not (t == "stroke" and len(msg["shots"]) == 2):
                            fb.latency_s.append(now - t0)
            fb.stroke = t == "stroke"
            fb.decision = t == "ruling" and msg["cause"] == "decision"
        if "state" in msg:
            self.state, self.state_v = msg["state"], msg["v"]
        if "seats" in msg:
            self.seats_full = all(s is not None for s in msg["seats"])
        if self.state is not None and self.state["over"] and not self.over:
            self.over = fb.over = True
            fb.result = self.state["result"]
        return fb

    def _error(self, msg: Dict[str, Any], fb: Feedback) -> None:
        code, ref, seq = msg.get("code"), msg.get("ref"), msg.get("seq")
        if ref == "resume":
            fb.resume_error = code
            return
        if code == "duplicate_sequence" and seq in self.resent:
            fb.duplicate = True  # played before the move: its stream message came (or comes) by the stream
            return
        if ref in ("shot", "decision") and code in RETRY_CODES and self.pending:
            fb.retry = True
            return
        if seq is not None:
            self.pending.pop(seq, None)  # refused: sending it again would not help
        fb.errors.append(f"error {code}: {msg.get('message')}")

    def position_to_move(self) -> Optional[Any]:
        """A private copy of the game when this seat must move in a position it has not moved in yet
        (both seats taken; a lag stroke, a stroke or a decision), else None. Marks the position."""
        st = self.state
        if st is None or self.mirror is None or self.over or st["over"] or not self.seats_full:
            return None
        shoot = (st["legal"] or {}).get("shoot") or {}
        if (not shoot.get("lag") and st["to_act"] != self.seat) or self.acted_v == self.state_v:
            return None
        self.acted_v = self.state_v
        return game_from_state(self.mirror.game.to_state())

    def message_for(self, act: Action, now: float) -> I.Inbound:
        """The ``shot`` or ``decision`` message of ``act`` with the next sequence number (sent at ``now``)."""
        self.seq += 1
        self.sent[self.seq] = now
        if act.kind == "decision":
            msg: I.Inbound = I.Decision(table=self.table, token=self.token, seq=self.seq, name=act.name, arg=act.arg)
        else:
            msg = I.Shot(table=self.table, token=self.token, seq=self.seq, stroke=act.stroke(), call=act.call,
                         cue_ball=tuple(act.cue_ball) if act.cue_ball is not None else None)
        self.pending[self.seq] = msg
        return msg

    def resend(self) -> List[I.Inbound]:
        """The actions not answered yet, in ``seq`` order, to send again unchanged (same ``seq``) after a
        ``seated`` for this seat or a ``retry``; their latency is no longer measured (it spans the drop)."""
        out = []
        for seq in sorted(self.pending):
            self.resent.add(seq)
            self.sent.pop(seq, None)
            out.append(self.pending[seq])
        return out

    def leave(self) -> Optional[I.Inbound]:
        """The ``leave`` message giving up the seat (None when not seated)."""
        return I.Leave(table=self.table, token=self.token) if self.token else None
