"""The tournament routes through the server's own port (issue 17): create (logged in), list by status and
paged, one tournament, join and leave, every error as the API's others; the OpenAPI document lists them."""

import datetime as dt
import json

from harness import http_request as http

from server.tournaments import store


def jpost(port, path, obj, cookie=None):
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    return http(port, "POST", path, json.dumps(obj).encode(), headers)


async def register(port, name):
    st, h, body = await jpost(port, "/api/account/register", {"username": name, "password": "correct horse 1"})
    assert st == 201, body
    return h["set-cookie"][0].split(";")[0]


async def get(port, path):
    st, _, body = await http(port, "GET", path)
    return st, json.loads(body)


RR = {"name": "Friday 14.1", "discipline": "14.1", "format": "round_robin", "config": {"target_points": 10},
      "max_players": 3, "rated": True}


async def test_create_list_view_join_and_leave(db_server):
    port = db_server.port
    await db_server.directors.stop()  # this test starts the tournament itself
    ann, bob, cy, dan = [await register(port, n) for n in ("Ann", "Bob", "Cy", "Dan")]
    # creating needs a login
    st, _, body = await jpost(port, "/api/tournaments", RR)
    assert st == 401 and json.loads(body)["error"]["code"] == "not_logged_in"
    st, _, body = await jpost(port, "/api/tournaments", RR, ann)
    assert st == 201, body
    t = json.loads(body)
    assert t["discipline"] == "straight_pool" and t["format"] == "round_robin" and t["status"] == "open"
    assert t["creator"] == "Ann" and t["players"] == 0 and t["entries"] == [] and t["pairings"] == []
    assert t["starts_at"] is None and t["rated"] is True and t["config"] == {"target_points": 10}
    tid = t["id"]
    # the store's checks, as the API's errors
    for bad, word in [({**RR, "format": "swiss"}, "format"), ({**RR, "discipline": "snooker"}, "discipline"),
                      ({**RR, "config": {"target_points": -3}}, "config"), ({**RR, "max_players": 1}, "max_players"),
                      ({**RR, "duration_s": 600}, "duration_s"), ({**RR, "starts_at": "yesterday"}, "starts_at"),
                      ({**RR, "starts_at": "2001-01-01T00:00:00Z"}, "starts_at"), ({**RR, "rated": 1}, "rated"),
                      ({**RR, "nope": 1}, "nope"), ({"name": "x", "format": "arena"}, "discipline"),
                      ({**RR, "format": "arena"}, "duration_s")]:
        st, _, body = await jpost(port, "/api/tournaments", bad, ann)
        err = json.loads(body)["error"]
        assert st == 400 and err["code"] == "bad_field" and word in err["message"], (bad, body)
    later = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)).replace(microsecond=0)
    st, _, body = await jpost(port, "/api/tournaments", {
        "name": "Arena", "discipline": "three_cushion", "format": "arena", "duration_s": 600,
        "starts_at": later.isoformat().replace("+00:00", "Z")}, bob)
    assert st == 201, body
    arena = json.loads(body)
    assert arena["starts_at"] == later.isoformat().replace("+00:00", "Z") and arena["duration_s"] == 600
    # join: idempotent; full: 409; leave; join again
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {})
    assert st == 401
    for i, c in enumerate((ann, bob)):
        st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, c)
        assert st == 200 and json.loads(body) == {"joined": True, "players": i + 1, "full": False}
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, bob)
    assert json.loads(body) == {"joined": False, "players": 2, "full": False}
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/leave", {}, bob)
    assert st == 200 and json.loads(body) == {"left": True}
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/leave", {}, bob)
    assert st == 200 and json.loads(body) == {"left": False}
    for c in (bob, cy):
        st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, c)
        assert st == 200
    assert json.loads(body)["full"] is True
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, dan)
    assert st == 409 and json.loads(body)["error"]["code"] == "full"
    st, _, body = await jpost(port, "/api/tournaments/999999/join", {}, dan)
    assert st == 404 and json.loads(body)["error"]["code"] == "not_found"
    st, t = await get(port, f"/api/tournaments/{tid}")
    assert st == 200 and [e["username"] for e in t["entries"]] == ["Ann", "Bob", "Cy"] and t["players"] == 3
    # started (the director's scheduler does this): the page shows pairings with their tables, standings
    await store.start_tournament(db_server.db, tid)
    st, t = await get(port, f"/api/tournaments/{tid}")
    assert st == 200 and t["status"] == "running" and sorted(e["seed"] for e in t["entries"]) == [1, 2, 3]
    assert [s["rank"] for s in t["standings"]] == [1, 2, 3]
    # leaving once started is a drop: inactive, nothing else to do the second time; not a player: 400
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/leave", {}, ann)
    assert st == 200 and json.loads(body) == {"left": True}
    st, t = await get(port, f"/api/tournaments/{tid}")
    assert [s["active"] for s in t["standings"] if s["name"] == "Ann"] == [False]
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/leave", {}, ann)
    assert st == 200 and json.loads(body) == {"left": False}
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/leave", {}, dan)
    assert st == 400 and json.loads(body)["error"]["code"] == "bad_field"
    st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, dan)
    assert st == 409 and json.loads(body)["error"]["code"] == "closed"
    # the list: newest first, by status, paged
    st, page = await get(port, "/api/tournaments")
    assert st == 200 and [x["id"] for x in page["tournaments"]] == [arena["id"], tid] and page["next"] is None
    st, page = await get(port, "/api/tournaments?status=running")
    assert [x["id"] for x in page["tournaments"]] == [tid] and page["tournaments"][0]["status"] == "running"
    st, page = await get(port, "/api/tournaments?limit=1")
    assert [x["id"] for x in page["tournaments"]] == [arena["id"]] and page["next"] == arena["id"]
    st, page = await get(port, f"/api/tournaments?limit=1&before={page['next']}")
    assert [x["id"] for x in page["tournaments"]] == [tid]
    for q in ("status=won", "limit=0", "limit=51", "before=x"):
        st, body = await get(port, f"/api/tournaments?{q}")
        assert st == 400 and body["error"]["code"] == "bad_field", q
    st, body = await get(port, "/api/tournaments/424242")
    assert st == 404 and body["error"]["code"] == "not_found"
    # the OpenAPI document lists the five
    st, doc = await get(port, "/api/openapi.json")
    assert {"/api/tournaments", "/api/tournaments/{id}", "/api/tournaments/{id}/join",
            "/api/tournaments/{id}/leave"} <= set(doc["paths"])
    assert set(doc["paths"]["/api/tournaments"]) == {"get", "post"}
