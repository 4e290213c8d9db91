"""The JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every request body and response: the one place they live.

:func:`check_body` validates a request body against one of the request schemas here (objects of
string fields with lengths: all the API takes), so what the document says and what the handlers
accept cannot drift apart. The response schemas are checked against real responses by the tests.
"""

from __future__ import annotations

from typing import Any, Dict

from rules.drills import GOAL_KINDS
from rules.position import DISCIPLINES as POSITION_DISCIPLINES
from rules.position import MAX_BALLS, PRESETS
from rules.registry import DISCIPLINES
from server.players import names
from server.players.accounts import PASSWORD_MAX_CHARS

DISCIPLINE_NAMES = sorted(DISCIPLINES)
TIME = {"type": "string", "format": "date-time"}
NUM = {"type": "number"}
INT = {"type": "integer"}
NULLABLE_NUM = {"type": ["number", "null"]}


def _obj(props: Dict[str, Any], required=None, extra: bool = False) -> Dict[str, Any]:
    return {"type": "object", "properties": props, "required": sorted(props) if required is None else required,
            "additionalProperties": extra}


_USERNAME = {"type": "string", "minLength": 0, "maxLength": 64,
             "description": f"{names.MIN_CHARS}-{names.MAX_CHARS} characters once surrounding blanks are stripped: "
                            "letters (any script) and digits, with single separators (space, _, - or .) between "
                            "them; it starts and ends with a letter or digit (registration: 400 bad_username "
                            "otherwise). Names differing only by case, confusable characters or separators are "
                            "one name (409 username_taken)"}
_PASSWORD = {"type": "string", "minLength": 1, "maxLength": PASSWORD_MAX_CHARS}
_GAME_ITEM = _obj({
    "id": INT, "discipline": {"type": "string"}, "rated": {"type": "boolean"},
    "aborted": {"type": "boolean", "description": "forfeited before both players had played a stroke: not rated, "
                                                  "not in the statistics"},
    "finished_at": TIME, "seat": {"type": "integer", "enum": [0, 1]}, "result": {"type": "string", "enum": ["win", "draw", "loss"]},
    "points": INT, "innings": INT, "high_run": INT, "average": NUM,
    "rating_before": NULLABLE_NUM, "rating_after": NULLABLE_NUM, "rating_change": NULLABLE_NUM,
    "opponent": _obj({"name": {"type": "string"}, "registered": {"type": "boolean"}, "points": INT,
                      "rating_before": NULLABLE_NUM}),
})

_BALL = _obj({"id": {"type": "integer", "minimum": 0, "maximum": MAX_BALLS - 1, "description": "ball id (pool 0-15, carom 0-2)"},
              "x": {"type": "number", "description": "m, along the table"},
              "y": {"type": "number", "description": "m, across the table"}})
_CUE = _obj({"cue_ball": {"type": "integer", "minimum": 0, "maximum": 15}, "phi_deg": NUM,
             "a": {"type": "number", "minimum": -0.5, "maximum": 0.5}, "b": {"type": "number", "minimum": -0.5, "maximum": 0.5},
             "theta_deg": {"type": "number", "minimum": 0, "maximum": 70},
             "V0": {"type": "number", "exclusiveMinimum": 0, "maximum": 10}})
_POSITION_PROPS = {
    "table": {"type": "string", "enum": list(PRESETS)},
    "discipline": {"type": "string", "enum": list(POSITION_DISCIPLINES)},
    "balls": {"type": "array", "minItems": 1, "maxItems": MAX_BALLS, "items": _BALL},
    "cue": {"anyOf": [_CUE, {"type": "null"}], "description": "the stroke to play (optional)"},
}
#: request schemas whose bodies the route's handler reads itself (check_body only makes sure of an object)
HANDLER_CHECKED = frozenset({"Position", "TournamentCreate", "PuzzleAttempt"})

# ----- tournaments (server/api/tournaments.py) -----
TOURNAMENT_FORMATS = ["round_robin", "single_elimination", "arena"]
TOURNAMENT_STATUSES = ["open", "running", "finished", "cancelled"]
NULLABLE_TIME = {"type": ["string", "null"], "format": "date-time"}
_TOURNAMENT_SUMMARY = {
    "id": INT, "name": {"type": "string"}, "discipline": {"type": "string", "enum": DISCIPLINE_NAMES},
    "format": {"type": "string", "enum": TOURNAMENT_FORMATS}, "rated": {"type": "boolean"},
    "status": {"type": "string", "enum": TOURNAMENT_STATUSES},
    "players": {"type": "integer", "minimum": 0, "description": "how many have joined"},
    "min_players": INT, "max_players": INT,
    "starts_at": dict(NULLABLE_TIME, description="null: starts when full"),
    "duration_s": {"type": ["integer", "null"], "description": "an arena's length (s)"},
    "no_show_s": {"type": "integer", "description": "a player not seated this long after the pairing forfeits"},
    "creator": {"type": ["string", "null"]}, "created_at": TIME, "started_at": NULLABLE_TIME,
    "finished_at": NULLABLE_TIME,
}
_TOURNAMENT_RESULT = _obj({
    "winner": {"type": ["integer", "null"], "enum": [0, 1, None], "description": "the seat that won; null: a draw"},
    "scores": {"type": "array", "items": INT, "minItems": 2, "maxItems": 2},
    "reason": {"type": "string", "enum": ["", "bye", "walkover", "no_show", "drop"],
               "description": "empty: played; else why it closed without a game"},
    "forfeit": {"type": "array", "items": {"type": "integer", "enum": [0, 1]}}})
_PAIRING = _obj({
    "id": {"type": "string", "description": "R<round>-<board> or A<n> (arena)"}, "round": INT,
    "players": {"type": "array", "items": {"type": ["string", "null"]}, "minItems": 2, "maxItems": 2,
                "description": "seat 0 (breaks), seat 1; null: nobody (a bye)"},
    "table": {"type": ["string", "null"], "description": "the table's id (watch it); null for a bye"},
    "game_id": {"type": ["integer", "null"], "description": "the finished game (GET /api/games/{id})"},
    "result": {"anyOf": [_TOURNAMENT_RESULT, {"type": "null"}], "description": "null: being played"}})
_STANDING = _obj({
    "rank": INT, "name": {"type": "string"}, "seed": INT, "score": NUM, "match_points": INT, "arena_points": INT,
    "stage": INT, "games": INT, "wins": INT, "draws": INT, "losses": INT, "forfeits": INT, "score_for": INT,
    "score_against": INT, "points": INT, "innings": INT, "high_run": INT, "average": NUM,
    "active": {"type": "boolean", "description": "false: dropped (arena: paused)"}})
TOURNAMENT_SCHEMAS: Dict[str, Dict[str, Any]] = {
    "TournamentCreate": dict(_obj({
        "name": {"type": "string", "minLength": 1, "maxLength": 60},
        "discipline": {"type": "string", "maxLength": 32, "description": "a discipline name (or an alias: 14.1)"},
        "format": {"type": "string", "enum": TOURNAMENT_FORMATS},
        "config": {"type": "object", "description": "the match settings (rules spec section C); {}: the defaults"},
        "rated": {"type": "boolean", "default": False},
        "min_players": {"type": "integer", "default": 2}, "max_players": {"type": "integer", "default": 16},
        "starts_at": dict(NULLABLE_TIME, description="RFC 3339 with offset; null or absent: start when full"),
        "duration_s": {"type": ["integer", "null"], "description": "arena only, and required there"},
        "no_show_s": {"type": "integer", "default": 180},
    }, required=["name", "discipline", "format"]), description="a new tournament's settings"),
    "TournamentSummary": _obj(_TOURNAMENT_SUMMARY),
    "TournamentPage": _obj({"tournaments": {"type": "array", "maxItems": 50,
                                            "items": {"$ref": "#/components/schemas/TournamentSummary"}},
                            "next": {"type": ["integer", "null"]}}),
    "Tournament": _obj({
        **_TOURNAMENT_SUMMARY, "config": {"type": "object"},
        "version": {"type": "integer", "description": "the state's version (grows with every change)"},
        "ends_at": {"type": ["number", "null"], "description": "arena: no pairing from then (Unix time)"},
        "entries": {"type": "array", "items": _obj({"username": {"type": "string"},
                                                    "seed": {"type": ["integer", "null"]},
                                                    "rating": NULLABLE_NUM})},
        "standings": {"type": "array", "items": _STANDING},
        "pairings": {"type": "array", "items": _PAIRING}}),
    "TournamentEntry": _obj({"joined": {"type": "boolean"}, "players": INT, "full": {"type": "boolean"}}),
    "TournamentLeft": _obj({"left": {"type": "boolean"}}),
}

# ----- puzzles (server/api/puzzles.py) -----
_PUZZLE_STROKE = _obj({
    "phi_deg": {"type": "number", "minimum": -360, "maximum": 360, "description": "aim, deg counter-clockwise from +x"},
    "a": {"type": "number", "minimum": -0.5, "maximum": 0.5, "description": "side tip offset (R); sqrt(a^2 + b^2) <= 0.5"},
    "b": {"type": "number", "minimum": -0.5, "maximum": 0.5, "description": "vertical tip offset (R)"},
    "theta_deg": {"type": "number", "minimum": 0, "maximum": 70, "description": "cue elevation, deg"},
    "V0": {"type": "number", "exclusiveMinimum": 0, "maximum": 10, "description": "cue speed, m/s"}})
_PUZZLE_CALL = _obj({"ball": {"type": "integer", "minimum": 1, "maximum": 15},
                     "pocket": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "a pocket of the table"}})
_STROKE_RECORD = {"type": "object", "additionalProperties": True, "required": ["sim", "log"],
                  "description": "the stroke as a replay keeps it: `sim` (SimResult JSON with `initial`, `events`, "
                                 "`final`), `log` (wire event log, format 1), `diamonds` (carom)",
                  "properties": {"sim": {"type": "object"}, "log": {"type": "object"},
                                 "diamonds": {"type": "array", "items": {"type": "object"}}}}
PUZZLE_SCHEMAS: Dict[str, Dict[str, Any]] = {
    "PuzzleView": _obj({
        "id": INT, "discipline": {"type": "string", "enum": list(POSITION_DISCIPLINES)},
        "goal": {"type": "string", "enum": ["pot", "carom"]}, "goal_text": {"type": "string"},
        "position": {"type": "string", "description": "the position code (opens #/practice/<code>)"},
        "table": {"type": "object", "description": "the table geometry (Table.to_json, as table messages send it)"},
        "balls": {"type": "object", "additionalProperties": {"type": "array", "items": NUM, "minItems": 2,
                                                               "maxItems": 2}, "description": "ball id -> [x, y] m"},
        "cue_ball": {"type": "integer", "description": "the ball the solver shoots"},
        "rating": NUM, "rd": NUM, "plays": INT, "wins": INT,
        "source": _obj({"game": {"type": ["string", "null"]}, "stroke": {"type": ["integer", "null"]}}),
        "me": {"anyOf": [_obj({"attempts": INT, "solved": {"type": "boolean"}, "rating": NUM, "rd": NUM}),
                         {"type": "null"}], "description": "null for a guest"},
        "next": {"type": ["integer", "null"],
                 "description": "the next puzzle's id (after the last, the first); null when this is the only one"}}),
    "PuzzleAttempt": dict(_obj({"stroke": _PUZZLE_STROKE,
                                "call": {"anyOf": [_PUZZLE_CALL, {"type": "null"}],
                                         "description": "required at a 14.1 puzzle, refused (non-null) at a carom one"}},
                               required=["stroke"]), description="an attempt: the stroke and, at 14.1, the call"),
    "PuzzleResult": _obj({
        "solved": {"type": "boolean"},
        "ruling": {"type": "object", "required": ["text"], "additionalProperties": True,
                   "properties": {"text": {"type": "string"}}, "description": "the referee's ruling"},
        "stroke": _STROKE_RECORD,
        "solution": _obj({"stroke": _PUZZLE_STROKE, "call": {"anyOf": [_PUZZLE_CALL, {"type": "null"}]},
                          "record": _STROKE_RECORD}),
        "attempt": {"type": "integer", "minimum": 1},
        "rating": {"anyOf": [_obj({"player": _obj({"before": NUM, "after": NUM, "rd": NUM}),
                                   "puzzle": _obj({"before": NUM, "after": NUM})}), {"type": "null"}],
                   "description": "null for a guest or after the first attempt"}}),
}

TV_CHANNELS = ["all"] + DISCIPLINE_NAMES
_GAME_FIELDS = {
    "table": {"type": "string"}, "discipline": {"type": "string", "enum": DISCIPLINE_NAMES},
    "seats": {"type": "array", "items": {"type": ["string", "null"]}, "minItems": 2, "maxItems": 2},
    "ratings": {"type": "array", "items": NULLABLE_NUM, "minItems": 2, "maxItems": 2,
                "description": "the players' ratings in the discipline when seated (null: a guest)"},
    "provisional": {"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 2,
                    "description": "each rating is provisional (its RD at least 110: shown \"1500?\")"},
    "scores": {"type": "array", "items": NUM, "minItems": 2, "maxItems": 2},
    "run": {"type": "integer", "minimum": 0, "description": "the current run of the player at the table"},
    "status": {"type": "string", "enum": ["waiting", "playing", "paused", "over"]},
    "spectators": {"type": "integer", "minimum": 0}, "rated": {"type": "boolean"},
    "game": {"type": "integer", "minimum": 1, "description": "the table's game number (+1 per rematch)"},
    "score": {"type": "number", "minimum": 0, "description": "the TV score (server/tv/choice.py)"},
}
_LIVE_GAME = _obj({**_GAME_FIELDS, "featured": {"type": "boolean",
                                                "description": "its discipline's featured table (GET /api/tv)"}})
_TV_CHANNEL = {
    "type": "object", "additionalProperties": False, "required": ["channel", "table"],
    "description": "a TV channel's featured table (`table` null: nothing featured; the other fields only with a table)",
    "properties": {"channel": {"type": "string", "enum": TV_CHANNELS}, "table": {"type": ["string", "null"]},
                   **{k: v for k, v in _GAME_FIELDS.items() if k != "table"},
                   "since": {"type": "number", "description": "when it became featured (Unix time)"},
                   "ended": {"type": "boolean", "description": "its game is over (it is replaced soon, "
                                                               "or by its rematch)"}},
}

SCHEMAS: Dict[str, Dict[str, Any]] = {
    **TOURNAMENT_SCHEMAS,
    **PUZZLE_SCHEMAS,
    "TvChannel": _TV_CHANNEL,
    "Tv": _obj({ch: {"$ref": "#/components/schemas/TvChannel"} for ch in TV_CHANNELS}),
    "LiveGames": _obj({"games": {"type": "array", "items": _LIVE_GAME}, "total": {"type": "integer", "minimum": 0}}),
    "Error": _obj({"error": _obj({"code": {"type": "string"}, "message": {"type": "string"},
                                  "reason": {"type": "string", "description": "bad_position: why (rules/position.py)"}},
                                 required=["code", "message"])}),
    "Position": dict(_obj(_POSITION_PROPS, required=["table", "discipline", "balls"]),
                     description="a position: table preset, discipline, balls (m) and optionally a cue stroke"),
    "PositionCode": _obj({"code": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$", "maxLength": 128}}),
    "PositionView": _obj(dict(_POSITION_PROPS, code={"type": "string"})),
    "DrillProgress": _obj({"drills": {"type": "object", "description": "drill id -> the player's record there",
                                      "additionalProperties": _obj({"attempts": INT, "successes": INT})}}),
    "Drills": _obj({"drills": {"type": "array", "items": _obj({
        "id": {"type": "string"}, "name": {"type": "string"}, "group": {"type": "string"},
        "discipline": {"type": "string", "enum": list(POSITION_DISCIPLINES)}, "goal": {"type": "string"},
        "goal_kind": {"type": "string", "enum": list(GOAL_KINDS)},
        "target": _obj({"kind": {"type": "string", "enum": list(GOAL_KINDS)}, "ball": {"type": ["integer", "null"]},
                        "pocket": {"type": ["string", "null"]},
                        "area": {"anyOf": [{"type": "array", "items": NUM, "minItems": 4, "maxItems": 4}, {"type": "null"}],
                                 "description": "x0, y0, x1, y1 (m): where the cue ball must stop"}}),
        "code": {"type": "string"}})}}),
    "Credentials": _obj({"username": _USERNAME, "password": _PASSWORD}),
    "PasswordChange": _obj({"current_password": _PASSWORD, "new_password": _PASSWORD}),
    "PasswordConfirmation": _obj({"password": _PASSWORD}),
    "Empty": _obj({}, required=[]),
    "Account": _obj({"account": _obj({"username": {"type": "string"}, "created_at": TIME})}),
    "Ok": _obj({"ok": {"const": True}}),
    "Deleted": _obj({"deleted": {"const": True}, "retired_name": {"type": "string"}}),
    "Profile": _obj({
        "username": {"type": "string"}, "created_at": TIME,
        "ratings": {"type": "array", "items": _obj({
            "discipline": {"type": "string"}, "rating": NUM, "rd": NUM, "provisional": {"type": "boolean"},
            "games": INT, "rated_at": TIME})},
        "statistics": {"type": "array", "items": _obj({
            "discipline": {"type": "string"}, "games": INT, "wins": INT, "draws": INT, "losses": INT,
            "points": INT, "innings": INT, "average": NUM, "high_run": INT, "best_average": NUM,
            "best_game_id": {"type": ["integer", "null"]}})},
        "history": {"type": "object", "additionalProperties": {
            "type": "array", "maxItems": 50,
            "items": {"type": "array", "items": NUM, "minItems": 2, "maxItems": 2,
                      "description": "[time of the game (unix seconds), rating after it]"}}},
        "recent_games": {"type": "array", "maxItems": 10, "items": _GAME_ITEM},
    }),
    "GamePage": _obj({"username": {"type": "string"}, "games": {"type": "array", "maxItems": 50, "items": _GAME_ITEM},
                      "next": {"type": ["integer", "null"]}}),
    "Leaderboard": _obj({
        "discipline": {"type": "string", "enum": DISCIPLINE_NAMES},
        "rating": {"type": "array", "maxItems": 100, "items": _obj({
            "rank": INT, "username": {"type": "string"}, "rating": NUM, "rd": NUM, "games": INT})},
        "high_run": {"type": "array", "maxItems": 100, "items": _obj({
            "rank": INT, "username": {"type": "string"}, "high_run": INT, "games": INT, "average": NUM})},
    }),
    "Record": {
        "type": "object", "additionalProperties": True,
        "required": ["discipline", "config", "seed", "table", "game", "players", "result", "strokes"],
        "description": "a finished game's record in the format `billar referee` replays (rules/replay.py)",
        "properties": {
            "discipline": {"type": "string", "enum": DISCIPLINE_NAMES}, "config": {"type": "object"},
            "seed": INT, "table": {"type": "string"}, "game": INT,
            "players": {"type": "array", "items": {"type": ["string", "null"]}, "minItems": 2, "maxItems": 2},
            "result": {"type": ["object", "null"]}, "preset": {"type": ["object", "null"]},
            "strokes": {"type": "array", "items": {"type": "object"}},
        },
    },
}


class BodyError(ValueError):
    """A request body that does not fit its schema (message names the field)."""


def check_body(body: Any, schema_name: str) -> Dict[str, str]:
    """``body`` checked against request schema ``schema_name`` (an object of string fields); :class:`BodyError`."""
    schema = SCHEMAS[schema_name]
    if not isinstance(body, dict):
        raise BodyError("body: must be a JSON object")
    if schema_name in HANDLER_CHECKED:
        return body
    props = schema["properties"]
    for k in body:
        if k not in props:
            shown = k if len(k) <= 32 else k[:32] + "..."
            raise BodyError(f"{shown}: unknown field")
    for k in schema["required"]:
        if k not in body:
            raise BodyError(f"{k}: required")
    for k, v in body.items():
        p = props[k]
        if not isinstance(v, str):
            raise BodyError(f"{k}: must be a string")
        if len(v) > p.get("maxLength", 1 << 30) or len(v) < p.get("minLength", 0):
            raise BodyError(f"{k}: must be {p.get('minLength', 0)} to {p['maxLength']} characters")
    return body
