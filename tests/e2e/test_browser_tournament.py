"""A tournament's page (``#/tournament/<id>``) in Chromium following a live bracket (issue 17), against a real
``billar serve``: four logged-in bots (scripted protocol clients with session cookies) play a knock-out of four;
seat 1 resigns each game as soon as both are seated, the final waits for the test's word. A spectator who is not
logged in watches the bracket fill in (round one's results, the final live with its Watch link, then the champion
and the final standings); the list ``#/tournaments`` shows it; on a 390x844 phone the page is no wider than the
screen. Screenshots go to test-artifacts/tournament-*.png."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid

import msgpack
from websockets.sync.client import connect

import protocol
from e2e_driver import ClientPage

PHONE = (390, 844)
PASSWORD = "correct horse 1"


def post(url: str, path: str, body: dict, cookie: str = ""):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read()), r.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}"), []


def get(url: str, path: str):
    with urllib.request.urlopen(url + path, timeout=10) as r:
        return json.loads(r.read())


class TourBot(threading.Thread):
    """A registered player on a WebSocket with its session cookie: joins each table it is told of and, at seat 1,
    resigns once both are seated (the final only once ``release`` is set)."""

    def __init__(self, url: str, name: str, release: threading.Event, resign_any: bool = False):
        super().__init__(daemon=True)
        self.resign_any = resign_any  # resign at either seat (against a browser player)
        st, body, cookies = post(url, "/api/account/register", {"username": name, "password": PASSWORD})
        assert st == 201, body
        self.cookie = cookies[0].split(";")[0]
        self.ws = connect(url.replace("http", "ws", 1) + "/ws", open_timeout=10, max_size=None,
                          additional_headers={"Cookie": self.cookie, "Origin": url})
        self.send({"type": "hello", "protocol": protocol.PROTOCOL_VERSION, "name": name})
        self.release, self.stop, self.sit = release, threading.Event(), threading.Event()
        self.sit.set()
        self.tokens, self.resigned = {}, set()
        self.start()

    def send(self, msg: dict) -> None:
        self.ws.send(msgpack.packb(msg))

    def join_when_told(self, table: str, seat: int) -> None:
        """Take the seat kept at ``table`` once ``sit`` is set (at once, unless a test cleared it)."""
        self.sit.wait()
        self.send({"type": "join", "table": table, "seat": seat})

    def resign_when_released(self, table: str, token: str) -> None:
        self.release.wait()
        self.send({"type": "resign", "table": table, "token": token})

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                m = msgpack.unpackb(self.ws.recv(timeout=0.5), raw=False)
            except TimeoutError:
                continue
            except Exception:
                return
            t, table = m.get("type"), m.get("table")
            if t == "tournament_game" and table not in self.tokens:
                self.tokens[table] = None
                threading.Thread(target=self.join_when_told, args=(table, m["seat"]), daemon=True).start()
            elif t == "seated":
                self.tokens[table] = (m["seat"], m["token"])
            elif t in ("seats", "table_snapshot") and self.tokens.get(table):
                seat, token = self.tokens[table]
                if (seat == 1 or self.resign_any) and all(m["seats"]) and table not in self.resigned:
                    self.resigned.add(table)
                    if table.endswith("-R2-1"):
                        threading.Thread(target=self.resign_when_released, args=(table, token), daemon=True).start()
                    else:
                        self.send({"type": "resign", "table": table, "token": token})
            elif t == "ruling" and m["state"]["phase"] == "over" and self.tokens.get(table):
                self.send({"type": "leave", "table": table, "token": self.tokens[table][1]})

    def close(self) -> None:
        self.stop.set()
        self.join(5)
        self.ws.close()


def test_a_spectator_follows_a_live_bracket(browser, live_server, artifacts):
    url = live_server.url
    release = threading.Event()
    # names of this run (the session's server keeps its accounts, and a guest may not show an account's name)
    tag = uuid.uuid4().hex[:4]
    names = [f"{n}{tag}" for n in ("Kim", "Lou", "Max", "Ned")]
    bots = [TourBot(url, n, release) for n in names]
    try:
        st, t, _ = post(url, "/api/tournaments", {"name": "Browser cup", "discipline": "14.1", "format": "single_elimination",
                                                   "config": {"target_points": 1}, "max_players": 4}, bots[0].cookie)
        assert st == 201, t
        tid = t["id"]
        V = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), url, "Viewer")
        V.open(f"#/tournament/{tid}")
        V.page.wait_for_selector("[data-testid=tournament-status]", timeout=20000)
        assert V.page.inner_text("[data-testid=tournament-status]") == "open"
        for b in bots:
            st, body, _ = post(url, f"/api/tournaments/{tid}/join", {}, b.cookie)
            assert st == 200, body
        # round one is played (seat 1 resigns), the final is paired and waits: the page shows it live
        V.page.wait_for_selector("[data-testid=bracket] .bracket-match.live[data-pairing='R2-1']", timeout=60000)
        V.page.wait_for_selector(".bracket-match.done[data-pairing='R1-1']", timeout=20000)
        V.page.wait_for_selector(".bracket-match.done[data-pairing='R1-2']", timeout=20000)
        final = V.page.locator(".bracket-match[data-pairing='R2-1']")
        assert final.locator("a[data-action=watch]").count() == 1
        doc = get(url, f"/api/tournaments/{tid}")
        finalists = next(p["players"] for p in doc["pairings"] if p["id"] == "R2-1")
        text = final.inner_text()
        assert all(n in text for n in finalists), text
        assert V.page.locator("[data-testid=tournament-live] a[data-action=watch]").count() == 1
        assert V.page.inner_text("[data-testid=tournament-status]") == "running"
        V.page.screenshot(path=os.path.join(artifacts, "tournament-bracket-live.png"), full_page=True)
        # the final ends: champion, final standings, results with their replays
        release.set()
        V.page.wait_for_function("() => (document.querySelector('[data-testid=tournament-status]')?.textContent ?? '') === 'finished'",
                                 timeout=60000)
        V.page.wait_for_selector(".bracket-match.done[data-pairing='R2-1'] .bracket-player.won", timeout=10000)
        assert finalists[0] in V.page.inner_text(".bracket-match[data-pairing='R2-1'] .bracket-player.won")
        rows = V.page.locator("[data-testid=standings] tbody tr")
        assert rows.count() == 4 and finalists[0] in rows.nth(0).inner_text()
        assert V.page.locator("[data-testid=tournament-results] a").count() == 3
        V.page.screenshot(path=os.path.join(artifacts, "tournament-finished.png"), full_page=True)
        # the list shows it
        V.page.click("#nav-tournaments")
        V.page.wait_for_selector(f"tr[data-tournament='{tid}']", timeout=15000)
        assert "finished" in V.page.inner_text(f"tr[data-tournament='{tid}']")
        V.page.screenshot(path=os.path.join(artifacts, "tournament-list.png"))
        # a phone: no wider than the screen
        P = ClientPage(browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]}).new_page(), url, "Phone")
        P.open(f"#/tournament/{tid}")
        P.page.wait_for_selector("[data-testid=bracket]", timeout=20000)
        P.page.wait_for_selector("[data-testid=standings]", timeout=20000)
        width = P.page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE[0], width
        P.page.screenshot(path=os.path.join(artifacts, "tournament-phone.png"), full_page=True)
    finally:
        release.set()
        for b in bots:
            b.close()


def test_a_logged_in_player_joins_from_the_page_and_is_seated_by_the_director(browser, live_server, artifacts):
    """The player's side: joined with the page's Join button, told ``tournament_game`` when paired, the client
    takes the reserved seat by itself and shows the table; the bot opponent resigns; the page shows the win."""
    url = live_server.url
    quin = f"Quin{uuid.uuid4().hex[:4]}"  # names of this run, as above
    pia = f"Pia{uuid.uuid4().hex[:4]}"
    bot = TourBot(url, pia, threading.Event(), resign_any=True)
    bot.sit.clear()  # the bot takes its seat when the page has shown that it waits for it
    try:
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        r = ctx.request.post(url + "/api/account/register", data={"username": quin, "password": PASSWORD},
                             headers={"Origin": url})
        assert r.status == 201, r.text()
        st, t, _ = post(url, "/api/tournaments", {"name": "Duel", "discipline": "14.1", "format": "round_robin",
                                                   "config": {"target_points": 1}, "max_players": 2}, bot.cookie)
        assert st == 201, t
        tid = t["id"]
        P = ClientPage(ctx.new_page(), url, quin)
        P.page.goto(f"{url}/#/tournament/{tid}")  # logged in: no name to type
        P.wait_connected()
        P.page.click("[data-action=join]", timeout=20000)
        P.page.wait_for_selector("[data-action=leave]", timeout=10000)
        assert get(url, f"/api/tournaments/{tid}")["entries"][0]["username"] == quin
        st, body, _ = post(url, f"/api/tournaments/{tid}/join", {}, bot.cookie)
        assert st == 200, body
        # paired: the client takes its reserved seat by itself and opens the table
        table = f"tour-{tid}-R1-1"
        P.page.wait_for_function("t => location.hash === '#/table/' + t", arg=table, timeout=30000)
        P.wait_table()
        P.page.wait_for_function("() => window.billar.table.debug().mySeat !== null", timeout=20000)
        # the other seat is kept for the paired player, and the page says so (QA: "Open seat ... Share the link!")
        status = P.page.inner_text("[data-testid=turn-status]")
        assert status == f"Tournament game: waiting for {pia} to take the seat kept for them.", status
        other = 1 - P.debug()["mySeat"]
        assert P.page.inner_text(f"[data-testid=name-{other}]") == f"Kept for {pia}"
        P.page.screenshot(path=os.path.join(artifacts, "tournament-player-seated.png"))
        bot.sit.set()
        # the bot resigns: Quin wins the tournament
        doc = None
        for _ in range(150):
            doc = get(url, f"/api/tournaments/{tid}")
            if doc["status"] == "finished":
                break
            time.sleep(0.2)
        assert doc["status"] == "finished", doc
        assert doc["standings"][0]["name"] == quin
        P.page.goto(f"{url}/#/tournament/{tid}")
        P.page.wait_for_function("() => (document.querySelector('[data-testid=tournament-status]') || {}).textContent"
                                 " === 'finished'", timeout=20000)
        assert f"{quin} wins" in P.page.inner_text("[data-testid=tournament-results]")
    finally:
        bot.close()


def test_the_form_asks_for_the_arena_length_only_for_an_arena(browser, live_server):
    """QA: "Arena minutes" showed for a round robin. (The form is a logged-in player's.)"""
    url = live_server.url
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    r = ctx.request.post(url + "/api/account/register", data={"username": f"Tess{uuid.uuid4().hex[:4]}",
                                                              "password": PASSWORD}, headers={"Origin": url})
    assert r.status == 201, r.text()
    P = ClientPage(ctx.new_page(), url, "Tess")
    P.page.goto(f"{url}/#/tournaments")
    P.page.wait_for_selector("[data-testid=tournament-form]")
    assert P.page.input_value("select[name=format]") == "round_robin"
    assert not P.page.is_visible("input[name=duration_min]")
    P.page.select_option("select[name=format]", "arena")
    assert P.page.is_visible("input[name=duration_min]")
    P.page.select_option("select[name=format]", "single_elimination")
    assert not P.page.is_visible("input[name=duration_min]")
    assert not P.errors, P.errors
