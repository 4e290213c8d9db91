"""A practice table in the browser: open a drill by its link, drag a ball and see it drawn where it was dropped
(canvas pixels), shoot, undo (the exact position comes back), preview a stroke, and open the shared
`#/practice/<code>` link in a second browser showing the same position."""

from __future__ import annotations

import math
import os

from e2e_driver import CLOTH_TOL, FELT
from test_browser_straight_pool import new_page

DRILL = "pool-9ft-stop-1"


def felt(px) -> bool:
    return max(abs(a - b) for a, b in zip(px, FELT)) <= CLOTH_TOL


def drag(P, frm, to, steps=12):
    s = P.page.evaluate("([x, y]) => window.billar.table.pointOnScreen(x, y)", list(frm))
    t = P.page.evaluate("([x, y]) => window.billar.table.pointOnScreen(x, y)", list(to))
    m = P.page.mouse
    m.move(s["x"], s["y"])
    m.down()
    for k in range(1, steps + 1):
        m.move(s["x"] + (t["x"] - s["x"]) * k / steps, s["y"] + (t["y"] - s["y"]) * k / steps)
    m.up()


def test_practice_drill_place_shoot_undo_preview_and_share(browser, live_server, artifacts):
    P = new_page(browser, live_server, "Pia")
    P.open(f"#/practice/drill/{DRILL}")
    P.wait_table()
    P.page.wait_for_selector("[data-testid=practice-panel]:not([hidden])")
    assert "Stop shot" in P.page.inner_text("[data-testid=practice-goal]")
    # nothing is played to a target at practice: no "of 100" under the score, no "to 100 points" in the table card
    assert [P.page.inner_text(f".scoreboard .seat-{s} .target") for s in (0, 1)] == ["", ""]
    assert "points" not in P.page.inner_text(".table-view .info")
    d = P.debug()
    assert d["practice"]["kind"] == "drill" and d["mySeat"] == 0 and d["canShoot"]
    # on a 1366x768 desktop Shoot is on the screen without scrolling (QA: the practice panel pushed it below)
    P.page.set_viewport_size({"width": 1366, "height": 768})
    P.page.evaluate("() => window.scrollTo(0, 0)")
    P.page.wait_for_timeout(200)
    shoot = P.page.evaluate("() => { const r = document.querySelector('#shoot-btn').getBoundingClientRect(); return [r.top, r.bottom]; }")
    assert 0 <= shoot[0] and shoot[1] <= 768, shoot
    P.page.set_viewport_size({"width": 1360, "height": 860})
    v = d["modelV"]
    start = d["state"]["layout"]
    old = start["1"]

    # drag the 1 to a free spot: drawn where it was dropped, and the server has it there
    target = (1.20, 0.55)
    drag(P, old, target)
    P.settle(v + 1)
    v += 1
    placed = P.debug()["state"]["layout"]
    assert math.dist(placed["1"], target) < 0.002, placed
    assert placed["0"] == start["0"]
    P.redraw()
    assert not felt(P.pixel_at_world(*placed["1"])), "the 1 is not drawn where it was dropped"
    assert felt(P.pixel_at_world(*old)), "the 1 is still drawn where it was"
    P.page.screenshot(path=os.path.join(artifacts, "practice-placed.png"))

    # preview a stroke at the 1: the paths are drawn, nothing is played
    cue = placed["0"]
    phi = math.degrees(math.atan2(placed["1"][1] - cue[1], placed["1"][0] - cue[0]))
    P.set_stroke(phi, 2.0)
    P.call(1, "FR")  # 14.1: every stroke is called, a preview's too
    P.page.click("#practice-preview")
    P.page.wait_for_function("v => document.querySelector('.table-view').dataset.preview === String(v)", arg=v)
    trails = P.debug()["trails"]
    assert trails and {t["ball"] for t in trails} >= {0, 1}, trails
    assert P.debug()["modelV"] == v
    P.page.screenshot(path=os.path.join(artifacts, "practice-preview.png"))

    # shoot it; the shooter shoots again; undo brings the placed position back exactly
    P.shoot()
    P.settle(v + 1)
    v += 1
    after = P.debug()["state"]["layout"]
    assert after != placed and P.debug()["canShoot"]
    assert P.debug()["practice"]["undo"] == 2
    shot = P.debug()["lastStroke"]["shots"][0]

    # retry: the position before the stroke with its cue set again; the same stroke gives the same result
    P.page.click("#practice-retry")
    P.settle(v + 1)
    v += 1
    assert P.debug()["state"]["layout"] == placed
    sv = P.debug()["stroke"]
    assert (sv["phi"], sv["V0"], sv["a"], sv["b"], sv["theta"]) == (
        shot["stroke"]["phi_deg"], shot["stroke"]["V0"], shot["stroke"]["a"], shot["stroke"]["b"], shot["stroke"]["theta_deg"])
    assert P.debug()["call"]["ball"] == 1 and P.debug()["call"]["pocket"] == "FR"
    P.shoot()
    P.settle(v + 1)
    v += 1
    assert P.debug()["state"]["layout"] == after  # the physics is deterministic: bit for bit the same
    P.page.click("#practice-undo")
    P.settle(v + 1)
    v += 1
    assert P.debug()["state"]["layout"] == placed  # the exact floats (JSON numbers round-trip float64)
    P.redraw()
    assert not felt(P.pixel_at_world(*placed["1"]))
    P.page.screenshot(path=os.path.join(artifacts, "practice-undone.png"))

    # live preview: the paths follow the aim
    P.call(1, "FR")
    P.page.check("#practice-live")
    phi = round(P.debug()["stroke"]["phi"] + 0.5, 6)
    P.set_input("#aim-phi", phi)
    P.page.wait_for_function("() => { const d = window.billar.table.debug(); return d.trails && d.trails.length > 0; }")
    assert P.debug()["stroke"]["phi"] == phi and P.debug()["modelV"] == v
    P.redraw()
    P.page.screenshot(path=os.path.join(artifacts, "practice-live-preview.png"))

    # the shared link opens a practice table at the same position in another browser
    link = P.page.input_value("#practice-link")
    assert "#/practice/" in link
    Q = new_page(browser, live_server, "Quinn")
    Q.open(link[link.index("#"):])
    Q.wait_table()
    Q.page.wait_for_selector("[data-testid=practice-panel]:not([hidden])")
    q = Q.debug()
    assert q["practice"]["kind"] == "position" and Q.table_id() != P.table_id()
    got = q["state"]["layout"]
    assert set(got) == set(placed)
    for k in placed:  # the code keeps positions on its 0.1 mm grid
        assert math.dist(got[k], placed[k]) < 1e-4, (k, got[k], placed[k])
    Q.redraw()
    assert not felt(Q.pixel_at_world(*got["1"])) and felt(Q.pixel_at_world(*old))
    Q.page.screenshot(path=os.path.join(artifacts, "practice-shared-link.png"))
    assert not P.errors and not Q.errors, (P.errors, Q.errors)
    assert not P.error_toasts() and not Q.error_toasts(), (P.error_toasts(), Q.error_toasts())


def test_the_lobby_practice_card_opens_a_carom_drill_and_a_ball_is_dragged(browser, live_server, artifacts):
    P = new_page(browser, live_server, "Cora")
    P.open()
    P.page.wait_for_selector("#practice-drill option[value='3c-umbrella']", state="attached")
    P.page.select_option("#practice-drill", "3c-umbrella")
    P.page.click("#practice-drill-btn")
    P.wait_table()
    P.page.wait_for_selector("[data-testid=practice-panel]:not([hidden])")
    d = P.debug()
    assert d["discipline"] == "three_cushion" and d["practice"]["drill"]["id"] == "3c-umbrella"
    assert P.page.evaluate("location.hash").startswith("#/table/")
    assert P.page.locator("#practice-add").count() == 0  # carom: three balls, none added or taken off
    v = d["modelV"]
    red = d["state"]["layout"]["2"]
    drag(P, red, (2.0, 1.0))
    P.settle(v + 1)
    got = P.debug()["state"]["layout"]["2"]
    assert math.dist(got, (2.0, 1.0)) < 0.002
    P.redraw()
    assert not felt(P.pixel_at_world(*got)) and felt(P.pixel_at_world(*red))
    # dragged off the table, a carom ball stays on it (at the edge of the bed)
    drag(P, got, (3.5, 1.0))
    P.settle(v + 2)
    assert set(P.debug()["state"]["layout"]) == {"0", "1", "2"}
    P.page.screenshot(path=os.path.join(artifacts, "practice-carom.png"))
    # the lobby lists the table as a practice table
    Q = new_page(browser, live_server, "Lou")
    Q.open()
    row = Q.page.locator(f"tr[data-table='{P.table_id()}']")
    row.wait_for()
    assert "practice" in row.inner_text()
    assert not P.errors and not P.error_toasts(), (P.errors, P.error_toasts())


def test_a_coach_joins_from_the_lobby_breaks_and_places_a_ball(browser, live_server, artifacts):
    P = new_page(browser, live_server, "Sam")
    P.open()
    P.page.check("#practice-coach")
    P.page.click("#practice-open-btn")  # the opening of the form's discipline (14.1)
    P.wait_table()
    d = P.debug()
    assert d["practice"]["kind"] == "opening" and d["practice"]["coach"] and d["state"]["phase"] == "break"
    tid = P.table_id()
    Q = new_page(browser, live_server, "Coach")
    Q.open()
    Q.page.locator(f"tr[data-table='{tid}'] [data-action=join]").click()
    Q.wait_table()
    Q.page.wait_for_function("() => window.billar.table.debug().mySeat === 1")
    v = Q.debug()["modelV"]
    assert Q.debug()["canShoot"]
    # the coach breaks: the cue ball in hand behind the head string, a firm stroke into the rack
    at = Q.place_cue_ball(0.5, 0.6)
    rack = Q.debug()["state"]["layout"]["1"]
    Q.set_stroke(math.degrees(math.atan2(rack[1] - at[1], rack[0] - at[0])), 5.0)
    Q.shoot()
    Q.settle(v + 1)
    P.settle(v + 1)
    st = Q.debug()["lastStroke"]
    assert st["shots"][0]["seat"] == 1 and Q.debug()["state"]["to_act"] == 0
    # the coach may shoot again once the page has taken in everything the stroke brought (CI once read canShoot
    # false straight after the settle, under load; the state is in the message if it never comes)
    try:
        Q.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=10000)
    except Exception:
        d = Q.debug()
        raise AssertionError(f"the coach cannot shoot: legal {d['state']['legal']}, busy {d['busy']}, ruling {d['lastRuling']}")
    # the coach moves a ball (the cue ball, or an object ball when the break sent the cue ball into a
    # pocket); the shooter sees it there
    lay = Q.debug()["state"]["layout"]
    ball = "0" if "0" in lay else min(lay, key=int)
    free = next((x, y) for x in (0.4, 0.6, 0.8) for y in (0.3, 0.9)
                if all(math.dist((x, y), p) > 0.1 for p in lay.values()))
    drag(Q, lay[ball], free)
    Q.settle(v + 2)
    P.settle(v + 2)
    assert math.dist(P.debug()["state"]["layout"][ball], free) < 0.002
    P.redraw()
    assert not felt(P.pixel_at_world(*free))
    P.page.screenshot(path=os.path.join(artifacts, "practice-coach.png"))
    # the shooter takes an object ball off (dragged off the bed) and puts one back (Add a ball)
    lay = P.debug()["state"]["layout"]
    gone = max(k for k in lay if k != "0")
    drag(P, lay[gone], (lay[gone][0], -0.3))
    P.settle(v + 3)
    after = P.debug()["state"]["layout"]
    assert gone not in after and len(after) == len(lay) - 1
    P.page.click("#practice-add")
    P.settle(v + 4)
    assert len(P.debug()["state"]["layout"]) == len(lay)
    assert not P.errors and not Q.errors and not Q.error_toasts(), (P.errors, Q.errors, Q.error_toasts())


def test_a_replayed_stroke_is_practised_at_its_position_with_its_cue(browser, live_server, artifacts):
    """A replay's "Practise this position": a new practice table where the chosen stroke found the balls (on the
    code's 0.1 mm grid), its cue set in the controls (on the code's steps), drawn there."""
    P = new_page(browser, live_server, "Rita")
    P.open(f"#/practice/drill/{DRILL}")
    P.wait_table()
    P.page.wait_for_selector("[data-testid=practice-panel]:not([hidden])")
    d = P.debug()
    v, start = d["modelV"], d["state"]["layout"]
    cue, one = start["0"], start["1"]
    phi = round(math.degrees(math.atan2(one[1] - cue[1], one[0] - cue[0])) + 0.37, 6)
    P.set_stroke(phi, 2.345, a=0.1, b=-0.15)
    P.call(1, "FR")
    P.shoot()
    P.settle(v + 1)
    tid = P.table_id()
    # one player: the ruling names no next player and no stalemate is offered (QA: "Safety; Player 2 to shoot")
    said = P.page.inner_text("[data-testid=ruling]")
    assert said and "Drill: goal" in said and not any(w in said for w in ("to shoot", "continues", "Player 2")), said
    assert P.page.locator("[data-decision=OFFER_STALEMATE]").count() == 0
    # the guest's record at the drill, kept in this browser (issue 16)
    achieved = P.debug()["lastStroke"]["ruling"]["drill"]["achieved"]
    P.page.wait_for_function("() => /of 1 /.test(document.querySelector('[data-testid=practice-record]')?.textContent || '')")
    assert P.page.inner_text("[data-testid=practice-record]") == \
        f"Your record at this drill: {int(achieved)} of 1 ({100 * int(achieved)}%) (kept in this browser)."
    stored = P.page.evaluate("JSON.parse(localStorage.getItem('billar.drills'))")
    assert stored == {DRILL: {"attempts": 1, "successes": int(achieved)}}

    P.open(f"#/replay/{tid}")
    P.page.wait_for_function("() => document.querySelectorAll('.replay-view [role=log] > li').length > 0", timeout=15000)
    P.page.locator(".replay-view [role=log] > li").first.click()
    # the controls under the replay's table never lie over one another (QA, 1366 px wide: "Practise this position"
    # covered Skip)
    for width in (1366, 1100, 1360):
        P.page.set_viewport_size({"width": width, "height": 860})
        P.page.wait_for_timeout(150)
        overlaps = P.page.evaluate("""() => {
            const els = [...document.querySelectorAll('.replay-view .playback :is(button, select, label)')].filter((e) => e.offsetParent !== null);
            const out = [];
            els.forEach((a, i) => els.slice(i + 1).forEach((b) => {
                const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
                if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5)
                    out.push(`${a.id || a.textContent} / ${b.id || b.textContent}`);
            }));
            return out; }""")
        assert overlaps == [], (width, overlaps)
    P.page.click("#replay-practise")
    P.page.wait_for_function("t => window.billar.table && window.billar.table.id !== t", arg=tid, timeout=20000)
    P.wait_table()
    P.page.wait_for_selector("[data-testid=practice-panel]:not([hidden])")
    q = P.debug()
    assert q["practice"]["kind"] == "position" and P.table_id() != tid
    got = q["state"]["layout"]
    assert set(got) == set(start)
    for k in start:
        assert math.dist(got[k], start[k]) < 1e-4, (k, got[k], start[k])
    sv = q["stroke"]
    assert abs(sv["phi"] - phi) <= 0.005 and abs(sv["V0"] - 2.345) <= 0.0005, sv
    assert abs(sv["a"] - 0.1) <= 0.0005 and abs(sv["b"] + 0.15) <= 0.0005 and sv["theta"] == 0, sv
    P.redraw()
    assert not felt(P.pixel_at_world(*got["1"])), "the 1 is not drawn where the stroke found it"
    P.page.screenshot(path=os.path.join(artifacts, "practice-from-replay.png"))
    assert not P.errors and not P.error_toasts(), (P.errors, P.error_toasts())
    # a guest's pages log no error either (GET /api/account at start answered every guest's page with a 401)
    assert not P.console_errors, P.console_errors


def test_a_carom_position_played_with_the_yellow_marks_the_players_seat(browser, live_server, artifacts):
    """QA: practising a three-cushion position whose cue ball is the yellow (the second player's stroke of a replay)
    put the to-act marker on "Practice: no opponent" and the white's chip in the player's box. The player's box is
    marked and carries the yellow, on the desktop scoreboard and in the sideways phone's corner."""
    import json
    import urllib.request

    body = {"table": "carom", "discipline": "three_cushion",
            "balls": [{"id": 0, "x": 0.7, "y": 0.7}, {"id": 1, "x": 1.4, "y": 0.4}, {"id": 2, "x": 2.1, "y": 1.0}],
            "cue": {"cue_ball": 1, "phi_deg": 20.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0, "V0": 3.0}}
    req = urllib.request.Request(live_server.url + "/api/positions", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        code = json.loads(r.read())["code"]
    P = new_page(browser, live_server, "Yola")
    P.open(f"#/practice/{code}")
    P.wait_table()
    P.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    assert P.debug()["state"]["to_act"] == 1   # the referee's seat of the yellow
    assert P.page.get_attribute(".scoreboard .seat-0", "class").split().count("to-act") == 1
    assert "to-act" not in P.page.get_attribute(".scoreboard .seat-1", "class")
    assert "yellow" in P.page.get_attribute(".scoreboard .seat-0 .cue-chip", "class")
    assert P.page.inner_text(".scoreboard .seat-1 .name") == "Practice: no opponent"
    assert P.page.evaluate("() => [...document.querySelectorAll('.hud-score .hud-seat')].map(e => e.classList.contains('to-act'))") == [True, False]
    assert not P.errors and not P.error_toasts(), (P.errors, P.error_toasts())
