"""The stroke history beside the table, the replay controls and the rulings that stay (issue 14).

Two players and a spectator play 14.1 to 3 through the UI. The history log (``role="log"``)
lists every stroke and ruling of the game's match record, in words, fouls marked, for the
players and the spectator alike. An entry replays with its trails; the scrubber, the event steps
and the speeds show the positions the Python physics gives for those times (the record's
SimResult), not just any animation. A late spectator and a reload see the rulings already given
(when the server sends the history with the snapshot). A second successive foul puts the
two-foul warning on every screen.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
import urllib.request

import pytest

from games import layout_of, next_version, play_straight_pool, wait_all
from physics.events import SimResult
from physics.table import get_table
from test_browser_defects import two_players
from test_browser_straight_pool import new_page


#: hands the page its own table's snapshot again, with a ``history`` (the shape of the client brief)
INJECT_SNAPSHOT_WITH_HISTORY = """(h) => {
    const m = window.billar.table.model;
    window.billar.table.handle({ type: 'table_snapshot', table: m.id, v: m.v, ts: 0, game: m.game, discipline: m.discipline,
      config: m.config, preset: m.preset, private: m.isPrivate, seats: m.seats, spectators: m.spectators, state: m.state,
      clock: m.clock, chat: m.chat, rematch: m.rematch, history: h });
}"""


def record_of(live_server, tid: str, game: int = 1) -> dict:
    with urllib.request.urlopen(f"{live_server.url}/records/{tid}/{game}.json", timeout=10) as r:
        return json.loads(r.read())


def log_items(page) -> list:
    """What the history log shows: per child of the role=log element, its kind, classes and text."""
    return page.page.evaluate(
        """() => [...document.querySelector('.table-view [role=log], .replay-view [role=log]').children].map(li => ({
            kind: li.dataset.kind, i: li.dataset.i, cls: li.className, text: li.textContent }))""")


def record_kind(s: dict) -> str:
    return "lag" if s.get("lag") else "decision" if s.get("decision") else "timeout" if s.get("timeout") else "forfeit" if s.get("forfeit") else "stroke"


def check_log_against_record(page, rec: dict, who: str) -> None:
    items = log_items(page)
    strokes = rec["strokes"]
    assert len(items) == len(strokes), f"{who}: {len(items)} entries, the record has {len(strokes)}"
    names = rec["players"]
    for k, (it, s) in enumerate(zip(items, strokes)):
        assert it["kind"] == record_kind(s), (who, k, it, s.get("decision"))
        r = s.get("ruling") or {}
        fouled = bool(r.get("foul")) or (r.get("penalty") or 0) > 0
        assert ("foul" in it["cls"].split()) == fouled, (who, k, it, r)
        if it["kind"] in ("stroke", "decision") and s.get("player") is not None:
            assert names[s["player"]] in it["text"], (who, k, it)
        assert "Decision CHOOSE_BREAKER" not in it["text"] and "chooses A to break" not in it["text"]
        if r.get("scores"):
            assert f"{r['scores'][0]} : {r['scores'][1]}" in it["text"], (who, k, it)


def test_history_log_replay_scrubber_and_summary(browser, live_server, artifacts):
    A, B, tid = two_players(browser, live_server)
    S = new_page(browser, live_server, "Sue", width=1100, height=760)
    S.open(f"#/table/{tid}")
    S.wait_table()
    facts = play_straight_pool(A, B, [S])
    assert A.debug()["state"]["over"]
    rec = record_of(live_server, tid)
    assert len(rec["strokes"]) >= 5
    for p, who in ((A, "player"), (S, "spectator")):
        check_log_against_record(p, rec, who)
    # the end-of-match summary, for players and spectators
    result = A.debug()["state"]["result"]
    for p in (A, S):
        p.page.wait_for_selector("[data-testid=match-summary]:not([hidden])", timeout=10000)
        winner = rec["players"][result["winner"]]
        assert p.page.inner_text("[data-testid=summary-result]") == f"{winner} wins, {result['scores'][0]} : {result['scores'][1]}."
        for seat in (0, 1):
            assert p.page.inner_text(f"[data-testid=sum-score-{seat}]") == str(result["scores"][seat])
            n = sum(1 for s in rec["strokes"] if record_kind(s) == "stroke" and s["player"] == seat)
            assert p.page.inner_text(f"[data-testid=sum-strokes-{seat}]") == str(n)
    S.page.screenshot(path=os.path.join(artifacts, "summary-14-1.png"))
    S.page.click("#summary-close")
    assert S.page.is_hidden("[data-testid=match-summary]")

    # the spectator replays the break from the history: its trails, then the scrubber
    k = next(i for i, s in enumerate(rec["strokes"]) if record_kind(s) == "stroke" and s["ruling"].get("break"))
    table = get_table(S.debug()["preset"])
    sim = SimResult.from_json(rec["strokes"][k]["sim"], table)
    S.page.click(f".table-view [role=log] > li[data-i='{k}'] button")
    S.page.wait_for_function("() => window.billar.table.debug().playback.replaying", timeout=15000)
    trails = S.debug()["trails"]
    moved = {b for e in sim.events for b in e.states if e.states[b].state != "stationary"}
    assert trails is not None and {t["ball"] for t in trails} == moved
    assert [t["ball"] for t in trails if t["cue"]] == [0]
    # pause at 40 % of the stroke with the scrubber: the balls stand where the physics says
    bar = S.page.locator("#scrubber").bounding_box()
    S.page.mouse.click(bar["x"] + bar["width"] * 0.4, bar["y"] + bar["height"] / 2)
    pb = S.debug()["playback"]
    assert pb["paused"] and abs(pb["t"] / pb["duration"] - 0.4) < 0.05, pb
    drawn = {b["id"]: (b["x"], b["y"]) for b in S.page.evaluate("() => window.billar.table['board'].balls")}
    for ball in moved:
        st = sim.ball_state_at(ball, pb["t"])
        if st.state == "pocketed":
            continue
        assert math.dist(drawn[ball], st.r) < 1e-9, (ball, drawn[ball], st.r)
    S.page.screenshot(path=os.path.join(artifacts, "replay-scrubbed-14-1.png"))
    # step to the next event: a collision, cushion or pocket of the record, exactly
    S.page.click("#step-next")
    t_next = S.debug()["playback"]["t"]
    kinds = {"ball_ball", "ball_cushion", "ball_pocket", "strike"}
    assert any(e.t == t_next and e.kind in kinds for e in sim.events), t_next
    assert t_next > pb["t"] and not any(pb["t"] + 1e-9 < e.t < t_next and e.kind in kinds for e in sim.events)
    S.page.click("#step-prev")
    assert S.debug()["playback"]["t"] < t_next
    # slow motion: at 0.25x a second of play moves the clip about a quarter of a second
    S.page.select_option("#speed", "0.25")
    t0 = S.debug()["playback"]["t"]
    w0 = time.monotonic()
    S.page.click("#play-pause")
    time.sleep(1.0)
    S.page.click("#play-pause")
    wall = time.monotonic() - w0  # the clip played for at least the 1 s slept and at most this long
    dt = S.debug()["playback"]["t"] - t0
    assert 0.25 * 1.0 * 0.9 < dt < 0.25 * wall * 1.1 + 0.02, (dt, wall)
    # skip: the table is back at the position of the game's end, the trails are the last stroke's
    S.page.click("#skip-btn")
    d = S.debug()
    assert not d["playback"]["animating"]
    assert {b["id"]: [b["x"], b["y"]] for b in S.page.evaluate("() => window.billar.table['board'].balls")} == {int(k): v for k, v in d["state"]["layout"].items()}
    # trails can be turned off
    S.page.uncheck("#trails-toggle")
    assert S.debug()["trails"] is None
    S.page.check("#trails-toggle")
    assert S.debug()["trails"] is not None
    for p in (A, B, S):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_rulings_stay_for_a_late_spectator_and_a_reload(browser, live_server):
    A, B, tid = two_players(browser, live_server, target="5")
    # lag, choice of the breaker, the break, one stroke of open play
    play_straight_pool(A, B, [], until=lambda st: st["phase"] == "play" and bool(st["legal"]["shoot"])
                       and not st["legal"]["shoot"]["in_hand"])
    d = A.debug()
    seen = [e["ruling"]["text"] for e in d["history"] if e["ruling"] and e["ruling"].get("text")]
    assert len(seen) >= 3
    # the first rulings are still on the screen after the later strokes
    items = log_items(A)
    assert len(items) == len(d["history"])
    text = A.page.inner_text(".table-view [role=log]")
    assert "wins the lag" in text and ("Legal break" in text or "Breaking foul" in text or "foul" in text.lower())
    assert A.page.inner_text("[data-testid=ruling]").strip() != ""
    shown = [x["text"] for x in items]
    ruling_shown = A.page.inner_text("[data-testid=ruling]")
    # a spectator arriving now, and a reload of a player's page
    L = new_page(browser, live_server, "Late")
    L.open(f"#/table/{tid}")
    L.wait_table()
    A.page.reload()
    A.wait_connected()
    A.wait_table()
    if not L.debug()["historyComplete"]:
        assert "Strokes before you came are not listed." in L.page.inner_text(".history-card")
        # the late page lists a snapshot's history of the agreed wire shape at once (given to the
        # page here as the server will send it: the same snapshot, with "history")
        L.page.evaluate(INJECT_SNAPSHOT_WITH_HISTORY, d["history"])
        L.page.wait_for_function("() => !window.billar.table.debug().busy")
        assert L.debug()["historyComplete"]
        assert [x["text"] for x in log_items(L)] == shown
        assert [x["kind"] for x in log_items(L)] == [e["kind"] for e in d["history"]]
        assert L.page.inner_text("[data-testid=ruling]") == ruling_shown
        pytest.skip("the server sends no history with the snapshot yet (issue 14, server part)")
    for p in (L, A):
        got = [(e["kind"], e["seat"], (e["ruling"] or {}).get("text")) for e in p.debug()["history"]]
        want = [(e["kind"], e["seat"], (e["ruling"] or {}).get("text")) for e in d["history"]]
        assert got == want
        assert len(log_items(p)) == len(want)
        assert p.page.inner_text("[data-testid=ruling]").strip() != ""


def foul_stroke(P, table, st) -> None:
    """A declared safety that touches no ball: a standard foul (14.1: no object ball contacted). The
    cue ball rolls about 15 cm (0.2 m/s) along a line with no ball in its first 35 cm."""
    lay = layout_of(st)
    cue = lay[0]
    for k in range(72):
        phi = k * 5.0
        u = (math.cos(math.radians(phi)), math.sin(math.radians(phi)))
        clear = all(not (0 < (q[0] - cue[0]) * u[0] + (q[1] - cue[1]) * u[1] < 0.35
                         and abs((q[0] - cue[0]) * u[1] - (q[1] - cue[1]) * u[0]) < 2.5 * table.R)
                    for b, q in lay.items() if b != 0)
        if clear:
            break
    else:
        raise AssertionError("no clear line from the cue ball")
    P.declare_safety()
    P.set_stroke(phi, 0.2 / 1.5387)  # a cue speed of 0.13 m/s gives the ball 0.2 m/s
    P.shoot()


def test_a_player_facing_the_decision_dialog_can_resign_from_it(browser, live_server, artifacts):
    """The modal decision dialog makes the page behind it inert, so it carries its own Resign:
    after the lag the winner, asked who breaks, resigns from the dialog (CI caught a player who
    could not reach the side panel's Resign while a decision waited)."""
    A, B, tid = two_players(browser, live_server)
    play_straight_pool(A, B, [], until=lambda st: not st["legal"]["shoot"])
    legal = A.debug()["state"]["legal"]
    assert [d["name"] for d in legal["decisions"]] == ["CHOOSE_BREAKER"], legal
    lag_winner = legal["player"]
    P, other = (A, B)[lag_winner], (A, B)[1 - lag_winner]
    P.page.wait_for_selector("dialog.decision-dialog[open] [data-testid=dialog-resign]", timeout=10000)
    assert other.page.query_selector("dialog.decision-dialog[open]") is None
    # the side panel's Resign is behind the modal dialog: a click there does not land
    assert P.page.evaluate("""() => { const b = document.querySelector('#resign-btn').getBoundingClientRect();
        return document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2)?.id !== 'resign-btn'; }""")
    # the dialog and its Resign fit the desktop and both phone layouts
    for w, h in ((1360, 860), (390, 844), (844, 390)):
        P.page.set_viewport_size({"width": w, "height": h})
        P.page.wait_for_timeout(100)
        for sel in ("dialog.decision-dialog[open]", "[data-testid=dialog-resign]", "button[data-decision=CHOOSE_BREAKER]"):
            box = P.page.locator(sel).first.bounding_box()
            assert box and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= w and box["y"] + box["height"] <= h, (w, h, sel, box)
        P.page.screenshot(path=os.path.join(artifacts, f"decision-dialog-resign-{w}x{h}.png"))
    P.page.once("dialog", lambda d: d.accept())
    P.page.click("[data-testid=dialog-resign]")
    winner = ("Ann", "Bob")[1 - lag_winner]
    for p in (A, B):
        p.page.wait_for_selector("[data-testid=match-summary]:not([hidden])", timeout=15000)
        assert p.page.inner_text("[data-testid=summary-result]") == f"{winner} wins, 0 : 0 ({('Ann', 'Bob')[lag_winner]} resigned)."
        assert p.debug()["state"]["over"] and p.debug()["state"]["result"]["winner"] == 1 - lag_winner
    assert P.page.query_selector("dialog.decision-dialog[open]") is None
    rec = record_of(live_server, tid)
    assert rec["result"]["winner"] == 1 - lag_winner, rec["result"]
    assert not A.errors and not B.errors, (A.errors, B.errors)


def test_a_lag_shot_with_the_untouched_controls_is_played_and_a_refused_one_may_be_played_again(browser, live_server, artifacts):
    """Shoot pressed before any control is touched sends the cue speed the power note shows (the controls began
    with V0 0, which the server refused, and on a pool table the lag then stalled: QA, 7 Dec); a lag stroke the
    server refuses leaves the player free to lag again."""
    A, B, tid = two_players(browser, live_server)
    for P in (A, B):
        P.page.wait_for_function("() => window.billar.table.debug().canShoot")
        note = P.page.inner_text("[data-testid=power-note]")
        shown = float(re.search(r"cue speed ([0-9.]+) m/s", note).group(1))
        V0 = P.stroke_values()["V0"]
        assert V0 > 0.0 and abs(V0 - shown) <= 0.005, (note, P.stroke_values())
    v0 = A.debug()["modelV"]
    A.shoot()
    A.page.wait_for_timeout(800)  # a refusal would be back by now
    assert A.error_toasts() == [], A.error_toasts()
    assert not A.debug()["canShoot"]
    assert re.search(r"Waiting for the referee|Lag played", A.page.inner_text("[data-testid=turn-status]"))
    # a refusal of that stroke (as the server sends one for a bad field) gives the lag back to the player
    A.page.evaluate("""t => window.billar.table.handle({type: 'error', table: t, code: 'bad_field', ref: 'shot',
        field: 'stroke.V0', message: 'stroke.V0: refused (test)'})""", tid)
    A.page.wait_for_function("() => window.billar.table.debug().canShoot")
    assert A.page.inner_text("[data-testid=turn-status]").startswith("Lag: send your ball")
    # shot again: the server still holds the first, says so (lag_pending), and the page waits again
    A.shoot()
    A.page.wait_for_function("() => /Lag played/.test(document.querySelector('[data-testid=turn-status]')?.textContent ?? '')"
                             " && !window.billar.table.debug().canShoot")
    B.shoot()
    for P in (A, B):
        P.page.wait_for_function("v => window.billar.table.debug().modelV > v", arg=v0, timeout=15000)
        assert P.debug()["lastStroke"]["lag"], P.debug()["lastStroke"]
    assert B.error_toasts() == [], B.error_toasts()
    assert A.error_toasts() == ["stroke.V0: refused (test)"]  # the server's lag_pending answer is no error to show
    assert not A.errors and not B.errors, (A.errors, B.errors)


def test_two_successive_fouls_put_the_warning_on_every_screen(browser, live_server, artifacts):
    A, B, tid = two_players(browser, live_server, target="20")
    S = new_page(browser, live_server, "Sue")
    S.open(f"#/table/{tid}")
    S.wait_table()
    play_straight_pool(A, B, [S], until=lambda st: st["phase"] == "play" and bool(st["legal"]["shoot"])
                       and not st["legal"]["shoot"]["in_hand"])
    pages = {0: A, 1: B}
    offender = A.debug()["state"]["legal"]["player"]
    fouls = 0
    for _ in range(4):  # offender fouls, the other fouls, offender fouls again
        d = A.debug()
        st = d["state"]
        P = pages[st["legal"]["player"]]
        P.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
        if st["legal"]["shoot"]["in_hand"]:
            P.place_cue_ball(get_table(d["preset"]).head_string_x - 0.3, 0.3)
            st = P.debug()["state"]
            st["layout"]["0"] = P.debug()["placement"]
        foul_stroke(P, get_table(d["preset"]), st)
        nv = next_version([A, B, S], d["modelV"])
        wait_all([A, B, S], nv)
        r = A.debug()["lastRuling"]
        assert r["foul"], r
        if r["player"] == offender:
            fouls += 1
            if fouls == 2:
                break
    assert A.debug()["lastRuling"]["fouls_in_row"][offender] == 2
    name = ("Ann", "Bob")[offender]
    for p in (A, B, S):
        p.page.wait_for_selector("[data-testid=warning]:not([hidden])", timeout=5000)
        w = p.page.inner_text("[data-testid=warning]")
        assert w.startswith(f"Warning: {name} is on two fouls in a row") and "15 more points" in w, w
        last = log_items(p)[-1]
        assert "warning" in last["cls"].split() and "foul" in last["cls"].split(), last
        assert p.page.inner_text(f"[data-testid=fouls-{offender}]") == "2"
    S.page.screenshot(path=os.path.join(artifacts, "two-foul-warning.png"))
    for p in (A, B, S):
        assert not p.errors, f"{p.name}: {p.errors}"
