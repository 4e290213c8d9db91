"""The hub: where every validated inbound message goes, and the one place that decides local or remote.

A connection hands each message to :meth:`Hub.dispatch`. Session-level messages go to the
lobby (subscribe, quick play) or make a table; a table's message goes to :meth:`Hub.route`,
which puts it into the inbox of the table's actor when the table runs in this process
(server/registry.py), and otherwise forwards it to the process that owns the table
(server/cluster/node.py: the owner's channel), waiting while the owner is gone and its lease
has not expired yet (then a process adopts the table and the message goes there).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable, Dict, Optional

from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import ErrorCode
from server.cluster import wire
from server.cluster.node import Node
from server.config import Settings
from server.conn import Connection
from server.lobby import Lobby
from server.metrics import Metrics
from server.players.names import UsernameError, check_chars, is_reserved
from server.registry import Registry
from server.store import RedisUnavailable
from server.table import TableActor, new_table_id
from server.tasks import Background

log = logging.getLogger("billar.hub")

CREATION_WAIT_S = 3.0  # s, how long a retried create_table waits for the first write of the table its id made


class Hub:
    """Routes messages (``sessions``: this process's connections by id)."""

    def __init__(self, settings: Settings, metrics: Metrics, registry: Registry, node: Node, lobby: Lobby,
                 sessions: Dict[str, Any]):
        self.settings, self.metrics, self.registry, self.node, self.lobby = settings, metrics, registry, node, lobby
        self.sessions = sessions
        self.accounts: Optional[Callable[[str], Awaitable[Any]]] = None  # cookie -> account (the app sets it)
        # name -> whether an account has it (the app sets it: Accounts.is_registered)
        self.name_registered: Optional[Callable[[str], Awaitable[bool]]] = None
        node.route = self.route
        registry.on_reroute = self.reroute
        self._bg = Background()

    # ----- from a connection ---------------------------------------------------------------------
    def dispatch(self, conn: Any, msg: I.Inbound) -> None:
        """Route a validated message of local connection ``conn``. Work that must finish before the connection's
        next message is read (lobby, quick play, a creation with an id, a forward) is queued with ``conn.defer``."""
        if isinstance(msg, I.LobbySubscribe):
            conn.defer(self.lobby.subscribe(conn, msg))
        elif isinstance(msg, I.LobbyUnsubscribe):
            self.lobby.unsubscribe(conn)
        elif isinstance(msg, I.QuickPlay):
            conn.defer(self.lobby.quick_play(conn, msg))
        elif isinstance(msg, I.QuickPlayCancel):
            conn.defer(self.lobby.quick_cancel(conn))
        elif isinstance(msg, I.Rename):
            conn.defer(self.rename(conn, msg))
        elif isinstance(msg, I.CreateTable):
            if msg.creation_id is not None:  # idempotent: a retry finds the table made by the first request
                conn.defer(self.create_once(conn, msg))
            else:
                self.create_table(conn, msg)
        else:
            actor = self.registry.get(msg.table)
            if actor is None:  # owned by another process, or an orphan to adopt, or no such table
                conn.defer(self.route(conn, msg))
            else:
                self.submit_local(conn, actor, msg)

    async def authenticate(self, request: Any) -> Optional[Any]:
        """The account of a WebSocket handshake's session cookie (``self.accounts(cookie)``, set by the app), or
        None: no cookie, no accounts, or a page of another origin (a cookie sent along by a foreign site, which
        is not its own login, is never trusted: cross-site WebSocket hijacking)."""
        if self.accounts is None or request is None:
            return None
        cookie = request.headers.get("Cookie")
        if not cookie:
            return None
        origin = request.headers.get("Origin")
        if origin is not None:
            own = {f"http://{request.headers.get('Host', '')}", f"https://{request.headers.get('Host', '')}"}
            if origin.rstrip("/") not in own and origin.rstrip("/") not in (self.settings.origins or ()):
                return None
        try:
            return await self.accounts(cookie)
        except Exception:  # the database is away: the player is a guest on this connection
            log.warning("session cookie not checked: accounts unavailable", exc_info=True)
            return None

    async def guest_name_refused(self, name: str) -> Optional[str]:
        """Why a guest may not show ``name`` (the message of a ``bad_field`` error), or None: the computer's and the
        house's names are reserved; a guest's name is made of the characters a username may have
        (server/players/names.py ``check_chars``: letters, digits, single separators); and a registered player's name
        (or one passing for it) is theirs (QA: a guest could play as "ann" beside the account "ann"). With the
        database away, the registered names are not checked."""
        if is_reserved(name):
            return "name: this name is reserved (the computer's, or the house's)"
        try:  # the accounts' letters, digits and single separators: no "Ann (1662)" passing for a lobby line (QA)
            check_chars(name.strip())
        except UsernameError as exc:
            return str(exc).replace("username:", "name:", 1)
        if self.name_registered is not None:
            try:
                if await self.name_registered(name):
                    return "name: a registered player has this name; log in to use it, or choose another"
            except Exception:
                log.warning("guest name not checked against the accounts: database unavailable", exc_info=True)
        return None

    async def rename(self, conn: Any, msg: I.Rename) -> None:
        """A new display name for ``conn``, now: refused while it plays a game in progress at a table here (the
        opponent and the spectators keep seeing the name the game began with); at this process's tables where it
        holds a seat and no game is on, the seat shows the new name at once (elsewhere from its next resume)."""
        seated = [a for a in (self.registry.get(t) for t in list(conn.tokens)) if a is not None]
        if conn.account is not None:
            conn.error(ErrorCode.BAD_FIELD, "rename: a logged-in player's name is the account's", "name", "rename")
            return
        why = await self.guest_name_refused(msg.name)
        if why is not None:
            conn.error(ErrorCode.BAD_FIELD, why, "name", "rename")
            return
        if any(a.game_in_progress() for a in seated):
            conn.error(ErrorCode.GAME_IN_PROGRESS, "rename: not while your game is in progress", "name", "rename")
            return
        conn.name = msg.name
        conn.send(O.renamed(msg.name))
        for a in seated:
            a.renamed(conn)

    def reroute(self, conn: Connection, msg: I.Inbound, auto: bool = False) -> None:
        """A message that reached a process just as it lost the table (server/table/actor.py): route it again, to
        the new owner (a connection of another process is told ``moved`` and its own process routes it)."""
        if conn.closing:
            return
        if conn.remote:
            self.node.post(conn.peer, wire.moved(conn.id, msg.to_wire(), msg.table, 1, auto))
        else:
            self._bg.spawn(self.route(conn, msg, hops=1, auto=auto))

    def greeted(self, conn: Any) -> None:
        self.lobby.greeted(conn)

    async def disconnected(self, conn: Any) -> None:
        """A local connection closed: its tables hold its seat for the grace period; it leaves the lobby."""
        for tid in list(conn.tables):
            actor = self.registry.get(tid)
            if actor is not None:
                actor.disconnected(conn)
            else:  # a table owned by another process
                self.node.session_gone(conn, tid)
        await self.lobby.gone(conn)

    def resync(self, conn: Connection, table: str) -> bool:
        """A player that fell behind at ``table`` has drained its buffer: ask the table's actor (here or on the
        owning process) for a snapshot. False when the table is gone."""
        actor = self.registry.get(table)
        if actor is not None:
            return actor.resync(conn)
        if table in self.node.relays:
            self.node.request_resync(conn, table)
            return True
        return False

    # ----- tables ----------------------------------------------------------------------------
    def create_table(self, conn: Any, msg: I.CreateTable, table_id: Optional[str] = None) -> Optional[TableActor]:
        """Make a table here for ``create_table`` (``table_id``: already bound to the message's creation id);
        every limit is checked before anything is made."""
        if msg.rated and msg.computer is not None:
            conn.error(ErrorCode.BAD_CONFIG, "rated: a game against the computer is never rated", "rated", "create_table")
            return None
        if msg.practice is not None and (msg.rated or msg.computer is not None):
            key = "rated" if msg.rated else "computer"
            conn.error(ErrorCode.BAD_CONFIG, f"{key}: a practice table is never rated and has no computer opponent", key,
                       "create_table")
            return None
        actor = self.registry.create(conn, msg.discipline, msg.config, msg.private, "create_table", table_id,
                                     msg.creation_id, msg.seat, address=conn.address, rated=msg.rated,
                                     practice=msg.practice)
        if actor is None:
            return None
        if msg.seat is not None:
            actor.seat_player(conn, msg.seat, "create_table")
        else:
            actor.submit(conn, I.Watch(table=actor.id))
        if msg.computer is not None:  # a computer opponent takes the other seat (server/table/computer.py)
            actor.add_computer(1 if msg.seat is None else 1 - msg.seat, msg.computer)
        return actor

    async def create_once(self, conn: Any, msg: I.CreateTable) -> None:
        """``create_table`` with a creation id: the first request makes the table, a retry (from any process,
        any connection) gets the seat of that table back with a new token, never a second table."""
        tid = new_table_id()
        try:
            existing = await self.node.store.claim_creation(msg.creation_id, tid, self.settings.creation_ttl_s)
        except RedisUnavailable:
            conn.error(ErrorCode.UNAVAILABLE, "create_table: storage unreachable, try again", None, "create_table")
            return
        if existing is None:
            if self.create_table(conn, msg, tid) is None:
                await self.node.store.forget_creation(msg.creation_id, tid)  # nothing was made: the id is free again
        else:
            await self.route(conn, msg, table=existing, being_created=True)

    def submit_local(self, conn: Connection, actor: TableActor, msg: I.Inbound, auto: bool = False) -> None:
        """Queue ``msg`` at a table actor of this process (``busy`` when its inbox is full)."""
        if isinstance(msg, I.CreateTable):  # a retried creation (create_once)
            ok = actor.reclaim(conn, msg)
        else:
            ok = actor.submit(conn, msg, auto=auto)
        if not ok:
            conn.error(ErrorCode.BUSY, "table: busy, try again", "table", msg.TYPE, table=actor.id,
                       seq=getattr(msg, "seq", None))

    async def route(self, conn: Connection, msg: I.Inbound, table: Optional[str] = None, hops: int = 0,
                    being_created: bool = False, auto: bool = False) -> None:
        """Deliver ``msg`` to the actor of its table wherever it runs (here: its inbox; elsewhere: the owner's
        channel). Waits while the owner is gone and its lease has not expired (then a process adopts it); with
        ``being_created`` (a retried ``create_table``), also while the table's first write is on its way.
        ``auto``: a message the node sends for its connection after the table moved."""
        tid = table or msg.table
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + self.settings.lease_ttl_s + 3.0
        while not conn.closing:
            actor = self.registry.get(tid)
            if actor is not None:
                self.submit_local(conn, actor, msg, auto)
                return
            try:
                owner = await self.node.owner_of(tid)
            except RedisUnavailable:
                conn.error(ErrorCode.UNAVAILABLE, "table: storage unreachable, try again", "table", msg.TYPE,
                           table=tid, seq=getattr(msg, "seq", None))
                return
            if owner is None:
                if being_created and loop.time() < started + CREATION_WAIT_S:
                    await asyncio.sleep(0.05)
                    continue
                conn.error(ErrorCode.NO_SUCH_TABLE, f"table: no table {tid!r} here", "table", msg.TYPE)
                return
            if owner != self.node.node and await self.node.send_cmd(owner, conn, msg, tid, hops, auto):
                return
            if loop.time() > deadline:
                conn.error(ErrorCode.UNAVAILABLE, "table: its server is unreachable, try again", "table", msg.TYPE,
                           table=tid, seq=getattr(msg, "seq", None))
                return
            await asyncio.sleep(0.2)
