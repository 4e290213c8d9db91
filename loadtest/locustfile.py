"""Locust users for billar: players (quick play, whole games), spectators, lobby browsers.

Run through ``make loadtest`` (starts a server with its embedded Redis on 127.0.0.1 and runs
Locust headless for a bounded time), or by hand against a running server:

    .venv/bin/locust -f loadtest/locustfile.py --headless -u 60 -r 10 -t 60s --host ws://127.0.0.1:8765/ws

WebSockets through ``websocket-client`` (gevent-friendly once Locust has patched the standard
library); every message is built and read with protocol/ (never encoded by hand). Request
events fired (``request_type`` "WS"):

- ``shot->broadcast``: a player's shot or decision until the stream message carrying its
  sequence number comes back (ms); lag strokes are left out (the server waits for both);
- ``fan-out``: a spectator's receive time minus the message's server timestamp ``ts`` (ms);
- ``lobby``: lobby_subscribe until the lobby arrives (ms);
- failures (``exception`` set): ``protocol error`` (any ``error`` message), ``version gap``
  (a stream version that is not the next), ``resync`` (a snapshot in the middle of a game),
  ``game`` (a game not finished within ``GAME_TIMEOUT_S``), ``connection`` (closed by the server),
  ``busy`` (a shot or decision answered ``unavailable``/``busy``: the player sends it again,
  same ``seq``, after 0.25 s).

Players pair by quick play in ``BILLAR_DISCIPLINE`` (default three_cushion) with a short
target (``BILLAR_TARGET``, default 3) and play with the level-1 engine after a think time of
``BILLAR_THINK_S`` seconds (default 1.0, jittered +-50 %). Every loop is bounded in count and
time; traffic goes only to the ``--host`` given (127.0.0.1 in ``make loadtest``).

``--rated`` (a Locust option of this file): players are registered accounts, signed in as a
browser is (bots/accounts.py, the code ``billar bots --rated`` uses) and pairing by rated quick
play; ``--accounts FILE`` gives the accounts (lines ``name:password``, one a player, registered
when absent; a player finding none left fails ``account`` and stops), else each player
registers a throwaway account. After each game the player waits for its ``game_rated``: request
event ``rated`` (ms from the end of the game), failure ``rated`` when it does not come within
30 s, failure ``account`` when signing in fails (a 429 stops that player: it never retries).
"""

from __future__ import annotations

import os
import random
import threading
import time

import gevent
import websocket
from locust import User, between, events, task
from locust.exception import StopUser
from locust.user.task import LOCUST_STATE_STOPPING

import protocol
from bots.accounts import AccountError, AccountsFileError, check_welcome, read_accounts, sign_in, throwaway
from bots.client import RATING_WAIT_S
from bots.engine import Player
from bots.mirror import target_config
from bots.seat import SeatPlay, Stream
from protocol import inbound as I

DISCIPLINE = os.environ.get("BILLAR_DISCIPLINE", "three_cushion")
TARGET = int(os.environ.get("BILLAR_TARGET", "3"))
THINK_S = float(os.environ.get("BILLAR_THINK_S", "1.0"))
GAME_TIMEOUT_S = float(os.environ.get("BILLAR_GAME_TIMEOUT_S", "300"))
WATCH_S = float(os.environ.get("BILLAR_WATCH_S", "30"))


class Closed(Exception):
    pass


@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    parser.add_argument("--rated", action="store_true", default=False,
                        help="billar: players are registered accounts playing rated quick play")
    parser.add_argument("--accounts", default=None, metavar="FILE",
                        help="billar, with --rated: accounts file, lines name:password (else throwaway accounts)")


class _Accounts:
    """The accounts file's credentials, handed out one a player (each process reads the file once)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.path = None
        self.left = []

    def take(self, path: str):
        with self.lock:
            if self.path != path:
                self.path, self.left = path, list(read_accounts(path))
            return self.left.pop(0) if self.left else None


ACCOUNTS = _Accounts()


@events.init.add_listener
def _check_options(environment, **_kw) -> None:
    opts = environment.parsed_options
    if opts is not None and opts.accounts:
        if not opts.rated:
            raise SystemExit("locust: --accounts only with --rated")
        try:
            read_accounts(opts.accounts)  # a malformed file stops the run at once, naming the line
        except AccountsFileError as exc:
            raise SystemExit(f"locust: {exc}") from None


class ProtocolUser(User):
    """A WebSocket connection speaking the billar protocol, firing Locust request events."""

    abstract = True
    host = "ws://127.0.0.1:8765/ws"

    session = None  # bots.accounts.Session of a logged-in player (PlayerUser with --rated)

    def on_start(self) -> None:
        kw = {"cookie": self.session.cookie, "origin": self.session.origin} if self.session is not None else {}
        self.ws = websocket.create_connection(self.host, timeout=20, enable_multithread=False, **kw)
        self.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=f"{type(self).__name__[:8]}-{id(self) % 10000}",
                          client="locust"))
        msg = self.recv(20.0)
        if msg is None or msg["type"] != "welcome":
            raise Closed(f"no welcome: {msg}")
        if self.session is not None:
            try:
                check_welcome(msg, self.session)
            except RuntimeError as exc:
                self.fail("account", exc)
                raise StopUser() from None

    def on_stop(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass

    def send(self, msg: I.Inbound) -> None:
        self.ws.send_binary(protocol.encode_client(msg))

    def recv(self, timeout: float):
        """The next server message (decoded), or None after ``timeout`` seconds.

        Raises ``StopUser`` once the run is stopping: every task loop reads through here at least
        once a second, so a user in the middle of a game stops at once (its ``on_stop`` leaves the
        table) instead of running into Locust's stop timeout."""
        if self._state == LOCUST_STATE_STOPPING:
            raise StopUser()
        self.ws.settimeout(timeout)
        try:
            op, data = self.ws.recv_data()
        except websocket.WebSocketTimeoutException:
            return None
        except (websocket.WebSocketConnectionClosedException, OSError) as exc:
            self.fail("connection", exc)
            raise Closed(str(exc)) from None
        if op == websocket.ABNF.OPCODE_CLOSE:
            self.fail("connection", Closed("closed by the server"))
            raise Closed("closed by the server")
        return protocol.decode_server(data)

    def measure(self, name: str, ms: float, length: int = 0) -> None:
        events.request.fire(request_type="WS", name=name, response_time=ms, response_length=length, exception=None,
                            context={})

    def fail(self, name: str, exc: Exception) -> None:
        events.request.fire(request_type="WS", name=name, response_time=0.0, response_length=0, exception=exc, context={})


class PlayerUser(ProtocolUser):
    """Pairs by quick play and plays whole games with the level-1 engine."""

    weight = 6
    wait_time = between(1.0, 3.0)

    def on_start(self) -> None:
        self.seat_play = None
        opts = self.environment.parsed_options
        self.rated = bool(opts is not None and getattr(opts, "rated", False))
        if self.rated:
            self.session = self.sign_in(getattr(opts, "accounts", None))
        super().on_start()
        self.engine = Player(1, random.randrange(1 << 30))

    def sign_in(self, path):
        """This player's session (an account of the file, else a throwaway one); ``StopUser`` when it fails."""
        cred = ACCOUNTS.take(path) if path else None
        if path and cred is None:
            self.fail("account", AccountError(f"accounts file {path}: no account left for another player"))
            raise StopUser()
        t0 = time.perf_counter()
        try:
            sess = sign_in(self.host, cred or throwaway(), fresh=cred is None)
        except AccountError as exc:
            self.fail("account", exc)
            raise StopUser() from None
        self.measure("sign in", (time.perf_counter() - t0) * 1000.0)
        return sess

    def on_stop(self) -> None:
        """Leave cleanly when the run ends: give up the seat (a game in progress is forfeited) or the queue."""
        try:
            leave = self.seat_play.leave() if self.seat_play is not None else None
            self.send(leave if leave is not None else I.QuickPlayCancel())
        except Exception:
            pass
        super().on_stop()

    @task
    def play_game(self) -> None:
        config = target_config(DISCIPLINE, TARGET)
        self.send(I.QuickPlay(discipline=DISCIPLINE, config=config, rated=self.rated))
        seat = self.seat_play = SeatPlay()
        end = time.monotonic() + GAME_TIMEOUT_S
        while not seat.over:
            if time.monotonic() > end:
                self.fail("game", TimeoutError("game not finished in time"))
                if seat.token:
                    self.send(I.Leave(table=seat.table, token=seat.token))
                else:
                    self.send(I.QuickPlayCancel())
                return
            msg = self.recv(1.0)
            if msg is None:
                continue
            fb = seat.feed(msg, time.perf_counter())
            for e in fb.errors:
                self.fail("protocol error", RuntimeError(e))
            if fb.gap:
                self.fail("version gap", RuntimeError(fb.gap))
            if fb.resync:
                self.fail("resync", RuntimeError("snapshot in the middle of a game"))
            for s in fb.latency_s:
                self.measure("shot->broadcast", s * 1000.0)
            if fb.retry or fb.reseated:  # the server was busy (or the seat came back): the same seq again
                if fb.retry:
                    self.fail("busy", RuntimeError("shot or decision answered unavailable/busy"))
                    gevent.sleep(0.25)
                for m in seat.resend():
                    self.send(m)
                continue
            game = seat.position_to_move()
            if game is not None:
                act = self.engine.choose(game, seat.seat)
                gevent.sleep(THINK_S * random.uniform(0.5, 1.5))
                self.send(seat.message_for(act, time.perf_counter()))
        if self.rated:
            self.await_rating(seat)
        leave = seat.leave()
        self.seat_play = None
        if leave is not None:
            self.send(leave)


    def await_rating(self, seat: SeatPlay) -> None:
        """After a rated game: its ``game_rated`` (event ``rated``), or the failure ``rated`` after 30 s."""
        t0, game = time.perf_counter(), seat.mirror_game
        end = time.monotonic() + RATING_WAIT_S
        while time.monotonic() < end:
            msg = self.recv(1.0)
            if msg is not None and msg["type"] == "game_rated" and msg.get("table") == seat.table \
                    and msg.get("game") == game:
                self.measure("rated", (time.perf_counter() - t0) * 1000.0)
                return
        self.fail("rated", TimeoutError(f"game {game} of table {seat.table} not rated within {RATING_WAIT_S:g} s"))


class SpectatorUser(ProtocolUser):
    """Watches a random live table from the lobby for a while."""

    weight = 3
    wait_time = between(1.0, 3.0)

    @task
    def watch_a_table(self) -> None:
        self.send(I.LobbySubscribe())
        tables = []
        end = time.monotonic() + 5.0
        while time.monotonic() < end:
            msg = self.recv(1.0)
            if msg is not None and msg["type"] == "lobby":
                tables = [t["table"] for t in msg["tables"] if t["status"] == "playing"]
                break
        self.send(I.LobbyUnsubscribe())
        if not tables:
            return
        table = random.choice(tables)
        self.send(I.Watch(table=table))
        stream = Stream()
        end = time.monotonic() + WATCH_S
        while time.monotonic() < end:
            msg = self.recv(1.0)
            if msg is None or msg.get("table") != table:
                continue
            if msg["type"] == "error":
                if msg.get("code") != "no_such_table":  # the game ended between the lobby and the watch
                    self.fail("protocol error", RuntimeError(f"{msg['code']}: {msg['message']}"))
                return
            if msg["type"] not in protocol.STREAM_TYPES:
                continue
            self.measure("fan-out", max(0.0, (time.time() - msg["ts"]) * 1000.0))
            gap = stream.check(msg)
            if gap:
                self.fail("version gap", RuntimeError(gap))
            if msg.get("state", {}).get("over"):
                break
        self.send(I.Leave(table=table))


class LobbyUser(ProtocolUser):
    """Opens the lobby, follows its updates for a few seconds, closes it."""

    weight = 1
    wait_time = between(2.0, 5.0)

    @task
    def browse(self) -> None:
        t0 = time.perf_counter()
        self.send(I.LobbySubscribe())
        end = time.monotonic() + 5.0
        got = False
        while time.monotonic() < end:
            msg = self.recv(1.0)
            if msg is None:
                continue
            if msg["type"] == "lobby" and not got:
                got = True
                self.measure("lobby", (time.perf_counter() - t0) * 1000.0, len(msg["tables"]))
            elif msg["type"] == "error":
                self.fail("protocol error", RuntimeError(f"{msg['code']}: {msg['message']}"))
        if not got:
            self.fail("lobby", TimeoutError("no lobby within 5 s"))
        self.send(I.LobbyUnsubscribe())
