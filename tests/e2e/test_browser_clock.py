"""The shot clock: created from the lobby form, shown counting down on both players' scoreboards,
and its expiry ruled by the referee (14.1: a standard foul) and shown in words."""

from __future__ import annotations

import time

from games import play_straight_pool
from test_browser_straight_pool import new_page


def test_shot_clock_counts_down_and_expires(browser, live_server):
    A = new_page(browser, live_server, "Ann")
    B = new_page(browser, live_server, "Bob")
    A.open()
    B.open()
    A.page.fill("#target", "5")
    A.page.fill("#shot_clock", "4")
    A.page.click("#create-btn")
    A.wait_table()
    tid = A.table_id()
    assert "shot clock 4" in A.page.inner_text(".info .facts")
    B.join_from_lobby(tid)
    play_straight_pool(A, B, [], until=lambda st: st["phase"] == "break")
    d = A.debug()
    breaker = d["state"]["legal"]["player"]
    v = d["modelV"]
    for p in (A, B):
        p.page.wait_for_selector("[data-testid=shot-clock]", timeout=5000)
    first = float(A.page.inner_text("[data-testid=shot-clock]").split()[0])
    assert 0 <= first <= 4
    time.sleep(1.2)
    later = float(A.page.inner_text("[data-testid=shot-clock]").split()[0])
    assert later < first or later == 0
    # nobody shoots: the clock runs out and the referee rules
    A.page.wait_for_function("v => window.billar.table.debug().stateV > v", arg=v, timeout=15000)
    A.settle(A.debug()["modelV"])
    after = A.debug()
    assert "shot clock" in after["lastRuling"]["text"]
    assert after["lastRuling"]["foul"] is not None
    assert "shot clock" in A.page.inner_text("[data-testid=ruling]")
    assert after["state"]["scoreboard"]["scores"][breaker] == -1
    for p in (A, B):
        assert not p.errors, f"{p.name}: {p.errors}"
