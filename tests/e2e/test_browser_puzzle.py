"""The puzzle page in the browser (#/puzzle), against the HTTP contract of /api/puzzles/* (/work/prompts/contract.md).

The page is served by a real ``billar serve``; the three puzzle routes are answered in the browser
(Playwright's ``page.route``) with contract-shaped JSON made here from a real position
(rules/position.py), the real 14.1 referee (rules/drills.py ``game_at``) and a real physics run of the
stroke the page POSTs (``physics.simulate``, the wire log of protocol/eventlog.py): the trails the page
draws are the engine's. Checked as a person sees it: the goal in the DOM, the call and aim on the canvas,
Play, the balls moved and the trails drawn (canvas pixels), Solved / Missed with the referee's words,
the rating change of an account's first attempt, a guest's count in localStorage, Show solution, Try
again, errors said on the page, and the phone layouts (Play inside the viewport)."""

from __future__ import annotations

import json
import math
import os
import re
from urllib.parse import urlparse

import pytest

from e2e_driver import CLOTH_TOL, FELT, ClientPage

import protocol
from physics import Shot, simulate
from physics.table import get_table
from rules.drills import game_at, solo_text
from rules.position import Position, encode

TABLE = get_table("pool-9ft")
PRESET = TABLE.to_json()
IDS = protocol.preset_ids(PRESET)
CUE = (0.80, 0.50)
POCKET = "FR"  # the foot right corner pocket (x = L, y = 0)


def _pocket_centre(name):
    return next(p["centre"] for p in PRESET["pockets"] if p["name"] == name)


OBJ = (1.85, 0.33)  # ball 1, a cut of about 15 degrees into the foot right pocket
POSITION = Position.make("pool-9ft", "straight_pool", {0: CUE, 1: OBJ})
CODE = encode(POSITION)
BALLS = {b: (x, y) for b, (x, y) in POSITION.quantized().layout().items()}
GOAL = "Find the pot: call a ball and a pocket and make it"


def ghost_phi():
    """Aim (deg) at the ghost ball that sends ball 1 straight to the pocket's centre."""
    R = TABLE.ball.radius
    (ox, oy), (px, py), (cx, cy) = BALLS[1], _pocket_centre(POCKET), BALLS[0]
    d = math.hypot(px - ox, py - oy)
    gx, gy = ox - 2 * R * (px - ox) / d, oy - 2 * R * (py - oy) / d
    return math.degrees(math.atan2(gy - cy, gx - cx))


def play(stroke, call):
    """The attempt judged for real: (solved, ruling dict, record {"sim", "log"})."""
    game = game_at(POSITION.quantized(), 0)
    layout = game.prepare_shot(0, call, None)
    sim = simulate(game.table, layout, Shot(cue_ball=0, **stroke))
    ruling = game.apply_shot(0, call, sim).to_dict()
    ruling["text"] = solo_text(ruling["text"])  # as server/puzzles/judge.py says it
    potted = any(e.kind == "ball_pocket" and call["ball"] in e.balls for e in sim.events)
    solved = bool(potted and not ruling.get("foul"))
    return solved, ruling, {"sim": sim.to_json(), "log": protocol.encode_log(sim, *IDS)}


SOLUTION = {"phi_deg": round(ghost_phi(), 4), "a": 0.0, "b": 0.0, "theta_deg": 0.0, "V0": 2.5}
SOLUTION_CALL = {"ball": 1, "pocket": POCKET}


def view(pid, me=None):
    return {
        "id": pid,
        "discipline": "straight_pool",
        "goal": "pot",
        "goal_text": GOAL,
        "position": CODE,
        "table": PRESET,
        "balls": {str(b): list(p) for b, p in BALLS.items()},
        "cue_ball": 0,
        "rating": 1623.4,
        "rd": 80.0,
        "plays": 40,
        "wins": 12,
        "source": {"game": "g-1", "stroke": 3},
        "me": me,
        "next": 1,
    }


class Mock:
    """The puzzle API in the page: puzzle 1 (the daily one, a guest), puzzle 2 (an account's, rated), none else."""

    def __init__(self):
        self.posts = []
        self.limit_next = False
        self.attempts = {}

    def handle(self, route, request):
        path = urlparse(request.url).path
        m = re.fullmatch(r"/api/puzzles/(daily|\d+)(/attempt)?", path)
        if not m:
            return route.fulfill(status=400, json={"error": {"code": "bad_id", "message": "id"}})
        pid = 1 if m.group(1) == "daily" else int(m.group(1))
        if pid not in (1, 2):
            return route.fulfill(status=404, json={"error": {"code": "no_puzzle", "message": "no such puzzle"}})
        me = {"attempts": self.attempts.get(pid, 0), "solved": False, "rating": 1500.0, "rd": 200.0} if pid == 2 else None
        if not m.group(2):
            assert request.method == "GET"
            return route.fulfill(status=200, json=view(pid, me))
        assert request.method == "POST"
        body = json.loads(request.post_data)
        self.posts.append(body)
        if self.limit_next:
            self.limit_next = False
            return route.fulfill(status=429, json={"error": {"code": "too_many_attempts", "message": "10 a minute"}})
        assert set(body) == {"stroke", "call"}, body
        assert set(body["stroke"]) == {"phi_deg", "a", "b", "theta_deg", "V0"}, body
        solved, ruling, record = play(body["stroke"], body["call"])
        _, _, sol_record = play(SOLUTION, SOLUTION_CALL)
        n = self.attempts[pid] = self.attempts.get(pid, 0) + 1
        rating = None
        if pid == 2 and n == 1:
            rating = {"player": {"before": 1500.0, "after": 1523.2 if solved else 1477.0, "rd": 190.0},
                      "puzzle": {"before": 1623.4, "after": 1600.1 if solved else 1630.0}}
        return route.fulfill(status=200, json={
            "solved": solved, "ruling": ruling, "stroke": record,
            "solution": {"stroke": SOLUTION, "call": SOLUTION_CALL, "record": sol_record},
            "attempt": 1 if pid == 1 else n, "rating": rating,
        })


def open_page(browser, live_server, hash_, mock, **ctx):
    ctx.setdefault("viewport", {"width": 1360, "height": 860})
    P = ClientPage(browser.new_context(**ctx).new_page(), live_server.url, "Puz")
    P.page.route("**/api/puzzles/**", mock.handle)
    P.page.goto(f"{live_server.url}/{hash_}")
    return P


def screen_of(P, x, y):
    return P.page.evaluate("([x, y]) => window.billar.puzzle.pointOnScreen(x, y)", [x, y])


def pixel(P, x, y):
    """RGB of the canvas at table point (x, y) m, drawn now."""
    return tuple(P.page.evaluate(
        """([x, y]) => {
          const pz = window.billar.puzzle; pz['board'].draw();
          const c = document.querySelector('canvas.table-canvas'); const r = c.getBoundingClientRect();
          const p = pz.pointOnScreen(x, y); const k = c.width / r.width;
          const d = c.getContext('2d').getImageData(Math.round((p.x - r.left) * k), Math.round((p.y - r.top) * k), 1, 1).data;
          return [d[0], d[1], d[2]];
        }""", [x, y]))


def felt(px):
    return max(abs(a - b) for a, b in zip(px, FELT)) <= CLOTH_TOL


def debug(P):
    return P.page.evaluate("window.billar.puzzle.debug()")


def click_world(P, x, y):
    s = screen_of(P, x, y)
    P.page.mouse.click(s["x"], s["y"])


def set_input(P, sel, value):
    loc = P.page.locator(sel)
    loc.fill(repr(float(value)))
    loc.press("Tab")


def pull_back(P, power):
    """Press on the cue stick just behind the cue ball, pull it back by ``power`` (0..1) of a full pull
    (board.ts PULL_FULL_PX, 170 px) and let go: plays the stroke."""
    pz = "window.billar.puzzle"
    cue = P.page.evaluate(f"() => {{ const b = {pz}['board'].aim; return {pz}.pointOnScreen(b.cue[0], b.cue[1]); }}")
    ang = P.page.evaluate(f"() => {pz}['board'].vp.screenAngle({pz}.debug().stroke.phi * Math.PI / 180)")
    rpx = P.page.evaluate(f"() => {pz}['board'].R * {pz}['board'].vp.scale")
    ux, uy = math.cos(ang), math.sin(ang)
    start = (cue["x"] - ux * (rpx + 25), cue["y"] - uy * (rpx + 25))
    m = P.page.mouse
    m.move(*start)
    m.down()
    for k in range(1, 11):
        d = 170 * power * k / 10
        m.move(start[0] - ux * d, start[1] - uy * d)
    assert abs(P.page.evaluate(f"() => {pz}['board'].aim.pull") - power) < 0.02  # the stick drawn back
    m.up()


def play_soft_miss(P, daily):
    """Call the lowest object ball in HL at a pot puzzle, then play a soft stroke at 0.3 m/s (usually a miss)."""
    others = sorted(int(b) for b in daily["balls"] if int(b) != daily["cue_ball"])
    if daily["goal"] == "pot":
        P.page.click(f"button.chip[data-ball='{others[0]}']")
        P.page.click("button.chip[data-pocket='HL']")
    set_input(P, "#power-speed", 0.3)
    P.page.click("#puzzle-play")
    wait_result(P)


def wait_result(P, timeout=30000):
    P.page.wait_for_function("() => { const d = window.billar.puzzle.debug(); return d.phase === 'result' && !d.animating; }", timeout=timeout)


def test_puzzle_of_the_day_guest_play_solution_try_again(browser, live_server, artifacts):
    mock = Mock()
    P = open_page(browser, live_server, "#/puzzle", mock)
    page = P.page
    page.wait_for_selector("[data-testid=puzzle-goal]:has-text('Find the pot')")
    assert page.inner_text("[data-testid=puzzle-goal]") == GOAL
    assert page.inner_text("[data-testid=puzzle-title]").startswith("Puzzle of the day #1")
    assert page.inner_text("[data-testid=puzzle-rating]") == "1623"
    assert page.inner_text("[data-testid=puzzle-plays]") == "Played 40 times, solved 12 (30%)"
    assert "Your attempts: 0" in page.inner_text("[data-testid=puzzle-me]")
    assert page.get_attribute("#puzzle-practice", "href") == f"#/practice/{CODE}"
    assert not felt(pixel(P, *BALLS[1])), "ball 1 is not drawn at its place"
    assert not felt(pixel(P, *BALLS[0])), "the cue ball is not drawn at its place"

    # Play without a call: said on the page, nothing posted
    page.click("#puzzle-play")
    assert "Call a ball and a pocket" in page.inner_text("[data-testid=puzzle-status]")
    assert mock.posts == []
    # a puzzle takes no safety: the call's hint does not offer one (QA)
    assert "safety" not in page.inner_text(".call-box").lower()

    # call ball 1 and the pocket by clicking them on the table, as at a game table
    click_world(P, *BALLS[1])
    click_world(P, *_pocket_centre(POCKET))
    assert debug(P)["call"] == {"ball": 1, "pocket": POCKET, "safety": False}
    assert page.get_attribute("button.chip[data-ball='1']", "aria-pressed") == "true"
    # aim: drag on the table toward the object ball, then the fine aim in the box
    s = screen_of(P, BALLS[0][0] + 0.3, BALLS[0][1] - 0.05)
    e = screen_of(P, BALLS[1][0], BALLS[1][1])
    page.mouse.move(s["x"], s["y"])
    page.mouse.down()
    for k in range(1, 9):
        page.mouse.move(s["x"] + (e["x"] - s["x"]) * k / 8, s["y"] + (e["y"] - s["y"]) * k / 8)
    page.mouse.up()
    dragged = debug(P)["stroke"]["phi"]
    want = math.degrees(math.atan2(BALLS[1][1] - BALLS[0][1], BALLS[1][0] - BALLS[0][0]))
    assert abs(dragged - want) < 1.0, (dragged, want)
    assert abs(debug(P)["aim"]["phi"] - dragged) < 1e-9  # the aim drawn is the control's
    set_input(P, "#aim-phi", SOLUTION["phi_deg"])
    set_input(P, "#power-speed", 2.2)
    st = debug(P)["stroke"]
    assert st["phi"] == SOLUTION["phi_deg"]

    page.click("#puzzle-play")
    page.wait_for_function("() => window.billar.puzzle.debug().phase !== 'aiming'")
    wait_result(P)
    assert len(mock.posts) == 1
    body = mock.posts[0]
    assert body["call"] == {"ball": 1, "pocket": POCKET}
    assert body["stroke"] == {"phi_deg": st["phi"], "a": st["a"], "b": st["b"], "theta_deg": st["theta"], "V0": st["V0"]}
    solved, ruling, _ = play(body["stroke"], body["call"])
    assert solved, ruling
    assert page.inner_text("[data-testid=puzzle-verdict]") == "Solved (attempt 1)"
    assert page.inner_text("[data-testid=puzzle-ruling]") == ruling["text"]
    assert page.query_selector("[data-testid=puzzle-rating-change]") is None  # a guest is not rated
    assert "Your attempts: 1, solved" in page.inner_text("[data-testid=puzzle-me]")
    assert json.loads(page.evaluate("localStorage.getItem('billar.puzzles')")) == {"1": {"attempts": 1, "solved": True}}
    # the canvas: ball 1 is gone from its place (pocketed), the cue ball left its own, the cue ball's trail is drawn
    d = debug(P)
    assert d["trails"] >= 2 and all(b["id"] != 1 for b in d["balls"])
    cue_end = next(b for b in d["balls"] if b["id"] == 0)
    assert math.dist((cue_end["x"], cue_end["y"]), BALLS[0]) > 0.2
    page.screenshot(path=os.path.join(artifacts, "puzzle-solved.png"))
    ux, uy = math.cos(math.radians(st["phi"])), math.sin(math.radians(st["phi"]))
    mid = (BALLS[0][0] + 0.35 * ux, BALLS[0][1] + 0.35 * uy)  # on the cue ball's way to ball 1
    assert not felt(pixel(P, *mid)), "no trail drawn on the cue ball's path"
    off = (0.5, 1.0)  # the upper left of the bed, away from every path
    assert felt(pixel(P, *off)), "cloth away from the paths is not felt"
    page.screenshot(path=os.path.join(artifacts, "puzzle-solved.png"))

    # Show solution: animated with its trails, its stroke in numbers
    page.click("#puzzle-solution-btn")
    wait_result(P)
    assert f"ball 1 in {POCKET}, aim {SOLUTION['phi_deg']:.2f}\u00b0" in page.inner_text("[data-testid=puzzle-solution]")
    assert debug(P)["trails"] >= 2

    # Try again: the position back, the stroke as it was; a missed attempt this time
    page.click("#puzzle-again")
    d = debug(P)
    assert d["phase"] == "aiming" and d["stroke"]["phi"] == st["phi"]
    assert sorted(b["id"] for b in d["balls"]) == [0, 1]
    assert not felt(pixel(P, *BALLS[1]))
    set_input(P, "#aim-phi", SOLUTION["phi_deg"] + 25)
    mock.limit_next = True  # the server refuses this one: said, and the page stays usable
    page.click("#puzzle-play")
    page.wait_for_function("() => (document.querySelector('[data-testid=puzzle-status]')?.textContent ?? '').includes('Too many attempts')")
    assert debug(P)["phase"] == "aiming" and page.is_enabled("#puzzle-play")
    # this time played by pulling the cue stick back from the cue ball and letting go, as at a practice table
    n = len(mock.posts)
    pull_back(P, 0.5)
    wait_result(P)
    assert len(mock.posts) == n + 1
    speed = float(page.input_value("#power-speed"))
    assert abs(speed - 2.5) < 0.02, speed  # half a full pull: the middle of the slider, 2.5 m/s
    assert mock.posts[-1]["stroke"]["phi_deg"] == SOLUTION["phi_deg"] + 25
    assert page.inner_text("[data-testid=puzzle-verdict]") == "Missed (attempt 2)"
    assert "Your attempts: 2, solved" in page.inner_text("[data-testid=puzzle-me]")
    assert not P.errors, P.errors


def test_puzzle_account_rating_change_and_errors(browser, live_server):
    mock = Mock()
    P = open_page(browser, live_server, "#/puzzle/2", mock)
    page = P.page
    page.wait_for_selector("[data-testid=puzzle-goal]")
    assert "your puzzle rating 1500?" in page.inner_text("[data-testid=puzzle-me]")
    page.click("button.chip[data-ball='1']")
    page.click(f"button.chip[data-pocket='{POCKET}']")
    set_input(P, "#aim-phi", SOLUTION["phi_deg"])
    set_input(P, "#power-speed", 2.2)
    page.keyboard.press("Enter")
    wait_result(P)
    assert page.inner_text("[data-testid=puzzle-verdict]") == "Solved (attempt 1)"
    assert page.inner_text("[data-testid=puzzle-rating-change]") == "Your puzzle rating: 1500 \u2192 1523 (+23)"
    assert page.evaluate("localStorage.getItem('billar.puzzles')") is None  # an account's attempts are the server's

    # an unknown puzzle, a malformed link, the network down: clear messages, not a stuck page
    page.goto(f"{live_server.url}/#/puzzle/999")
    page.wait_for_selector("[data-testid=puzzle-error-text]")
    assert page.inner_text("[data-testid=puzzle-error-text]") == "There is no such puzzle."
    page.goto(f"{live_server.url}/#/puzzle/abc")
    page.wait_for_selector("[data-testid=puzzle-error-text]")
    assert "not valid" in page.inner_text("[data-testid=puzzle-error-text]")
    page.unroute("**/api/puzzles/**")
    page.route("**/api/puzzles/**", lambda route: route.abort())
    page.goto(f"{live_server.url}/#/puzzle")
    page.wait_for_selector("[data-testid=puzzle-error-text]")
    assert page.inner_text("[data-testid=puzzle-error-text]") == "Could not reach the server. Check the connection and try again."
    assert page.is_visible("#puzzle-retry-load")
    page.unroute("**/api/puzzles/**")
    page.route("**/api/puzzles/**", mock.handle)
    page.click("#puzzle-retry-load")
    page.wait_for_selector("[data-testid=puzzle-goal]:has-text('Find the pot')")
    assert not P.errors, P.errors


@pytest.mark.parametrize("size", [(390, 844), (844, 390)])
def test_puzzle_phone_layout(browser, live_server, artifacts, size):
    mock = Mock()
    P = open_page(browser, live_server, "#/puzzle", mock, viewport={"width": size[0], "height": size[1]},
                  device_scale_factor=2, is_mobile=True, has_touch=True)
    page = P.page
    page.wait_for_selector("[data-testid=puzzle-goal]:has-text('Find the pot')")
    page.wait_for_timeout(300)
    name = f"puzzle-phone-{size[0]}x{size[1]}.png"
    page.screenshot(path=os.path.join(artifacts, name))
    W, H = size
    play_sel = "#puzzle-play" if W < H else "#puzzle-hud-play"
    box = page.locator(play_sel).bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= H and box["x"] + box["width"] <= W, (play_sel, box)
    assert page.inner_text("[data-testid=puzzle-status]") == ""  # nothing left saying it loads
    if W > H:
        # sideways the goal is beside the table (what is under the table needs a scroll)
        goal = page.locator("[data-testid=puzzle-hud-goal]")
        assert goal.is_visible() and goal.inner_text() == GOAL
        g = goal.bounding_box()
        assert g["y"] + g["height"] <= H and g["x"] >= 0, g
    else:
        assert not page.locator("[data-testid=puzzle-hud-goal]").is_visible()
        assert page.locator("[data-testid=puzzle-goal]").bounding_box()["y"] < H / 3
    canvas = page.locator("canvas.table-canvas").bounding_box()
    assert canvas["y"] >= 0 and canvas["y"] + canvas["height"] <= H + 1 and canvas["width"] >= W * 0.9, canvas
    # the balls are drawn on the screen, and both are inside the viewport
    for b in (0, 1):
        s = screen_of(P, *BALLS[b])
        assert 0 <= s["x"] <= W and 0 <= s["y"] <= H, (b, s)
        assert not felt(pixel(P, *BALLS[b]))
    # the screenshot saved is the page as shown: its size is the viewport's at the device scale
    with open(os.path.join(artifacts, name), "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == (W * 2, H * 2)
    # a tap on the Play button with a call and an aim plays it
    page.tap("button.chip[data-ball='1']") if W < H else page.click("button.chip[data-ball='1']")
    page.click(f"button.chip[data-pocket='{POCKET}']")
    set_input(P, "#aim-phi", SOLUTION["phi_deg"])
    page.locator(play_sel).scroll_into_view_if_needed()
    page.tap(play_sel)
    wait_result(P)
    # the stroke was played where it can be seen: the table scrolled back into view
    canvas = page.locator("canvas.table-canvas").bounding_box()
    assert canvas["y"] >= -1 and canvas["y"] + canvas["height"] <= H + 1, canvas
    verdict = page.inner_text("[data-testid=puzzle-verdict]")
    assert verdict in ("Solved (attempt 1)", "Missed (attempt 1)"), verdict
    if W > H:
        assert page.inner_text("[data-testid=puzzle-hud-goal]").startswith(verdict.split()[0])
        assert not page.locator("#puzzle-hud-play").is_visible()  # nothing to play until Try again
    page.screenshot(path=os.path.join(artifacts, f"puzzle-phone-{W}x{H}-played.png"))
    assert not P.errors, P.errors


def test_real_server_daily_puzzle_missed_then_solved(browser, live_server, artifacts):
    """Against the real server's routes (server/api/puzzles.py, its seeded puzzles): the daily puzzle's goal
    on the page, an attempt judged by the server, its solution shown, then the solution's stroke set in the
    controls and played: Solved."""
    import urllib.request

    from e2e_driver import ball_speed

    with urllib.request.urlopen(live_server.url + "/api/puzzles/daily", timeout=10) as r:
        daily = json.loads(r.read())
    P = ClientPage(browser.new_context(viewport={"width": 1360, "height": 860}).new_page(), live_server.url, "Sol")
    page = P.page
    page.goto(f"{live_server.url}/#/puzzle")
    page.wait_for_selector("[data-testid=puzzle-goal]:not(:empty)")
    assert page.inner_text("[data-testid=puzzle-goal]") == daily["goal_text"]
    assert page.inner_text("[data-testid=puzzle-title]").startswith(f"Puzzle of the day #{daily['id']}")
    cue = daily["balls"][str(daily["cue_ball"])]
    assert not felt(pixel(P, *cue)), "the cue ball is not drawn"
    play_soft_miss(P, daily)
    assert page.inner_text("[data-testid=puzzle-verdict]") in ("Missed (attempt 1)", "Solved (attempt 1)")
    ruling = page.inner_text("[data-testid=puzzle-ruling]")
    assert ruling, "no ruling shown"
    page.click("#puzzle-solution-btn")
    wait_result(P)
    sol = page.evaluate("window.billar.puzzle['result'].solution")
    assert page.inner_text("[data-testid=puzzle-solution]").startswith("Solution: ")
    assert debug(P)["trails"] >= 1
    page.screenshot(path=os.path.join(artifacts, "puzzle-real-solution.png"))

    page.click("#puzzle-again")
    s = sol["stroke"]
    set_input(P, "#aim-phi", s["phi_deg"])
    set_input(P, "#tip-a", s["a"])
    set_input(P, "#tip-b", s["b"])
    set_input(P, "#elev-theta", s["theta_deg"])
    set_input(P, "#power-speed", ball_speed(daily["table"]["name"], s["V0"], s["a"], s["b"], s["theta_deg"]))
    got = debug(P)["stroke"]
    assert abs(got["V0"] - s["V0"]) < 1e-6, (got, s)
    if sol["call"]:
        page.click(f"button.chip[data-ball='{sol['call']['ball']}']")
        page.click(f"button.chip[data-pocket='{sol['call']['pocket']}']")
    page.click("#puzzle-play")
    wait_result(P)
    assert page.inner_text("[data-testid=puzzle-verdict]") == "Solved (attempt 2)"
    assert "Your attempts: 2, solved" in page.inner_text("[data-testid=puzzle-me]")
    page.screenshot(path=os.path.join(artifacts, "puzzle-real-solved.png"))
    # the lobby's card shows the same daily puzzle
    page.goto(f"{live_server.url}/#/")
    page.wait_for_function("g => (document.querySelector('[data-testid=lobby-puzzle-goal]')?.textContent ?? '').includes(g)", arg=daily["goal_text"])
    assert not P.errors, P.errors
    assert not P.console_errors, P.console_errors  # a guest's puzzle page and lobby log no failed request


def test_real_server_account_first_attempt_rated(browser, live_server):
    """Logged in (registered on the page), the first attempt at a puzzle moves the player's puzzle rating
    (Glicko-2 on the server): the page says it like the game summary, `1500 → 1xxx (±n)`; the second
    attempt moves nothing. The page asks for `me` again when the account changes."""
    import urllib.request

    from test_browser_accounts import register, unique

    with urllib.request.urlopen(live_server.url + "/api/puzzles/daily", timeout=10) as r:
        daily = json.loads(r.read())
    P = ClientPage(browser.new_context(viewport={"width": 1360, "height": 860}).new_page(), live_server.url, "Acc")
    page = P.page
    page.goto(f"{live_server.url}/#/puzzle/{daily['id']}")
    page.wait_for_selector("[data-testid=puzzle-goal]:not(:empty)")
    assert "log in to be rated" in page.inner_text("[data-testid=puzzle-me]")
    register(P, unique("pz"))
    page.wait_for_function("() => (document.querySelector('[data-testid=puzzle-me]')?.textContent ?? '').includes('your puzzle rating')")
    assert page.inner_text("[data-testid=puzzle-me]") == "Your attempts: 0 \u00b7 your puzzle rating 1500?"
    play_soft_miss(P, daily)
    verdict = page.inner_text("[data-testid=puzzle-verdict]")
    change = page.inner_text("[data-testid=puzzle-rating-change]")
    m = re.fullmatch(r"Your puzzle rating: 1500 \u2192 (\d+) \(([+-]\d+|0)\)", change)
    assert m, change
    after, delta = int(m.group(1)), int(m.group(2))
    assert after - 1500 == delta and (delta > 0 if verdict.startswith("Solved") else delta < 0), (verdict, change)
    assert verdict.endswith("(attempt 1)")
    assert f"your puzzle rating {after}" in page.inner_text("[data-testid=puzzle-me]")
    # the puzzle's own count takes the rated attempt in (QA: it still said "Not played yet")
    plays, wins = daily["plays"] + 1, daily["wins"] + int(verdict.startswith("Solved"))
    assert page.inner_text("[data-testid=puzzle-plays]") == \
        f"Played {plays} time{'' if plays == 1 else 's'}, solved {wins} ({math.floor(100 * wins / plays + 0.5)}%)"
    page.click("#puzzle-again")
    page.click("#puzzle-play")
    wait_result(P)
    assert page.inner_text("[data-testid=puzzle-verdict]").endswith("(attempt 2)")
    assert page.query_selector("[data-testid=puzzle-rating-change]") is None  # only the first attempt is rated
    assert page.evaluate("localStorage.getItem('billar.puzzles')") is None
    assert not P.errors, P.errors
