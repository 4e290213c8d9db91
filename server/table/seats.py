"""The seats of a table and the actor steps that change who is at it: join, watch, resume, leave, disconnect.

A seat holds the player, the hash of its resume token (the token itself is only ever given to
the connection that took or resumed the seat), the connection bound to it (None while the
player is away: the seat is then held until ``grace_until``) and its last sequence number.

The functions taking ``t`` are steps of the table actor ``t`` (server/table/actor.py): they run
inside its inbox loop, one at a time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Any, Dict, List, Optional

from protocol import inbound as I
from protocol.errors import CloseCode, ErrorCode
from server.conn import Connection
from server.table.feed import PLAYER, SPECTATOR


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


class Seat:
    """A seat: the player, the hash of its resume token, the bound connection and the sequence numbers."""

    __slots__ = ("player", "name", "token_hash", "session", "last_seq", "last_v", "grace_until", "account", "rating",
                 "provisional", "proved")

    def __init__(self, player: str, name: str, token_hash: str, last_seq: int = -1, last_v: int = 0,
                 account: Optional[int] = None, rating: Optional[int] = None, provisional: Optional[bool] = None):
        self.player, self.name, self.token_hash = player, name, token_hash
        self.session: Optional[Connection] = None
        self.last_seq, self.last_v = last_seq, last_v
        self.grace_until: Optional[float] = None
        self.account, self.rating = account, rating  # the logged-in player's account, its rating when seated
        self.provisional = provisional  # that rating's RD was high (shown "1500?"); None with no rating
        self.proved: Optional[tuple] = None  # (token_hash, token bytes) last matched: seat_with_token skips the hash

    def to_state(self) -> Dict[str, Any]:
        return {"player": self.player, "name": self.name, "token_hash": self.token_hash, "last_seq": self.last_seq,
                "last_v": self.last_v, "account": self.account, "rating": self.rating,
                "provisional": self.provisional}

    @classmethod
    def from_state(cls, s: Dict[str, Any]) -> "Seat":
        return cls(s["player"], s["name"], s["token_hash"], s["last_seq"], s["last_v"], s.get("account"), s.get("rating"),
                   s.get("provisional"))

    def live(self) -> bool:
        """A connection is bound to the seat and is not closing."""
        return self.session is not None and not self.session.closing


def seat_with_token(t: Any, token: str) -> Optional[int]:
    """The seat ``token`` opens at table ``t`` (constant-time comparisons), or None.

    A token that opened a seat is remembered with the seat's hash at the time: while the hash is
    the same object, the same token opens the seat without hashing again (a SHA-256 a stroke)."""
    raw = token.encode()
    for i, s in enumerate(t.seats):
        if s is not None and s.proved is not None and s.proved[0] is s.token_hash and hmac.compare_digest(s.proved[1], raw):
            return i
    h = token_hash(token)
    for i, s in enumerate(t.seats):
        if s is not None and hmac.compare_digest(s.token_hash, h):
            s.proved = (s.token_hash, raw)
            return i
    return None


def distinct_name(name: str, others: List[Optional[str]]) -> str:
    """``name``, or ``name (2)`` (3, ...) when another seat of the table already shows it (case ignored), so
    that no player can pass for the opponent."""
    taken = {o.casefold() for o in others if o}
    if name.casefold() not in taken:
        return name
    n = 2
    while f"{name} ({n})".casefold() in taken:
        n += 1
    return f"{name} ({n})"


def room_for(t: Any, conn: Connection, ref: str) -> bool:
    """Whether ``conn`` may be at one more table (it is already at this one, or below its limit)."""
    if t.id in conn.tables:
        return True
    limit = t.settings.max_tables_per_session
    if len(conn.tables) >= limit:
        t.error(conn, ErrorCode.TOO_MANY_TABLES, f"at most {limit} tables per connection", ref=ref, table=t.id)
        return False
    return True


async def take_seat(t: Any, conn: Connection, want: Optional[int], ref: str = "join") -> Optional[int]:
    """Give ``conn`` a seat (``want`` or the first free one): ``seated`` + snapshot to it, ``seats`` to all."""
    await t.flush_or_confirm()  # the snapshot below is not older than anything still to be published, and a
    # process that lost the table (paused, say) never hands out a seat: the fenced write tells it
    if conn.closing:  # gone before its turn came (closed right after create_table): no seat for it
        t.check_idle()
        return None
    if t.seat_of(conn) is not None:
        t.error(conn, ErrorCode.ALREADY_SEATED, "this connection already holds a seat here", None, ref, table=t.id)
        return None
    if not room_for(t, conn, ref):
        return None
    free = t.open_seats()
    if any(a is not None for a in t.reserved):  # a tournament's table: each seat is its player's
        mine = [i for i, a in enumerate(t.reserved) if a is not None and a == conn.account_id]
        if not mine or (want is not None and want not in mine):
            t.error(conn, ErrorCode.SEAT_TAKEN, "seat: reserved for a tournament's player; watch instead",
                    "seat", ref, table=t.id)
            return None
        want = mine[0]
    if want is not None and want not in free:
        if t.practice is not None and t.seats[want] is None:
            t.error(conn, ErrorCode.SEAT_TAKEN, f"seat: {want} is the coach's, and this practice table offers none",
                    "seat", ref, table=t.id)
        else:
            t.error(conn, ErrorCode.SEAT_TAKEN, f"seat: {want} is taken", "seat", ref, table=t.id)
        return None
    if not free:
        word = "a practice table's seats are taken" if t.practice is not None else "both seats are taken"
        t.error(conn, ErrorCode.TABLE_FULL, f"{word}; watch instead", None, ref, table=t.id)
        return None
    if t.rated and conn.account_id is None:
        t.error(conn, ErrorCode.LOGIN_REQUIRED, "a rated table: log in to play at it", None, ref, table=t.id)
        return None
    i = want if want is not None else free[0]
    rp = await t.host.rating_provisional(conn.account_id, t.discipline) if conn.account_id is not None else None
    rating, provisional = rp if rp is not None else (None, None)
    if t.seats[i] is not None or conn.closing:  # taken or gone while the rating was read
        t.error(conn, ErrorCode.SEAT_TAKEN, f"seat: {i} is taken", "seat", ref, table=t.id)
        return None
    token = new_token()
    name = distinct_name(conn.name, [s.name if s else None for s in t.seats])
    seat = Seat(conn.player, name, token_hash(token), account=conn.account_id, rating=rating,
                provisional=provisional)
    seat.session = conn
    t.seats[i] = seat
    t.rematch_offers = [False, False]
    conn.tables.add(t.id)
    if t.feed.members.get(conn) == SPECTATOR:
        t.spectators_changed()
    t.feed.add(conn, PLAYER)
    conn.seated(t.id, i, token)
    conn.snapshot(t.snapshot())
    conn.at_version(t.id, t.version, PLAYER)
    t.arm_clock()
    t.broadcast_seats(meta=True)
    t.check_idle()
    return i


async def watch(t: Any, conn: Connection, msg: I.Watch) -> None:
    await t.flush()
    if conn.closing:
        t.check_idle()
        return
    if t.seat_of(conn) is None:
        if not room_for(t, conn, "watch"):
            return
        conn.tables.add(t.id)
        if t.feed.members.get(conn) != SPECTATOR:
            t.feed.add(conn, SPECTATOR)
            t.spectators_changed()
    catch_up(t, conn, msg.v)
    t.check_idle()


def catch_up(t: Any, conn: Connection, v: Optional[int]) -> None:
    """Replay the stream after ``v`` when the history holds it, else send a snapshot."""
    replay = t.feed.since(v, t.version) if v is not None else None
    if replay is None:
        conn.snapshot(t.snapshot())
    else:
        for ver, data in replay:
            conn.send_stream(t.id, ver, data)
    conn.at_version(t.id, t.version, t.feed.members.get(conn))


async def resume(t: Any, conn: Connection, msg: I.Resume, auto: bool = False) -> None:
    """Bind the seat ``msg.token`` opens to ``conn`` and bring it up to date.

    A resume the client sent wins over the connection holding the seat (a reload, a new device):
    that one is closed with 4002. A resume a node sent on the client's behalf after the table
    moved (``auto``) never evicts a live connection: the connection it stood for is the stale one,
    and it is closed with 4002 instead.
    """
    await t.flush_or_confirm()  # a process that lost the table (it was paused, say) never answers ``seated``
    # for it: the fenced write tells it, and the resume goes on to the new owner (TableActor._run)
    i = seat_with_token(t, msg.token)
    if i is None:
        t.error(conn, ErrorCode.BAD_TOKEN, "token: does not open a seat at this table", "token", "resume", table=t.id)
        return
    s = t.seats[i]
    if conn.closing:  # a resume of a connection that has gone is never made (its seat stays as it is)
        return
    if auto and s.session is not None and s.session is not conn and not s.session.closing:
        t.feed.remove(conn)
        conn.tables.discard(t.id)
        conn.close(CloseCode.REPLACED, "seat resumed on another connection")
        return
    if s.session is not conn and not room_for(t, conn, "resume"):
        return
    old = s.session
    changed = old is None
    if old is not None and old is not conn:
        t.feed.remove(old)
        old.tables.discard(t.id)
        old.close(CloseCode.REPLACED, "seat resumed on another connection")
    if t.feed.members.get(conn) == SPECTATOR:
        t.spectators_changed()
    if s.account is not None and conn.account_id != s.account:  # a rated seat is its account's, whoever holds the token
        t.error(conn, ErrorCode.LOGIN_REQUIRED, "this seat belongs to another account", "token", "resume", table=t.id)
        return
    s.session, s.grace_until = conn, None
    s.player = conn.player
    if conn.name:
        s.name = distinct_name(conn.name, [o.name if o else None for j, o in enumerate(t.seats) if j != i])
    conn.tables.add(t.id)
    t.feed.add(conn, PLAYER)
    conn.caught_up(t.id)
    conn.seated(t.id, i, msg.token)
    catch_up(t, conn, msg.v)
    if changed:
        t.arm_clock()
        t.broadcast_seats()
    t.check_idle()


async def resync(t: Any, conn: Connection) -> None:
    """A player that fell behind has drained its buffer: send the current snapshot and resume the stream."""
    await t.flush()
    if conn in t.feed.members and not conn.closing:
        t.metrics.resyncs.inc()
        conn.snapshot(t.snapshot())
        conn.at_version(t.id, t.version, t.feed.members.get(conn))
    conn.caught_up(t.id)


async def reclaim(t: Any, conn: Connection, msg: I.CreateTable) -> None:
    """A ``create_table`` retried with this table's creation id (from any connection): the creator's seat
    is bound to ``conn`` with a new token (the old one stops working), or, when the creator only
    watched or gave the seat up, ``conn`` watches. Never a second table."""
    c = t.creation
    if c is None or not hmac.compare_digest(c["hash"], token_hash(msg.creation_id)):
        t.error(conn, ErrorCode.BAD_TOKEN, "creation_id: does not belong to this table", "creation_id", "create_table",
                table=t.id)
        return
    seat = c.get("seat")
    held = t.seats[seat] if seat is not None else None
    if held is None or (held.session is not None and held.session.computer):
        await watch(t, conn, I.Watch(table=t.id))
        return
    token = new_token()
    held.token_hash = token_hash(token)
    t.batch.changed = True  # the new token's hash is persisted with the next flush
    await resume(t, conn, I.Resume(table=t.id, token=token))


async def leave(t: Any, conn: Connection, msg: I.Leave) -> None:
    if msg.token is None:
        if t.seat_of(conn) is not None:
            t.error(conn, ErrorCode.BAD_TOKEN, "token: give the seat token to leave the seat", "token", "leave", table=t.id)
            return
        if t.feed.remove(conn) is None:
            t.error(conn, ErrorCode.NOT_WATCHING, "not watching this table", "table", "leave", table=t.id)
            return
        conn.tables.discard(t.id)
        t.spectators_changed()
        conn.left(t.id)
        t.check_idle()
        return
    seat = t.seat_action(conn, msg)
    if seat is None:
        return
    if t.game_in_progress() and t.record_len > 0:
        t.rule_forfeit(seat, "left")
    t.seats[seat] = None
    t.feed.remove(conn)
    conn.tables.discard(t.id)
    conn.left(t.id)
    t.arm_clock()
    t.broadcast_seats(meta=True)
    t.check_idle()


async def renamed(t: Any, conn: Connection) -> None:
    """The connection has a new name (no game in progress): its seat shows it, kept distinct from the other's."""
    for i, s in enumerate(t.seats):
        if s is not None and s.session is conn:
            s.name = distinct_name(conn.name, [o.name if o else None for j, o in enumerate(t.seats) if j != i])
            t.broadcast_seats(meta=True)


async def disconnected(t: Any, conn: Connection) -> None:
    """The connection closed. A seat is held for the grace period; a stale socket never evicts a resumed one."""
    role = t.feed.remove(conn)
    conn.tables.discard(t.id)
    if role == SPECTATOR:
        t.spectators_changed()
    for s in t.seats:
        if s is not None and s.session is conn:  # only the connection currently bound to the seat
            s.session = None
            s.grace_until = time.time() + t.settings.grace_s
            if not t.host.stopping:
                t.arm_clock()
                t.broadcast_seats()
    t.check_idle()
