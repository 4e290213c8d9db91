"""Two browser pages play a whole 14.1 game through the UI while a third page spectates.

The table is created in the lobby form (target 3 points), the second player joins from the
live lobby list, the spectator comes in by the table's shareable link. Every stroke is aimed,
called (chips or clicks on the ball and pocket on the canvas), powered and shot with the page's
controls; balls in hand are dragged with the mouse; the lag winner picks the breaker in the
decision dialog. At the end the spectator's scoreboard shows the players' scores, and the
final scores are the referee's result. Screenshots of the lobby, the game and the spectator's
view are kept in test-artifacts/, and the canvas pixels are checked (felt, cushion, balls).
"""

from __future__ import annotations

import math
import os

from e2e_driver import CLOTH_TOL, CUSHION, FELT, RED, WHITE, YELLOW, ClientPage, nearest
from games import layout_of, play_straight_pool
from physics.table import get_table


def new_page(browser, live_server, name, dpr=1, width=1360, height=860):
    ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=dpr)
    return ClientPage(ctx.new_page(), live_server.url, name)


def free_point(table, layout, away=0.1):
    """A point of the bed at least ``away`` m from every ball and the spots, in front of the head string
    (the kitchen is shaded while the cue ball is in hand there)."""
    for i in range(1, 12):
        for j in range(1, 6):
            x, y = table.length * i / 12 + 0.013, table.width * j / 6 + 0.017
            if x < table.head_string_x + 0.02:
                continue
            if all(math.hypot(x - p[0], y - p[1]) > away for p in layout.values()):
                return (x, y)
    raise AssertionError("no free point on the bed")


def check_canvas(page: ClientPage, table, state, who: str):
    """The canvas shows the table: felt in the middle, cushion at the edge, each ball's colour at its place."""
    page.page.uncheck("#trails-toggle")  # the last stroke's trails cross the felt
    page.redraw()
    layout = layout_of(state)
    fx, fy = free_point(table, layout)
    felt = page.pixel_at_world(fx, fy)
    assert max(abs(a - b) for a, b in zip(felt, FELT)) <= CLOTH_TOL, f"{who}: felt pixel {felt} at {(fx, fy)}"
    cushion = page.pixel_at_world(-0.02, table.width * 0.3)
    assert max(abs(a - b) for a, b in zip(cushion, CUSHION)) <= CLOTH_TOL, f"{who}: cushion pixel {cushion}"
    palette = {"felt": FELT, "cushion": CUSHION, "white": WHITE, "yellow": YELLOW, "red": RED, "blue": (0x1D, 0x4F, 0xB8),
               "black": (0x12, 0x12, 0x12), "purple": (0x5B, 0x2A, 0x86), "orange": (0xF0, 0x7A, 0x12)}
    expect = {0: "white", 1: "yellow", 2: "blue", 3: "red", 4: "purple", 5: "orange", 8: "black"}
    seen = 0
    R = table.R
    for ball, name in expect.items():
        if ball not in layout:
            continue
        x, y = layout[ball]
        # pool balls carry a white number disc in the middle: read the colour below it
        px = page.pixel_at_world(x, y) if ball == 0 else page.pixel_at_world(x + 0.62 * R, y)
        assert nearest(px, palette) == name, f"{who}: ball {ball} at {(x, y)} shows {px}, expected {name}"
        seen += 1
    assert seen >= 2, f"{who}: too few balls checked"
    page.page.check("#trails-toggle")


def test_two_players_and_a_spectator_play_14_1(browser, live_server, artifacts):
    A = new_page(browser, live_server, "Ann", dpr=2)
    B = new_page(browser, live_server, "Bob")
    S = new_page(browser, live_server, "Sue", width=1100, height=760)
    A.open()
    B.open()
    # Ann creates a 14.1 table to 3 points from the lobby form
    A.page.select_option("#discipline", "straight_pool")
    A.page.fill("#target", "3")
    A.page.click("#create-btn")
    A.wait_table()
    tid = A.table_id()
    assert A.debug()["mySeat"] == 0
    # Bob sees it appear in his lobby (pushed, not polled) and joins
    row = f"tr[data-table='{tid}']"
    B.page.wait_for_selector(f"{row} [data-action=join]", timeout=15000)
    assert "14.1" in B.page.inner_text(row)
    assert "Ann" in B.page.inner_text(row)
    B.page.screenshot(path=os.path.join(artifacts, "lobby.png"))
    B.page.click(f"{row} [data-action=join]")
    B.wait_table()
    assert B.table_id() == tid and B.debug()["mySeat"] == 1
    # Sue watches through the shareable link
    link = A.page.input_value("#share-link")
    assert link.endswith(f"#/table/{tid}")
    S.open(link[len(live_server.url) + 1:])
    S.wait_table()
    assert S.debug()["mySeat"] is None
    assert not S.page.is_visible("#shoot-btn"), "a spectator has no stroke controls"
    A.page.wait_for_function("() => (document.querySelector('[data-testid=spectators]')?.textContent ?? '') === '1'", timeout=10000)
    assert A.page.inner_text("[data-testid=name-0]").startswith("Ann")
    assert S.page.inner_text("[data-testid=name-1]").startswith("Bob")

    shots = {"taken": False}

    def look(n):
        d = A.debug()
        st = d["state"]
        if not shots["taken"] and st["phase"] == "play" and not st["over"] and len(st["layout"]) >= 10:
            table = get_table(d["preset"])
            check_canvas(A, table, st, "player")
            check_canvas(S, table, S.debug()["state"], "spectator")
            A.page.screenshot(path=os.path.join(artifacts, "game-14-1.png"))
            S.page.screenshot(path=os.path.join(artifacts, "spectator-14-1.png"))
            shots["taken"] = True
        # the spectator sees what the players see, stroke by stroke
        assert S.scores_text() == A.scores_text() == B.scores_text()

    facts = play_straight_pool(A, B, [S], on_action=look)
    assert shots["taken"], "never reached open play with a full rack on the table"
    dA, dS = A.debug(), S.debug()
    st = dA["state"]
    assert st["over"]
    result = st["result"]
    winner = result["winner"]
    assert result["scores"][winner] >= 3
    assert [int(t) for t in A.scores_text()] == result["scores"]
    assert S.scores_text() == A.scores_text() == B.scores_text()
    assert dS["state"]["result"] == result
    assert "wins" in S.page.inner_text("[data-testid=turn-status]")
    # what the UI was used for
    assert "CHOOSE_BREAKER" in facts["decisions"]
    # calls alternate chips / canvas (a called pot may score several balls: 2 calls can win to 3)
    assert facts["pots_called"] >= 2 and facts["canvas_calls"] >= 1
    print(f"canvas calls with the ball under the drawn stick: {A.calls_under_stick + B.calls_under_stick} of {facts['canvas_calls']}")
    assert facts["placements"] >= 1 and facts["keyboard_aims"] >= 1
    assert facts["drag_aims"] >= 1 and facts["pull_backs"] >= 1
    # the last stroke can be replayed and the game has a replay link
    # (at a tenth of the speed: a short last stroke replayed at full speed could end before the click on Skip, as it
    # did once in a full run)
    A.page.select_option("#speed", "0.1")
    A.page.click("#replay-btn")
    A.page.wait_for_function("() => window.billar.table.debug().busy")
    A.page.click("#skip-btn")
    A.page.wait_for_function("() => !window.billar.table.debug().busy", timeout=5000)
    replay = A.page.get_attribute("#replay-link", "href")
    assert replay.endswith(f"#/replay/{tid}/1")
    # the finished game's replay link plays the recorded strokes (a spectator opens it)
    S.page.goto(replay)
    S.page.wait_for_function("() => document.querySelectorAll('.replay-view [role=log] > li').length > 0", timeout=15000)
    n_entries = S.page.locator(".replay-view [role=log] > li").count()
    assert n_entries >= facts["strokes"] + len(facts["decisions"])
    assert "Ann vs Bob" in S.page.inner_text("[data-testid=replay-status]")
    text = S.page.inner_text(".replay-view [role=log]")
    assert "Decision CHOOSE_BREAKER" not in text and "chooses to break" in text or "break" in text
    # the whole entry replays it, not only the name: a click on its ruling's words
    S.page.locator(".replay-view [role=log] > li .line2").last.click()
    S.page.wait_for_function(
        "s => document.querySelector('[data-testid=replay-scores]').textContent.includes(s)",
        arg=f"{result['scores'][0]} : {result['scores'][1]}", timeout=60000)
    S.page.screenshot(path=os.path.join(artifacts, "replay-14-1.png"))
    for p in (A, B, S):
        assert not p.errors, f"{p.name}: {p.errors}"
