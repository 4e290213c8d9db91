"""The JSON API in-process: every route, the checks of issue 15, and every response validated against the OpenAPI document."""

import datetime as dt
import gzip
import json

import jsonschema
import pytest
from openapi_spec_validator import validate as validate_spec

from server.api import ApiRequest, PlayersApi, document
from server.api.messages import MAX_BODY_BYTES
from server.players.accounts import Accounts
from server.players.games import record_game
from server.records import export
from records_helpers import server_record

PW = "correct horse battery"
HOST = "billar.example:8765"
JSON = {"content-type": "application/json", "host": HOST}


class Client:
    """Calls the API like a browser on http://HOST would, keeping the session cookie and the device cookie (sent,
    as its Path says, to /api/account and below only); validates every response."""

    def __init__(self, api: PlayersApi, https: bool = False, client: str = "10.1.2.3"):
        self.api, self.https, self.client_addr = api, https, client
        self.doc = document(api.routes)
        self.cookie = None
        self.device = None
        self.seen = set()

    async def call(self, method, path, body=None, headers=None, raw=None, query=""):
        h = dict(JSON if method == "POST" else {"host": HOST})
        jar = [f"billar_session={self.cookie}"] if self.cookie else []
        if self.device and (path == "/api/account" or path.startswith("/api/account/")):
            jar.append(f"billar_device={self.device}")
        if jar:
            h["cookie"] = "; ".join(["other=1"] + jar)
        h.update(headers or {})
        data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
        resp = await self.api.handle(ApiRequest(method, path, query, h, data, self.client_addr, self.https))
        for v in resp.header("set-cookie"):
            name, _, rest = v.partition("=")
            assert name in ("billar_session", "billar_device")
            value = rest.split(";")[0] or None
            if name == "billar_session":
                self.cookie = value
            else:
                self.device = value
        self._conforms(method, path, resp)
        return resp

    def _conforms(self, method, path, resp):
        route, _, allowed = self.api.router.match(method, path)
        if route is None:
            schema_ref = "#/components/schemas/Error"
        else:
            responses = self.doc["paths"][route.pattern][method.lower()]["responses"]
            assert str(resp.status) in responses, (method, path, resp.status)  # the status is documented
            schema_ref = responses[str(resp.status)]["content"]["application/json"]["schema"]["$ref"]
            self.seen.add((route.operation_id, resp.status))
        assert resp.header("content-type") in ([], ["application/json"])
        body = resp.decoded()
        jsonschema.validate(body, {"$ref": schema_ref, "components": self.doc["components"]},
                            cls=jsonschema.Draft202012Validator)


@pytest.fixture
def api(db, hasher):
    return PlayersApi(db, Accounts(db, hasher=hasher), origins=["https://play.billar.example"], leaderboard_ttl_s=0)


async def test_leaderboard_cached_for_its_ttl(db, hasher):
    t = [100.0]
    api = PlayersApi(db, Accounts(db, hasher=hasher), leaderboard_ttl_s=5.0, monotonic=lambda: t[0])
    c = Client(api)
    ids = []
    for n in ("Ann", "Bob"):
        cl = Client(api)
        await cl.call("POST", "/api/account/register", {"username": n, "password": PW})
        ids.append((await api.account_for_cookie(f"billar_session={cl.cookie}")).id)
    assert (await c.call("GET", "/api/leaderboard/three_cushion")).decoded()["high_run"] == []
    await record_game(db, *server_record("three_cushion", "cache", 1, accounts=ids), export)
    t[0] += 4.9  # still the cached answer
    assert (await c.call("GET", "/api/leaderboard/three_cushion")).decoded()["high_run"] == []
    t[0] += 0.2
    runs = (await c.call("GET", "/api/leaderboard/three_cushion")).decoded()["high_run"]
    assert [(e["username"], e["high_run"]) for e in runs] == [("Bob", 4), ("Ann", 3)]


def test_openapi_document_is_valid(db, hasher):
    doc = document(PlayersApi(db, Accounts(db, hasher=hasher)).routes)
    validate_spec(doc)
    assert set(doc["paths"]) == {
        "/api/account/register", "/api/account/login", "/api/account/logout", "/api/account/password",
        "/api/account/delete", "/api/account", "/api/account/drills", "/api/players/{name}", "/api/players/{name}/games",
        "/api/games/{id}", "/api/leaderboard/{discipline}", "/api/positions", "/api/positions/{code}", "/api/drills",
        "/api/tv", "/api/tv/{channel}", "/api/games/live", "/api/tournaments", "/api/tournaments/{id}",
        "/api/tournaments/{id}/join", "/api/tournaments/{id}/leave", "/api/puzzles/daily", "/api/puzzles/{id}",
        "/api/puzzles/{id}/attempt"}


async def test_register_login_logout_and_account(api):
    c = Client(api)
    r = await c.call("GET", "/api/account")
    assert r.status == 401 and r.decoded()["error"]["code"] == "not_logged_in"
    r = await c.call("POST", "/api/account/register", {"username": "Ann", "password": PW})
    assert r.status == 201 and r.decoded()["account"]["username"] == "Ann"
    cookie = r.header("set-cookie")[0]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie and "Secure" not in cookie
    assert PW not in json.dumps(r.decoded()) and PW not in cookie
    first = c.cookie
    assert (await c.call("GET", "/api/account")).decoded()["account"]["username"] == "Ann"
    r = await c.call("POST", "/api/account/login", {"username": "ANN", "password": PW})
    assert r.status == 200 and c.cookie != first  # rotated at login
    c2 = Client(api)
    c2.cookie = first
    assert (await c2.call("GET", "/api/account")).status == 401  # the old token is dead
    r = await c.call("POST", "/api/account/logout", {})
    assert r.status == 200 and c.cookie is None and "Max-Age=0" in r.header("set-cookie")[0]
    assert (await c.call("GET", "/api/account")).status == 401


async def test_secure_cookie_over_https(api):
    c = Client(api, https=True)
    r = await c.call("POST", "/api/account/register", {"username": "Ann", "password": PW},
                     headers={"origin": f"https://{HOST}"})
    assert r.status == 201 and "; Secure" in r.header("set-cookie")[0]


async def test_errors_and_their_statuses(api):
    c = Client(api)
    await c.call("POST", "/api/account/register", {"username": "Bob", "password": PW})
    cases = [
        (("POST", "/api/account/register", {"username": "bob", "password": PW}), 409, "username_taken"),
        (("POST", "/api/account/register", {"username": "B0B", "password": PW}), 409, "username_taken"),
        (("POST", "/api/account/register", {"username": "Воb", "password": PW}), 409, "username_taken"),
        (("POST", "/api/account/register", {"username": "X" * 21, "password": PW}), 400, "bad_username"),
        (("POST", "/api/account/register", {"username": "", "password": PW}), 400, "bad_username"),
        (("POST", "/api/account/register", {"username": "   ", "password": PW}), 400, "bad_username"),
        (("POST", "/api/account/login", {"username": "", "password": PW}), 401, "login_failed"),
        (("POST", "/api/account/register", {"username": "X" * 65, "password": PW}), 400, "bad_field"),
        (("POST", "/api/account/register", {"username": "Zo\u0007e", "password": PW}), 400, "bad_username"),
        (("POST", "/api/account/register", {"username": "Computer (level 1)", "password": PW}), 400, "reserved_username"),
        (("POST", "/api/account/register", {"username": "Zoe", "password": "short"}), 400, "bad_password"),
        (("POST", "/api/account/register", {"username": "Zoe"}), 400, "bad_field"),
        (("POST", "/api/account/register", {"username": "Zoe", "password": PW, "admin": True}), 400, "bad_field"),
        (("POST", "/api/account/register", {"username": ["Zoe"], "password": PW}), 400, "bad_field"),
        (("POST", "/api/account/register", ["Zoe", PW]), 400, "bad_field"),
        (("POST", "/api/account/login", {"username": "Bob", "password": "wrong wrong"}), 401, "login_failed"),
        (("POST", "/api/account/login", {"username": "Nobody", "password": PW}), 401, "login_failed"),
        (("POST", "/api/account/password", {"current_password": PW, "new_password": PW + "x"}), 401, "not_logged_in"),
        (("POST", "/api/account/delete", {"password": PW}), 401, "not_logged_in"),
        (("GET", "/api/players/Nobody", None), 404, "not_found"),
        (("GET", "/api/players/Nobody/games", None), 404, "not_found"),
        (("GET", "/api/games/999", None), 404, "not_found"),
        (("GET", "/api/games/abc", None), 404, "not_found"),
        (("GET", "/api/leaderboard/snooker", None), 404, "not_found"),
        (("GET", "/api/nothing", None), 404, "not_found"),
        (("GET", "/api/account/login", None), 405, "method_not_allowed"),
        (("DELETE", "/api/account", None), 405, "method_not_allowed"),
    ]
    for (method, path, body), status, code in cases:
        anon = Client(api)
        r = await anon.call(method, path, body)
        assert (r.status, r.decoded()["error"]["code"]) == (status, code), (method, path, body)
    r = await Client(api).call("GET", "/api/account/login")
    assert r.header("allow") == ["POST"]
    # a blank name is told the account's rule, as the form says it (QA: "must be 1 to 64 characters")
    r = await Client(api).call("POST", "/api/account/register", {"username": "  ", "password": PW})
    assert r.decoded()["error"]["message"] == "username: must be 2 to 20 characters, got 0", r.decoded()
    # the same wrong-login answer for a wrong password and an unknown user
    a = (await Client(api).call("POST", "/api/account/login", {"username": "Bob", "password": "wrong wrong"})).decoded()
    b = (await Client(api).call("POST", "/api/account/login", {"username": "Nobody", "password": PW})).decoded()
    assert a == b


async def test_transport_checks(api):
    c = Client(api)
    body = {"username": "Ann", "password": PW}
    # wrong or missing content type: 415
    for ct in ["text/plain", "application/x-www-form-urlencoded", ""]:
        r = await c.call("POST", "/api/account/register", body, headers={"content-type": ct})
        assert (r.status, r.decoded()["error"]["code"]) == (415, "unsupported_media_type")
    # a charset other than UTF-8: 415 (the body is read as UTF-8)
    for ct in ["application/json; charset=utf-16", "application/json;charset=\"latin1\"", "application/json; charset="]:
        r = await c.call("POST", "/api/account/register", body, headers={"content-type": ct})
        assert (r.status, r.decoded()["error"]["code"]) == (415, "unsupported_media_type"), ct
    # a key twice: 400, whichever comes last
    r = await c.call("POST", "/api/account/register", raw=b'{"username":"a1","username":"Ann","password":"' +
                     PW.encode() + b'"}')
    assert (r.status, r.decoded()["error"]["code"]) == (400, "bad_json")
    r = await c.call("POST", "/api/positions", raw=b'{"table":"x","table":"y","discipline":"d","balls":[]}')
    assert (r.status, r.decoded()["error"]["code"]) == (400, "bad_json")
    r = await c.call("POST", "/api/account/register", body, headers={"content-type": "Application/JSON; Charset=UTF-8"})
    assert r.status == 201
    c = Client(api)
    # a foreign Origin on a state-changing request: 403 (the configured and the own origins pass)
    for origin in ["https://evil.example", "null", f"https://{HOST}", "http://billar.example"]:
        r = await c.call("POST", "/api/account/login", body, headers={"origin": origin})
        assert (r.status, r.decoded()["error"]["code"]) == (403, "forbidden_origin"), origin
    r = await c.call("POST", "/api/account/login", body, headers={"sec-fetch-site": "cross-site"})
    assert r.status == 403
    assert (await c.call("POST", "/api/account/login", body, headers={"origin": f"http://{HOST}"})).status == 200
    assert (await c.call("POST", "/api/account/login", body,
                         headers={"origin": "https://play.billar.example"})).status == 200
    # over 16 KB: 413, whether the body or the Content-Length says so
    big = json.dumps({"username": "Ann", "password": "x" * MAX_BODY_BYTES}).encode()
    r = await c.call("POST", "/api/account/login", raw=big)
    assert (r.status, r.decoded()["error"]["code"]) == (413, "too_large")
    r = await c.call("POST", "/api/account/login", raw=b"{}", headers={"content-length": str(10**9)})
    assert r.status == 413
    # not JSON, not UTF-8, nested too deep: 400
    for raw in [b"{", b"\xff\xfe{}", b"null", b'"x"', b"[" * 5000 + b"]" * 5000, b'{"username": NaN}']:
        r = await c.call("POST", "/api/account/login", raw=raw)
        assert r.status == 400 and r.decoded()["error"]["code"] in ("bad_json", "bad_field"), raw[:10]
    assert (await c.call("POST", "/api/account/logout", raw=b"")).status == 400


async def test_address_limit_answers_429(db, hasher):
    from server.players.throttle import MemoryLoginThrottle

    api = PlayersApi(db, Accounts(db, hasher=hasher, throttle=MemoryLoginThrottle(address_failures=3)))
    c = Client(api, client="6.6.6.6")
    for _ in range(3):
        assert (await c.call("POST", "/api/account/login", {"username": "x1", "password": PW})).status == 401
    r = await c.call("POST", "/api/account/login", {"username": "x1", "password": PW})
    assert (r.status, r.decoded()["error"]["code"]) == (429, "too_many_attempts")


async def test_the_device_cookie_is_set_at_registration_and_login(api):
    c = Client(api)
    r = await c.call("POST", "/api/account/register", {"username": "Ann", "password": PW})
    session, device = r.header("set-cookie")
    assert session.startswith("billar_session=")  # the session cookie first, as before
    assert device.startswith("billar_device=") and device.split(";")[0] == f"billar_device={c.device}"
    attributes = [a.strip() for a in device.split(";")[1:]]
    assert attributes == ["Path=/api/account", "Max-Age=31536000", "HttpOnly", "SameSite=Lax"]  # no Secure over http
    ann_id = (await api.account_for_cookie(f"billar_session={c.cookie}")).id
    ident, nonce, mac = c.device.split(".")
    assert ident == str(ann_id) and len(nonce) == 22 and len(mac) == 43 and PW not in device
    first = c.device
    r = await c.call("POST", "/api/account/login", {"username": "ann", "password": PW})
    assert r.status == 200 and [v.split("=")[0] for v in r.header("set-cookie")] == ["billar_session", "billar_device"]
    assert c.device != first and c.device.startswith(f"{ann_id}.")  # a new one at each login
    # logout keeps it (the browser stays known); a failed login sets nothing
    r = await c.call("POST", "/api/account/logout", {})
    assert r.header("set-cookie")[0].startswith("billar_session=;") and len(r.header("set-cookie")) == 1
    r = await c.call("POST", "/api/account/login", {"username": "ann", "password": "wrong wrong"})
    assert r.status == 401 and r.header("set-cookie") == []
    # over HTTPS it is Secure, as the session cookie is
    s = Client(api, https=True)
    r = await s.call("POST", "/api/account/register", {"username": "Bob", "password": PW},
                     headers={"origin": f"https://{HOST}"})
    assert r.status == 201 and all(v.endswith("; Secure") for v in r.header("set-cookie")) and s.device
    r = await s.call("POST", "/api/account/login", {"username": "Bob", "password": PW}, headers={"origin": f"https://{HOST}"})
    assert r.status == 200 and all(v.endswith("; Secure") for v in r.header("set-cookie"))
    # deleting the account clears both
    r = await s.call("POST", "/api/account/delete", {"password": PW}, headers={"origin": f"https://{HOST}"})
    assert r.status == 200 and s.cookie is None and s.device is None
    assert [v.split(";")[0] for v in r.header("set-cookie")] == ["billar_session=", "billar_device="]
    assert all("Max-Age=0" in v for v in r.header("set-cookie"))


async def test_a_name_locked_by_an_attacker_still_opens_to_the_owners_browser(api):
    """QA: 10 wrong passwords with a player's name, from anywhere, locked the player out for 15 minutes, again and
    again. The browser that logged in before carries a device cookie, and the lock does not hold against it."""
    from server.players.throttle import ACCOUNT_FAILURES

    owner = Client(api, client="10.0.0.1")
    await owner.call("POST", "/api/account/register", {"username": "Ann", "password": PW})
    await owner.call("POST", "/api/account/logout", {})
    bob = Client(api, client="10.0.0.2")
    await bob.call("POST", "/api/account/register", {"username": "Bob", "password": PW})
    for i in range(ACCOUNT_FAILURES):
        attacker = Client(api, client=f"6.6.6.{i}")
        r = await attacker.call("POST", "/api/account/login", {"username": "Ann", "password": f"guess number {i}"})
        assert (r.status, r.decoded()["error"]["code"]) == (401, "login_failed")
    locked = {"error": {"code": "too_many_attempts",
                        "message": "too many failed logins for this name; try again in 15 minutes"}}
    r = await Client(api, client="10.0.0.1").call("POST", "/api/account/login", {"username": "Ann", "password": PW})
    assert (r.status, r.decoded()) == (429, locked)  # without the cookie: as before
    r = await owner.call("POST", "/api/account/login", {"username": "Ann", "password": PW})
    assert r.status == 200 and r.decoded()["account"]["username"] == "Ann"
    assert (await owner.call("GET", "/api/account")).status == 200
    # Bob's device cookie, or a forged or garbled one, does not lift Ann's lock (and breaks nothing: no 500)
    ident, nonce, mac = owner.device.split(".")
    for cookie in [bob.device, f"{ident}.{nonce}.{mac[::-1]}", f"{bob.device.split('.')[0]}.{nonce}.{mac}",
                   "x" * 4000, "\u00e9t\u00e9.1.2", f'"{ident}.{nonce}"', ";;", "=", f"{ident}.{nonce}.{mac}.{mac}"]:
        other = Client(api, client="10.0.0.3")
        other.device = cookie
        r = await other.call("POST", "/api/account/login", {"username": "Ann", "password": PW})
        assert (r.status, r.decoded()) == (429, locked), cookie
        r = await other.call("POST", "/api/account/password", {"current_password": PW, "new_password": "brand new pw"})
        assert r.status == 401  # not logged in: the cookie is no session either
    # the owner's browser changes the password, the name still being locked for the others
    r = await owner.call("POST", "/api/account/password", {"current_password": PW, "new_password": "brand new pw"})
    assert r.status == 200
    r = await Client(api, client="10.0.0.4").call("POST", "/api/account/login", {"username": "Ann", "password": "brand new pw"})
    assert (r.status, r.decoded()) == (429, locked)


async def test_wrong_passwords_with_a_device_cookie_lock_that_browser_only(api):
    from server.players.throttle import DEVICE_FAILURES

    owner = Client(api, client="10.0.0.1")
    await owner.call("POST", "/api/account/register", {"username": "Ann", "password": PW})
    thief = Client(api, client="10.0.0.9")
    thief.device = owner.device  # a stolen device cookie guesses no more than the name's limit
    for i in range(DEVICE_FAILURES):
        r = await thief.call("POST", "/api/account/login", {"username": "Ann", "password": f"guess number {i}"})
        assert (r.status, r.decoded()["error"]["code"]) == (401, "login_failed")
    for pw in ("guess number 99", PW):
        r = await thief.call("POST", "/api/account/login", {"username": "Ann", "password": pw})
        assert (r.status, r.decoded()["error"]) == (429, {
            "code": "too_many_attempts", "message": "too many failed logins for this name; try again in 15 minutes"})
    # the name is not locked: a browser without the cookie, from anywhere, logs in
    r = await Client(api, client="10.0.0.5").call("POST", "/api/account/login", {"username": "Ann", "password": PW})
    assert r.status == 200


async def test_password_change_and_delete(api, db):
    c = Client(api)
    await c.call("POST", "/api/account/register", {"username": "Ann", "password": PW})
    other = Client(api)
    await other.call("POST", "/api/account/register", {"username": "Bob", "password": PW})
    ann_id = (await api.account_for_cookie(f"billar_session={c.cookie}")).id
    bob_id = (await api.account_for_cookie(f"x=y; billar_session={other.cookie}")).id
    assert await api.account_for_cookie(None) is None and await api.account_for_cookie("billar_session=junk") is None
    await record_game(db, *server_record("three_cushion", "del", 1, accounts=[ann_id, bob_id], rated=True), export)
    r = await c.call("POST", "/api/account/password", {"current_password": "wrong wrong", "new_password": "brand new pw"})
    assert r.status == 401
    r = await c.call("POST", "/api/account/password", {"current_password": PW, "new_password": "brand new pw"})
    assert r.status == 200
    assert (await Client(api).call("POST", "/api/account/login", {"username": "Ann", "password": "brand new pw"})).status == 200
    r = await c.call("POST", "/api/account/delete", {"password": "brand new pw"})
    retired = r.decoded()["retired_name"]
    assert r.status == 200 and retired.startswith("deleted-") and c.cookie is None
    assert (await c.call("GET", "/api/players/Ann")).status == 404
    # Bob's game stays, showing the retired name, in his list and in the record
    page = (await other.call("GET", "/api/players/Bob/games")).decoded()
    assert page["games"][0]["opponent"]["name"] == retired
    rec = (await other.call("GET", f"/api/games/{page['games'][0]['id']}", headers={"accept-encoding": "gzip"})).decoded()
    assert rec["players"] == [retired, "Bob"]


async def test_profile_games_record_and_leaderboard(api, db, hasher):
    c = Client(api)
    ids = {}
    for n in ("Ann", "Bob", "Jean-Luc O.Brien"):
        cl = Client(api)
        await cl.call("POST", "/api/account/register", {"username": n, "password": PW})
        ids[n] = (await api.account_for_cookie(f"billar_session={cl.cookie}")).id
    t0 = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc).timestamp()
    outs = []
    for i in range(25):  # Ann and Bob play 25 rated three-cushion games, winning in turn (Ann the even ones)
        meta, entries = server_record("three_cushion", "lb", i + 1, accounts=[ids["Ann"], ids["Bob"]], rated=True,
                                      t0=t0 + 3600 * i)
        meta["result"]["winner"] = i % 2
        outs.append(await record_game(db, meta, entries, export))
    await record_game(db, *server_record("straight_pool", "sp", 1, accounts=[ids["Jean-Luc O.Brien"], None],
                                         names=("Jean-Luc O.Brien", "Guest"), t0=t0), export)
    api.clock = lambda: dt.datetime(2026, 11, 3, tzinfo=dt.timezone.utc)

    prof = (await c.call("GET", "/api/players/bob")).decoded()
    assert prof["username"] == "Bob"
    (rating,) = prof["ratings"]
    assert rating["discipline"] == "three_cushion" and rating["games"] == 25 and not rating["provisional"]
    assert rating["rating"] == pytest.approx(outs[-1].ratings[1].rating_after, abs=0.01)
    (st,) = prof["statistics"]
    assert (st["games"], st["wins"], st["losses"], st["points"], st["innings"], st["high_run"]) == (25, 12, 13, 250, 75, 4)
    assert st["average"] == pytest.approx(3.333) and st["best_average"] == pytest.approx(3.333)
    hist = prof["history"]["three_cushion"]
    assert len(hist) == 25 and len(prof["recent_games"]) == 10
    assert hist[-1][1] == pytest.approx(outs[-1].ratings[1].rating_after, abs=0.05) and hist[0][0] < hist[-1][0]
    assert prof["recent_games"][0]["opponent"]["name"] == "Ann" and prof["recent_games"][0]["result"] == "loss"
    assert prof["recent_games"][1]["result"] == "win"
    assert prof["recent_games"][0]["rating_change"] == pytest.approx(outs[-1].ratings[1].change, abs=0.01)

    # paging: 25 games, 10 a page, newest first, no overlap
    seen, before = [], None
    for _ in range(3):
        r = await c.call("GET", "/api/players/Ann/games", query=f"limit=10{'&before=%d' % before if before else ''}")
        page = r.decoded()
        seen += [g["id"] for g in page["games"]]
        before = page["next"]
    assert len(seen) == 25 and seen == sorted(seen, reverse=True) and before is None
    for q in ["limit=0", "limit=51", "limit=x", "before=-1", "before=1e3", "limit=99999999999999999999999"]:
        r = await c.call("GET", "/api/players/Ann/games", query=q)
        assert (r.status, r.decoded()["error"]["code"]) == (400, "bad_field"), q
    sql = (await c.call("GET", "/api/players/Jean-Luc%20O.Brien")).decoded()
    assert sql["username"] == "Jean-Luc O.Brien" and sql["statistics"][0]["high_run"] == 8
    # separators do not make another name: the same profile
    assert (await c.call("GET", "/api/players/jean_luc_obrien")).decoded() == sql

    # a game's record: the exported record, gzip when asked, plain JSON otherwise
    gid = outs[0].game_id
    r = await c.call("GET", f"/api/games/{gid}", headers={"accept-encoding": "gzip, br"})
    assert r.header("content-encoding") == ["gzip"]
    plain = await c.call("GET", f"/api/games/{gid}")
    assert plain.header("content-encoding") == [] and json.loads(plain.body()) == json.loads(gzip.decompress(r.body()))
    rec = plain.decoded()
    assert rec["discipline"] == "three_cushion" and rec["table"] == "lb" and rec["game"] == 1
    assert rec["players"] == ["Ann", "Bob"] and len(rec["strokes"]) == 26

    # leaderboards: Bob and Ann both under RD 100 after 25 games, in the order of their ratings
    lb = (await c.call("GET", "/api/leaderboard/three_cushion")).decoded()
    last = outs[-1].ratings
    order = ["Ann", "Bob"] if last[0].rating_after > last[1].rating_after else ["Bob", "Ann"]
    assert [e["username"] for e in lb["rating"]] == order and all(e["rd"] < 100 for e in lb["rating"])
    assert lb["rating"][0]["rating"] == pytest.approx(max(x.rating_after for x in last), abs=0.01)
    assert [(e["username"], e["high_run"]) for e in lb["high_run"]] == [("Bob", 4), ("Ann", 3)]
    lb14 = (await c.call("GET", "/api/leaderboard/14.1")).decoded()
    assert lb14["discipline"] == "straight_pool" and lb14["rating"] == []  # unrated game: no rating
    assert lb14["high_run"] == [{"rank": 1, "username": "Jean-Luc O.Brien", "high_run": 8, "games": 1, "average": 3.4}]
    # a year without a game: the RD grows past 100 and the player leaves the rating table
    api.clock = lambda: dt.datetime(2028, 1, 1, tzinfo=dt.timezone.utc)
    assert (await c.call("GET", "/api/leaderboard/three_cushion")).decoded()["rating"] == []
    assert (await c.call("GET", "/api/players/Bob")).decoded()["ratings"][0]["provisional"] is True


async def test_profile_history_keeps_the_last_50_per_discipline(api, db):
    from server.players import queries

    ids = [(await api.accounts.register(n, PW))[0].id for n in ("Ann", "Bob")]
    outs = []
    for g in range(53):
        meta, entries = server_record("three_cushion", "h", g + 1, accounts=ids, rated=True, t0=1_796_000_000 + 600 * g)
        meta["result"]["winner"] = g % 2
        outs.append(await record_game(db, meta, entries, export))
    prof = (await Client(api).call("GET", "/api/players/Ann")).decoded()
    hist = prof["history"]["three_cushion"]
    assert len(hist) == queries.HISTORY_POINTS == 50
    # the last 50 games, oldest first: game 4 to game 53
    assert [p[1] for p in hist] == [round(o.ratings[0].rating_after, 1) for o in outs[3:]]
    assert hist[0][0] == 1_796_000_000 + 600 * 3 + 250 and hist[-1][0] == 1_796_000_000 + 600 * 52 + 250
