"""The TV (``#/tv/<discipline>``) and the live games list (``#/games``) in Chromium against a real ``billar serve``.

Players are scripted protocol clients (their tables are made and ended through the protocol); the
viewer is a browser page. The TV shows the featured table as a spectator view (the canvas drawn,
the players' names on the page) and switches by itself when that game ends; the live list lists
the games and its discipline filter works; on a 390x844 phone neither page is wider than the
screen. Screenshots go to test-artifacts/tv-*.png. One-cushion and balkline 71/2 are used (no
other browser test makes tables of them: the session's server is shared).
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request

import msgpack
from websockets.sync.client import connect

import protocol
from e2e_driver import CLOTH_TOL, FELT, ClientPage

PHONE = (390, 844)


class Bot:
    """A scripted player on a plain WebSocket connection (kept open: its seat stays taken)."""

    def __init__(self, url: str, name: str):
        self.ws = connect(url.replace("http", "ws", 1) + "/ws", open_timeout=10, max_size=None)
        self.send({"type": "hello", "protocol": protocol.PROTOCOL_VERSION, "name": name})
        self.next("welcome")
        self.lock = threading.Lock()

    def send(self, msg: dict) -> None:
        self.ws.send(msgpack.packb(msg))

    def next(self, type_: str, timeout: float = 15.0) -> dict:
        end = time.time() + timeout
        while True:
            m = msgpack.unpackb(self.ws.recv(timeout=max(0.1, end - time.time())), raw=False)
            if m.get("type") == type_:
                return m

    def close(self) -> None:
        self.ws.close()


def seat_two(url: str, n0: str, n1: str, discipline: str):
    a, b = Bot(url, n0), Bot(url, n1)
    a.send({"type": "create_table", "discipline": discipline, "config": {}, "private": False, "seat": 0})
    sa = a.next("seated")
    b.send({"type": "join", "table": sa["table"]})
    sb = b.next("seated")
    return a, b, sa["table"], sa["token"], sb["token"]


def api(url: str, path: str):
    with urllib.request.urlopen(url + path, timeout=5) as r:
        return json.loads(r.read())


def wait_api(url: str, path: str, pred, timeout: float = 20.0):
    end = time.time() + timeout
    while True:
        doc = api(url, path)
        if pred(doc):
            return doc
        assert time.time() < end, doc
        time.sleep(0.2)


def felt_drawn(p: ClientPage) -> bool:
    """A point of the bed away from the balls is drawn in the cloth's colour."""
    p.redraw()
    size = p.page.evaluate("() => { const t = window.billar.table.model.preset; return [t.length, t.width]; }")
    rgb = p.pixel_at_world(size[0] * 0.5, size[1] * 0.85)
    return all(abs(c - f) <= CLOTH_TOL * 2 for c, f in zip(rgb, FELT))


def test_tv_follows_the_featured_game_and_the_live_list_filters(browser, live_server, artifacts):
    url = live_server.url
    bots = []
    try:
        a, b, t1, ta, tb = seat_two(url, "Ann", "Bob", "one_cushion")
        bots += [a, b]
        wait_api(url, "/api/tv/one_cushion", lambda d: d["table"] == t1)
        c, d, t2, _, _ = seat_two(url, "Cy", "Dan", "one_cushion")
        e, f, t3, _, _ = seat_two(url, "Eve", "Fay", "balkline_71_2")
        bots += [c, d, e, f]

        V = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), url, "Viewer")
        V.open("#/tv/one_cushion")
        V.page.wait_for_function("t => window.billar.table && window.billar.table.id === t", arg=t1, timeout=20000)
        V.wait_table()
        V.page.wait_for_function("() => !window.billar.table.debug().busy")
        assert V.page.locator(f".tv-slot .table-view[data-table-id='{t1}']").count() == 1
        players = V.page.inner_text("[data-testid=tv-players]")
        assert "Ann" in players and "Bob" in players
        assert "Ann" in V.page.inner_text(".tv-slot .scoreboard") and "Bob" in V.page.inner_text(".tv-slot .scoreboard")
        assert V.debug()["mySeat"] is None  # a spectator
        assert felt_drawn(V), "the featured table's canvas is not drawn"
        V.page.screenshot(path=os.path.join(artifacts, "tv-featured.png"))

        # the featured game ends: after the linger the TV switches to the other game by itself
        b.send({"type": "resign", "table": t1, "token": tb})
        V.page.wait_for_function("t => window.billar.table && window.billar.table.id === t", arg=t2, timeout=30000)
        V.wait_table()
        V.page.wait_for_function("() => !window.billar.table.debug().busy")
        V.page.wait_for_function("() => (document.querySelector('[data-testid=tv-players]')?.textContent ?? '').includes('Cy')")
        players = V.page.inner_text("[data-testid=tv-players]")
        assert "Cy" in players and "Dan" in players and "Ann" not in players
        assert V.page.locator(".tv-slot .table-view").count() == 1
        assert felt_drawn(V)
        V.page.screenshot(path=os.path.join(artifacts, "tv-switched.png"))

        # the live games: both live games listed (t1 is over), the filter keeps one discipline
        V.page.click("#nav-games")
        V.page.wait_for_selector(f"tr[data-table='{t2}']", timeout=15000)
        V.page.wait_for_selector(f"tr[data-table='{t3}']", timeout=15000)
        assert V.page.locator(f"tr[data-table='{t1}']").count() == 0
        row = V.page.inner_text(f"tr[data-table='{t2}']")
        assert "Cy" in row and "Dan" in row and "TV" in row  # t2 is on TV now
        V.page.screenshot(path=os.path.join(artifacts, "tv-live-games.png"))
        V.page.select_option("#games-filter", "one_cushion")
        V.page.wait_for_function("() => location.hash === '#/games/one_cushion'")
        V.page.wait_for_selector(f"tr[data-table='{t3}']", state="detached", timeout=15000)
        V.page.wait_for_selector(f"tr[data-table='{t2}']", timeout=15000)
        discs = V.page.eval_on_selector_all("tr[data-table]", "rs => rs.map(r => r.dataset.discipline)")
        assert discs and set(discs) == {"one_cushion"}, discs
        V.page.screenshot(path=os.path.join(artifacts, "tv-live-games-filtered.png"))
        # a click on a game opens it
        V.page.click(f"tr[data-table='{t2}'] [data-action=watch]")
        V.page.wait_for_function("t => location.hash === '#/table/' + t", arg=t2)
        V.wait_table()
        assert not V.errors, V.errors

        # a phone upright: neither page wider than the screen
        ctx = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]}, device_scale_factor=3, is_mobile=True,
                                  has_touch=True)
        P = ClientPage(ctx.new_page(), url, "Pia")
        P.open("#/tv/one_cushion")
        P.page.wait_for_function("t => window.billar.table && window.billar.table.id === t", arg=t2, timeout=20000)
        P.wait_table()
        P.page.wait_for_function("() => !window.billar.table.debug().busy")
        P.redraw()
        width = P.page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE[0], f"TV page {width} px wide on a {PHONE[0]} px phone"
        P.page.screenshot(path=os.path.join(artifacts, "tv-phone.png"))
        P.page.evaluate("location.hash = '#/games'")
        P.page.wait_for_selector(f"tr[data-table='{t2}']", timeout=15000)
        width = P.page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE[0], f"live games {width} px wide on a {PHONE[0]} px phone"
        P.page.screenshot(path=os.path.join(artifacts, "tv-phone-live-games.png"))
        assert not P.errors, P.errors
        ctx.close()
    finally:
        for bot in bots:
            bot.close()


def test_the_spectators_chat_is_for_spectators_unless_a_player_shows_it(browser, live_server, artifacts):
    url = live_server.url
    P = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), url, "Pat")
    P.open()
    P.page.select_option("#discipline", "balkline_71_2")
    P.page.click("#create-btn")
    P.wait_table()
    tid = P.table_id()
    S = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), url, "Sid")
    S.open(f"#/table/{tid}")
    S.wait_table()
    # the player says something: everybody sees it
    P.page.fill("#chat-input", "good luck")
    P.page.press("#chat-input", "Enter")
    S.page.wait_for_selector("[data-testid=chat] li:has-text('good luck')")
    P.page.wait_for_selector("[data-testid=chat] li:has-text('good luck')")
    # a spectator says something: spectators see it, the player does not (the switch is off by default)
    assert S.page.locator("#spectator-chat-toggle").is_hidden()  # a spectator's screen has no switch
    S.page.fill("#chat-input", "nice table")
    S.page.press("#chat-input", "Enter")
    S.page.wait_for_selector("[data-testid=chat] li:has-text('nice table')")
    P.page.wait_for_timeout(1000)
    assert P.page.locator("[data-testid=chat] li:has-text('nice table')").count() == 0
    assert P.page.locator("[data-testid=chat] li:has-text('good luck')").count() == 1
    # the number watching is shown to the player too
    P.page.wait_for_function("() => (document.querySelector('[data-testid=spectators]')?.textContent ?? '') === '1'")
    # the player switches the spectators' chat on: shown, and remembered
    assert P.page.locator("#spectator-chat-toggle").is_visible() and not P.page.is_checked("#spectator-chat-toggle")
    P.page.check("#spectator-chat-toggle")
    P.page.wait_for_selector("[data-testid=chat] li:has-text('nice table')")
    P.page.screenshot(path=os.path.join(artifacts, "tv-chat-player-shows-spectators.png"))
    P.page.reload()
    P.wait_table()
    P.page.wait_for_selector("[data-testid=chat] li:has-text('nice table')")
    assert P.page.is_checked("#spectator-chat-toggle")
    # a long word wraps inside the chat panel (QA: it ran out of the card and was cut)
    S.page.fill("#chat-input", "W" * 120)
    S.page.press("#chat-input", "Enter")
    S.page.wait_for_selector("[data-testid=chat] li:has-text('WWWW')")
    inside = S.page.evaluate("""() => { const ul = document.querySelector('[data-testid=chat]');
        const li = [...ul.querySelectorAll('li')].pop(); const a = ul.getBoundingClientRect(), b = li.getBoundingClientRect();
        return [ul.scrollWidth <= ul.clientWidth, b.right <= a.right + 0.5, b.height > 2 * parseFloat(getComputedStyle(li).lineHeight || '14')]; }""")
    assert inside == [True, True, True], inside
    # a flood of lines is refused, and the refusal is said once, not once a line (QA: nine toasts over the page)
    for k in range(16):
        S.page.fill("#chat-input", f"line {k}")
        S.page.press("#chat-input", "Enter")
    S.page.wait_for_selector(".toast.error:has-text('too many')", timeout=10000)
    assert S.page.locator(".toast.error:has-text('too many')").count() == 1
    assert not P.errors and not S.errors, (P.errors, S.errors)
    P.page.context.close()
    S.page.context.close()
