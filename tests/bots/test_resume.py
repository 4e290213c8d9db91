"""Bots survive dropped connections: they reconnect, resume their seat (or watch again) and send again what was
not answered, with the same sequence number (docs/protocol.md section 5, bots/client.py, bots/seat.py)."""

from __future__ import annotations

import asyncio

import protocol
import pytest
from bots.action import Action
from bots.client import Link, Retry, Stats, run_tables
from bots.seat import SeatPlay
from protocol import inbound as I
from protocol import outbound as O
from server.metrics import parse_text
from server.session import Session

from bots_helpers import counters_back_to_zero

FAST = Retry(attempts=10, first_s=0.05, max_s=0.5)


def seats_msg(v, table="T"):
    return {"type": "seats", "table": table, "v": v, "ts": 0.0, "seats": [{"seat": 0}, {"seat": 1}]}


def test_seat_play_resends_after_seated_and_takes_the_answers():
    ps = SeatPlay()
    assert not ps.feed({"type": "seated", "table": "T", "seat": 1, "token": "t" * 16}, 0.0).reseated  # the first one
    for v in (1, 2):
        assert ps.feed(seats_msg(v), 0.0).gap is None
    shot = ps.message_for(Action("decision", name="BREAK", arg="left"), 1.0)
    assert isinstance(shot, I.Decision) and shot.seq == 1 and ps.pending == {1: shot}
    assert ps.resend() == [shot] and ps.resent == {1}
    # a stream version already applied is ignored (never applied twice), no gap
    fb = ps.feed(seats_msg(2), 2.0)
    assert fb.repeat == 2 and fb.gap is None and ps.stream.v == 2
    # the seat resumed: same seat, same token -> send again what is pending, same seq
    fb = ps.feed({"type": "seated", "table": "T", "seat": 1, "token": "t" * 16}, 3.0)
    assert fb.reseated and [m.seq for m in ps.resend()] == [1]
    # the server had played it: duplicate_sequence is expected, not an error
    fb = ps.feed({"type": "error", "code": "duplicate_sequence", "message": "m", "ref": "decision", "seq": 1, "v": 3}, 3.1)
    assert fb.duplicate and fb.errors == []
    # its stream message answers it (latency not measured: it spans the drop)
    fb = ps.feed({"type": "ruling", "table": "T", "v": 3, "ts": 0.0, "cause": "decision", "seat": 1, "seq": 1,
                  "state": {"over": False}}, 4.0)
    assert fb.decision and ps.pending == {} and fb.latency_s == []
    # a duplicate of a seq never sent twice is a fault; so is any other refusal, which also ends the wait for it
    fb = ps.feed({"type": "error", "code": "duplicate_sequence", "message": "m", "ref": "shot", "seq": 7}, 5.0)
    assert fb.errors == ["error duplicate_sequence: m"]
    second = ps.message_for(Action("decision", name="BREAK", arg="right"), 6.0)
    fb = ps.feed({"type": "error", "code": "unavailable", "message": "m", "ref": "decision", "table": "T"}, 6.1)
    assert fb.retry and fb.errors == [] and ps.pending == {2: second}  # to be sent again after a pause
    fb = ps.feed({"type": "error", "code": "illegal_action", "message": "no", "ref": "decision", "seq": 2}, 6.2)
    assert fb.errors == ["error illegal_action: no"] and ps.pending == {}
    fb = ps.feed({"type": "error", "code": "unavailable", "message": "m", "ref": "resume"}, 7.0)
    assert fb.resume_error == "unavailable" and fb.errors == []


def test_retry_budget_pauses():
    r = Retry(attempts=10)
    pauses = [r.pause(k) for k in range(r.attempts)]
    assert all(0.8 * min(5.0, 0.25 * 2 ** k) <= p <= 1.2 * min(5.0, 0.25 * 2 ** k) for k, p in enumerate(pauses))
    assert 26.0 < sum(pauses) < 40.0  # about 30 s over ten attempts
    assert r.pause(0, at_least=1.5) == 1.5  # a shutdown's retry_ms when longer
    with pytest.raises(ValueError, match="retry"):
        Retry(attempts=-1)


class Drops:
    """Server-side faults injected by connection name (the bots' ``hello`` names): the first ``shot`` with seq >= 2
    of bot0a is played and then its connection dropped (1006) before the answer; the first of bot0b is dropped
    unread with its connection. After the third stroke the spectator gets ``shutdown`` and a 1012 close."""

    def __init__(self, srv, names=("bot0a", "bot0b")):
        self.srv, self.names = srv, names
        self.dropped = {}  # name -> seq of the shot in flight when its connection dropped

    def on_frame(self, orig):
        drops = self

        def hooked(session, data):
            if session.name in drops.names and session.name not in drops.dropped:
                try:
                    msg = protocol.decode_client(data, 8192)
                except protocol.ProtocolError:
                    msg = None
                if isinstance(msg, I.Shot) and msg.seq >= 2:
                    drops.dropped[session.name] = msg.seq
                    if session.name == "bot0a":
                        orig(session, data)  # played: only the answer is lost
                    session.ws.transport.abort()
                    return
            orig(session, data)

        return hooked

    async def spectator_restart(self):
        while parse_text(self.srv.render_metrics())["billar_strokes_total"] < 3:
            await asyncio.sleep(0.01)
        s = next(s for s in self.srv.sessions.values() if s.name == "spec0.0")
        s.send(O.shutdown("restart", 200))
        s.close(1012, "restart")
        self.dropped["spec0.0"] = None


async def test_a_game_goes_on_through_dropped_connections(server, monkeypatch):
    drops = Drops(server)
    monkeypatch.setattr(Session, "on_frame", drops.on_frame(Session.on_frame))
    restart = asyncio.ensure_future(drops.spectator_restart())
    url = f"ws://127.0.0.1:{server.port}/ws"
    stats = await run_tables(url, 1, "three_cushion", {"distance": 2}, spectators=1, level=1, think_s=0.04,
                             timeout_s=240, seed=4, retry=FAST)
    await restart
    assert stats.errors == [] and stats.games_finished == 1 and stats.gaps == 0, (stats, drops.dropped)
    assert set(drops.dropped) == {"bot0a", "bot0b", "spec0.0"}
    assert stats.reconnects == 3 and stats.resumes == 2  # each dropped bot came back once; the players resumed
    assert stats.resent == 2 and stats.duplicates == 1  # bot0a's shot had been played, bot0b's had not
    table = stats.results[0]["table"]
    meta, record = await server.store.record(table, 1)
    assert meta["over"] and meta["result"] == stats.results[0]["result"]
    strokes = [r for r in record if r.get("lag") or r.get("stroke")]
    assert len(strokes) == stats.strokes == parse_text(server.render_metrics())["billar_strokes_total"]
    for seat, name in ((0, "bot0a"), (1, "bot0b")):
        seqs = [r["seq"] for r in record if r.get("player") == seat and r.get("seq") is not None]
        assert seqs == sorted(set(seqs)), seqs  # strictly increasing: nothing played twice
        assert seqs.count(drops.dropped[name]) == 1  # the stroke in flight was played once
    assert stats.spectator_messages > 0
    await counters_back_to_zero(server)


async def test_no_reconnect_without_budget_and_the_table_stops_at_once(server, monkeypatch):
    """With ``--retries 0`` a drop is final: the error is reported at once and the other bot stops too (only
    bot0a's connection is dropped: bot0b, playing on, must not reach a drop of its own)."""
    drops = Drops(server, names=("bot0a",))
    monkeypatch.setattr(Session, "on_frame", drops.on_frame(Session.on_frame))
    url = f"ws://127.0.0.1:{server.port}/ws"
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    stats = await run_tables(url, 1, "three_cushion", {"distance": 2}, level=1, timeout_s=240, seed=4,
                             retry=Retry(attempts=0))
    assert loop.time() - t0 < 60, (stats.errors, drops.dropped)
    assert stats.games_finished == 0 and stats.reconnects == 0
    assert len(stats.errors) == 1 and "connection closed by the server (1006); gave up" in stats.errors[0], stats.errors


async def test_a_bad_url_path_is_one_error_line(server):
    stats = await run_tables(f"ws://127.0.0.1:{server.port}/nope", 1, "three_cushion", {"distance": 1}, timeout_s=30)
    assert stats.errors == ["table0: InvalidStatus: server rejected WebSocket connection: HTTP 404"]
    with pytest.raises(Exception, match="HTTP 404"):
        await Link.open(f"ws://127.0.0.1:{server.port}/nope", "x")


def test_cli_retry_options():
    import argparse

    from bots.cli import check_args, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["bots"])
    check_args(args)
    assert (args.retries, args.retry_delay) == (10, 0.25)
    for bad, name in ((["--retries", "-1"], "retries"), (["--retry-delay", "6"], "retry-delay")):
        with pytest.raises(ValueError, match=name):
            check_args(parser.parse_args(["bots", *bad]))
