"""Hostile input against a real ``billar serve`` process: afterwards it is alive, the games it was running are
exactly as they were, and it logged no traceback.

The server is one ``billar serve`` process (not clustered) on the test's Redis. Before the fuzzer starts, two
three-cushion games are set up with two players each and three strokes played; each table's state is recorded
from a fresh spectator's snapshot (version, scores, layout, player to act, seats). Then tests/fuzz/fuzzer.py
sends N frames (5,000 in the default run, 100,000 under ``make soak``) from many connections at once. After
it: ``/healthz`` answers ok, each table's snapshot is the same as before, the players received no stream
message meanwhile (only unversioned spectator counts), no reply was an ``internal`` error, the connections
the fuzzer opened are gone, and the process's stderr has no "Traceback".

The frames depend only on the seed: ``BILLAR_FUZZ_SEED=N`` replays a run's frames (every run prints its seed,
and a failure names it).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, List

import pytest

import fuzzer
import protocol
from cluster_harness import Node, stop_nodes
from protocol import inbound as I
from websockets.exceptions import ConnectionClosed

CAROM = {"distance": 2, "breaker": 0}
SOFT_MISS = {"phi_deg": 180.0, "V0": 0.3, "a": 0.0, "b": 0.0, "theta_deg": 0.0}


class Listener:
    """Reads a player's connection in the background; keeps every message but the spectator counts."""

    def __init__(self, client):
        self.client = client
        self.messages: List[Dict[str, Any]] = []
        self.closed = None
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        try:
            async for data in self.client.ws:
                m = protocol.decode_server(data)
                if m["type"] != "spectators":
                    self.messages.append(m)
        except ConnectionClosed:
            pass
        self.closed = self.client.ws.close_code


async def mid_game(node: Node, k: int) -> Dict[str, Any]:
    """A three-cushion game with two players and three strokes played (ann breaks, each misses)."""
    a, b = await node.client(f"ann{k}"), await node.client(f"bob{k}")
    await a.send(I.CreateTable(discipline="three_cushion", config=CAROM))
    sa = await a.expect("seated", seat=0)
    tid = sa["table"]
    await a.expect("table_snapshot")
    await a.expect("seats", v=1)
    await b.send(I.Join(table=tid))
    sb = await b.expect("seated", seat=1)
    await b.expect("table_snapshot")
    await b.expect("seats", v=2)
    await a.expect("seats", v=2)
    players, tokens = [a, b], [sa["token"], sb["token"]]
    for n in range(3):
        p = n % 2
        await players[p].send(I.Shot(table=tid, token=tokens[p], seq=n + 1, stroke=dict(SOFT_MISS)))
        for c in players:
            await c.expect("stroke", v=3 + n)
    return {"table": tid, "players": players, "tokens": tokens}


async def look(node: Node, tid: str) -> Dict[str, Any]:
    """What a fresh spectator sees of ``tid``: version, scores, layout, player to act, phase, seats."""
    w = await node.client("look")
    try:
        await w.send(I.Watch(table=tid))
        s = await w.expect("table_snapshot", table=tid)
    finally:
        await w.close()
    st = s["state"]
    return {"v": s["v"], "scores": st["scoreboard"]["scores"], "layout": st["layout"], "to_act": st["to_act"],
            "phase": st["phase"], "over": st["over"], "game": s["game"],
            "seats": [(x["seat"], x["name"], x["connected"]) for x in s["seats"]]}


async def fuzz_and_check(redis_url: str, prefix: str, tmp_path, frames: int, workers: int) -> None:
    node = Node(redis_url, prefix, "fuzzed", env={"BILLAR_CLUSTER": "0"})
    await node.start(str(tmp_path))
    seed = fuzzer.seed_from_env()
    print(f"\nfuzz seed {seed} (BILLAR_FUZZ_SEED={seed} replays these frames), {frames} frames")
    try:
        games = [await mid_game(node, k) for k in range(2)]
        live = [g["table"] for g in games]
        before = {tid: await look(node, tid) for tid in live}
        assert all(b["v"] == 5 and not b["over"] for b in before.values()), before
        listeners = [Listener(c) for g in games for c in g["players"]]
        baseline = (await node.health())["connections"]
        t0 = time.monotonic()
        last = [t0]

        def progress(rep: fuzzer.Report) -> None:
            if time.monotonic() - last[0] > 30:
                last[0] = time.monotonic()
                print(f"  {rep.frames} frames, {rep.connections} connections, {time.monotonic() - t0:.0f} s")

        report = await fuzzer.run(node.port, seed, frames, fuzzer.Targets(live=list(live)), workers=workers,
                                  progress=progress)
        took = time.monotonic() - t0
        print(report.summary() + f"; {took:.1f} s")
        where = f"(fuzz seed {seed}) {report.summary()}"
        assert report.frames >= frames, where
        assert node.alive(), f"the server died {where}: {node.stderr()[-3000:]}"
        health = await node.health()
        assert health["status"] == "ok" and health["redis"] is True, (health, where)
        for tid in live:
            assert await look(node, tid) == before[tid], f"table {tid} changed {where}"
        for li in listeners:
            assert li.closed is None, f"{li.client.name} was closed ({li.closed}) {where}"
            assert li.messages == [], f"{li.client.name} got {li.messages[:3]} {where}"
        assert report.errors.get("internal", 0) == 0, where
        end = time.monotonic() + 15.0  # every connection the fuzzer opened is gone (players and lookers excluded)
        while (await node.health())["connections"] > baseline and time.monotonic() < end:
            await asyncio.sleep(0.2)
        assert (await node.health())["connections"] == baseline, where
        for li in listeners:
            li.task.cancel()
    finally:
        await asyncio.to_thread(stop_nodes, [node])
    err = node.stderr()
    assert "Traceback" not in err, f"(fuzz seed {seed}) the server logged a traceback:\n" + err[-4000:]
    assert node.proc.returncode == 0, f"(fuzz seed {seed}) exit {node.proc.returncode}: {err[-3000:]}"


async def test_hostile_frames_leave_the_server_and_its_games_unchanged(redis_url, prefix, tmp_path):
    """5,000 hostile frames (see the module docstring): the server alive, the mid-game tables unchanged, no
    traceback."""
    await fuzz_and_check(redis_url, prefix, tmp_path, frames=5000, workers=10)


@pytest.mark.soak
async def test_soak_100k_hostile_frames(redis_url, prefix, tmp_path):
    """The long run: 100,000 hostile frames, same checks."""
    await fuzz_and_check(redis_url, prefix, tmp_path, frames=100_000, workers=16)
