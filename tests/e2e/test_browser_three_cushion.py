"""Two browser pages play a whole three-cushion game through the UI while a third page spectates.

The players meet through quick play (same discipline and distance 2), the spectator finds the
live table in the lobby list and clicks Watch, and chats (the players see it with the spectators' chat on). Strokes come from the carom search
(bots/carom_search.py) run on a mirror of the game, and are entered with the page's controls
(aim, power, tip offset, elevation). The mirror follows the event logs the server broadcast, and
the table layout every page shows is compared with it after every action, so the browser and
the referee agree position by position. At the end every page shows the same scores, the
referee's result.
"""

from __future__ import annotations

import os

from e2e_driver import CLOTH_TOL, CUSHION, FELT, RED, WHITE, YELLOW, ClientPage, nearest
from games import layout_of, play_carom
from physics.table import get_table
from test_browser_straight_pool import free_point, new_page


def check_carom_canvas(page: ClientPage, table, state, who: str):
    page.page.uncheck("#trails-toggle")  # the last stroke's trails cross the felt
    page.redraw()
    layout = layout_of(state)
    fx, fy = free_point(table, layout)
    felt = page.pixel_at_world(fx, fy)
    assert max(abs(a - b) for a, b in zip(felt, FELT)) <= CLOTH_TOL, f"{who}: felt pixel {felt}"
    cushion = page.pixel_at_world(table.length * 0.37, -0.02)
    assert max(abs(a - b) for a, b in zip(cushion, CUSHION)) <= CLOTH_TOL, f"{who}: cushion pixel {cushion}"
    palette = {"felt": FELT, "cushion": CUSHION, "white": WHITE, "yellow": YELLOW, "red": RED}
    for ball, name in {0: "white", 1: "yellow", 2: "red"}.items():
        x, y = layout[ball]
        px = page.pixel_at_world(x, y)
        assert nearest(px, palette) == name, f"{who}: ball {ball} at {(x, y)} shows {px}, expected {name}"
    page.page.check("#trails-toggle")


def test_quick_play_three_cushion_with_a_spectator(browser, live_server, artifacts):
    A = new_page(browser, live_server, "Carla", dpr=2)
    B = new_page(browser, live_server, "Dani")
    S = new_page(browser, live_server, "Eve")
    for p in (A, B, S):
        p.open()
    for p in (A, B):
        p.page.select_option("#discipline", "three_cushion")
        p.page.fill("#target", "2")
    A.page.click("#quick-play-btn")
    A.page.wait_for_selector("[data-testid=quick-play-status] #quick-play-cancel", timeout=10000)
    B.page.click("#quick-play-btn")
    A.wait_table()
    B.wait_table()
    tid = A.table_id()
    assert B.table_id() == tid
    seats = {A.debug()["mySeat"]: A, B.debug()["mySeat"]: B}
    assert set(seats) == {0, 1}
    d = A.debug()
    assert d["discipline"] == "three_cushion" and d["config"]["distance"] == 2
    # the spectator sees the new table in the lobby and watches it
    row = f"tr[data-table='{tid}']"
    S.page.wait_for_selector(f"{row} [data-action=watch]", timeout=15000)
    assert "Three-cushion" in S.page.inner_text(row)
    S.page.click(f"{row} [data-action=watch]")
    S.wait_table()
    assert S.table_id() == tid and S.debug()["mySeat"] is None
    S.page.fill("#chat-input", "good luck both")
    S.page.press("#chat-input", "Enter")
    S.page.wait_for_function("() => (document.querySelector('[data-testid=chat]')?.textContent ?? '').includes('good luck both')", timeout=10000)
    # a spectator's line is for the spectators: a player sees it once it switches the spectators' chat on
    for p in (A, B):
        assert "good luck both" not in p.page.inner_text("[data-testid=chat]")
        p.page.check("#spectator-chat-toggle")
        p.page.wait_for_function("() => (document.querySelector('[data-testid=chat]')?.textContent ?? '').includes('good luck both')", timeout=10000)
    assert "Eve" in A.page.inner_text("[data-testid=chat]")

    seen = {"checked": False}

    def look(n):
        d = seats[0].debug()
        st = d["state"]
        if not seen["checked"] and st["phase"] in ("break", "play") and not st["over"]:
            table = get_table(d["preset"])
            check_carom_canvas(seats[0], table, st, "player")
            check_carom_canvas(S, table, S.debug()["state"], "spectator")
            seats[0].page.screenshot(path=os.path.join(artifacts, "game-three-cushion.png"))
            S.page.screenshot(path=os.path.join(artifacts, "spectator-three-cushion.png"))
            seen["checked"] = True
        layouts = [p.debug()["state"]["layout"] for p in (A, B, S)]
        assert layouts[0] == layouts[1] == layouts[2]
        assert S.scores_text() == A.scores_text() == B.scores_text()

    facts = play_carom(seats[0], seats[1], [S], "three_cushion", d["config"], on_action=look)
    assert seen["checked"]
    st = A.debug()["state"]
    assert st["over"]
    result = st["result"]
    assert max(result["scores"]) >= 2
    assert [int(t) for t in A.scores_text()] == result["scores"]
    assert S.scores_text() == A.scores_text() == B.scores_text()
    assert "CHOOSE_BREAKER" in facts["decisions"]
    assert facts["caroms_found"] >= 2
    text = S.page.inner_text("[data-testid=turn-status]")
    assert text.startswith("Game over"), text
    # a rematch: one offers, the other accepts, everybody gets game 2 from the start; the players' side panels,
    # scrolled down to the game's end, come back to their top (the stroke controls) for the new game (QA)
    scrolled = [p.page.evaluate("() => { const e = document.querySelector('.side'); e.scrollTo(0, 1e6); return e.scrollTop; }")
                for p in (A, B)]
    assert all(y > 50 for y in scrolled), scrolled
    seats[0].page.click("#rematch-btn")
    # the offer says who made it
    seats[1].page.wait_for_selector(f"#rematch-btn:has-text(\"Accept {seats[0].name}'s rematch\")", timeout=10000)
    seats[1].page.click("#rematch-btn")
    for p in (A, B, S):
        p.page.wait_for_function("() => window.billar.table.debug().game === 2", timeout=10000)
        d2 = p.debug()
        assert not d2["state"]["over"] and d2["state"]["scoreboard"]["scores"] == [0, 0]
        assert p.scores_text() == ("0", "0")
    assert [p.page.evaluate("document.querySelector('.side').scrollTop") for p in (A, B)] == [0, 0]
    for p in (A, B, S):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_a_spectator_catching_up_sees_game_over_only_with_the_last_position(browser, live_server, artifacts):
    """QA: a stroke was still being played back on a spectator's page when the resignation after it arrived, and the
    Game-over summary covered the table with the history one entry short. It now waits for the end of the playback."""
    from test_browser_accounts import ApiClient, Sock

    base = live_server.url
    a, b = Sock(base, ApiClient(base)), Sock(base, ApiClient(base))
    try:
        a.send({"type": "create_table", "discipline": "three_cushion", "config": {"distance": 1, "breaker": 0}})
        sa = a.expect("seated")
        tid = sa["table"]
        b.send({"type": "join", "table": tid})
        b.expect("seated")
        S = new_page(browser, live_server, "Sam")
        S.open(f"#/table/{tid}")
        S.wait_table()
        S.page.wait_for_function("() => window.billar.table.debug().seats.every(s => s !== null)")
        # a long, soft stroke (seconds of animation), and the resignation straight after it
        a.send({"type": "shot", "table": tid, "token": sa["token"], "seq": 1,
                "stroke": {"phi_deg": 10.0, "V0": 2.5, "a": 0.0, "b": 0.0, "theta_deg": 0.0}})
        a.expect("stroke")
        a.send({"type": "resign", "table": tid, "token": sa["token"]})
        end_v = a.expect("ruling")["v"]
        # the page has the game's end (the model's last version) while the stroke still plays back
        S.page.wait_for_function(f"() => {{ const d = window.billar.table.debug(); return d.modelV >= {end_v} && d.playback.animating; }}",
                                 timeout=10000)
        d = S.debug()
        assert not d["state"]["over"], "the position shown is the one before the end"
        assert S.page.is_hidden("[data-testid=match-summary]")
        S.page.wait_for_selector("[data-testid=match-summary]", state="visible", timeout=30000)
        assert not S.debug()["playback"]["animating"]
        assert [e["kind"] for e in S.debug()["history"]][-2:] == ["stroke", "forfeit"]
        S.page.screenshot(path=os.path.join(artifacts, "spectator-caught-up-game-over.png"))
        assert not S.errors, S.errors
    finally:
        a.close()
        b.close()
