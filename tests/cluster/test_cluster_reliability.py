"""Regression tests of issue 12 that need real processes: a paused owner, restarts and kills under quick play,
reply order across processes.

Real ``billar serve`` processes (tests/cluster/cluster_harness.py ``Node``: SIGKILL, SIGTERM, SIGSTOP and
SIGCONT), real Redis, real WebSocket clients. Only what a client or an operator sees is used: protocol
messages, close codes, ``/healthz``, ``/records``, the processes' stderr. The in-process cases are in
tests/server/test_reliability.py.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

import pytest

import protocol
from cluster_harness import Node, start_nodes, stop_nodes
from harness import Client
from protocol import inbound as I
from test_cluster_failover import table_on
from test_cluster_game import seat_two, watch
from websockets.exceptions import ConnectionClosed

CAROM = {"distance": 2, "breaker": 0}
#: a soft stroke to the left: the cue ball touches no ball (a miss: the turn passes)
SOFT_MISS = {"phi_deg": 180.0, "V0": 0.3, "a": 0.0, "b": 0.0, "theta_deg": 0.0}


def shot(tid: str, token: str, seq: int) -> I.Shot:
    return I.Shot(table=tid, token=token, seq=seq, stroke=dict(SOFT_MISS))


class Collector:
    """Reads every message of a client in the background: (monotonic time, message) in order, and the close
    code when the server closes the connection."""

    def __init__(self, client: Client):
        self.client = client
        self.messages: List[Tuple[float, Dict[str, Any]]] = []
        self.close_code: Optional[int] = None
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        try:
            while True:
                data = await self.client.ws.recv()
                self.messages.append((time.monotonic(), protocol.decode_server(data)))
        except ConnectionClosed:
            self.close_code = self.client.ws.close_code

    def of(self, type_: str) -> List[Dict[str, Any]]:
        return [m for _, m in self.messages if m["type"] == type_]

    async def wait(self, pred, timeout: float = 15.0) -> Dict[str, Any]:
        """The first message (from the start) satisfying ``pred``; waits for it."""
        end = time.monotonic() + timeout
        while True:
            for _, m in self.messages:
                if pred(m):
                    return m
            if time.monotonic() > end:
                raise AssertionError(f"{self.client.name}: no such message in {timeout} s; got "
                                     f"{[m['type'] for _, m in self.messages]} (closed {self.close_code})")
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        self.task.cancel()
        try:
            await self.task
        except (asyncio.CancelledError, Exception):
            pass


async def adopted_by(node: Node, timeout: float = 15.0) -> float:
    """Wait until ``node`` runs one table; returns how long it took."""
    t0 = time.monotonic()
    while (await node.health())["tables"] < 1:
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"{node.name} did not adopt the table in {timeout} s")
        await asyncio.sleep(0.1)
    return time.monotonic() - t0


async def record(node: Node, tid: str) -> Dict[str, Any]:
    body = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{node.port}/records/{tid}.json", timeout=5).read())
    return json.loads(body)


# ----- 1. a paused owner's stale session never kicks the player's new connection ----------------
async def paused_owner(redis_url, prefix, tmp_path, close_old: bool) -> None:
    p1, p2 = await start_nodes(redis_url, prefix, str(tmp_path), ["p1", "p2"])
    collectors: List[Collector] = []
    try:
        ann, bob = await p1.client("ann"), await p1.client("bob")
        sue = await p2.client("sue")
        tid, ta, tb = await seat_two(ann, bob, config=CAROM)  # made on p1: p1 owns it
        await watch(sue, tid)
        assert (await p1.health())["tables"] == 1 and (await p2.health())["tables"] == 0
        p1.pause()
        await ann.send(shot(tid, ta, 1))  # ann is to act (she breaks); p1 does not read it
        took = await adopted_by(p2)
        assert took < 12.0
        ann2 = await p2.client("ann")
        await ann2.send(I.Resume(table=tid, token=ta, v=2))
        while (await ann2.recv())["type"] != "seated":
            pass
        closing = asyncio.ensure_future(ann.ws.close()) if close_old else None
        await asyncio.sleep(0.3)  # the close frame (and FIN) sit in p1's socket, unread
        col_ann2, col_bob, col_sue = Collector(ann2), Collector(bob), Collector(sue)
        collectors = [col_ann2, col_bob, col_sue]
        p1.cont()
        await asyncio.sleep(4.0)
        assert col_ann2.close_code is None, f"ann's new connection closed with {col_ann2.close_code}"
        for col in (col_bob, col_sue):
            seats = col.of("seats")
            assert seats, f"{col.client.name} saw no seats message"
            assert seats[-1]["seats"][0]["connected"] is True, (col.client.name, seats[-1])
        # ann plays her stroke on the new connection, same seq: played once (or already played: a duplicate)
        await ann2.send(shot(tid, ta, 1))
        answer = await col_ann2.wait(lambda m: (m["type"] == "stroke" and m["shots"][0]["seq"] == 1)
                                     or (m["type"] == "error" and m.get("seq") == 1))
        assert answer["type"] == "stroke" or answer["code"] == "duplicate_sequence", answer
        await col_sue.wait(lambda m: m["type"] == "stroke")
        await asyncio.sleep(1.0)
        assert col_ann2.close_code is None, f"ann's new connection closed with {col_ann2.close_code}"
        strokes = [m for m in col_sue.of("stroke") if (m["shots"][0]["seat"], m["shots"][0]["seq"]) == (0, 1)]
        assert len(strokes) == 1, strokes
        rec = await record(p2, tid)
        played = [s for s in rec["strokes"] if s.get("player") == 0 and s.get("stroke")]
        assert len(played) == 1, rec["strokes"]
        assert col_sue.of("seats")[-1]["seats"][0]["connected"] is True
        if closing is not None:
            closing.cancel()
    finally:
        for col in collectors:
            await col.stop()
        await asyncio.to_thread(stop_nodes, [p1, p2])
    for n in (p1, p2):
        assert "Traceback" not in n.stderr(), n.stderr()[-3000:]


@pytest.mark.slow
async def test_a_paused_owner_never_kicks_the_resumed_connection(redis_url, prefix, tmp_path):
    """p1 owns the table (ann and bob there), sue watches on p2. p1 is stopped (SIGSTOP) with ann's stroke
    unread in its socket; p2 adopts the table; ann resumes on p2 (``seated``) and closes her old socket; p1 goes
    on (SIGCONT). For the next 4 s ann's new connection stays open (no 4002), the ``seats`` bob and sue see
    last show ann connected, and ann's stroke sent again on the new connection with the same seq is played
    exactly once. (Defect: p1, finding its lease lost, resumed ann's closed session at p2, which evicted
    ann's live connection with 4002.)"""
    await paused_owner(redis_url, prefix, tmp_path, close_old=True)


@pytest.mark.slow
async def test_a_live_connections_resume_wins_over_a_replay_of_an_older_one(redis_url, prefix, tmp_path):
    """As above, but ann never closes her old connection to p1: when p1 goes on, it must not take the seat back
    for that older connection: ann's new one keeps the seat (no 4002, shown connected, her stroke played once).
    (Defect: the stale connection was bound to the seat again.)"""
    await paused_owner(redis_url, prefix, tmp_path, close_old=False)


# ----- 3. quick play entries never outlive their connection -------------------------------------
async def quick_pair_after(node_y: Node, node_z: Node) -> None:
    """Y asks for quick play on ``node_y``: queued (``quick_play_waiting``), not seated against a ghost; then Z
    asks on ``node_z``: Y and Z are seated at one table, both connected."""
    y = await node_y.client("y")
    await y.send(I.QuickPlay(discipline="three_cushion", config=CAROM))
    first = await y.recv(10.0)
    assert first["type"] == "quick_play_waiting", f"y was not queued: {first}"
    z = await node_z.client("z")
    await z.send(I.QuickPlay(discipline="three_cushion", config=CAROM))
    sz = await z.expect("seated")
    sy = await y.expect("seated")
    assert sy["table"] == sz["table"] and {sy["seat"], sz["seat"]} == {0, 1}
    await y.expect("table_snapshot")
    while True:
        m = await y.recv()
        if m["type"] == "seats" and all(m["seats"]):
            break
    assert sorted((s["name"], s["connected"]) for s in m["seats"]) == [("y", True), ("z", True)]


async def test_quick_play_after_a_restart_never_pairs_with_a_player_from_before(redis_url, prefix, tmp_path):
    """X waits in quick play on a (single, not clustered) server; the server stops (SIGTERM) and starts again on
    the same Redis; Y asks: queued, not seated against X; Z asks: Y and Z are paired.
    (Defect: X's entry survived the drain and Y was seated against X, who never came back.)"""
    node = Node(redis_url, prefix, "solo", env={"BILLAR_CLUSTER": "0"})
    await node.start(str(tmp_path))
    try:
        x = await node.client("x")
        await x.send(I.QuickPlay(discipline="three_cushion", config=CAROM))
        await x.expect("quick_play_waiting")
        node.term()
        assert await node.wait() == 0
        await node.start(str(tmp_path))
        await quick_pair_after(node, node)
    finally:
        await asyncio.to_thread(stop_nodes, [node])
    assert "Traceback" not in node.stderr(), node.stderr()[-3000:]


async def test_quick_play_never_pairs_with_a_player_of_a_killed_process(redis_url, prefix, tmp_path):
    """Two cluster processes; X waits in quick play on p1; p1 is killed (SIGKILL) while p2 stays up; Y asks on p2
    right away: queued, not seated against X; Z asks on p2: Y and Z are paired.
    (Defect: Y was seated against X, a player of a dead process, and could not claim for a grace period.)"""
    p1, p2 = await start_nodes(redis_url, prefix, str(tmp_path), ["p1", "p2"])
    try:
        x = await p1.client("x")
        await x.send(I.QuickPlay(discipline="three_cushion", config=CAROM))
        await x.expect("quick_play_waiting")
        p1.kill()
        await quick_pair_after(p2, p2)
    finally:
        await asyncio.to_thread(stop_nodes, [p1, p2])
    assert "Traceback" not in p2.stderr(), p2.stderr()[-3000:]


# ----- 5. reply order across processes ----------------------------------------------------------
async def pair_while_paused(node: Node, client: Client, data: bytes) -> None:
    """Send ``data`` twice back to back from ``client`` while ``node`` (the table's owner) stands still, so that
    both copies wait for it together, as they would behind any slower step; then let it go on."""
    node.pause()
    try:
        await client.ws.send(data)
        await client.ws.send(data)
        await asyncio.sleep(0.25)  # both forwarded by the player's process meanwhile
    finally:
        node.cont()


async def test_replies_never_overtake_the_action_across_processes(redis_url, prefix, tmp_path):
    """The table on p1 (made by a spectator there), ann and bob on p2. The player to act sends the same shot
    twice back to back (while p1 stands still for 0.25 s, so that both copies reach it together): the
    ``stroke`` arrives before the second copy's ``duplicate_sequence`` on that connection (5 strokes, 5 of 5);
    bob leaves while he is to act and, after his grace period, ann's two claims back to back get the claim
    ruling first, then ``game_over``. (Defect: the errors came first.)"""
    p1 = Node(redis_url, prefix, "p1", args=["--grace", "0.3"])
    p2 = Node(redis_url, prefix, "p2", args=["--grace", "0.3"])
    await asyncio.gather(p1.start(str(tmp_path)), p2.start(str(tmp_path)))
    try:
        host = await p1.client("host")
        ann, bob = await p2.client("ann"), await p2.client("bob")
        tid, ta, tb, snap = await table_on(host, ann, bob, config=CAROM)
        assert (await p1.health())["tables"] == 1
        players, tokens = [ann, bob], [ta, tb]
        v = 2
        order = []
        for k in range(5):
            p = k % 2
            await pair_while_paused(p1, players[p], protocol.encode_client(shot(tid, tokens[p], k + 1)))
            first = await players[p].recv()
            second = await players[p].recv()
            order.append((first["type"], first.get("v"), second["type"], second.get("code"), second.get("v")))
            v += 1
            while True:
                m = await players[1 - p].recv()
                if m["type"] == "stroke":
                    assert m["v"] == v
                    break
        assert order == [("stroke", 3 + k, "error", "duplicate_sequence", 3 + k) for k in range(5)], order
        await bob.close()
        while True:
            m = await ann.recv()
            if m["type"] == "seats" and not m["seats"][1]["connected"]:
                break
        await asyncio.sleep(0.6)
        await pair_while_paused(p1, ann, protocol.encode_client(I.Claim(table=tid, token=ta)))
        first, second = await ann.recv(), await ann.recv()
        assert (first["type"], first.get("cause"), second["type"], second.get("code")) == \
            ("ruling", "claim", "error", "game_over"), (first, second)
    finally:
        await asyncio.to_thread(stop_nodes, [p1, p2])
    for n in (p1, p2):
        assert "Traceback" not in n.stderr(), n.stderr()[-3000:]
