"""Accounts through the server's own port: the JSON API over real HTTP (bodies, content types, origins, sizes),
the OpenAPI document, and the WebSocket ``hello`` authenticated by the session cookie."""

import asyncio
import json

import pytest
from websockets.asyncio.client import connect as ws_connect

import protocol
from harness import http_request, open_client
from protocol import inbound as I


http = http_request


def jpost(port, path, obj, **headers):
    return http(port, "POST", path, json.dumps(obj).encode(), {"Content-Type": "application/json", **headers})


async def test_register_log_in_and_the_websocket_knows_the_player(db_server):
    port = db_server.port
    st, h, body = await jpost(port, "/api/account/register", {"username": "Ann", "password": "correct horse 1"})
    assert st == 201, body
    cookie = h["set-cookie"][0].split(";")[0]
    assert cookie.startswith("billar_session=") and "HttpOnly" in h["set-cookie"][0] and "SameSite=Lax" in h["set-cookie"][0]
    assert json.loads(body)["account"]["username"] == "Ann"
    # a name differing only by case or by confusable letters is taken
    for other in ("ANN", "\u0410nn"):  # Cyrillic A
        st, _, body = await jpost(port, "/api/account/register", {"username": other, "password": "correct horse 1"})
        assert st == 409, (other, body)
    st, _, body = await http(port, "GET", "/api/account", headers={"Cookie": cookie})
    assert st == 200 and json.loads(body)["account"]["username"] == "Ann"
    # the WebSocket hello of a page of this origin carrying the cookie is that player
    ws = await ws_connect(f"ws://127.0.0.1:{port}/ws", compression=None,
                          additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"})
    await ws.send(protocol.encode_client(I.Hello(protocol=protocol.PROTOCOL_VERSION, name="somebody else")))
    welcome = protocol.decode_server(await ws.recv())
    assert welcome["account"]["name"] == "Ann" and welcome["name"] == "Ann"
    assert welcome["player"] == f"a{welcome['account']['id']}"
    await ws.send(protocol.encode_client(I.Rename(name="Zed")))
    err = protocol.decode_server(await ws.recv())
    assert err["code"] == "bad_field" and err["ref"] == "rename"
    await ws.close()
    # the same cookie sent along by a page of another origin is not a login
    ws = await ws_connect(f"ws://127.0.0.1:{port}/ws", compression=None,
                          additional_headers={"Cookie": cookie, "Origin": "http://evil.example"})
    await ws.send(protocol.encode_client(I.Hello(protocol=protocol.PROTOCOL_VERSION, name="visitor")))
    welcome = protocol.decode_server(await ws.recv())
    assert welcome["account"] is None and welcome["name"] == "visitor", welcome
    await ws.close()
    # logged out: the cookie no longer opens anything
    st, h, _ = await jpost(port, "/api/account/logout", {}, Cookie=cookie)
    assert st == 200
    st, _, _ = await http(port, "GET", "/api/account", headers={"Cookie": cookie})
    assert st == 401


async def test_the_api_refuses_what_it_must_over_http(db_server):
    port = db_server.port
    # no JSON content type: 415; a foreign origin changing state: 403; a body over 16 KB: 413; bad JSON: 400
    st, _, _ = await http(port, "POST", "/api/account/login", b'{"username":"a","password":"b"}',
                          {"Content-Type": "text/plain"})
    assert st == 415
    st, _, _ = await jpost(port, "/api/account/register", {"username": "Bob", "password": "correct horse 1"},
                           Origin="http://evil.example")
    assert st == 403
    big = json.dumps({"username": "Bob", "password": "x" * 17000}).encode()
    st, _, _ = await http(port, "POST", "/api/account/register", big, {"Content-Type": "application/json"})
    assert st == 413
    st, _, body = await http(port, "POST", "/api/account/register", b"{nope", {"Content-Type": "application/json"})
    assert st == 400 and json.loads(body)["error"]["code"] == "bad_json"
    st, _, _ = await http(port, "GET", "/api/nothing-here")
    assert st == 404
    st, h, _ = await http(port, "DELETE", "/api/account")
    assert st == 405
    # wrong password, unknown user: the same answer
    await jpost(port, "/api/account/register", {"username": "Cy", "password": "correct horse 1"})
    a = await jpost(port, "/api/account/login", {"username": "Cy", "password": "wrong wrong 1"})
    b = await jpost(port, "/api/account/login", {"username": "Nobody", "password": "wrong wrong 1"})
    assert a[0] == b[0] == 401 and json.loads(a[2]) == json.loads(b[2])
    # the OpenAPI document
    st, h, body = await http(port, "GET", "/api/openapi.json")
    doc = json.loads(body)
    assert st == 200 and doc["openapi"].startswith("3.") and "/api/account/register" in doc["paths"]


async def test_every_api_error_is_json_even_the_transports(db_server):
    port = db_server.port

    def error_of(st, h, body):
        assert h["content-type"].startswith("application/json"), (st, h, body)
        return st, json.loads(body)["error"]["code"]

    big = json.dumps({"username": "Bob", "password": "x" * 17000}).encode()
    r = await http(port, "POST", "/api/account/register", big, {"Content-Type": "application/json"})
    assert error_of(*r) == (413, "too_large") and json.loads(r[2])["error"]["message"]
    r = await http(port, "GET", "/api/%00")
    assert error_of(*r) == (400, "bad_request")
    r = await http(port, "GET", "/api/players/a%00b")
    assert error_of(*r) == (400, "bad_request")
    r = await http(port, "POST", "/api/account/login", b"", {"Transfer-Encoding": "chunked"})
    assert error_of(*r) == (411, "length_required")
    r = await http(port, "GET", "/api/account", headers={f"X-H{i}": "x" for i in range(300)})
    assert error_of(*r) == (431, "headers_too_large")
    # a key twice: which one counts is not said by JSON; refused
    r = await http(port, "POST", "/api/account/register", b'{"username":"Dee","password":"correct horse 1",'
                                                         b'"username":"Eve"}', {"Content-Type": "application/json"})
    assert error_of(*r) == (400, "bad_json")
    # a charset other than UTF-8: 415
    body = json.dumps({"username": "Dee", "password": "correct horse 1"}).encode("utf-16")
    r = await http(port, "POST", "/api/account/register", body, {"Content-Type": "application/json; charset=utf-16"})
    assert error_of(*r) == (415, "unsupported_media_type")
    # outside /api/ (the client's files) the answers stay plain text
    st, h, body = await http(port, "GET", "/%00")
    assert st == 400 and h["content-type"].startswith("text/plain")
    st, h, body = await http(port, "POST", "/upload", big, {"Content-Type": "application/json"})
    assert st == 413 and h["content-type"].startswith("text/plain")


async def test_a_name_locked_by_failures_answers_429_existing_or_not(db_server):
    from server.players.throttle import ACCOUNT_FAILURES

    port = db_server.port
    await jpost(port, "/api/account/register", {"username": "Fay", "password": "correct horse 1"})
    answers = {}
    for name in ("Fay", "Ghost"):
        for i in range(ACCOUNT_FAILURES):
            st, _, body = await jpost(port, "/api/account/login", {"username": name, "password": f"wrong wrong {i}"})
            assert st == 401 and json.loads(body)["error"]["message"] == "wrong username or password"
        st, _, body = await jpost(port, "/api/account/login", {"username": name, "password": "correct horse 1"})
        answers[name] = (st, json.loads(body))
    assert answers["Fay"] == answers["Ghost"]
    st, err = answers["Fay"]
    assert st == 429 and err["error"]["code"] == "too_many_attempts"
    assert err["error"]["message"] == "too many failed logins for this name; try again in 15 minutes"


def cookie_of(h, name):
    """``name=value`` of the Set-Cookie ``name`` among the response's, and its attributes."""
    for v in h["set-cookie"]:
        pair, _, attributes = v.partition(";")
        if pair.split("=")[0] == name:
            return pair, [a.strip() for a in attributes.split(";")]
    raise AssertionError(f"no {name} cookie in {h['set-cookie']}")


async def test_an_attacker_locks_the_name_but_not_the_owners_browser(db_server):
    """QA: 10 wrong passwords with a player's name locked the player out from everywhere for 15 minutes. The browser
    that logged in (or registered) before holds a device cookie; over real HTTP and the server's Redis throttle."""
    from server.players.throttle import ACCOUNT_FAILURES

    port = db_server.port
    st, h, _ = await jpost(port, "/api/account/register", {"username": "Hal", "password": "correct horse 1"})
    assert st == 201
    device, attributes = cookie_of(h, "billar_device")
    assert attributes == ["Path=/api/account", "Max-Age=31536000", "HttpOnly", "SameSite=Lax"]
    st, h, _ = await jpost(port, "/api/account/register", {"username": "Ida", "password": "correct horse 1"})
    ida_device, _ = cookie_of(h, "billar_device")
    for i in range(ACCOUNT_FAILURES):
        st, _, body = await jpost(port, "/api/account/login", {"username": "Hal", "password": f"wrong wrong {i}"})
        assert st == 401 and json.loads(body)["error"]["code"] == "login_failed"
    locked = {"error": {"code": "too_many_attempts",
                        "message": "too many failed logins for this name; try again in 15 minutes"}}
    ident, nonce, mac = device.partition("=")[2].split(".")
    # the forged MAC changes its first character: the last one's low bits are padding a lenient decoder drops, and
    # "A" there was the real MAC itself one run in 16 (a fresh-clone run failed so)
    forged = ("B" if mac[0] == "A" else "A") + mac[1:]
    for cookie in [None, ida_device, f"billar_device={ident}.{nonce}.{forged}", "billar_device=" + "9" * 3000,
                   f"billar_device={ident}.{nonce}"]:
        st, _, body = await jpost(port, "/api/account/login", {"username": "Hal", "password": "correct horse 1"},
                                  **({"Cookie": cookie} if cookie else {}))
        assert (st, json.loads(body)) == (429, locked), cookie
    st, h, body = await jpost(port, "/api/account/login", {"username": "hal", "password": "correct horse 1"},
                              Cookie=f"other=1; {device}")
    assert st == 200 and json.loads(body)["account"]["username"] == "Hal"
    session, _ = cookie_of(h, "billar_session")
    newer, _ = cookie_of(h, "billar_device")
    assert newer != device
    st, _, body = await http(port, "GET", "/api/account", headers={"Cookie": session})
    assert st == 200 and json.loads(body)["account"]["username"] == "Hal"


async def test_wrong_passwords_with_a_device_cookie_do_not_lock_the_name(db_server):
    from server.players.throttle import DEVICE_FAILURES

    port = db_server.port
    st, h, _ = await jpost(port, "/api/account/register", {"username": "Jo", "password": "correct horse 1"})
    device, _ = cookie_of(h, "billar_device")
    for i in range(DEVICE_FAILURES):
        st, _, body = await jpost(port, "/api/account/login", {"username": "Jo", "password": f"wrong wrong {i}"},
                                  Cookie=device)
        assert st == 401 and json.loads(body)["error"]["code"] == "login_failed"
    st, _, body = await jpost(port, "/api/account/login", {"username": "Jo", "password": "correct horse 1"}, Cookie=device)
    assert st == 429 and json.loads(body)["error"]["code"] == "too_many_attempts"
    st, h, _ = await jpost(port, "/api/account/login", {"username": "Jo", "password": "correct horse 1"})
    assert st == 200 and cookie_of(h, "billar_session")


async def test_a_guest_may_not_take_a_reserved_name_but_may_say_hello_again(db_server):
    c = await open_client(db_server, "x", hello=False)
    await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name="Computer (level 3)"))
    await c.expect("error", code="bad_field", field="name")
    await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name="ann"))
    w = await c.expect("welcome")
    assert w["name"] == "ann" and w["account"] is None


async def test_a_guests_name_has_a_usernames_characters(db_server):
    """QA: a guest could be called "QaOne (1662)", which reads as the lobby's line of the rated player QaOne, or
    "<b>x</b>". A guest's name keeps to the characters of a username (letters, digits, single separators)."""
    c = await open_client(db_server, "x", hello=False)
    for name, why in (("QaOne (1662)", "not '('"), ("<b>x</b>", "not '<'"), ("Ann  Lee", "no two separators"),
                      ("-Ann", "must start with a letter or digit"), ("Ann.", "must end with a letter or digit")):
        await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name))
        e = await c.expect("error", code="bad_field", field="name")
        assert e["message"].startswith("name: ") and why in e["message"], (name, e)
    await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name="  Zoë_2  "))
    assert (await c.expect("welcome"))["name"] == "Zoë_2"
    await c.send(I.Rename(name="Zoë (2)"))
    e = await c.expect("error", code="bad_field", field="name")
    assert e["ref"] == "rename" and "not '('" in e["message"], e
    await c.send(I.Rename(name="Zoë 2"))
    assert (await c.expect("renamed"))["name"] == "Zoë 2"


async def test_a_guest_may_not_show_a_registered_players_name(db_server):
    """QA: a guest said hello as "ann13164", the name of an account (and as "ANN13164", "аnn13164" with a Cyrillic
    а), and played under it. Hello and rename refuse such names; the player logged in keeps theirs; others pass."""
    port = db_server.port
    st, _, _ = await jpost(port, "/api/account/register", {"username": "Ann Lee", "password": "correct horse 1"})
    assert st == 201
    c = await open_client(db_server, "x", hello=False)
    for name in ("Ann Lee", "ANN_LEE", "\u0430nn lee", "annlee"):
        await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name))
        e = await c.expect("error", code="bad_field", field="name")
        assert "registered player" in e["message"], e
    await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name="Ann Lea"))
    assert (await c.expect("welcome"))["name"] == "Ann Lea"
    await c.send(I.Rename(name="ann.lee"))
    e = await c.expect("error", code="bad_field", field="name")
    assert e["ref"] == "rename" and "registered player" in e["message"]
    await c.send(I.Rename(name="Ann Leb"))
    assert (await c.expect("renamed"))["name"] == "Ann Leb"


async def test_a_logged_in_players_drill_strokes_are_counted_a_guests_are_not(db_server):
    """Issue 16: "the player's success count kept (per account, or in the browser for guests)". Two strokes at the
    stop-shot drill, one meeting its goal: GET /api/account/drills says 2 and 1; a guest's stroke counts for no one."""
    from test_practice import stop_shot

    port = db_server.port
    st, h, _ = await jpost(port, "/api/account/register", {"username": "Drill Ann", "password": "correct horse 1"})
    assert st == 201
    cookie = h["set-cookie"][0].split(";")[0]
    st, _, body = await http(port, "GET", "/api/account/drills", headers={"Cookie": cookie})
    assert st == 200 and json.loads(body) == {"drills": {}}
    st, _, _ = await http(port, "GET", "/api/account/drills")
    assert st == 401
    drill = "pool-9ft-stop-1"
    good = stop_shot(drill)
    miss = dict(good, phi_deg=good["phi_deg"] + 40.0)
    for who, headers in (("me", {"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"}), ("guest", {})):
        c = await open_client(db_server, "visitor", additional_headers=headers)
        await c.send(I.CreateTable(discipline="straight_pool", practice={"drill": drill}))
        s = await c.expect("seated", seat=0)
        await c.expect("table_snapshot")
        await c.expect("seats", v=1)
        call = {"ball": 1, "pocket": "FR"}
        await c.send(I.Shot(table=s["table"], token=s["token"], seq=1, stroke=good, call=call))
        assert (await c.expect("stroke", v=2))["ruling"]["drill"] == {"id": drill, "achieved": True}
        if who == "me":
            await c.send(I.Undo(table=s["table"], token=s["token"], seq=2))
            await c.expect("position", v=3)
            await c.send(I.Shot(table=s["table"], token=s["token"], seq=3, stroke=miss, call=call))
            assert (await c.expect("stroke", v=4))["ruling"]["drill"] == {"id": drill, "achieved": False}
        await c.close()
    want = {"drills": {drill: {"attempts": 2, "successes": 1}}}
    for _ in range(50):  # written in the background
        st, _, body = await http(port, "GET", "/api/account/drills", headers={"Cookie": cookie})
        if json.loads(body) == want:
            break
        await asyncio.sleep(0.1)
    assert st == 200 and json.loads(body) == want
    await asyncio.sleep(0.3)  # the guest's stroke wrote nothing (the only row is still the player's two)
    st, _, body = await http(port, "GET", "/api/account/drills", headers={"Cookie": cookie})
    assert json.loads(body) == want
