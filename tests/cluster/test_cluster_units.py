"""The relay's ordering rules without sockets: held until the owner says where a connection stands, in version
order, no duplicates, gaps sent for recovery; the stream frame format."""

import pytest

from server.cluster.node import Node
from server.cluster.relay import Relay
from server.config import Settings
from server.metrics import Metrics
from server.store import frame_stream, unframe_stream
from server.table import feed
from server.table.feed import PLAYER, SPECTATOR


class FakeSession:
    """A local connection's backpressure as the relay sees it (Connection.offer): a player behind is skipped."""

    def __init__(self, name):
        self.name, self.ws, self.closing, self.tokens, self.behind = name, name, False, {}, set()

    def offer(self, table, role):
        return table not in self.behind


class FakeCluster:
    def __init__(self):
        self.settings, self.metrics, self.recovering = Settings(history_len=4), Metrics(), []

    def recover(self, relay):
        self.recovering.append(relay.top)


@pytest.fixture
def sent(monkeypatch):
    out = []
    monkeypatch.setattr(feed, "broadcast_binary", lambda targets, data: out.extend((t, data) for t in targets))
    return out


def test_relay_holds_orders_and_deduplicates(sent):
    cl = FakeCluster()
    r = Relay(cl, "T", "n1")
    a, b = FakeSession("a"), FakeSession("b")
    r.member(a, PLAYER)[1] = 3  # a has everything up to v3
    r.member(b, SPECTATOR)  # b's watch is being answered: nothing for it yet
    r.on_frame(5, b"m5")  # arrives before m4 (a gap): held, recovery asked
    assert sent == [] and cl.recovering == [5]
    r.on_frame(4, b"m4")
    assert sent == [("a", b"m4"), ("a", b"m5")]
    r.on_frame(4, b"m4")  # a duplicate (a replay after reconnecting)
    assert len(sent) == 2
    r.members[b][1] = 4  # the owner's answer brought b to v4 (snapshot or replay)
    r.deliver()
    assert sent[-1] == ("b", b"m5")
    r.on_frame(None, b"count")  # unversioned: to every registered member, at once
    assert sorted(sent[-2:]) == [("a", b"count"), ("b", b"count")]
    assert r.counts() == (1, 1)
    r.remove(a)
    r.on_frame(6, b"m6")
    assert sent[-1] == ("b", b"m6") and len(sent) == 6


def test_relay_history_is_bounded_and_behind_players_are_skipped(sent):
    cl = FakeCluster()
    r = Relay(cl, "T", "n1")
    a = FakeSession("a")
    r.member(a, PLAYER)[1] = 0
    for v in range(1, 8):
        r.on_frame(v, f"m{v}".encode())
    assert sorted(r.history) == [4, 5, 6, 7] and len(sent) == 7
    a.behind.add("T")  # its buffer overflowed: no stream until the owner's snapshot
    r.on_frame(8, b"m8")
    assert len(sent) == 7
    r.on_frame(2, b"old")  # older than the history: ignored
    assert 2 not in r.history


def test_stream_frames_round_trip():
    assert unframe_stream(frame_stream(7, b"\x81\xa1v\x07")) == (7, b"\x81\xa1v\x07")
    assert unframe_stream(frame_stream(None, b"x")) == (None, b"x")
    assert frame_stream(2**40, b"")[:9] == b"S" + (2**40).to_bytes(8, "big")
    with pytest.raises(ValueError):
        unframe_stream(b"Z123")


class FakeStore:
    def __init__(self, rows):
        self.rows, self.asked = rows, []

    async def stream_since(self, table, v):
        self.asked.append(v)
        return [(ver, data) for ver, data in self.rows if ver > v]


def bare_cluster(rows):
    """A Cluster with just what gap recovery uses: a store that holds ``rows`` (the persisted history)."""
    import asyncio

    c = Node.__new__(Node)
    c.settings, c.metrics, c.store = Settings(history_len=4), Metrics(), FakeStore(rows)
    from server.tasks import Background

    c._stop, c._bg, c.relays, c.resyncs = asyncio.Event(), Background(), {}, []
    c.request_resync = lambda session, tid: c.resyncs.append((session.name, tid))
    return c


async def test_a_gap_is_refilled_from_history_or_replaced_by_a_snapshot(sent):
    c = bare_cluster([(v, f"m{v}".encode()) for v in range(5, 9)])  # the history kept: v5..v8
    r = Relay(c, "T", "n1")
    r.fresh = False
    near, far = FakeSession("near"), FakeSession("far")
    r.member(near, SPECTATOR)[1] = 4  # missed v5..v8 while cut off: all in the history
    r.member(far, SPECTATOR)[1] = 1  # missed v2..v8: v2..v4 are gone from the history
    r.top = 8
    await c._recover(r)
    assert c.store.asked == [1]
    assert [d for t, d in sent if t == "near"] == [b"m5", b"m6", b"m7", b"m8"]
    assert [d for t, d in sent if t == "far"] == []  # never a message after a hole: a snapshot instead
    assert c.resyncs == [("far", "T")]
    assert c.metrics.gaps_recovered.get() == 1 and r.members[near][1] == 8
