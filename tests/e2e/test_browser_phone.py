"""Phones (issue 14 defect 2), with mobile emulation and touch: 390x844 held upright and 844x390
sideways. The page is never wider than the device (under mobile emulation ``innerWidth`` grows
with the content, so ``document.documentElement.scrollWidth`` is compared with the device width),
the lobby's buttons are on the screen, the whole table is visible, upright it takes the full
width with the controls below and the loupe around the cue ball, sideways the balls are at least
14 CSS px across. A phone player lags with taps; the controls of the cards below the table stay
inside their cards, both ways up. Screenshots of each screen are kept.
"""

from __future__ import annotations

import math
import os

from e2e_driver import ClientPage
from games import next_version, pool_lag_speed, wait_all
from physics.table import get_table
from test_browser_defects import two_players

PORTRAIT = (390, 844)
LANDSCAPE = (844, 390)


# every control of each card beside the table (the stroke controls, the strokes, the options, ...) lies within its
# card's width, and no two cards overlap (at 844x390 the aim's "+1" stuck out of its card over the next one: QA)
CARD_OVERFLOWS = """() => {
    const cards = [...document.querySelectorAll('.table-view .side > *')].filter((c) => c.offsetParent !== null);
    const boxes = cards.map((c) => c.getBoundingClientRect());
    const out = [];
    cards.forEach((c, i) => {
        const r = boxes[i];
        for (const e of c.querySelectorAll('button, input, select, canvas, output, textarea')) {
            const q = e.getBoundingClientRect();
            if (e.offsetParent === null || q.width === 0) continue;
            if (q.left < r.left - 0.5 || q.right > r.right + 0.5)
                out.push(`${c.className}: ${e.id || e.textContent} at ${q.left}-${q.right}, card ${r.left}-${r.right}`);
        }
        boxes.forEach((o, j) => {
            if (j > i && r.left < o.right - 0.5 && o.left < r.right - 0.5 && r.top < o.bottom - 0.5 && o.top < r.bottom - 0.5)
                out.push(`${c.className} overlaps ${cards[j].className}`);
        });
    });
    return out;
}"""


# the interactive elements on the screen that the shot dock covers (the dock's own and the table's canvas aside)
UNDER_THE_DOCK = """() => {
    const d = document.querySelector('[data-testid=shot-dock]').getBoundingClientRect();
    return [...document.querySelectorAll('button, select, input, a, textarea')].filter((e) => {
        if (e.closest('.shot-dock') || e.closest('.canvas-wrap') || e.offsetParent === null) return false;
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.bottom > 0 && r.top < innerHeight
            && r.left < d.right - 0.5 && d.left < r.right - 0.5 && r.top < d.bottom - 0.5 && d.top < r.bottom - 0.5;
    }).map((e) => e.id || e.getAttribute('aria-label') || e.textContent);
}"""


def phone(browser, live_server, name, size):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, device_scale_factor=3, is_mobile=True, has_touch=True)
    return ClientPage(ctx.new_page(), live_server.url, name)


def page_width(p: ClientPage) -> int:
    return p.page.evaluate("document.documentElement.scrollWidth")


def table_rect(p: ClientPage) -> dict:
    """The table with its rails (``table``) and the canvas, in CSS px of the page."""
    return p.page.evaluate("""() => {
        const b = window.billar.table['board'];
        const c = b.canvas.getBoundingClientRect();
        const [l, t, r, bt] = b.tableRect();
        return { canvas: [c.left, c.top, c.right, c.bottom], table: [c.left + l, c.top + t, c.left + r, c.top + bt],
                 ball: 2 * b.R * b.vp.scale, portrait: b.vp.portrait, scrollY: window.scrollY };
    }""")


def check_lobby(p: ClientPage, size, tid: str, artifacts: str, tag: str) -> None:
    p.page.wait_for_selector(f"tr[data-table='{tid}']", timeout=15000)
    assert page_width(p) <= size[0], f"{tag}: lobby {page_width(p)} px wide on a {size[0]} px screen"
    # every row's buttons, measured in one step in the page (the lobby updates live: rows read one by one
    # from here could be replaced between two reads)
    boxes = p.page.evaluate("""() => [...document.querySelectorAll('tr[data-table] [data-action]')].map((e) => {
        const r = e.getBoundingClientRect();
        return { text: e.textContent, x: r.left, width: r.width, height: r.height };
    })""")
    assert boxes, "no lobby buttons"
    for box in boxes:
        assert box["width"] > 0 and box["height"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= size[0], \
            f"{tag}: {box['text']} off screen: {box}"
    # the practice card's controls keep a finger's gap between them (QA: the drill's select and its two buttons touched)
    gaps = p.page.evaluate("""() => {
        const els = [...document.querySelectorAll('[data-testid=practice-card] :is(select, button, input[type=checkbox])')];
        const rs = els.map((e) => [e.id || e.textContent, e.getBoundingClientRect()]);
        const out = [];
        rs.forEach(([a, r], i) => rs.slice(i + 1).forEach(([b, q]) => {
            const dx = Math.max(q.left - r.right, r.left - q.right), dy = Math.max(q.top - r.bottom, r.top - q.bottom);
            out.push([a, b, Math.max(dx, dy)]);
        }));
        return out;
    }""")
    assert len(gaps) >= 3, gaps
    for a, b, gap in gaps:
        assert gap >= 6, f"{tag}: {a} and {b} are {gap:.1f} px apart"
    p.page.screenshot(path=os.path.join(artifacts, f"phone-lobby-{tag}.png"))


def test_phone_layouts(browser, live_server, artifacts):
    # two players on desktops fill the lobby with a live table
    A, B, tid = two_players(browser, live_server)
    for size, tag in ((PORTRAIT, "portrait"), (LANDSCAPE, "landscape")):
        P = phone(browser, live_server, "Pia", size)
        P.open()
        check_lobby(P, size, tid, artifacts, tag)
        P.page.click(f"tr[data-table='{tid}'] [data-action=watch]")
        P.wait_table()
        P.page.wait_for_function("() => !window.billar.table.debug().busy")
        P.redraw()
        r = table_rect(P)
        assert page_width(P) <= size[0], f"{tag}: table page {page_width(P)} px wide"
        x0, y0, x1, y1 = r["canvas"]
        assert r["scrollY"] == 0
        assert x0 >= 0 and y0 >= 0 and x1 <= size[0] + 0.5 and y1 <= size[1] + 0.5, f"{tag}: canvas {r['canvas']} not all on the screen"
        tx0, ty0, tx1, ty1 = r["table"]
        assert tx0 >= max(0, x0) - 0.5 and ty0 >= max(0, y0) - 0.5 and tx1 <= min(size[0], x1) + 0.5 and ty1 <= min(size[1], y1) + 0.5, \
            f"{tag}: the table {r['table']} is not all on the screen (canvas {r['canvas']})"
        if tag == "portrait":
            assert r["portrait"], "upright, the table runs down the screen"
            assert x1 - x0 >= size[0] - 20, f"the table is not at the full width: {r['canvas']}"
            assert tx1 - tx0 >= size[0] - 30, f"the table is not at the full width: {r['table']}"
            # the stroke controls and the history come below the table
            below = P.page.evaluate("() => document.querySelector('.history-card').getBoundingClientRect().top")
            assert below >= y1
        else:
            assert not r["portrait"]
            assert r["ball"] >= 14, f"balls {r['ball']:.2f} px across sideways"
        # every link of the header is there at a table too, inside the screen's width (QA: the puzzle link was
        # hidden upright, from when the header had to fit one line above the table)
        links = P.page.evaluate("() => [...document.querySelectorAll('header nav a, header a[id^=nav-]')]"
                                ".map(a => { const r = a.getBoundingClientRect(); return [a.id, r.width, r.left, r.right]; })")
        assert {i for i, *_ in links} >= {"nav-tv", "nav-puzzle", "nav-games", "nav-tournaments", "nav-leaderboard"}, links
        assert all(w > 0 and left >= 0 and right <= size[0] + 0.5 for _, w, left, right in links), f"{tag}: {links}"
        P.page.screenshot(path=os.path.join(artifacts, f"phone-table-{tag}.png"))
        assert not P.errors, P.errors
        P.page.context.close()
    # a carom table (larger, with larger balls) sideways: whole, and balls >= 14 px as well
    C = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), live_server.url, "Cai")
    C.open()
    C.page.select_option("#discipline", "three_cushion")
    C.page.click("#create-btn")
    C.wait_table()
    P = phone(browser, live_server, "Pia", LANDSCAPE)
    P.open(f"#/table/{C.table_id()}")
    P.wait_table()
    P.redraw()
    r = table_rect(P)
    tx0, ty0, tx1, ty1 = r["table"]
    assert tx0 >= -0.5 and ty0 >= -0.5 and tx1 <= LANDSCAPE[0] + 0.5 and ty1 <= LANDSCAPE[1] + 0.5, r
    assert r["ball"] >= 14, r["ball"]
    assert page_width(P) <= LANDSCAPE[0]
    P.page.screenshot(path=os.path.join(artifacts, "phone-table-landscape-carom.png"))
    assert not P.errors and not C.errors


def phone_against_desktop(browser, live_server, size, name="Pia", discipline="straight_pool", target="3", desk="Desk"):
    """``name`` on a phone held ``size`` creates a table of ``discipline`` (to ``target``, None: the form's default)
    with taps, ``desk`` on a desktop takes the other seat; returns (phone, desktop) once the phone's player may play
    the lag."""
    P = phone(browser, live_server, name, size)
    P.open()
    P.page.select_option("#discipline", discipline)
    if target is not None:
        P.page.fill("#target", target)
    P.page.tap("#create-btn")
    P.wait_table()
    D = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), live_server.url, desk)
    D.open(f"#/table/{P.table_id()}")
    D.wait_table()
    D.page.click("#take-seat-btn")
    D.page.wait_for_function("() => window.billar.table.debug().mySeat === 1")
    P.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
    return P, D


def set_lag_strokes(P: ClientPage, D: ClientPage):
    """Both players of a 14.1 lag (``P`` seat 0, ``D`` seat 1) set the stroke that sends their ball to the foot cushion
    and back to the head cushion; returns (P's debug view, the table, the version before the lag)."""
    d = P.debug()
    table = get_table(d["preset"])
    for seat, page in ((0, P), (1, D)):
        pos = d["state"]["legal"]["shoot"]["lag_balls"][str(seat)]
        page.set_stroke(0.0, pool_lag_speed(table, pos[0], pos[1]))
    return d, table, d["modelV"]


def test_a_phone_player_upright_lags_with_taps(browser, live_server, artifacts):
    P, D = phone_against_desktop(browser, live_server, PORTRAIT)
    # upright, the loupe magnifies the area around the cue ball
    assert P.page.is_checked("#zoom-toggle")
    P.redraw()
    assert P.page.evaluate("() => window.billar.table['board'].loupe !== null")
    # aimed through the corner the loupe takes, the loupe moves off the aim line and the cue ball (QA: it covered
    # the pocket being aimed at)
    first = P.page.evaluate("() => { const b = window.billar.table['board']; return [...b.vp.toWorld(b.loupe.cx, b.loupe.cy)]; }")
    cue = P.debug()["state"]["legal"]["shoot"]["lag_balls"]["0"]
    P.set_stroke(math.degrees(math.atan2(first[1] - cue[1], first[0] - cue[0])), 1.0)
    P.redraw()
    lo = P.page.evaluate("""() => {
        const b = window.billar.table['board'], l = b.loupe, [ax, ay] = b.vp.toScreen(...b.contact.at);
        const dx = ax - l.sx, dy = ay - l.sy, t = Math.max(0, Math.min(1, ((l.cx - l.sx) * dx + (l.cy - l.sy) * dy) / (dx * dx + dy * dy)));
        return { line: Math.hypot(l.cx - l.sx - t * dx, l.cy - l.sy - t * dy), cue: Math.hypot(l.cx - l.sx, l.cy - l.sy), r: l.r };
    }""")
    assert lo["line"] >= lo["r"] and lo["cue"] >= lo["r"], lo
    d, table, v = set_lag_strokes(P, D)
    P.page.screenshot(path=os.path.join(artifacts, "phone-lag-portrait.png"))

    # the shot dock: with the panel's Shoot scrolled away, power and Shoot stay on the screen
    for size, tag in ((LANDSCAPE, "landscape"), (PORTRAIT, "portrait")):
        P.page.set_viewport_size({"width": size[0], "height": size[1]})
        P.page.evaluate("window.scrollTo(0, 0)")
        P.page.wait_for_selector("#dock-shoot", state="visible", timeout=5000)
        dock = P.page.evaluate("() => { const r = document.querySelector('[data-testid=shot-dock]').getBoundingClientRect();"
                               " return [r.left, r.top, r.right, r.bottom]; }")
        assert dock[0] >= 0 and dock[1] >= 0 and dock[2] <= size[0] and dock[3] <= size[1], (tag, dock)
        assert not P.page.evaluate("""() => { const r = document.querySelector('#shoot-btn').getBoundingClientRect();
                                             return r.bottom > 0 && r.top < innerHeight; }"""), "the panel's Shoot is on screen too"
        assert P.page.is_visible("#aim-phi") and P.page.evaluate(CARD_OVERFLOWS) == [], tag
        if tag == "portrait":  # the bar under the table, not over its head rail and pockets (QA)
            P.redraw()
            assert dock[1] >= table_rect(P)["table"][3] - 0.5, f"the dock covers the table: {dock} {table_rect(P)}"
        if tag == "landscape":
            assert not P.page.is_visible("#hud-shoot"), "the HUD's Shoot shows under the dock's (QA: they overlapped)"
            # scrolled down through the replay bar and the cards, the dock covers none of their controls
            for y in range(0, P.page.evaluate("document.documentElement.scrollHeight"), 120):
                P.page.evaluate("y => window.scrollTo(0, y)", y)
                if P.page.is_visible("#dock-shoot"):
                    assert P.page.evaluate(UNDER_THE_DOCK) == [], f"scrolled to {y}"
            P.page.evaluate("window.scrollTo(0, 0)")
            P.redraw()
            assert dock[0] >= table_rect(P)["table"][2] - 0.5, f"the dock covers the table: {dock} {table_rect(P)}"
        # scrolled to the foot of the page, the dock covers nothing there either: the header comes under the table
        # (QA: upright, after a few strokes against the computer the page was long enough for the panel's Shoot to
        # be off the screen at its foot, and the dock lay over the header's links and account menu). Here the page is
        # short, so a long card (a long history's height) is added under the others for the while.
        P.page.evaluate("""() => { const d = document.createElement('div'); d.id = 'qa-long'; d.style.height = '1500px';
                                   document.querySelector('.table-view .side').append(d); }""")
        P.page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        P.page.wait_for_selector("#dock-shoot", state="visible", timeout=5000)
        P.page.wait_for_timeout(200)
        assert P.page.evaluate(UNDER_THE_DOCK) == [], tag
        P.page.screenshot(path=os.path.join(artifacts, f"phone-shot-dock-{tag}-foot.png"))
        P.page.evaluate("document.querySelector('#qa-long').remove()")
        P.page.evaluate("window.scrollTo(0, 0)")
        P.page.screenshot(path=os.path.join(artifacts, f"phone-shot-dock-{tag}.png"))
    # + and - move the power as the slider would; the panel's box shows the same speed
    before = P.page.input_value("#power-speed")
    P.page.tap("#dock-power-up")
    up = P.page.inner_text("[data-testid=dock-speed]")
    assert float(up) > float(before) + 0.01, (before, up)
    assert abs(float(P.page.input_value("#power-speed")) - float(up)) < 0.006
    P.page.tap("#dock-power-down")
    assert abs(float(P.page.input_value("#power-speed")) - float(before)) < 0.006
    pos = d["state"]["legal"]["shoot"]["lag_balls"]["0"]  # the exact lag speed again (the dock went along the slider)
    P.set_stroke(0.0, pool_lag_speed(table, pos[0], pos[1]))
    P.page.evaluate("window.scrollTo(0, 0)")
    P.page.wait_for_selector("#dock-shoot", state="visible", timeout=5000)
    P.page.tap("#dock-shoot")
    D.shoot()
    nv = next_version([P, D], v)
    wait_all([P, D], nv)
    assert P.debug()["lastStroke"]["lag"]
    assert page_width(P) <= PORTRAIT[0]
    for p in (P, D):
        assert not p.errors, f"{p.name}: {p.errors}"


def test_a_phone_player_sideways_scrolled_down_to_the_controls_is_shown_the_game_over_summary(browser, live_server, artifacts):
    P, D = phone_against_desktop(browser, live_server, LANDSCAPE)
    # the player scrolls down to the stroke card below the table; the opponent resigns meanwhile
    P.page.evaluate("document.querySelector('#shoot-btn').scrollIntoView({ block: 'center' })")
    assert P.page.evaluate("window.scrollY") > LANDSCAPE[1], "the page did not scroll away from the table"
    D.resign()
    P.page.wait_for_selector("[data-testid=match-summary]", state="visible", timeout=15000)
    P.page.wait_for_function("""() => { const r = document.querySelector('[data-testid=match-summary]').getBoundingClientRect();
                                        return r.top >= 0 && r.bottom <= innerHeight && r.height > 100; }""", timeout=5000)
    assert P.page.text_content("[data-testid=summary-result]").startswith("Pia wins")
    assert P.page.is_visible("#summary-close")
    P.page.screenshot(path=os.path.join(artifacts, "phone-summary-landscape.png"))
    # upright, scrolled a little down (the summary brought into view left the scores 35 px above the screen, QA): a
    # rematch from the summary starts the new game with the page at its top
    P.page.set_viewport_size({"width": PORTRAIT[0], "height": PORTRAIT[1]})
    P.page.evaluate("window.scrollTo(0, 60)")
    assert P.page.evaluate("window.scrollY") > 0
    P.page.tap("#summary-rematch")
    D.page.wait_for_selector("#rematch-btn:has-text(\"Accept Pia's rematch\")", timeout=10000)
    D.page.click("#rematch-btn")
    P.page.wait_for_function("() => window.billar.table.debug().game === 2", timeout=10000)
    P.page.wait_for_function("() => window.scrollY === 0", timeout=5000)
    assert not P.errors and not D.errors


def test_an_upright_phone_shows_the_players_whole_name_and_which_seat_is_theirs(browser, live_server, artifacts):
    """QA: upright, the own seat's "(you)" cut the player's name ("Maximilian…"). The name keeps the name line; the
    seat is marked "you" over the target, under the score."""
    P, D = phone_against_desktop(browser, live_server, PORTRAIT, "Maximiliano", "three_cushion", None, "Wilhelmina")
    P.page.wait_for_function("() => document.querySelector('[data-testid=name-1]')?.textContent === 'Wilhelmina'")
    seen = P.page.evaluate("""() => [0, 1].map((s) => {
        const n = document.querySelector(`[data-testid=name-${s}]`);
        const t = document.querySelector(`.scoreboard .seat-${s} .target`);
        return { text: n.textContent, full: n.scrollWidth <= n.clientWidth, mark: getComputedStyle(t, '::before').content,
                 you: [...document.querySelectorAll(`.scoreboard .seat-${s} .you`)].some((e) => e.offsetParent !== null) };
    })""")
    assert seen[0] == {"text": "Maximiliano", "full": True, "mark": '"you"', "you": False}, seen
    assert seen[1]["text"] == "Wilhelmina" and seen[1]["full"] and seen[1]["mark"] in ("none", "normal"), seen
    # a desktop keeps "(you)" beside the name
    assert D.page.inner_text("[data-testid=you-1]") == "(you)"
    P.page.screenshot(path=os.path.join(artifacts, "phone-names-portrait.png"))
    assert not P.errors and not D.errors, (P.errors, D.errors)


def test_an_upright_phone_keeps_short_names_whole_beside_a_rating_and_the_ball_chip(browser, live_server, artifacts):
    """QA: upright, "Eve596" and "Finn596" were cut to "Eve…" and "Fin…" once a rating ("1500?") and the ball-colour
    chip stood beside them. The rating and chip spans are added here as the scoreboard draws them at a rated carom
    table after the break."""
    P, D = phone_against_desktop(browser, live_server, PORTRAIT, "Eve596", "three_cushion", None, "Finn596")
    P.page.wait_for_function("() => document.querySelector('[data-testid=name-1]')?.textContent === 'Finn596'")
    names = P.page.evaluate("""() => [0, 1].map((s) => {
        const w = document.querySelector(`.scoreboard .seat-${s} .who`);
        w.insertAdjacentHTML('beforeend', '<span class="seat-rating">1500?</span><span class="cue-chip white"></span>');
        const n = document.querySelector(`[data-testid=name-${s}]`);
        return [n.textContent, n.scrollWidth <= n.clientWidth];
    })""")
    assert names == [["Eve596", True], ["Finn596", True]], names
    P.page.screenshot(path=os.path.join(artifacts, "phone-names-rated-portrait.png"))
    assert not P.errors and not D.errors, (P.errors, D.errors)


def test_an_upright_phone_shows_the_whole_lag_words_above_the_shot_dock(browser, live_server, artifacts):
    """QA: upright, at the lag, the Shoot bar lay over the last line of the turn words under the table. The phone
    takes the second seat (the longer words: "the spotted white", "the yellow") at a 14.1 and a carom table; the turn
    words end above the dock, which stays clear of the table."""
    for discipline, ball in (("straight_pool", "spotted white"), ("three_cushion", "yellow")):
        D = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), live_server.url, "Desk")
        D.open()
        D.page.select_option("#discipline", discipline)
        D.page.click("#create-btn")
        D.wait_table()
        P = phone(browser, live_server, "Pia", PORTRAIT)
        P.open(f"#/table/{D.table_id()}")
        P.wait_table()
        P.page.tap("#take-seat-btn")
        P.page.wait_for_function("() => window.billar.table.debug().canShoot", timeout=15000)
        P.page.evaluate("window.scrollTo(0, 0)")
        P.page.wait_for_selector("#dock-shoot", state="visible", timeout=5000)
        P.redraw()
        words = P.page.inner_text("[data-testid=turn-status]")
        assert f"({'the ' + ball})" in words, words
        status, dock = P.page.evaluate("""() => ['[data-testid=turn-status]', '[data-testid=shot-dock]'].map((q) => {
            const r = document.querySelector(q).getBoundingClientRect(); return [r.top, r.bottom]; })""")
        assert status[0] >= table_rect(P)["table"][3] - 0.5 and dock[0] >= table_rect(P)["table"][3] - 0.5
        assert status[1] <= dock[0], f"{discipline}: the dock covers the turn words {status} {dock}: {words!r}"
        # the room comes off the table's height: a player's table is a little narrower than a spectator's full width
        t = table_rect(P)["table"]
        assert t[2] - t[0] >= 0.85 * PORTRAIT[0], f"{discipline}: the table shrank to {t}"
        P.page.screenshot(path=os.path.join(artifacts, f"phone-lag-words-{discipline}.png"))
        assert not P.errors and not D.errors, (P.errors, D.errors)
        P.page.context.close()
        D.page.context.close()


TABLE_SEEN = """() => { const r = document.querySelector('.canvas-wrap').getBoundingClientRect();
    return (Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)) / r.height; }"""


def test_an_upright_phone_brings_the_table_into_view_for_a_stroke_shot_or_replayed_from_below_it(browser, live_server, artifacts):
    """QA: upright, a stroke shot with the panel's Shoot, or replayed from the list of strokes, played on the table
    scrolled off the screen; the page stayed on the panel or the list. Now the table comes into view."""
    P, D = phone_against_desktop(browser, live_server, PORTRAIT)
    _, _, v = set_lag_strokes(P, D)
    P.page.evaluate("document.querySelector('#shoot-btn').scrollIntoView({ block: 'center' })")
    assert P.page.evaluate(TABLE_SEEN) < 0.5
    P.page.tap("#shoot-btn")
    P.page.wait_for_function(f"() => ({TABLE_SEEN})() >= 0.99", timeout=5000)
    D.shoot()
    wait_all([P, D], next_version([P, D], v))
    P.page.wait_for_function("() => !window.billar.table.debug().playback.animating", timeout=20000)
    # the lag, picked from the list of strokes under the table
    P.page.evaluate("document.querySelector('[data-testid=history] .entry-btn').scrollIntoView({ block: 'center' })")
    assert P.page.evaluate(TABLE_SEEN) < 0.5
    P.page.tap("[data-testid=history] .entry-btn")
    P.page.wait_for_function("() => window.billar.table.debug().playback.replaying", timeout=10000)
    assert P.page.evaluate(TABLE_SEEN) >= 0.99
    P.page.screenshot(path=os.path.join(artifacts, "phone-replay-from-list-portrait.png"))
    # the same on the game's replay page
    tid = P.table_id()
    P.page.evaluate("window.scrollTo(0, 0)")
    P.page.goto(f"{live_server.url}/#/replay/{tid}/1")
    P.page.wait_for_selector("[data-testid=history] .entry-btn", timeout=15000)
    P.page.wait_for_timeout(500)
    P.page.evaluate("[...document.querySelectorAll('[data-testid=history] .entry-btn')].at(-1).scrollIntoView({ block: 'center' })")
    assert P.page.evaluate(TABLE_SEEN) < 0.5
    P.page.tap("[data-testid=history] .entry-btn >> nth=-1")
    P.page.wait_for_function(f"() => ({TABLE_SEEN})() >= 0.99", timeout=5000)
    P.page.screenshot(path=os.path.join(artifacts, "phone-replay-page-from-list-portrait.png"))
    assert not P.errors and not D.errors, (P.errors, D.errors)


def test_an_upright_phones_lobby_keeps_words_whole_beside_long_player_names(browser, live_server, artifacts):
    """QA: upright, a lobby card of a rated three-cushion table between two long names ("qa_alice (1338?) vs qa_bob
    (1662?)") squeezed the discipline to "Three-cushio / n" and the badge to "rate / d". The players take a line of
    their own: the discipline, its badge and the watchers stay whole words."""
    A = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), live_server.url,
                   "Maximiliano Rodriguez")
    A.open()
    A.page.select_option("#discipline", "three_cushion")
    A.page.click("#create-btn")
    A.wait_table()
    tid = A.table_id()
    B = ClientPage(browser.new_context(viewport={"width": 1280, "height": 800}).new_page(), live_server.url,
                   "Wilhelmina Sophia")
    B.open(f"#/table/{tid}")
    B.wait_table()
    B.page.click("#take-seat-btn")
    P = phone(browser, live_server, "Pia", PORTRAIT)
    P.open()
    row = f"tr[data-table='{tid}']"
    P.page.wait_for_function(f"() => /Wilhelmina/.test(document.querySelector(\"{row}\")?.textContent ?? '')", timeout=15000)
    lines = P.page.evaluate(f"""() => {{
        const tr = document.querySelector("{row}");
        const count = (el) => {{ const r = document.createRange(); r.selectNodeContents(el);
            return new Set([...r.getClientRects()].map((q) => Math.round(q.top))).size; }};
        return {{ discipline: count(tr.querySelector('td').firstChild), watching: count(tr.querySelector('td.num')),
                 badge: count(tr.querySelector('.badge')) }};
    }}""")
    assert lines == {"discipline": 1, "watching": 1, "badge": 1}, lines
    assert page_width(P) <= PORTRAIT[0]
    P.page.locator(row).screenshot(path=os.path.join(artifacts, "phone-lobby-long-names.png"))
    assert not P.errors and not A.errors and not B.errors


def test_the_register_dialog_fits_a_sideways_phone(browser, live_server, artifacts):
    """QA: at 844x390 the Register dialog's last line ("Have an account? Log in") was cut off at the screen's edge,
    below an empty line kept for an error. The whole dialog is on the screen without scrolling it, upright too."""
    for size in (LANDSCAPE, PORTRAIT):
        P = phone(browser, live_server, "Reg", size)
        P.open()
        P.page.tap("#register-btn")
        P.page.wait_for_selector(".modal [data-kind=register]")
        fits = P.page.evaluate("""() => { const m = document.querySelector('.modal'), s = document.querySelector('#acc-switch').getBoundingClientRect();
            return [m.scrollHeight <= m.clientHeight + 1, s.bottom <= innerHeight, s.top >= 0]; }""")
        P.page.screenshot(path=os.path.join(artifacts, f"phone-register-{size[0]}x{size[1]}.png"))
        assert fits == [True, True, True], (size, fits)
        assert not P.errors
        P.page.context.close()
