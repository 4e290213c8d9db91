"""Accounts in the browser, the gaps of issue 15 left by test_browser_accounts.py: change password
(the old one fails, the new one works, other sessions end) and delete account (wrong password
refused; then a guest, 401, the profile gone, the games kept under a retired name on the
opponent's profile); rated quick play between two logged-in browsers (a guest's quick play never
pairs with them), the seated players' ratings on the scoreboard and the landscape-phone HUD
against the API; the replay of a rated game with strokes from the profile (the table drawn, the
strokes listed) and of a game resigned before any stroke; the high-run board with an entry (a
rated game played to its end by two bots over plain sockets with the players' session cookies).
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

from websockets.asyncio.client import connect as aconnect

import protocol
from bots.client import BotPlayer, Link, Stats
from bots.engine import Player
from protocol import inbound as I

from e2e_driver import ClientPage
from games import both_played, play_carom, play_straight_pool
from test_browser_accounts import (PASSWORD, THREE, ApiClient, api_get, board_rows, menu, play_rated_resigns, shot,
                                   unique, wait_account)
from test_browser_phone import LANDSCAPE, page_width
from test_browser_straight_pool import new_page

NEW_PASSWORD = "battery staple horse"


def q(name: str) -> str:
    return urllib.parse.quote(name)


def api_account(base: str, name: str, password: str = PASSWORD, register: bool = True) -> ApiClient:
    """A logged-in player of the API (registered first unless ``register`` is false)."""
    api = ApiClient(base)
    st, body = api.call("POST", f"/api/account/{'register' if register else 'login'}",
                        {"username": name, "password": password})
    assert st == (201 if register else 200), body
    return api


def log_in(P: ClientPage, name: str, password: str) -> None:
    P.page.click("#login-btn")
    P.page.fill("#acc-username", name)
    P.page.fill("#acc-password", password)
    P.page.click("#acc-submit")


def form_error(P: ClientPage) -> str:
    P.page.wait_for_function("() => document.querySelector('[data-testid=account-error]')?.textContent !== ''",
                             timeout=15000)
    return P.page.inner_text("[data-testid=account-error]")


def page_status(P: ClientPage, path: str) -> int:
    """The status of ``GET path`` fetched by the page (its cookies)."""
    return P.page.evaluate("p => fetch(p, {credentials: 'same-origin'}).then(r => r.status)", path)


def rating_words(profile: dict, discipline: str) -> str:
    """The profile's rating of ``discipline`` as the page writes it (players/model.ts ratingText)."""
    r = next(x for x in profile["ratings"] if x["discipline"] == discipline)
    return f"{round(r['rating'])}{'?' if r['provisional'] else ''}"


# ----- 1. change password, delete account ---------------------------------------------------------------
def test_change_password_then_delete_the_account(browser, live_server, artifacts):
    base = live_server.url
    a_name, b_name = unique("Pat"), unique("Opp")
    a_api, b_api = api_account(base, a_name), api_account(base, b_name)
    play_rated_resigns(base, a_api, b_api, 1)  # one rated game: b resigns, a wins
    P = new_page(browser, live_server, "pat")
    P.open()
    log_in(P, a_name, PASSWORD)
    wait_account(P, a_name)

    # change the password in the page: the other session (a_api) ends, the page's goes on with a new cookie
    menu(P, "password")
    P.page.fill("#acc-current", "not my password")
    P.page.fill("#acc-new", NEW_PASSWORD)
    P.page.click("#acc-submit")
    assert form_error(P) == "The current password is wrong (or your session ended)."
    P.page.fill("#acc-current", PASSWORD)
    P.page.click("#acc-submit")
    P.page.wait_for_selector("#acc-current", state="detached", timeout=15000)
    assert page_status(P, "/api/account") == 200, "the page's session goes on (its cookie was rotated)"
    st, body = a_api.call("GET", "/api/account")
    assert st == 401, ("the session from before the change ended", st, body)
    assert ApiClient(base).call("POST", "/api/account/login", {"username": a_name, "password": PASSWORD})[0] == 401
    assert ApiClient(base).call("POST", "/api/account/login", {"username": a_name, "password": NEW_PASSWORD})[0] == 200
    # in the page too: log out, the old password is refused, the new one logs in
    menu(P, "logout")
    wait_account(P, None)
    log_in(P, a_name, PASSWORD)
    assert form_error(P) == "Wrong username or password."
    P.page.fill("#acc-password", NEW_PASSWORD)
    P.page.click("#acc-submit")
    wait_account(P, a_name)
    shot(P, artifacts, "accounts-password-changed.png")

    game_id = api_get(base, f"/api/players/{q(a_name)}")["recent_games"][0]["id"]
    # delete with a wrong password: refused in words, nothing deleted
    menu(P, "delete")
    P.page.fill("#acc-password", "not my password")
    P.page.check("#acc-confirm")
    P.page.click("#acc-submit")
    assert form_error(P) == "Wrong password."
    shot(P, artifacts, "accounts-delete-wrong-password.png")
    assert page_status(P, "/api/account") == 200
    assert api_get(base, f"/api/players/{q(a_name)}")["username"] == a_name
    # the right password and the box ticked: gone
    P.page.fill("#acc-password", NEW_PASSWORD)
    P.page.click("#acc-submit")
    wait_account(P, None)
    assert P.page.is_visible("#register-btn") and P.page.is_disabled("#rated")
    assert page_status(P, "/api/account") == 401
    assert ApiClient(base).call("GET", f"/api/players/{q(a_name)}")[0] == 404
    assert ApiClient(base).call("POST", "/api/account/login", {"username": a_name, "password": NEW_PASSWORD})[0] == 401
    P.page.goto(f"{base}/#/@/{q(a_name)}")
    P.page.wait_for_selector("[data-testid=not-found]", timeout=15000)
    assert P.page.inner_text("[data-testid=not-found]") == "No such player."

    # the game stays: on the opponent's profile under a retired name, not a link, its replay still there
    prof = api_get(base, f"/api/players/{q(b_name)}")
    game = next(g for g in prof["recent_games"] if g["id"] == game_id)
    retired = game["opponent"]["name"]
    assert retired.startswith("deleted-") and not game["opponent"]["registered"], game
    P.page.goto(f"{base}/#/@/{q(b_name)}")
    row = f"[data-testid=recent-games] tr[data-game='{game_id}']"
    P.page.wait_for_selector(row, timeout=15000)
    assert P.page.inner_text(f"{row} [data-testid=game-opponent]") == retired
    assert P.page.query_selector(f"{row} [data-testid=game-opponent] a") is None
    assert P.page.inner_text(f"{row} [data-testid=game-result]") == "Lost"
    shot(P, artifacts, "accounts-deleted-opponent-profile.png")
    assert not P.errors, P.errors


# ----- 2. rated quick play, 3. ratings at the table ----------------------------------------------------
def test_rated_quick_play_between_two_browsers_with_the_ratings_at_the_table(browser, live_server, artifacts):
    base = live_server.url
    a_name, b_name = unique("Qa"), unique("Qb")
    a_api, b_api = api_account(base, a_name), api_account(base, b_name)
    # both win one rated game against someone else: the same provisional rating, so rated quick play pairs them at once
    for me in (a_api, b_api):
        play_rated_resigns(base, me, api_account(base, unique("Qx")), 1)
    A = new_page(browser, live_server, "qa")
    B = new_page(browser, live_server, "qb")
    G = new_page(browser, live_server, "Visitor")
    for P, name in ((A, a_name), (B, b_name)):
        P.open()
        log_in(P, name, PASSWORD)
        wait_account(P, name)
    G.open()

    # a guest cannot tick Rated; its quick play waits in the casual queue
    assert G.page.is_disabled("#rated")
    G.page.select_option("#discipline", THREE)
    G.page.click("#quick-play-btn")
    G.page.wait_for_selector("#quick-play-cancel", timeout=15000)
    # A and B ask for a rated game of the same discipline: they are paired together, never with the guest
    for P in (A, B):
        P.page.select_option("#discipline", THREE)
        P.page.check("#rated")
        P.page.click("#quick-play-btn")
        if P is A:
            A.page.wait_for_selector("#quick-play-cancel", timeout=15000)
    A.wait_table(30)
    B.wait_table(30)
    tid = A.table_id()
    assert B.table_id() == tid
    assert A.debug()["rated"] is True and B.debug()["rated"] is True
    assert G.page.is_visible("#quick-play-cancel"), "the guest is still waiting: not paired with a rated seeker"
    assert G.page.evaluate("location.hash") in ("", "#/")
    # the guest's lobby shows the table rated, with the ratings
    row = f"tr[data-table='{tid}']"
    G.page.wait_for_selector(f"{row} .badge.rated", timeout=15000)

    # the scoreboard: each seated player's rating as the API gives it ("?" while provisional)
    A.page.wait_for_function("() => window.billar.table.debug().seats.every(s => s !== null)")
    seats = A.debug()["seats"]
    names = [s["name"] for s in seats]
    assert sorted(names) == sorted([a_name, b_name])
    for P in (A, B):
        P.page.wait_for_selector("[data-testid=seat-rating-1]", timeout=15000)
        for s in (0, 1):
            want = rating_words(api_get(base, f"/api/players/{q(names[s])}"), THREE)
            assert want.endswith("?"), want  # two games: provisional
            assert P.page.inner_text(f"[data-testid=seat-rating-{s}]") == want
            assert P.page.inner_text(f"[data-testid=name-{s}]").startswith(names[s])
    shot(A, artifacts, "accounts-quick-play-scoreboard.png")
    # the landscape phone's HUD carries them too, and the page stays on the screen
    A.page.set_viewport_size({"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    A.page.wait_for_selector("[data-testid=hud-rating-1]", state="visible", timeout=15000)
    for s in (0, 1):
        assert A.page.inner_text(f"[data-testid=hud-rating-{s}]") == A.page.inner_text(f"[data-testid=seat-rating-{s}]")
    assert page_width(A) <= LANDSCAPE[0]
    shot(A, artifacts, "accounts-quick-play-hud-landscape.png")
    A.page.set_viewport_size({"width": 1360, "height": 860})

    # both play their first stroke (the lag first), then B resigns: both see the rating changes
    seat_a = A.debug()["mySeat"]
    play_carom(*((A, B) if seat_a == 0 else (B, A)), [], THREE, A.debug()["config"], until=both_played, caroms=False)
    B.page.once("dialog", lambda d: d.accept())
    B.page.click("#resign-btn")
    for P in (A, B):
        P.page.wait_for_function("() => /\u2192/.test(document.querySelector('[data-testid=sum-rating-0]')?.textContent || '')"
                                 " && /\u2192/.test(document.querySelector('[data-testid=sum-rating-1]')?.textContent || '')",
                                 timeout=30000)
    shot(B, artifacts, "accounts-quick-play-rated-summary.png")
    G.page.click("#quick-play-cancel")
    assert not A.errors and not B.errors and not G.errors, (A.errors, B.errors, G.errors)


# ----- 4. replay of a rated game with strokes, and of one with none -------------------------------------
def canvas_cloth(P: ClientPage) -> dict:
    """The replay canvas sampled on a grid: its size and the share of the commonest (cloth) colour."""
    return P.page.evaluate("""() => {
      const c = document.querySelector('.replay-view canvas');
      if (!c || !c.width || !c.height) return {w: 0, h: 0, share: 0, color: null};
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const counts = new Map(); let n = 0;
      for (let j = 1; j < 20; j++) for (let i = 1; i < 40; i++) {
        const x = Math.floor(c.width * i / 40), y = Math.floor(c.height * j / 20), k = 4 * (y * c.width + x);
        if (d[k + 3] === 0) { n++; continue; }
        const key = [d[k] >> 3, d[k + 1] >> 3, d[k + 2] >> 3].join(',');
        counts.set(key, (counts.get(key) || 0) + 1); n++;
      }
      let best = null, most = 0;
      for (const [k, v] of counts) if (v > most) { most = v; best = k; }
      return {w: c.width, h: c.height, share: most / n, color: best};
    }""")


def test_replay_of_a_rated_game_with_strokes_from_the_profile(browser, live_server, artifacts):
    base = live_server.url
    a_name, b_name = unique("Ra"), unique("Rb")
    api_account(base, a_name)
    api_account(base, b_name)
    A = new_page(browser, live_server, "ra")
    B = new_page(browser, live_server, "rb")
    for P, name in ((A, a_name), (B, b_name)):
        P.open()
        log_in(P, name, PASSWORD)
        wait_account(P, name)
    A.page.select_option("#discipline", "straight_pool")
    A.page.check("#rated")
    A.page.click("#create-btn")
    A.wait_table()
    tid = A.table_id()
    B.join_from_lobby(tid)
    # the lag, the choice of the breaker, the break and the other player's first stroke, through the pages'
    # controls (a rated game resigned before both have played is aborted, not rated)
    play_straight_pool(A, B, [], until=lambda st: both_played(A.debug()))
    B.resign()  # B may be facing a decision dialog
    B.page.wait_for_function("() => /\u2192/.test(document.querySelector('[data-testid=sum-rating-1]')?.textContent || '')",
                             timeout=30000)
    prof = api_get(base, f"/api/players/{q(a_name)}")
    game = prof["recent_games"][0]
    assert game["discipline"] == "straight_pool" and game["rated"] and game["result"] == "win"
    rec = api_get(base, f"/api/games/{game['id']}")
    assert rec["preset"] and sum(1 for s in rec["strokes"] if "sim" in s) >= 2  # the lag and the break
    brk = next(i for i, s in enumerate(rec["strokes"]) if "sim" in s and not s.get("lag"))

    # the profile's replay link opens the record: the table drawn, every stroke listed
    A.page.goto(f"{base}/#/@/{q(a_name)}")
    link = f"[data-testid=recent-games] tr[data-game='{game['id']}'] [data-action=replay]"
    A.page.wait_for_selector(link, timeout=15000)
    A.page.click(link)
    A.page.wait_for_function("() => !/Loading/.test((document.querySelector('[data-testid=replay-status]')?.textContent ?? 'Loading'))",
                             timeout=15000)
    status = A.page.inner_text("[data-testid=replay-status]")
    assert a_name in status and b_name in status, status
    assert A.page.evaluate("location.hash") == f"#/game/{game['id']}"
    items = A.page.eval_on_selector_all("[data-testid=history] > *", "es => es.map(e => e.textContent)")
    assert len(items) == len(rec["strokes"]) >= 3, items
    A.page.wait_for_timeout(300)
    cloth = canvas_cloth(A)
    assert cloth["w"] > 200 and cloth["h"] > 100 and cloth["share"] > 0.3, cloth
    shot(A, artifacts, "accounts-replay-with-strokes.png")
    # the break picked in the list plays
    A.page.click(f"[data-testid=history] > *:nth-child({brk + 1})")
    A.page.wait_for_function("() => (document.querySelector('[data-testid=replay-scores]')?.textContent ?? '') !== ''", timeout=10000)
    assert not A.errors and not B.errors, (A.errors, B.errors)


def test_replay_of_a_game_resigned_before_any_stroke(browser, live_server, artifacts):
    base = live_server.url
    a_name, b_name = unique("Na"), unique("Nb")
    play_rated_resigns(base, api_account(base, a_name), api_account(base, b_name), 1, strokes=False)
    game = api_get(base, f"/api/players/{q(a_name)}")["recent_games"][0]
    assert api_get(base, f"/api/games/{game['id']}")["preset"] is None
    P = new_page(browser, live_server, "viewer")
    P.page.goto(f"{base}/#/@/{q(a_name)}")
    link = f"[data-testid=recent-games] tr[data-game='{game['id']}'] [data-action=replay]"
    P.page.wait_for_selector(link, timeout=15000)
    P.page.click(link)
    P.page.wait_for_function("() => !/Loading/.test((document.querySelector('[data-testid=replay-status]')?.textContent ?? 'Loading'))",
                             timeout=15000)
    assert P.page.inner_text("[data-testid=replay-status]") == "This game ended before any stroke was played."
    summary = P.page.inner_text("[data-testid=replay-scores]")
    assert a_name in summary and b_name in summary, summary
    shot(P, artifacts, "accounts-replay-no-stroke.png")
    assert not P.errors, P.errors


# ----- 5. the high-run board with an entry -------------------------------------------------------------
async def _bot_link(base: str, api: ApiClient, name: str) -> Link:
    url = base.replace("http", "ws", 1) + "/ws"
    ws = await aconnect(url, compression=None, max_size=None, open_timeout=20, ping_interval=None,
                        additional_headers={"Cookie": api.cookie_header(), "Origin": base})
    link = Link(ws, name, url)
    await link.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name, client="e2e-bots"))
    msg, _ = await link.recv(20)
    assert msg["type"] == "welcome" and (msg.get("account") or {}).get("name") == name, msg
    link.welcome = msg
    return link


async def bots_play_rated(base: str, first: tuple, second: tuple, discipline: str, config: dict, level: int = 3,
                          budget_s: float = 300.0) -> str:
    """One rated game of ``discipline`` played to its end by two bots (bots/client.py) on sockets carrying
    the players' session cookies; ``first``/``second``: (ApiClient, name). Returns the table id."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget_s
    stats = Stats()
    la = await _bot_link(base, *first)
    lb = await _bot_link(base, *second)
    try:
        pa, pb = BotPlayer(la, Player(level, 11), stats), BotPlayer(lb, Player(level, 12), stats)
        await la.send(I.CreateTable(discipline=discipline, config=config, seat=0, rated=True))
        while pa.table is None:
            msg, data = await la.recv(20)
            assert msg["type"] != "error", msg
            await pa.on_message(msg, data)
        await lb.send(I.Join(table=pa.table, seat=1))
        done = await asyncio.gather(pa.play(deadline), pb.play(deadline))
        assert all(done) and not stats.errors, (done, stats.errors)
        return pa.table
    finally:
        await la.close()
        await lb.close()


def test_the_high_run_board_lists_a_run_made_in_a_rated_game(browser, live_server, artifacts):
    base = live_server.url
    a_name, b_name = unique("Hr"), unique("Hs")
    a_api, b_api = api_account(base, a_name), api_account(base, b_name)
    discipline = "libre"
    # straight rail to one point: whoever scores the first carom has a run of 1 and wins
    with ThreadPoolExecutor(1) as pool:  # an event loop of its own, away from Playwright's
        pool.submit(asyncio.run, bots_play_rated(base, (a_api, a_name), (b_api, b_name), discipline,
                                                 {"distance": 1, "breaker": 0}, level=3)).result()
    deadline = time.time() + 30
    while True:
        board = api_get(base, f"/api/leaderboard/{discipline}")
        mine = [r for r in board["high_run"] if r["username"] in (a_name, b_name)]
        if mine or time.time() > deadline:
            break
        time.sleep(0.5)
    assert mine and mine[0]["high_run"] >= 1, board
    P = new_page(browser, live_server, "viewer")
    P.page.goto(f"{base}/#/leaderboard/{discipline}")
    P.page.wait_for_selector("[data-testid=board-high-run]", timeout=15000)
    time.sleep(2.1)  # the API caches the board 2 s: read it again, then what the page shows must be no older
    P.page.reload()
    P.page.wait_for_selector("[data-testid=board-high-run]", timeout=15000)
    board = api_get(base, f"/api/leaderboard/{discipline}")
    assert board_rows(P, "board-high-run") == [
        [str(r["rank"]), r["username"], str(r["high_run"]), f"{r['average']:.3f}"] for r in board["high_run"]]
    assert any(row[1] in (a_name, b_name) and int(row[2]) >= 1 for row in board_rows(P, "board-high-run"))
    shot(P, artifacts, "accounts-leaderboard-high-run.png")
    # the winner's profile says the same high run
    winner = mine[0]["username"]
    prof = api_get(base, f"/api/players/{q(winner)}")
    stat = next(s for s in prof["statistics"] if s["discipline"] == discipline)
    assert stat["high_run"] == mine[0]["high_run"]
    assert not P.errors, P.errors


def test_a_rated_game_resigned_before_both_have_played_shows_as_aborted(browser, live_server, artifacts):
    """QA: a rated game resigned straight after the seats filled moved both ratings by 162 points. Now it is
    aborted: a spectator's page says so under the history and in the summary, and the profiles hold no rating."""
    base = live_server.url
    a_name, b_name = unique("Ab"), unique("Ac")
    a_api, b_api = api_account(base, a_name), api_account(base, b_name)
    tid = play_rated_resigns(base, a_api, b_api, 1, strokes=False)
    P = new_page(browser, live_server, "viewer")
    P.open(f"#/table/{tid}")
    P.page.wait_for_selector("[data-testid=history-ratings]:not([hidden])", timeout=20000)
    assert P.page.inner_text("[data-testid=history-ratings]") == \
        "Not rated: the game was aborted before both players had played a stroke."
    for s in (0, 1):
        assert P.page.inner_text(f"[data-testid=sum-rating-{s}]") == "not rated (aborted)"
    assert "aborted before both players had played a stroke: not rated" in P.page.inner_text("[data-testid=history]")
    shot(P, artifacts, "accounts-aborted-game.png")
    for name in (a_name, b_name):
        prof = api_get(base, f"/api/players/{q(name)}")
        assert prof["ratings"] == [] and prof["statistics"] == [], prof
        assert [(g["rated"], g["aborted"]) for g in prof["recent_games"]] == [(False, True)], prof
    # the profile lists the game as aborted (QA: it said "casual" and counted it in the statistics)
    P.page.goto(f"{base}/#/@/{q(a_name)}")
    P.page.wait_for_selector("[data-testid=recent-games] [data-testid=game-rating]", timeout=15000)
    assert P.page.inner_text("[data-testid=recent-games] [data-testid=game-rating]") == "aborted"
    shot(P, artifacts, "accounts-aborted-profile.png")
    assert not P.errors, P.errors


def test_an_upright_phone_shows_every_column_of_a_profiles_wide_tables(browser, live_server, artifacts):
    """QA: upright on a phone, a profile's statistics and recent games scrolled sideways inside their cards with no
    cue: the rating change, the date and Replay were out of sight. They become a card per row there, each figure
    beside its column's name, all inside the screen."""
    base = live_server.url
    a_name, b_name = unique("Wide"), unique("Opp")
    play_rated_resigns(base, api_account(base, a_name), api_account(base, b_name), 1)
    from test_browser_phone import PORTRAIT, phone
    P = phone(browser, live_server, "Viewer", PORTRAIT)
    P.page.goto(f"{base}/#/@/{urllib.parse.quote(a_name)}")
    P.page.wait_for_selector("[data-testid=recent-games] td", timeout=15000)
    seen = P.page.evaluate("""() => ['statistics', 'recent-games'].map((t) => {
        const table = document.querySelector(`[data-testid=${t}]`), card = table.closest('.table-scroll');
        const c = card.getBoundingClientRect();
        const cells = [...table.querySelectorAll('td')].map((td) => {
            const r = td.getBoundingClientRect();
            return { label: td.dataset.label, shown: getComputedStyle(td, '::before').content, text: td.textContent,
                     inside: r.left >= c.left - 0.5 && r.right <= c.right + 0.5 && r.right <= innerWidth };
        });
        return { scrolls: card.scrollWidth > card.clientWidth + 1, cells };
    })""")
    for t in seen:
        assert not t["scrolls"] and all(c["inside"] for c in t["cells"]), t
        assert all(c["shown"] == f'"{c["label"]}"' for c in t["cells"] if c["label"]), t
    games = {c["label"]: c["text"] for c in seen[1]["cells"]}
    assert games["Result"] == "Won" and games["Opponent"] == b_name and games["Rating"].startswith("+"), games
    assert P.page.is_visible("[data-testid=recent-games] [data-action=replay]")
    assert page_width(P) <= PORTRAIT[0]
    shot(P, artifacts, "profile-phone-portrait.png")
    assert not P.errors, P.errors
