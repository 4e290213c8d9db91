"""Shot puzzles over the JSON API: ``GET /api/puzzles/daily``, ``GET /api/puzzles/{id}``, ``POST /api/puzzles/{id}/attempt``.

The contract (docs/protocol.md, "Puzzles"): a puzzle is shown as a ``PuzzleView`` (the position,
its code, the table geometry, the goal, the puzzle's Glicko-2 rating, and ``me``: the logged-in
player's attempts and puzzle rating, null for a guest). An attempt is judged with the real physics
and referee (server/puzzles/judge.py); the answer carries the ruling, the stroke and the solution
as replay records. Only a logged-in player's first attempt at a puzzle changes ratings
(server/puzzles/store.py); guests may attempt and nothing is stored for them.

Every input is checked before anything happens: the id (a positive integer, else 400 ``bad_id``;
unknown: 404 ``no_puzzle``), the body (over :data:`MAX_ATTEMPT_BYTES`: 413 ``too_large``; not JSON:
400 ``bad_json``; the stroke with the WebSocket stroke's checker, protocol/fields.py ``STROKE``, and
the call with ``CALL``, each error 400 ``bad_field`` naming the field). Then the per-address limit
(:data:`ATTEMPTS_PER_MINUTE`; 429 ``too_many_attempts``), then the judge.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

from physics.table import get_table
from protocol import fields as F
from protocol.errors import ProtocolError
from rules.position import Position, decode
from server.api.messages import ApiRequest, ApiResponse, error
from server.api.router import Param, Route
from server.players.accounts import Account
from server.puzzles import store
from server.puzzles.judge import CUE, goal_text, judge
from server.ratelimit import KeyedLimiter

#: largest attempt body, bytes (the contract's 4 KiB)
MAX_ATTEMPT_BYTES = 4 * 1024
#: attempts per minute per client address (burst the same)
ATTEMPTS_PER_MINUTE = 10
#: largest puzzle id (ids are 64-bit)
MAX_ID = 2**63 - 1


class _Refused(Exception):
    def __init__(self, response: ApiResponse):
        super().__init__(response.status)
        self.response = response


def parse_id(text: str) -> int:
    """The puzzle id of a path segment: a positive integer of at most 19 digits, else :class:`_Refused` 400 ``bad_id``."""
    if not (text.isascii() and text.isdigit() and len(text) <= 19 and 1 <= int(text) <= MAX_ID):
        raise _Refused(error(400, "bad_id", "id: must be a positive integer"))
    return int(text)


def _huge_number(v: Any, path: str) -> Optional[str]:
    """The path of an integer too large for a float inside ``v`` (JSON allows them; ``float()`` would overflow)."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 1e300:
        return path
    if isinstance(v, dict):
        for k, x in list(v.items())[:16]:
            hit = _huge_number(x, f"{path}.{k}" if isinstance(k, str) and len(k) <= 32 else f"{path}.<key>")
            if hit:
                return hit
    return None


def read_attempt(body: Dict[str, Any], position: Position) -> Tuple[Dict[str, float], Optional[Dict[str, Any]]]:
    """(stroke, call) of an attempt body at a puzzle of ``position``; :class:`_Refused` 400 ``bad_field`` naming the
    field otherwise. 14.1 needs ``call`` ``{"ball", "pocket"}`` naming an object ball on the table and one of its
    pockets; a carom puzzle takes no call (absent or null)."""
    def bad(msg: str) -> _Refused:
        return _Refused(error(400, "bad_field", msg))

    for k in body:
        if k not in ("stroke", "call"):
            raise bad(f"{k if isinstance(k, str) and len(k) <= 32 else '<key>'}: unknown field")
    if "stroke" not in body:
        raise bad("stroke: required")
    huge = _huge_number(body, "body")
    if huge:
        raise bad(f"{huge[5:]}: must be a finite number within its range")
    try:
        stroke = F.STROKE(body["stroke"], "stroke")
    except ProtocolError as exc:
        raise bad(str(exc)) from None
    call = body.get("call")
    if position.discipline != "straight_pool":
        if call is not None:
            raise bad("call: a carom puzzle takes no call")
        return stroke, None
    if call is None:
        raise bad("call: required at a 14.1 puzzle: {\"ball\": object ball, \"pocket\": pocket name}")
    try:
        call = F.CALL(call, "call")
    except ProtocolError as exc:
        raise bad(str(exc)) from None
    if call is None or "ball" not in call:
        raise bad("call: must name a ball and a pocket (a puzzle asks for a pot, not a safety)")
    if call["ball"] == CUE or call["ball"] not in position.layout():
        raise bad(f"call.ball: ball {call['ball']} is not an object ball on the table")
    if call["pocket"] not in {p.name for p in position.preset().pockets}:
        raise bad(f"call.pocket: no pocket {call['pocket']!r} on this table")
    return stroke, call


class PuzzlesApi:
    """The puzzle routes (added to the API's routes by ``PlayersApi``).

    ``who(req)``: the logged-in account of a request or None; ``clock``: aware UTC now (the day of the daily
    puzzle); ``monotonic``: seconds, for the rate limit (tests drive both).
    """

    def __init__(self, db: Any, who: Callable[[ApiRequest], Awaitable[Optional[Account]]],
                 clock: Callable[[], dt.datetime], monotonic: Callable[[], float] = time.monotonic,
                 attempts_per_minute: float = ATTEMPTS_PER_MINUTE):
        self.db, self.who, self.clock = db, who, clock
        self.limiter = KeyedLimiter(attempts_per_minute / 60.0, attempts_per_minute, clock=monotonic)
        self._solutions: Dict[int, Dict[str, Any]] = {}
        pid = Param("id", "path", {"type": "integer", "minimum": 1, "maximum": MAX_ID}, "the puzzle's id", loose=True)
        self.routes: List[Route] = [
            Route("GET", "/api/puzzles/daily", self.daily, "The puzzle of the day (UTC)", "getDailyPuzzle",
                  {200: ("the puzzle of the day, the same for everybody all day", "PuzzleView"),
                   404: ("no puzzle yet (no_puzzle)", "Error")}, tag="puzzles"),
            Route("GET", "/api/puzzles/{id}", self.read, "A puzzle", "getPuzzle",
                  {200: ("the puzzle (`me`: the logged-in player's attempts and rating, null for a guest)",
                         "PuzzleView"),
                   400: ("the id is not a positive integer (bad_id)", "Error"),
                   404: ("no such puzzle (no_puzzle)", "Error")}, [pid], tag="puzzles"),
            Route("POST", "/api/puzzles/{id}/attempt", self.attempt, "Try a puzzle: the stroke judged by the referee",
                  "attemptPuzzle",
                  {200: ("the ruling, the stroke and the solution as replay records, the attempt number and, for a "
                         "logged-in player's first attempt, the rating changes", "PuzzleResult"),
                   400: ("bad_id, bad_json, or bad_field naming the field (the stroke's limits are the WebSocket "
                         "stroke's; call required at 14.1, refused at carom)", "Error"),
                   404: ("no such puzzle (no_puzzle)", "Error"),
                   413: ("body over 4 KiB (too_large)", "Error"),
                   429: (f"more than {ATTEMPTS_PER_MINUTE} attempts a minute from this address (too_many_attempts)",
                         "Error")},
                  [pid], body="PuzzleAttempt", tag="puzzles", max_body=MAX_ATTEMPT_BYTES),
        ]

    # ----- views -------------------------------------------------------------------------------
    async def view(self, req: ApiRequest, p: store.Puzzle) -> Dict[str, Any]:
        """The ``PuzzleView`` of ``p`` for the requester."""
        pos = decode(p.code)
        acc = await self.who(req)
        me = None if acc is None else await store.me(self.db, p.id, acc.id, self.clock())
        return {
            "id": p.id, "discipline": p.discipline, "goal": p.goal, "goal_text": goal_text(p.discipline),
            "position": p.code, "table": get_table(pos.table).to_json(),
            "balls": {str(b): [x, y] for b, x, y in pos.balls}, "cue_ball": CUE,
            "rating": p.rating, "rd": p.rd, "plays": p.plays, "wins": p.wins,
            "source": {"game": None if p.source_game_id is None else str(p.source_game_id),
                       "stroke": p.source_stroke if p.source_game_id is not None else None},
            "me": me,
            "next": await store.next_id(self.db, p.id),
        }

    async def _puzzle(self, text: str) -> store.Puzzle:
        p = await store.get(self.db, parse_id(text))
        if p is None:
            raise _Refused(error(404, "no_puzzle", "no such puzzle"))
        return p

    # ----- routes ------------------------------------------------------------------------------
    async def daily(self, req: ApiRequest, body: None) -> ApiResponse:
        p = await store.daily(self.db, self.clock().astimezone(dt.timezone.utc).date())
        if p is None:
            return error(404, "no_puzzle", "there are no puzzles yet")
        return ApiResponse(200, await self.view(req, p))

    async def read(self, req: ApiRequest, body: None, id: str) -> ApiResponse:
        try:
            return ApiResponse(200, await self.view(req, await self._puzzle(id)))
        except _Refused as r:
            return r.response

    def _solution(self, p: store.Puzzle, pos: Position) -> Dict[str, Any]:
        hit = self._solutions.get(p.id)
        if hit is None:
            sol = p.solution
            played = judge(pos, sol["stroke"], sol.get("call"))
            hit = {"stroke": dict(sol["stroke"]), "call": sol.get("call"), "record": played.record}
            if len(self._solutions) > 512:
                self._solutions.clear()
            self._solutions[p.id] = hit
        return hit

    async def attempt(self, req: ApiRequest, body: Dict[str, Any], id: str) -> ApiResponse:
        try:
            p = await self._puzzle(id)
            pos = decode(p.code)
            stroke, call = read_attempt(body, pos)
        except _Refused as r:
            return r.response
        if not self.limiter.take(req.client or "?"):
            return error(429, "too_many_attempts", f"at most {ATTEMPTS_PER_MINUTE} attempts a minute; try again soon")
        loop = asyncio.get_running_loop()
        try:  # tens of milliseconds of physics at worst: in a worker thread, so the event loop keeps turning
            played = await loop.run_in_executor(None, judge, pos, stroke, call)
        except ValueError as exc:  # the referee or the physics refuses the stroke or call
            return error(400, "bad_field", f"stroke: {exc}"[:300])
        acc = await self.who(req)
        number, change = 1, None
        if acc is not None:
            try:
                number, change = await store.attempt(self.db, p.id, acc.id, played.solved, self.clock())
            except KeyError:
                return error(404, "no_puzzle", "no such puzzle")
        return ApiResponse(200, {
            "solved": played.solved, "ruling": played.ruling, "stroke": played.record,
            "solution": await loop.run_in_executor(None, self._solution, p, pos), "attempt": number,
            "rating": None if change is None else change.to_json(),
        })
