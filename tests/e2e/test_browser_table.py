"""Sound and the shooter's live aim (issue 14 "What to add").

Sound: no AudioContext before the page's first user gesture (browser autoplay rules); after it,
each stroke's sounds follow its event log (a cue tip per strike, a click per collision, a thud per
cushion, a rattle per jaw, a drop per pocket, at the log's times); the mute switch silences them
and is remembered across visits.

Live aim: the player to act moves the aim and a spectator sees it drawn within a second (needs
the server's ``aim`` relay: skipped until it has it).
"""

from __future__ import annotations

import math

from server.records import sim_json
import time

import pytest

from games import next_version, play_straight_pool, pool_lag_speed, wait_all
from physics.table import get_table
from test_browser_defects import two_players
from test_browser_straight_pool import new_page

#: counts AudioContexts made by the page (window.__audioContexts)
COUNT_AUDIO = """
window.__audioContexts = 0;
const AC = window.AudioContext;
window.AudioContext = class extends AC { constructor(...a) { super(...a); window.__audioContexts++; } };
"""

def expected_sounds(log: dict, preset: dict) -> list:
    """(t, kind) of each sound the wire log calls for, from its events alone (decoded by server/records.py, any
    log format)."""
    out = []
    for e in sim_json(log)["events"]:
        t, kind = e["t"], e["kind"]
        if kind == "strike":
            out.append((t, "cue"))
        elif kind == "ball_ball":
            out.append((t, "click"))
        elif kind == "ball_cushion":
            n = e["cushion"] or ""
            out.append((t, "rattle" if ".jaw" in n or ".facing" in n else "cushion"))
        elif kind == "ball_pocket":
            out.append((t, "pocket"))
    return out


def test_sound_waits_for_a_gesture_follows_the_log_and_mute_is_remembered(browser, live_server):
    A, B, tid = two_players(browser, live_server)
    S = new_page(browser, live_server, "Sue")
    S.page.add_init_script(COUNT_AUDIO)
    S.open(f"#/table/{tid}")
    S.wait_table()
    # the lag, watched without a gesture (the spectator's page is only read, never clicked): no audio at all
    play_straight_pool(A, B, [], until=lambda st: st["phase"] != "lag")
    S.wait_version(A.debug()["modelV"], timeout=60)
    assert S.page.evaluate("window.__audioContexts") == 0
    assert S.page.evaluate("window.billar.sound.ready") is False
    assert S.page.evaluate("window.billar.sound.played.length") == 0
    # a click on the page allows sound; the break is heard as its log says
    S.page.click(".history-card h3")
    assert S.page.evaluate("window.__audioContexts") == 1
    assert S.page.is_checked("#sound-toggle")
    S.page.select_option("#speed", "4")  # the sounds of the whole stroke are scheduled when it starts
    n0 = S.page.evaluate("window.billar.sound.played.length")
    play_straight_pool(A, B, [S], until=lambda st: not A.debug()["lastStroke"]["lag"])  # the break played
    d = S.debug()
    want = expected_sounds(d["lastStroke"]["log"], S.page.evaluate("window.billar.table.model.preset"))
    got = S.page.evaluate("n => window.billar.sound.played.slice(n)", n0)
    assert got and got[0]["kind"] == "cue"
    # the sounds are the log's, in its order: each one heard matches the next event that makes
    # one; only contacts too slow to hear (frozen balls of the rack) are left out, never a strike
    # or a pocket; and they come at the log's times, four times faster (the clock is set by the
    # first collision: the strike itself may sound a frame late, at once, when the clip starts)
    first = next(w for w in want if w[1] == "click")
    t0 = next(g for g in got if g["kind"] == "click")["at"] - first[0] / 4
    assert -0.001 <= got[0]["at"] - t0 <= 0.05, got[0]["at"] - t0
    got = got[1:]
    want = want[1:]
    k = 0
    left_out = []
    for g in got:
        while k < len(want) and not (want[k][1] == g["kind"] and abs((g["at"] - t0) - want[k][0] / 4) < 1e-3):
            left_out.append(want[k])
            k += 1
        assert k < len(want), f"{g} is not a sound of the log"
        k += 1
    assert all(kind in ("click", "cushion", "rattle") for _, kind in left_out), left_out
    assert len(got) >= 0.7 * len(want), (len(got), len(want))
    assert all(0 < g["gain"] <= 1 for g in got)
    # muted: nothing more is played, and the switch is remembered
    S.page.uncheck("#sound-toggle")
    n1 = S.page.evaluate("window.billar.sound.played.length")
    S.page.click("#replay-btn")
    S.page.wait_for_function("() => !window.billar.table.debug().busy", timeout=30000)
    assert S.page.evaluate("window.billar.sound.played.length") == n1
    S.page.reload()
    S.wait_connected()
    assert not S.page.is_checked("#sound-toggle")
    assert S.page.evaluate("localStorage.getItem('billar.muted')") == "1"
    for p in (A, B, S):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_the_shooters_live_aim_is_drawn_at_a_spectator(browser, live_server, server_speaks):
    A, B, tid = two_players(browser, live_server)
    S = new_page(browser, live_server, "Sue")
    S.open(f"#/table/{tid}")
    S.wait_table()
    play_straight_pool(A, B, [S], until=lambda st: st["phase"] == "play" and bool(st["legal"]["shoot"])
                       and not st["legal"]["shoot"]["in_hand"])
    seat = A.debug()["state"]["legal"]["player"]
    P = (A, B)[seat]
    P.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    # the spectator's page draws a relayed aim message of the wire shape agreed for the server
    # (given to the page here as the server will send it), and ignores malformed ones
    relay = {"type": "aim", "table": tid, "seat": seat, "phi_deg": 33.5, "a": 0.1, "b": 0.0, "theta_deg": 0.0, "V0": 2.0, "cue_ball": None}
    for bad in ({**relay, "phi_deg": float("nan")}, {**relay, "seat": 7}, {**relay, "table": "other"}, {**relay, "phi_deg": "12"}):
        S.page.evaluate("m => window.billar.table.handle(m)", bad)
        assert S.debug()["remoteAim"] is None, bad
    S.page.evaluate("m => window.billar.table.handle(m)", relay)
    drawn = S.debug()["remoteAim"]
    cue = A.debug()["state"]["layout"]["0"]
    assert drawn["phi"] == 33.5 and drawn["cue"] == cue, drawn
    S.redraw()
    u = (math.cos(math.radians(33.5)), math.sin(math.radians(33.5)))
    R = get_table(S.debug()["preset"]).R
    # the faint cue: the page shows something lighter than felt behind the cue ball, along the aim,
    # compared with bare felt beside it (trails off, a point clear of every ball: the rack and the
    # last stroke's trails are wherever the game left them)
    S.page.uncheck("#trails-toggle")
    layout = [tuple(p) for p in A.debug()["state"]["layout"].values()]

    def clear(x: float, y: float) -> bool:
        return all(math.hypot(x - bx, y - by) > 2.5 * R for bx, by in layout)

    behind = S.pixel_at_world(cue[0] - u[0] * 4 * R, cue[1] - u[1] * 4 * R)
    beside = [(cue[0] + k * u[1] * d * R, cue[1] - k * u[0] * d * R) for d in (4, 6, 8) for k in (1, -1)]
    plain = S.pixel_at_world(*next(pt for pt in beside if clear(*pt)))
    assert sum(behind) > sum(plain) + 30, (behind, plain)
    S.page.evaluate("() => window.billar.table.refresh()")
    if not server_speaks("aim"):
        # an older server: the aim is not relayed; the shooter's page sends it once and stops, quietly
        P.set_input("#aim-phi", 12.5)
        time.sleep(0.5)
        assert P.error_toasts() == [] and S.debug()["remoteAim"]["phi"] == 33.5  # nothing relayed
        pytest.skip("the server has no aim relay yet (issue 14, server part)")
    for phi in (12.5, -40.25, 133.0):
        P.set_input("#aim-phi", phi)
        t0 = time.time()
        S.page.wait_for_function("phi => { const a = window.billar.table.debug().remoteAim; return a && Math.abs(a.phi - phi) < 1e-9; }",
                                 arg=phi, timeout=1000)
        assert time.time() - t0 < 1.0
    # the opponent sees it too; the shooter's own page draws its own aim, not a relayed one
    O = B if P is A else A
    assert abs(O.debug()["remoteAim"]["phi"] - 133.0) < 1e-9
    assert P.debug()["remoteAim"] is None
    for p in (A, B, S):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_the_create_form_refuses_numbers_out_of_range_in_the_browsers_own_words(browser, live_server):
    """Target, innings and shot clock out of the referees' ranges are stopped by the form (QA: a target of
    99999999 was sent and came back as the protocol's raw text); in range, the table is made as asked."""
    P = new_page(browser, live_server, "Ora")
    P.open()
    for discipline, field, bad, bound in (("straight_pool", "#target", "99999999", "1000"),
                                          ("three_cushion", "#innings", "5000", "1000"),
                                          ("straight_pool", "#shot_clock", "1", "2")):
        P.page.select_option("#discipline", discipline)
        P.page.fill(field, bad)
        P.page.click("#create-btn")
        msg = P.page.evaluate("f => document.querySelector(f).validationMessage", field)
        assert bound in msg, (field, msg)
        P.page.fill(field, "")
    time.sleep(0.5)  # nothing was sent: no table, no error toast
    assert P.page.evaluate("location.hash") in ("", "#/") and P.error_toasts() == []
    P.page.fill("#target", "1000")
    P.page.fill("#shot_clock", "3600")
    P.page.click("#create-btn")
    P.wait_table()
    P.page.wait_for_function("() => document.body.innerText.includes('to 1000 points')", timeout=10000)
    assert not P.errors
