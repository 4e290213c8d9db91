"""The Connection contract (server/conn.py) over its three kinds: a local Session, a RemoteConnection (a
connection of another process, reached through Redis) and the computer seat's ComputerConnection.

For the first two the test is end to end: a real client connected to a server receives what the
interface was asked to deliver, byte for byte and in call order; for the remote kind the calls are
made on process 1 for a client connected to process 2.
"""

import asyncio

import pytest

import protocol
from harness import open_client, wait_for
from protocol import outbound as O
from protocol.errors import CloseCode
from server.conn import Connection
from server.table.computer import ComputerConnection
from server.table.feed import PLAYER, SPECTATOR

SNAP = O.table_snapshot("T1", 7, 1.0, game=1, discipline="three_cushion", config={}, preset={}, private=False,
                        seats=[None, None], spectators=0, state={}, clock=None, chat=[], rematch=[False, False])


def calls(conn: Connection):
    """The same sequence of interface calls for every kind; returns the messages a client must see, in order."""
    conn.send(O.pong(1.5, 2.5))
    conn.error("bad_field", "seq: must be an integer", "seq", "shot", table="T1", seq=3)
    conn.seated("T1", 1, "tok" * 8)
    conn.snapshot(SNAP)
    conn.send_stream("T1", 8, protocol.encode(O.spectators("T1", 4)))
    conn.at_version("T1", 8, PLAYER)
    conn.left("T1")
    return [O.pong(1.5, 2.5), O.error("bad_field", "seq: must be an integer", "seq", "shot", table="T1", seq=3),
            O.seated("T1", 1, "tok" * 8), SNAP, O.spectators("T1", 4), O.left("T1")]


async def received(client, n):
    out = []
    while len(out) < n:
        out.append(await asyncio.wait_for(client.ws.recv(), 10))
    return out


async def test_a_local_session_delivers_each_call_exactly_and_in_order(server):
    c = await open_client(server, "ann")
    (s,) = [x for x in server.sessions.values() if x.name == "ann"]
    assert isinstance(s, Connection) and not s.remote and not s.computer and not s.closing
    expected = calls(s)
    assert await received(c, len(expected)) == [protocol.encode(m) for m in expected]
    assert s.offer("T2", SPECTATOR) is True  # keeping up: stream messages may be written
    assert s.tokens == {} and "T1" not in s.tables  # seated remembered the token, left forgot it
    s.close(CloseCode.REPLACED, "replaced")
    assert s.closing
    s.send(O.pong(None, 3.0))  # after close: nothing more
    assert await c.closed() == CloseCode.REPLACED


async def test_a_remote_connection_delivers_through_the_other_process(make_server):
    p1 = await make_server(cluster=True)
    p2 = await make_server(cluster=True)
    c = await open_client(p2, "bob")
    (s2,) = [x for x in p2.sessions.values() if x.name == "bob"]
    proxy = p1.node.remote_connection(p2.settings.node, s2.id, s2.player, s2.name)
    assert isinstance(proxy, Connection) and proxy.remote and not proxy.computer and not proxy.closing
    assert proxy.offer("T1", PLAYER) is False  # its stream goes through its own process's relay
    expected = calls(proxy)
    assert await received(c, len(expected)) == [protocol.encode(m) for m in expected]
    await wait_for(lambda: s2.tokens == {} and "T1" not in s2.tables)
    proxy.close(CloseCode.REPLACED, "replaced")
    assert proxy.closing
    proxy.send(O.pong(None, 3.0))  # after close: nothing more
    assert await c.closed() == CloseCode.REPLACED
    assert p1.node.remote_connection(p2.settings.node, s2.id, s2.player, s2.name) is not proxy  # a fresh stand-in


def test_the_computer_seat_is_sent_nothing_and_counts_refusals():
    conn = ComputerConnection(3)
    assert isinstance(conn, Connection) and conn.computer and not conn.remote
    assert conn.name == "Computer (level 3)" and conn.player == conn.id
    calls(conn)  # none of them raises or sends
    assert conn.errors == 1
    assert conn.offer("T1", PLAYER) is False
    conn.close(CloseCode.REPLACED, "x")
    assert conn.closing is False


@pytest.mark.parametrize("kind", ["Session", "RemoteConnection", "ComputerConnection"])
def test_every_kind_implements_the_whole_interface(kind):
    from server.cluster.remote import RemoteConnection
    from server.session import Session

    cls = {"Session": Session, "RemoteConnection": RemoteConnection, "ComputerConnection": ComputerConnection}[kind]
    assert issubclass(cls, Connection)
    assert not getattr(cls, "__abstractmethods__", None)  # instantiable: every abstract method is there
