"""Playing the computer from the lobby: the create-table form's Opponent select seats a computer
of the chosen level at the other seat (create_table ``computer``), and the computer plays its
strokes at that table like a person would (they arrive as ordinary stream messages)."""

from __future__ import annotations

import math
import time

from physics.table import get_table

from games import pool_lag_speed
from test_browser_straight_pool import new_page


def test_play_the_computer_from_the_lobby(browser, live_server):
    A = new_page(browser, live_server, "Ann")
    A.open()
    levels = A.page.eval_on_selector_all("#opponent option", "os => os.map(o => [o.value, o.textContent])")
    assert levels[0] == ["", "Human"] and [v for v, _ in levels[1:]] == ["1", "2", "3", "4", "5"]
    A.page.select_option("#opponent", "1")
    A.page.fill("#target", "3")
    A.page.click("#create-btn")
    A.wait_table()
    assert A.debug()["mySeat"] == 0

    # the computer takes the other seat at once, shown on the scoreboard
    A.page.wait_for_function(
        "() => { const s = window.billar.table.debug().seats[1]; return s && s.connected && /^Computer \\(level 1\\)$/.test(s.name); }",
        timeout=15000,
    )
    A.page.wait_for_function("() => /Computer/.test((document.querySelector('.scoreboard .seat-1')?.textContent ?? ''))", timeout=15000)

    # Ann lags, lets the computer break when she may choose, and plays safeties on her turns,
    # until a stroke of the computer's own (not the simultaneous lag) has been played
    v_start = A.debug()["stateV"]
    lagged = False
    seen = None
    deadline = time.time() + 60
    while time.time() < deadline:
        assert not A.errors, A.errors
        d = A.debug()
        ls = d["lastStroke"]
        if ls and not ls["lag"] and any(s["seat"] == 1 for s in ls["shots"]):
            seen = ls
            break
        if d["busy"]:
            A.skip_animation()
            time.sleep(0.05)
            continue
        st = d["state"]
        legal = st["legal"]
        shoot = legal["shoot"]
        if st["over"]:
            break
        if shoot and shoot["lag"]:
            if not lagged and d["canShoot"]:
                pos = shoot["lag_balls"]["0"]
                A.set_stroke(0.0, pool_lag_speed(get_table(d["preset"]), pos[0], pos[1]))
                A.shoot()
                lagged = True
        elif not shoot and legal["player"] == 0 and d["dialogOpen"]:
            options = {o["name"]: o["args"] for o in legal["decisions"]}
            if "CHOOSE_BREAKER" in options:
                A.decide("CHOOSE_BREAKER", 1)
            elif "ACCEPT_TABLE" in options:
                A.decide("ACCEPT_TABLE", None)
            else:
                first = legal["decisions"][0]
                A.decide(first["name"], first["args"][0] if first["args"] else None)
        elif shoot and legal["player"] == 0 and d["canShoot"]:
            table = get_table(d["preset"])
            lay = {k: tuple(p) for k, p in st["layout"].items()}
            if shoot["in_hand"]:  # the computer won the lag and lets Ann break, or a foul of its own
                region = shoot["in_hand"]
                x_max = region.get("x_max", table.length - table.R) if region["region"] == "kitchen" else table.length - table.R
                want = (table.head_string_x - 0.12, table.width / 2 + 0.04) if st["phase"] == "break" else (x_max - 0.1, table.width / 2 + 0.11)
                lay["0"] = A.place_cue_ball(*want)
            cue = lay["0"]
            if st["phase"] == "break":
                q, V0 = table.foot_spot, 7.5
            else:
                target = min((k for k in lay if k != "0"), key=lambda k: math.dist(cue, lay[k]))
                q, V0 = lay[target], 2.0
                A.declare_safety()
            A.set_stroke(math.degrees(math.atan2(q[1] - cue[1], q[0] - cue[0])), V0)
            A.shoot()
        time.sleep(0.2)
    if seen is None:
        d = A.debug()
        facts = {k: d[k] for k in ("canShoot", "dialogOpen", "busy", "pending", "mySeat")}
        raise AssertionError(f"no stroke of the computer within 60 s: lagged {lagged}, {facts}, phase {d['state']['phase']}, "
                             f"legal {d['state']['legal']}, last ruling {d['lastRuling']}\n{live_server.log_tail()}")
    A.settle(A.debug()["modelV"])
    assert A.debug()["stateV"] > v_start
    assert A.debug()["seats"][1]["name"] == "Computer (level 1)"
    assert not A.errors, A.errors
