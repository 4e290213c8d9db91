"""The defects a new player met first (issue 14), each checked in Chromium as that player meets it.

1. Ball in hand: dragging the cue ball redraws it (and the aim) where it was dropped at once, and
   the stroke is played from the point the canvas shows.
"""

from __future__ import annotations

import math

import pytest
import os

from e2e_driver import FELT, WHITE, ClientPage, close, nearest
from games import play_straight_pool
from physics.table import get_table
from server.records import sim_json
from test_browser_straight_pool import new_page


def two_players(browser, live_server, target="3", names=("Ann", "Bob"), **kw):
    """Ann creates a 14.1 table (to ``target``), Bob joins from the lobby; both pages at the table."""
    A = new_page(browser, live_server, names[0], **kw)
    B = new_page(browser, live_server, names[1], **kw)
    A.open()
    B.open()
    A.page.select_option("#discipline", "straight_pool")
    A.page.fill("#target", target)
    A.page.click("#create-btn")
    A.wait_table()
    tid = A.table_id()
    B.join_from_lobby(tid)
    return A, B, tid


def next_frames(page: ClientPage, n: int = 2) -> None:
    """Let the page draw ``n`` display frames (the board draws on demand, once per frame)."""
    page.page.evaluate("n => new Promise(r => { const f = k => k ? requestAnimationFrame(() => f(k - 1)) : r(); f(n); })", n)


def test_ball_in_hand_is_drawn_where_it_is_dragged(browser, live_server, artifacts):
    A, B, tid = two_players(browser, live_server)
    play_straight_pool(A, B, [], until=lambda st: st["phase"] == "break")
    d = A.debug()
    breaker = d["state"]["legal"]["player"]
    P = (A, B)[breaker]
    table = get_table(d["preset"])
    P.page.wait_for_function("() => window.billar.table.debug().canShoot")
    start = P.page.evaluate("window.billar.table.placementNow")
    want = (table.head_string_x - 0.25, table.width * 0.3)
    assert math.dist(start, want) > 0.2
    got = P.place_cue_ball(*want)
    assert math.dist(got, want) < 1e-6
    next_frames(P)  # no refresh from the test: what the page drew by itself
    # the canvas shows the cue ball at the dragged point, felt where it was
    at_new = P.pixel_at_world(*got)
    at_old = P.pixel_at_world(*start)
    assert close(at_new, WHITE, 12), f"no cue ball drawn at the dragged point {got}: {at_new}"
    assert close(at_old, FELT, 30), f"the cue ball is still drawn where it was {start}: {at_old}"
    # the aim line starts from the dragged ball
    drawn = P.page.evaluate("() => window.billar.table['board'].aim.cue")
    assert math.dist(drawn, got) < 1e-9
    P.page.screenshot(path=os.path.join(artifacts, "ball-in-hand-dragged.png"))
    # the stroke is played from the point the canvas shows
    apex = table.foot_spot
    P.set_stroke(math.degrees(math.atan2(apex[1] - got[1], apex[0] - got[0])), 6.0)
    v = P.debug()["modelV"]
    P.shoot()
    P.page.wait_for_function("v => window.billar.table.debug().stateV > v", arg=v, timeout=15000)
    sent = P.debug()["lastStroke"]["shots"][0]["cue_ball"]
    assert math.dist(sent, got) < 1e-9, (sent, got)
    for p in (A, B):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_power_is_the_cue_ball_speed_on_a_slider_of_soft_medium_firm_break(browser, live_server):
    """6. "Power" is the speed the stroke gives the cue ball, set on a slider whose quarters are soft,
    medium, firm and break, with the exact number beside it; the server's strike gives that speed."""
    A, B, tid = two_players(browser, live_server)
    play_straight_pool(A, B, [], until=lambda st: st["phase"] == "break")
    d = A.debug()
    P = (A, B)[d["state"]["legal"]["player"]]
    P.page.wait_for_function("() => window.billar.table.debug().canShoot")
    assert "cue-ball speed" in P.page.inner_text("label[for=power-speed]").lower()
    assert P.page.inner_text(".power-bands").split() == ["soft", "medium", "firm", "break"]
    slider = P.page.locator("#power-slider")
    box = slider.bounding_box()
    # a click at 60 % of the travel: the firm quarter (2.5-5 m/s), not a quarter of the cue-speed range
    P.page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    pos = float(slider.input_value())
    assert 0.5 < pos < 0.75, pos
    speed = P.debug()["stroke"]["speed"]
    assert 2.5 < speed < 5.0, speed
    assert P.page.input_value("#power-speed") == f"{round(speed, 2):g}"
    assert P.page.inner_text("[data-testid=power-note]").startswith("firm")
    # the arrow keys move the slider by a hundredth of its travel
    P.page.locator("canvas.table-canvas").focus()
    P.page.keyboard.press("ArrowUp")
    assert abs(float(slider.input_value()) - (pos + 0.01)) < 1e-9
    speed = P.debug()["stroke"]["speed"]
    # a speed typed in the box is the speed the cue ball gets
    P.set_input("#power-speed", 4.2)
    speed = P.debug()["stroke"]["speed"]
    assert speed == 4.2
    v = P.debug()["modelV"]
    P.shoot()
    P.page.wait_for_function("v => window.billar.table.debug().stateV > v", arg=v, timeout=15000)
    ev = sim_json(P.debug()["lastStroke"]["log"])["events"][0]
    assert ev["kind"] == "strike"
    vx, vy = next(iter(ev["states"].values()))["v"]
    assert abs(math.hypot(vx, vy) - 4.2) < 1e-9, math.hypot(vx, vy)
    for p in (A, B):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_a_guest_who_typed_no_name_sees_the_servers_name_in_the_name_box(browser, live_server):
    """QA: a guest who typed nothing plays as "player-xxxx" (the scoreboard says so) while the header's box said only
    "Your name". The empty box shows the name in force; typing one still replaces it."""
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(live_server.url + "/")
    page.wait_for_function("() => !!window.billar?.welcome", timeout=15000)
    name = page.evaluate("window.billar.playerName")
    assert name.startswith("player-") and page.input_value("#player-name") == ""
    assert page.get_attribute("#player-name", "placeholder") == name
    page.fill("#player-name", "Annabel")
    page.press("#player-name", "Tab")
    page.wait_for_function("() => window.billar.playerName === 'Annabel'", timeout=5000)
    page.context.close()


def test_a_typed_name_applies_at_once(browser, live_server, server_speaks):
    """5. A typed name is used at once (``rename``), not from the next connection; during a game of
    one's own it waits for the end of that game."""
    A = new_page(browser, live_server, "Ann")
    A.open()
    if not server_speaks("rename"):
        # an older server: the page says when the name will be used, and nothing breaks
        A.page.fill("#player-name", "Annabel")
        A.page.press("#player-name", "Tab")
        A.page.wait_for_function("() => [...document.querySelectorAll('.toast')].some(t => t.textContent.includes('next connection'))")
        assert A.page.evaluate("window.billar.playerName") == "Ann"
        assert A.error_toasts() == []
        pytest.skip("the server has no rename message yet (issue 14, server part)")
    A.page.fill("#player-name", "Annabel")
    A.page.press("#player-name", "Tab")
    A.page.wait_for_function("() => window.billar.playerName === 'Annabel'", timeout=5000)
    A.page.click("#create-btn")
    A.wait_table()
    assert A.page.inner_text("[data-testid=name-0]").startswith("Annabel")
    assert A.error_toasts() == []


def in_open_play(browser, live_server):
    """Ann and Bob at a 14.1 table in open play (lag, breaker's choice, break played); the page to act."""
    A, B, tid = two_players(browser, live_server, target="20")
    play_straight_pool(A, B, [], until=lambda st: st["phase"] == "play" and bool(st["legal"]["shoot"])
                       and not st["legal"]["shoot"]["in_hand"])
    P = (A, B)[A.debug()["state"]["legal"]["player"]]
    P.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    return A, B, P


SOLIDS = {1: (0xF2, 0xC4, 0x0F), 2: (0x1D, 0x4F, 0xB8), 3: (0xD4, 0x2A, 0x1E), 4: (0x5B, 0x2A, 0x86), 5: (0xF0, 0x7A, 0x12),
          6: (0x0F, 0x8A, 0x44), 7: (0x7D, 0x1D, 0x1D)}


def test_open_play_small_defects(browser, live_server, artifacts):
    """7. In open play: the cue stick lies under the balls; the aim aid draws the object ball's path and
    the cue ball's tangent to the first cushion (its off switch is remembered); a hovered call chip
    does not look disabled; a long ruling does not move the layout; Enter shoots whatever button has
    the focus."""
    A, B, P = in_open_play(browser, live_server)
    d = P.debug()
    table = get_table(d["preset"])
    R = table.R
    lay = {int(k): tuple(v) for k, v in d["state"]["layout"].items()}
    cue = lay[0]
    # --- the stick under a ball: aim away from a solid ball near the cue ball, the stick lies across it
    near = sorted((b for b in lay if b in SOLIDS and 4 * R < math.dist(cue, lay[b]) < 0.5), key=lambda b: math.dist(cue, lay[b]))
    if near:
        X = near[0]
        q = lay[X]
        phi = math.degrees(math.atan2(cue[1] - q[1], cue[0] - q[0]))
        P.set_input("#aim-phi", round(phi, 6))
        assert P.page.evaluate("([x, y]) => window.billar.table['board'].onCue({ clientX: x, clientY: y })",
                               [P.ball_on_screen(X)["x"], P.ball_on_screen(X)["y"]]), "the stick is not drawn across the ball"
        next_frames(P)
        u = ((cue[0] - q[0]) / math.dist(cue, q), (cue[1] - q[1]) / math.dist(cue, q))
        # on the stick's line (which crosses the whole ball), off the number disc, and on the side away from the
        # ball's painted highlight (up and left of its centre on the screen: a point near it is lightened toward
        # white, which once read closer to the stick's colour than to the ball's)
        c = P.ball_on_screen(X)
        glint = (c["x"] - 0.38 * c["r"], c["y"] - 0.42 * c["r"])
        sides = [(q[0] + k * 0.72 * R * u[0], q[1] + k * 0.72 * R * u[1]) for k in (1, -1)]
        far = max(sides, key=lambda w: math.dist(glint, tuple(P.page.evaluate(
            "([x, y]) => { const p = window.billar.table.pointOnScreen(x, y); return [p.x, p.y]; }", list(w)))))
        px = P.pixel_at_world(*far)
        stick = (0xD9, 0xB2, 0x7C)
        assert nearest(px, {"ball": SOLIDS[X], "stick": stick}) == "ball", f"ball {X} under the stick shows {px}"
        P.page.screenshot(path=os.path.join(artifacts, "stick-under-ball.png"))
    # --- the aim aid: cut the nearest ball; the object path and the tangent to the first cushion
    ob = min((b for b in lay if b != 0), key=lambda b: math.dist(cue, lay[b]))
    q = lay[ob]
    base = math.atan2(q[1] - cue[1], q[0] - cue[0])
    off = math.asin(min(0.9, 1.2 * R / math.dist(cue, q)))  # a cut of about a third of a ball
    P.set_input("#aim-phi", round(math.degrees(base + off), 6))
    next_frames(P)
    aid = P.page.evaluate("() => window.billar.table['board'].aidShown")
    contact = P.page.evaluate("() => window.billar.table['board'].contact")
    if contact["kind"] == "ball" and contact["ball"] == ob:
        assert aid is not None
        g = contact["at"]
        n = ((q[0] - g[0]) / (2 * R), (q[1] - g[1]) / (2 * R))
        assert math.dist(aid["object"]["from"], q) < 1e-12
        fx, fy = aid["object"]["from"]
        tx, ty = aid["object"]["to"]
        # the object ball goes along the line of centres...
        assert abs((tx - fx) * n[1] - (ty - fy) * n[0]) < 1e-9 and (tx - fx) * n[0] + (ty - fy) * n[1] > 0
        # ...to the first cushion: its centre one radius off a cushion nose (or a ball, a pocket, a jaw on the way)
        rails = [abs(tx - R), abs(tx - (table.length - R)), abs(ty - R), abs(ty - (table.width - R))]
        assert aid["object"]["end"] != "none"
        if aid["object"]["end"] == "cushion" and min(math.dist((tx, ty), pk.centre) for pk in table.pockets) > 0.15:
            assert min(rails) < 1e-9, (tx, ty)
        if aid["tangent"]:
            gx, gy = aid["tangent"]["from"]
            ex, ey = aid["tangent"]["to"]
            assert math.dist((gx, gy), g) < 1e-12
            assert abs((ex - gx) * n[0] + (ey - gy) * n[1]) < 1e-9  # at right angles to the line of centres (stun)
        P.page.screenshot(path=os.path.join(artifacts, "aim-aid.png"))
    P.page.uncheck("#aid-toggle")
    next_frames(P)
    assert P.page.evaluate("() => window.billar.table['board'].aidShown") is None
    # --- a hovered chip that is on keeps its colour (it looked disabled)
    chip = P.page.locator("button.chip[data-ball]").first
    chip.click()
    chip.hover()
    P.page.wait_for_timeout(300)  # the background's transition
    bg = P.page.evaluate("el => getComputedStyle(el).backgroundColor", chip.element_handle())
    assert bg == "rgb(255, 216, 74)", bg  # the bright "on" colour, not the dim panel's (34, 51, 41)
    # --- a long ruling keeps the layout where it was
    boxes = "() => ['.canvas-wrap', '.playback', '[data-testid=ruling]', '.side'].map(s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.top, r.height]; })"
    before = P.page.evaluate(boxes)
    P.page.evaluate("() => { document.querySelector('[data-testid=ruling]').textContent = 'Foul: no rail after contact, -1; ' .repeat(12); }")
    after = P.page.evaluate(boxes)
    assert after == before, (before, after)
    # --- Enter shoots, even with a button focused (it pressed the button)
    P.page.evaluate("() => window.billar.table.refresh()")
    P.page.check("#call-safety")
    phi = P.debug()["stroke"]["phi"]
    P.page.focus("button[title='+1 deg']")
    v = P.debug()["modelV"]
    P.page.keyboard.press("Enter")
    P.page.wait_for_function("v => window.billar.table.debug().stateV > v", arg=v, timeout=15000)
    played = P.debug()["lastStroke"]["shots"][0]["stroke"]
    assert played["phi_deg"] == phi, (played, phi)
    # the aid's off switch is remembered
    P.page.reload()
    P.wait_connected()
    P.wait_table()
    assert not P.page.is_checked("#aid-toggle")
    for p in (A, B):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_the_lag_tells_the_balls_apart_and_shows_where_they_stopped(browser, live_server, artifacts):
    """7. 14.1: the two lag balls are told apart (the second spotted), the lag words say head cushion
    (carom: bottom cushion), the lag leaves its trails to where each ball stopped, and the choice of
    the breaker reads "chooses to break", not "X chooses X to break"."""
    A, B, tid = two_players(browser, live_server)
    A.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    st = A.debug()["state"]
    lag = st["legal"]["shoot"]["lag_balls"]
    assert "head cushion" in A.page.inner_text("[data-testid=turn-status]") and "bottom" not in A.page.inner_text("[data-testid=turn-status]")
    assert "plain white" in A.page.inner_text("[data-testid=turn-status]") and "spotted" in B.page.inner_text("[data-testid=turn-status]")
    A.redraw()
    R = get_table(A.debug()["preset"]).R
    # seat 1's lag ball carries red spots (one at its centre); seat 0's is plain white
    spot = A.pixel_at_world(*lag["1"])
    plain = A.pixel_at_world(*lag["0"])
    assert spot[0] > 150 and spot[1] < 90 and spot[2] < 90, spot
    assert close(plain, WHITE, 20), plain
    A.page.screenshot(path=os.path.join(artifacts, "lag-14-1.png"))
    play_straight_pool(A, B, [], until=lambda s: s["phase"] == "break")
    d = A.debug()
    log = d["lastStroke"]["log"]
    assert d["lastStroke"]["lag"]
    fin = {int(b): tuple(s["r"]) for b, s in sim_json(log)["final"].items()}
    trails = A.page.evaluate("() => window.billar.table['board'].trails.map(t => ({ ball: t.ball, end: t.points[t.points.length - 1] }))")
    assert {t["ball"] for t in trails} == {0, 1}
    for t in trails:
        assert math.dist((t["end"]["x"], t["end"]["y"]), fin[t["ball"]]) < 1e-9
    text = A.page.inner_text(".table-view [role=log]")
    assert "chooses to break" in text and "chooses Ann to break" not in text and "chooses Bob to break" not in text
    A.page.screenshot(path=os.path.join(artifacts, "lag-result-14-1.png"))
    for p in (A, B):
        assert not p.errors, f"{p.name}: {p.errors}"


def three_cushion_pair(browser, live_server, a: str, b: str):
    """``a`` creates a three-cushion table from the lobby's form, ``b`` opens its link and takes the other seat."""
    A = new_page(browser, live_server, a)
    A.open()
    A.page.select_option("#discipline", "three_cushion")
    A.page.click("#create-btn")
    A.wait_table()
    B = new_page(browser, live_server, b)
    B.open(f"#/table/{A.table_id()}")
    B.wait_table()
    B.page.click("#take-seat-btn")
    return A, B


def test_carom_lag_words_say_the_bottom_cushion(browser, live_server):
    A, B = three_cushion_pair(browser, live_server, "Cai", "Dan")
    A.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    words = A.page.inner_text("[data-testid=turn-status]")
    # the short cushions by where the ball goes, not "top" and "bottom": the table is drawn sideways (QA)
    assert "far short cushion and back" in words and "nearer the cushion it left wins" in words and "head" not in words, words
    assert "top cushion" not in words and "bottom cushion" not in words, words
    # (B's page may not have its seat's snapshot yet when A may shoot: wait for its lag words)
    B.page.wait_for_function("() => /\\(the yellow\\)/.test(document.querySelector('[data-testid=turn-status]')?.textContent ?? '')",
                             timeout=15000)
    assert "(the white)" in words


def test_a_table_does_not_stay_playing_when_its_player_goes_back_to_the_lobby(browser, live_server):
    """7. A player who goes back to the lobby gives the seat up: before the game started the table
    waits for a player again; in a game in progress the page asks, and leaving forfeits it."""
    A, B, tid = two_players(browser, live_server)
    W = new_page(browser, live_server, "Wendy")
    W.open()
    row = f"tr[data-table='{tid}']"
    W.page.wait_for_selector(f"{row} .badge.playing", timeout=15000)
    # before the first stroke: back to the lobby, no question asked, the seat is free again
    B.page.click("a.brand")
    W.page.wait_for_selector(f"{row} .badge.waiting", timeout=15000)
    A.page.wait_for_function("() => window.billar.table.debug().seats[1] === null", timeout=10000)
    # Bob takes the seat again; the lag and the break are played; now leaving asks and forfeits
    B.page.wait_for_selector(f"{row} [data-action=join]", timeout=15000)
    B.page.click(f"{row} [data-action=join]")
    B.wait_table()
    play_straight_pool(A, B, [], until=lambda st: st["phase"] == "play")
    W.page.wait_for_selector(f"{row} .badge.playing", timeout=15000)
    B.page.once("dialog", lambda dlg: dlg.dismiss())
    B.page.click("a.brand")
    assert B.page.evaluate("location.hash") == f"#/table/{tid}", "staying was chosen"
    assert B.debug()["mySeat"] == 1
    B.page.once("dialog", lambda dlg: dlg.accept())
    B.page.click("a.brand")
    W.page.wait_for_selector(f"{row} .badge.over", timeout=15000)
    A.page.wait_for_function("() => window.billar.table.debug().state.over", timeout=10000)
    assert A.debug()["state"]["result"]["winner"] == 0
    for p in (A, B, W):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_a_number_box_emptied_keeps_the_stroke_in_force(browser, live_server):
    """Clearing the power, aim, tip or elevation box and leaving it changes nothing and shows the value again (QA:
    an empty power box played the softest stroke, 0.1 m/s; an empty aim box would have turned the aim to 0 deg). An aim
    beyond the box's -360 to 360 is refused too."""
    A, B, tid = two_players(browser, live_server)
    A.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    A.set_stroke(30.0, 3.0, a=0.1, b=-0.2, theta_deg=5.0)
    before = A.stroke_values()
    for box in ("#power-speed", "#aim-phi", "#tip-a", "#tip-b", "#elev-theta"):
        shown = A.page.input_value(box)
        A.page.fill(box, "")
        A.page.press(box, "Tab")
        assert A.page.input_value(box) == shown, box
    # an aim beyond the box's range is refused the same way (QA: 1e308 turned the aim to -64 deg)
    for typed in ("1e308", "-361"):
        A.page.fill("#aim-phi", typed)
        A.page.press("#aim-phi", "Tab")
        assert A.page.input_value("#aim-phi") == "30", typed
    assert A.stroke_values() == before and before["phi"] == 30.0 and abs(before["V0"] - 3.0) < 1e-9
    # a ball speed beyond the cue's reach is lowered to the most it gives, and the note says why (QA: 15 became 14.59)
    A.page.fill("#power-speed", "15")
    A.page.press("#power-speed", "Tab")
    top = A.stroke_values()
    assert top["V0"] == 10.0 and float(A.page.input_value("#power-speed")) < 15.0, top
    assert A.page.inner_text("[data-testid=power-note]").endswith("cue speed 10.00 m/s (the fastest stroke)")
    A.page.fill("#power-speed", "3")
    A.page.press("#power-speed", "Tab")
    assert "fastest" not in A.page.inner_text("[data-testid=power-note]")
    assert not A.errors


def test_a_double_click_on_resign_resigns_once_without_an_error(browser, live_server):
    """QA: a second quick click on Resign sent a second resignation, answered with the toast "the game is over"."""
    A, B = three_cushion_pair(browser, live_server, "Ann", "Bob")
    B.page.wait_for_function("() => window.billar.table.debug().seats.every(s => s !== null)")
    B.page.on("dialog", lambda d: d.accept())
    B.page.evaluate("() => { const b = document.querySelector('#resign-btn'); b.click(); b.click(); }")
    for P in (A, B):
        P.page.wait_for_function("() => window.billar.table.debug().state?.over === true", timeout=10000)
    B.page.wait_for_timeout(1000)  # time for a second answer to come
    assert B.error_toasts() == [] and not B.errors and not A.errors, (B.error_toasts(), B.errors, A.errors)
    assert [e["kind"] for e in A.debug()["history"]] == ["forfeit"]


def test_a_window_whose_seat_another_window_resumed_says_so_instead_of_your_turn(browser, live_server):
    """QA: with two tabs of one player at a table, the tab whose seat the other resumed still said "Your turn."."""
    A, B = three_cushion_pair(browser, live_server, "Ann", "Bob")
    A.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    assert "another window" not in A.page.inner_text("[data-testid=turn-status]")
    # the same player (the same browser profile: the same seat token) opens the table in a second tab
    A2 = ClientPage(A.page.context.new_page(), live_server.url, "Ann")
    A2.open(f"#/table/{A.table_id()}")
    A2.page.wait_for_function("() => window.billar.table?.debug().mySeat === 0", timeout=15000)
    A.page.wait_for_function("() => /another window/.test(document.querySelector('[data-testid=turn-status]').textContent)",
                             timeout=15000)
    assert A.page.inner_text("[data-testid=turn-status]") == \
        "This seat was resumed in another window; this one stopped. Reload the page to play here."
    assert "Your turn" not in A.page.inner_text("[data-testid=turn-status]")
    A2.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    # the first window goes to the lobby: it connects again (without a word about forfeiting: the seat is played in
    # the other window), lists the table and can create one (QA: its lobby stayed empty and Create did nothing)
    asked = []
    A.page.on("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    tid = A.table_id()
    A.page.evaluate("location.hash = '#/'")
    A.page.wait_for_selector(f"tr[data-table='{tid}']", timeout=15000)
    assert asked == [] and "another window" not in A.page.inner_text("header.top"), asked
    A.page.click("#create-btn")
    A.page.wait_for_function("t => window.billar.table && window.billar.table.id !== t", arg=tid, timeout=15000)
    A2.page.wait_for_timeout(500)
    assert A2.debug()["canShoot"] and A2.debug()["mySeat"] == 0  # the other window still holds the seat
    assert not A2.errors and not B.errors, (A2.errors, B.errors)
