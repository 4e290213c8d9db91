"""Positions and drills through the server's own port: POST /api/positions, GET /api/positions/<code>,
GET /api/drills, and the OpenAPI document listing them."""

import json

from harness import http_request as http


def jpost(port, path, obj, **headers):
    return http(port, "POST", path, json.dumps(obj).encode(), {"Content-Type": "application/json", **headers})


RACK_LIKE = {"table": "pool-8ft", "discipline": "straight_pool",
             "balls": [{"id": 0, "x": 0.6, "y": 0.55}, {"id": 7, "x": 1.75, "y": 0.58}, {"id": 9, "x": 1.8, "y": 0.3}],
             "cue": {"cue_ball": 0, "phi_deg": 10.5, "a": 0.1, "b": -0.2, "theta_deg": 2.0, "V0": 3.25}}


async def test_a_position_round_trips_through_the_api(server):
    port = server.port
    st, h, body = await jpost(port, "/api/positions", RACK_LIKE)
    assert st == 200, body
    assert h["content-type"].startswith("application/json")
    code = json.loads(body)["code"]
    assert 0 < len(code) < 100
    st, _, body = await http(port, "GET", f"/api/positions/{code}")
    assert st == 200, body
    got = json.loads(body)
    assert got["code"] == code and got["table"] == "pool-8ft" and got["discipline"] == "straight_pool"
    assert [(b["id"], round(b["x"], 4), round(b["y"], 4)) for b in got["balls"]] == [
        (0, 0.6, 0.55), (7, 1.75, 0.58), (9, 1.8, 0.3)]
    assert got["cue"] == {"cue_ball": 0, "phi_deg": 10.5, "a": 0.1, "b": -0.2, "theta_deg": 2.0, "V0": 3.25}
    # the decoded position encodes to the same code
    st, _, body = await jpost(port, "/api/positions", {k: got[k] for k in ("table", "discipline", "balls", "cue")})
    assert st == 200 and json.loads(body)["code"] == code


async def test_impossible_positions_and_bad_codes_get_400_with_a_reason(server):
    port = server.port
    overlap = dict(RACK_LIKE, balls=[{"id": 0, "x": 0.6, "y": 0.55}, {"id": 1, "x": 0.62, "y": 0.55}])
    st, _, body = await jpost(port, "/api/positions", overlap)
    err = json.loads(body)["error"]
    assert st == 400 and err["code"] == "bad_position" and err["reason"] == "overlap" and "overlap" in err["message"]
    missing = {"table": "carom", "discipline": "three_cushion", "balls": [{"id": 0, "x": 0.5, "y": 0.5}]}
    st, _, body = await jpost(port, "/api/positions", missing)
    assert st == 400 and json.loads(body)["error"]["reason"] == "missing_ball"
    st, _, body = await jpost(port, "/api/positions", dict(RACK_LIKE, extra=True))
    assert st == 400 and json.loads(body)["error"]["reason"] == "bad_field"
    st, _, body = await jpost(port, "/api/positions", ["not", "an", "object"])
    assert st == 400 and json.loads(body)["error"]["code"] == "bad_field"
    st, _, code = await jpost(port, "/api/positions", RACK_LIKE)
    code = json.loads(code)["code"]
    for bad, reason in ((code[:-3] + ("AAA" if code[-3:] != "AAA" else "BBB"), "bad_checksum"), ("%21%21", "malformed"),
                        ("A" * 200, "too_long"), ("abcde", "malformed")):
        st, _, body = await http(port, "GET", f"/api/positions/{bad}")
        assert st == 400, (bad, body)
        assert json.loads(body)["error"]["reason"] == reason, (bad, body)


async def test_the_drills_library_and_the_openapi_document(server):
    port = server.port
    st, _, body = await http(port, "GET", "/api/drills")
    assert st == 200
    drills = json.loads(body)["drills"]
    assert {"3c-umbrella", "pool-9ft-break-shot", "balk-rail-nurse"} <= {d["id"] for d in drills}
    for d in drills:
        assert set(d) == {"id", "name", "group", "discipline", "goal", "goal_kind", "target", "code"}
        st, _, body = await http(port, "GET", f"/api/positions/{d['code']}")
        assert st == 200 and json.loads(body)["discipline"] == d["discipline"]
    st, _, body = await http(port, "GET", "/api/openapi.json")
    paths = json.loads(body)["paths"]
    assert "post" in paths["/api/positions"] and "get" in paths["/api/positions/{code}"] and "get" in paths["/api/drills"]
