"""Schemathesis against the API's OpenAPI document, in-process: no 500, every status and body as documented,
schema-invalid input refused. A short run here; ``make soak`` runs a long one (marker ``soak``).

Cases are generated from the document (positive and negative modes) and sent through
``PlayersApi.handle`` as the HTTP transport would; each response is checked by schemathesis's
own checks. Not checked: ``positive_data_acceptance`` (a schema-valid username can still break a
rule JSON Schema does not say, such as a reserved or confusable name: 400 is documented for it).
"""

import gzip
from urllib.parse import urlsplit

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (content_type_conformance, negative_data_rejection, not_a_server_error,
                                 response_headers_conformance, response_schema_conformance, status_code_conformance)

from server.api import ApiRequest, PlayersApi, document
from server.players.accounts import Accounts
from server.players.games import record_game
from server.records import export
from server.puzzles.service import load_seed, seed
from server.tournaments import store as tournaments
from records_helpers import server_record

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance, negative_data_rejection]
TRANSPORT_KEYS = ("method", "url", "headers", "params", "json", "data", "cookies")


def generate(doc, per_operation):
    schema = schemathesis.openapi.from_dict(doc)
    cases = []
    for res in schema.get_all_operations():
        op = res.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            @settings(max_examples=per_operation, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))
            @given(op.as_strategy(generation_mode=mode))
            def collect(case):
                cases.append(case)
            try:
                collect()
            except Unsatisfiable:  # nothing negative to say of GET /api/account (no parameters, no body)
                pass
    return cases


async def run_cases(api, cases):
    failures = []
    for case in cases:
        kw = case.as_transport_kwargs(base_url="http://billar.test")
        prep = requests.Request(**{k: v for k, v in kw.items() if k in TRANSPORT_KEYS}).prepare()
        u = urlsplit(prep.url)
        body = prep.body or b""
        body = body.encode() if isinstance(body, str) else body
        resp = await api.handle(ApiRequest(prep.method, u.path, u.query, dict(prep.headers), body, "127.0.0.1"))
        headers = {}
        for k, v in resp.headers:
            headers.setdefault(k, []).append(v)
        headers.setdefault("Content-Type", ["application/json"])
        content = resp.body()
        if "gzip" in resp.header("content-encoding"):  # an HTTP client decodes it, as requests does
            content = gzip.decompress(content)
            del headers["Content-Encoding"]
        try:
            case.validate_response(schemathesis.Response(resp.status, headers, content, prep, 0.001, True),
                                   checks=CHECKS)
        except BaseException as exc:  # schemathesis raises an exception group
            failures.append((case.operation.label, resp.status, str(exc)[:600]))
    return failures


class StaticLive:
    """A live side with two live games (one featured, one guest seat), as server/tv/channel.py answers."""

    GAMES = [
        {"table": "t1", "discipline": "three_cushion", "seats": ["ann", "bob"], "ratings": [1712.0, 1650.0],
         "provisional": [False, True], "scores": [12, 11], "run": 3, "status": "playing", "spectators": 4, "rated": True, "game": 2,
         "score": 1500.25, "featured": True},
        {"table": "t2", "discipline": "straight_pool", "seats": ["cy", "dan"], "ratings": [None, 1500.0],
         "provisional": [False, True], "scores": [-1, 40], "run": 0, "status": "paused", "spectators": 0, "rated": False, "game": 1,
         "score": 400.0, "featured": False},
    ]

    async def featured(self, channels=None):
        out = {}
        for ch in channels or []:
            g = next((g for g in self.GAMES if g["discipline"] == ch or (ch == "all" and g["featured"])), None)
            if g is None or not g["featured"]:
                out[ch] = {"channel": ch, "table": None}
            else:
                out[ch] = {k: v for k, v in g.items() if k != "featured"} | {"channel": ch, "since": 1.5e9,
                                                                              "ended": False}
        return out

    async def live_games(self, discipline=None):
        return [g for g in self.GAMES if discipline is None or g["discipline"] == discipline]


async def seeded_cases(api, db, doc):
    """Requests that reach real data (generated names hardly ever name a player): a player with rated
    games, their game list, a game's record, a leaderboard."""
    ids, tokens = [], []
    for n in ("Ann", "Bob"):
        acc, token = await api.accounts.register(n, "correct horse battery")
        ids.append(acc.id)
        tokens.append(token)
    cookie = {"Cookie": f"billar_session={tokens[0]}"}
    tid = await tournaments.create_tournament(db, ids[0], tournaments.Settings(
        name="Cup", discipline="straight_pool", format="round_robin", config={"target_points": 10}, max_players=2))
    for i in ids:
        await tournaments.join(db, tid, i)
    await tournaments.start_tournament(db, tid)
    open_tid = await tournaments.create_tournament(db, ids[1], tournaments.Settings(
        name="Open", discipline="three_cushion", format="single_elimination", config={}, max_players=4))
    out = None
    for g in (1, 2):
        out = await record_game(db, *server_record("three_cushion", "st", g, accounts=ids, rated=True), export)
    await seed(db)
    pool = next(p for p in load_seed() if p["discipline"] == "straight_pool")
    carom = next(p for p in load_seed() if p["discipline"] == "three_cushion")
    ids_of = {p["code"]: i for i, p in enumerate(load_seed(), 1)}
    schema = schemathesis.openapi.from_dict(doc)
    return [
        schema["/api/puzzles/daily"]["GET"].Case(),
        schema["/api/puzzles/{id}"]["GET"].Case(headers=cookie, path_parameters={"id": ids_of[pool["code"]]}),
        schema["/api/puzzles/{id}/attempt"]["POST"].Case(headers=cookie, path_parameters={"id": ids_of[pool["code"]]},
                                                        body=pool["solution"]),
        schema["/api/puzzles/{id}/attempt"]["POST"].Case(path_parameters={"id": ids_of[carom["code"]]},
                                                        body={"stroke": carom["solution"]["stroke"]}),
        schema["/api/players/{name}"]["GET"].Case(path_parameters={"name": "ann"}),
        schema["/api/players/{name}/games"]["GET"].Case(path_parameters={"name": "Bob"}, query={"limit": 1}),
        schema["/api/games/{id}"]["GET"].Case(path_parameters={"id": out.game_id}),
        schema["/api/leaderboard/{discipline}"]["GET"].Case(path_parameters={"discipline": "three_cushion"}),
        schema["/api/tv"]["GET"].Case(),
        schema["/api/tv/{channel}"]["GET"].Case(path_parameters={"channel": "three_cushion"}),
        schema["/api/tv/{channel}"]["GET"].Case(path_parameters={"channel": "all"}),
        schema["/api/games/live"]["GET"].Case(query={"discipline": "14.1"}),
        schema["/api/games/live"]["GET"].Case(query={"limit": 1}),
        schema["/api/tournaments"]["GET"].Case(query={"status": "running"}),
        schema["/api/tournaments/{id}"]["GET"].Case(path_parameters={"id": tid}),
        schema["/api/tournaments"]["POST"].Case(headers=cookie, body={
            "name": "Arena", "discipline": "14.1", "format": "arena", "duration_s": 900, "config": {"target_points": 10}}),
        schema["/api/tournaments/{id}/join"]["POST"].Case(headers=cookie, path_parameters={"id": open_tid}, body={}),
        schema["/api/tournaments/{id}/join"]["POST"].Case(headers=cookie, path_parameters={"id": tid}, body={}),
        schema["/api/tournaments/{id}/leave"]["POST"].Case(headers=cookie, path_parameters={"id": open_tid}, body={}),
    ]


async def test_schemathesis_short(db, hasher):
    api = PlayersApi(db, Accounts(db, hasher=hasher), leaderboard_ttl_s=0, live=StaticLive())
    doc = document(api.routes)
    cases = await seeded_cases(api, db, doc) + generate(doc, 12)
    assert len(cases) > 150
    assert await run_cases(api, cases) == []


@pytest.mark.soak
async def test_schemathesis_long(db, hasher):
    api = PlayersApi(db, Accounts(db, hasher=hasher), leaderboard_ttl_s=0, live=StaticLive())
    doc = document(api.routes)
    assert await run_cases(api, await seeded_cases(api, db, doc) + generate(doc, 300)) == []
