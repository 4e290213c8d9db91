"""A page reload mid-game resumes the seat (its token is kept in the browser), a page that was
closed while the opponent played comes back to the new position, and a dropped connection is
retried by itself with the status saying so."""

from __future__ import annotations

from e2e_driver import ClientPage
from games import play_straight_pool
from test_browser_straight_pool import new_page


def test_reload_and_reconnect_resume_the_seat(browser, live_server):
    A = new_page(browser, live_server, "Ann")
    B = new_page(browser, live_server, "Bob")
    A.open()
    B.open()
    A.page.fill("#target", "3")
    A.page.click("#create-btn")
    A.wait_table()
    tid = A.table_id()
    B.join_from_lobby(tid)

    # lag, choice of the breaker, break: stop in open play
    play_straight_pool(A, B, [], until=lambda st: st["phase"] == "play" and bool(st["legal"]["shoot"])
                       and not st["legal"]["shoot"]["in_hand"])
    before = A.debug()
    st = before["state"]
    assert st["phase"] == "play" and not st["over"]
    actor = st["legal"]["player"]
    P = (A, B)[actor]

    # 1. the player to act reloads the page: same seat, same position, and may shoot
    P.page.reload()
    P.wait_connected()
    P.wait_table()
    P.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    after = P.debug()
    assert after["mySeat"] == actor
    assert after["state"]["layout"] == st["layout"]
    assert after["seats"][actor]["connected"] is True
    assert P.table_id() == tid

    # 2. the other player closes the page; the actor plays; the page opened again by the link
    #    resumes the seat and shows the position after that stroke
    other = 1 - actor
    O = (A, B)[other]
    ctx = O.page.context
    O.page.close()
    v0 = P.debug()["modelV"]
    P.page.wait_for_function(f"() => window.billar.table.debug().seats[{other}].connected === false", timeout=15000)
    assert "disconnected" in P.page.inner_text(f".scoreboard .seat-{other}")
    cue = st["layout"]["0"]
    target = min((k for k in st["layout"] if k != "0"), key=lambda k: (st["layout"][k][0] - cue[0]) ** 2 + (st["layout"][k][1] - cue[1]) ** 2)
    import math

    q = st["layout"][target]
    P.declare_safety()
    P.set_stroke(math.degrees(math.atan2(q[1] - cue[1], q[0] - cue[0])), 2.0)
    P.shoot()
    P.page.wait_for_function(f"v => window.billar.table.debug().stateV > v", arg=v0, timeout=15000)
    P.settle(P.debug()["modelV"])
    layout_after = P.debug()["state"]["layout"]
    O2 = ClientPage(ctx.new_page(), live_server.url, O.name)
    O2.page.goto(f"{live_server.url}/#/table/{tid}")
    O2.wait_connected()
    O2.wait_table()
    O2.page.wait_for_function("() => !window.billar.table.debug().busy")
    d = O2.debug()
    assert d["mySeat"] == other
    assert d["state"]["layout"] == layout_after
    P.page.wait_for_function(f"() => window.billar.table.debug().seats[{other}].connected === true", timeout=15000)

    # 3. a dropped connection: the client reconnects by itself and says so
    P.page.evaluate("window.billar.conn.drop()")
    P.page.wait_for_function("() => /reconnect/i.test((document.querySelector('#link-status')?.textContent ?? ''))", timeout=5000)
    P.page.wait_for_function("() => (document.querySelector('#link-status')?.textContent ?? '') === 'Reconnected'", timeout=15000)
    P.page.wait_for_function("() => !window.billar.table.debug().busy")
    assert P.debug()["mySeat"] == actor
    assert P.debug()["state"]["layout"] == layout_after
    # the game goes on from there to its end
    pages = {actor: P, other: O2}
    play_straight_pool(pages[0], pages[1], [])
    assert P.debug()["state"]["over"] and O2.debug()["state"]["over"]
    for p in (P, O2):
        assert not p.errors, f"{p.name}: {p.errors}"
