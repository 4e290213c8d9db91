"""The computer seat: a bot (bots/engine.py) seated at a table, playing through the table actor's own handlers.

A table gets a computer opponent with ``create_table`` and ``computer: level`` (1..5): the seat
the creator does not take (seat 1 when the creator only watches) is given to a
:class:`ComputerSeat` with a :class:`ComputerConnection`. The computer's moves go through exactly the path of a human's: an
:class:`protocol.inbound.Shot` or ``Decision`` with the seat's token and the next sequence
number, handled by the actor (turn, sequence, referee, persistence, one broadcast). It is told
nothing a human is not: it reads the actor's game, as a human reads the stream.

Thinking never blocks the table or other tables: the actor calls :func:`after_step` after every
item of its inbox; when the computer is to move, the game's state is copied and the engine runs
in a worker thread (:data:`EXECUTOR`; the physics core releases the GIL while it simulates).
The move is played at least a human-like moment after the position appeared (a pause drawn
uniformly from :data:`PAUSE_S`), and only if the position has not changed meanwhile (a
resignation, a time-out). The computer accepts rematches, and gives up its seat once no human
holds the other one (the table then closes as any empty table does).

After a restart the computer is seated again from the table's persisted state (``computers``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Optional

from bots.action import Action
from bots.engine import Player
from protocol import inbound as I
from rules.registry import game_from_state
from server.conn import Connection
from server.table.seats import Seat, token_hash

log = logging.getLogger("billar.computer")

EXECUTOR = ThreadPoolExecutor(max_workers=2, thread_name_prefix="computer")
"""Where computer players think (shared by every table of the process)."""

PAUSE_S = (0.8, 2.0)
"""Seconds between a position appearing and the computer's move (uniform draw), thinking included."""


class ComputerConnection(Connection):
    """Stands where a human's connection stands at the table: refused moves are logged and counted, nothing
    is sent (the computer reads the game from the actor, as a human reads the stream)."""

    computer = True

    def __init__(self, level: int):
        self.id = f"computer-{secrets.token_urlsafe(6)}"
        self.player = self.id
        self.name = f"Computer (level {level})"
        self.tables: set = set()
        self.errors = 0

    @property
    def closing(self) -> bool:
        return False

    def error(self, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None, **kw: Any) -> None:
        self.errors += 1
        log.warning("computer move refused", extra={"code": code, "error": message})

    def send(self, message: Dict[str, Any]) -> None:
        pass

    def seated(self, table: str, seat: int, token: str) -> None:
        pass

    def snapshot(self, message: Dict[str, Any]) -> None:
        pass

    def left(self, table: str) -> None:
        pass

    def send_stream(self, table: str, v: int, data: bytes) -> None:
        pass

    def at_version(self, table: str, v: int, role: Optional[str]) -> None:
        pass

    def caught_up(self, table: str) -> None:
        pass

    def offer(self, table: str, role: str) -> bool:
        return False

    def close(self, code: int, reason: str) -> None:
        pass


class ComputerSeat:
    """A computer player at ``seat`` of a table: its engine, token, sequence numbers and pending think."""

    def __init__(self, seat: int, level: int):
        self.seat, self.level = seat, level
        self.conn = ComputerConnection(level)
        self.player = Player(level, secrets.randbits(32))
        self.token = secrets.token_urlsafe(24)
        self.seq = 0
        self.thinking: Optional[asyncio.Task] = None
        self.moved_v = -1  # version of the position it last moved in


def is_computer(conn: Optional[Connection]) -> bool:
    return conn is not None and conn.computer


async def seat_computer(actor: Any, seat: int, level: int) -> None:
    """Give the free ``seat`` of ``actor`` to a computer of ``level`` (an actor step; logs if the seat is taken)."""
    if actor.seats[seat] is not None or actor.closed:
        log.warning("computer seat not free", extra={"table": actor.id, "seat": seat})
        return
    comp = ComputerSeat(seat, level)
    s = Seat(comp.conn.player, comp.conn.name, token_hash(comp.token))
    s.session = comp.conn
    actor.seats[seat] = s
    actor.computers[seat] = comp
    actor.broadcast_seats(meta=True)
    actor.arm_clock()


def restore(actor: Any, computers: Dict[str, int]) -> None:
    """Seat the computers of a restored table again (their seats were persisted with their tokens' hashes)."""
    for k, level in computers.items():
        seat = int(k)
        s = actor.seats[seat]
        if s is None:
            continue
        comp = ComputerSeat(seat, level)
        s.token_hash, s.player, s.name = token_hash(comp.token), comp.conn.player, comp.conn.name
        comp.seq = s.last_seq
        s.session, s.grace_until = comp.conn, None
        actor.computers[seat] = comp


def after_step(actor: Any) -> None:
    """Called by the actor after each inbox item: start thinking when a computer is to move, accept a
    rematch offer, leave when no human holds the other seat and nobody else is at the table."""
    g = actor.game
    for seat, comp in list(actor.computers.items()):
        human = actor.seats[1 - seat]
        if (human is None and actor.connected() == 0) or (human is not None and is_computer(human.session)):
            actor.seats[seat] = None
            del actor.computers[seat]
            if comp.thinking is not None:
                comp.thinking.cancel()
            actor.check_idle()
            continue
        if comp.thinking is not None or actor.closed:
            continue
        if g.over:
            if actor.rematch_offers[1 - seat] and not actor.rematch_offers[seat]:
                _start(actor, comp, "rematch")
            continue
        shoot = (g.legal_actions().get("shoot") or {}) if actor.both_seated() else {}
        lag = bool(shoot.get("lag"))
        to_move = (lag and seat not in actor.lag) or (not lag and g.to_act == seat and actor.both_seated())
        if to_move and comp.moved_v != actor.version:
            _start(actor, comp, "move")


def _start(actor: Any, comp: ComputerSeat, what: str) -> None:
    comp.moved_v = actor.version
    comp.thinking = asyncio.get_running_loop().create_task(_think(actor, comp, actor.version, what),
                                                           name=f"computer-{actor.id}-{comp.seat}")


def _choose(player: Player, state: Dict[str, Any], seat: int) -> Action:
    return player.choose(game_from_state(state), seat)


async def _think(actor: Any, comp: ComputerSeat, v: int, what: str) -> None:
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    pause = random.uniform(*PAUSE_S)
    try:
        act = None
        if what == "move":
            act = await loop.run_in_executor(EXECUTOR, _choose, comp.player, actor.game.to_state(), comp.seat)
        left = pause - (loop.time() - t0)
        if left > 0:
            await asyncio.sleep(left)
        actor.submit_internal(_play, actor, comp, v, act)
    except asyncio.CancelledError:
        pass
    except Exception:
        log.exception("computer failed to think", extra={"table": actor.id})
    finally:
        comp.thinking = None


async def _play(actor: Any, comp: ComputerSeat, v: int, act: Optional[Action]) -> None:
    """Play the move chosen in the position of version ``v`` (an actor step), unless the position changed."""
    if actor.closed or actor.version != v or actor.computers.get(comp.seat) is not comp:
        return
    if act is None:
        msg: I.Inbound = I.RematchAccept(table=actor.id, token=comp.token)
    else:
        comp.seq += 1
        if act.kind == "decision":
            msg = I.Decision(table=actor.id, token=comp.token, seq=comp.seq, name=act.name, arg=act.arg)
        else:
            msg = I.Shot(table=actor.id, token=comp.token, seq=comp.seq, stroke=act.stroke(), call=act.call,
                         cue_ball=tuple(act.cue_ball) if act.cue_ball is not None else None)
    await actor.handle(comp.conn, I.parse(msg.to_wire()))  # validated like any inbound message
