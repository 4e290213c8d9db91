"""Positions and drills over the JSON API: ``POST /api/positions``, ``GET /api/positions/{code}``, ``GET /api/drills``.

Pure computations over rules/position.py (the position codes) and rules/drills.py (the drills
library): no database, no state. An impossible position or a malformed code is a 400 whose error
carries the code ``bad_position``, the message naming what is wrong and the ``reason`` of
:class:`rules.position.PositionError` (``overlap``, ``bad_checksum``, ...).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

from rules.drills import DRILLS
from rules.position import MAX_CODE_CHARS, PositionError, decode, encode, from_json
from server.api.messages import ApiRequest, ApiResponse
from server.api.router import Param, Route


def bad_position(exc: PositionError) -> ApiResponse:
    """The 400 of an impossible position: ``{"error": {"code": "bad_position", "message", "reason"}}``."""
    return ApiResponse(400, {"error": {"code": "bad_position", "message": str(exc), "reason": exc.reason}})


class PositionsApi:
    """The routes of positions and drills (added to the API's routes by ``PlayersApi``)."""

    def __init__(self):
        self._drills = json.dumps({"drills": [d.to_json() for d in DRILLS]}, separators=(",", ":")).encode("utf-8")
        code = Param("code", "path", {"type": "string", "minLength": 1, "maxLength": MAX_CODE_CHARS,
                                      "pattern": "^[A-Za-z0-9_-]+$"},
                     "a position code (base64url without padding, rules/position.py)")
        self.routes: List[Route] = [
            Route("POST", "/api/positions", self.create, "The code of a position", "encodePosition",
                  {200: ("the position's code (the position rounded to 0.1 mm)", "PositionCode"),
                   400: ("malformed body, or an impossible position (reason given)", "Error")},
                  body="Position", tag="positions"),
            Route("GET", "/api/positions/{code}", self.read, "The position of a code", "decodePosition",
                  {200: ("the position", "PositionView"),
                   400: ("a malformed, corrupted or impossible code (reason given)", "Error"),
                   404: ("not a position path", "Error")},
                  [code], tag="positions"),
            Route("GET", "/api/drills", self.drills, "The drills library", "listDrills",
                  {200: ("every drill with its goal and position code", "Drills")}, tag="positions"),
        ]

    async def create(self, req: ApiRequest, body: Dict[str, Any]) -> ApiResponse:
        try:
            return ApiResponse(200, {"code": encode(from_json(body))})
        except PositionError as exc:
            return bad_position(exc)

    async def read(self, req: ApiRequest, body: None, code: str) -> ApiResponse:
        try:
            pos = decode(code)
        except PositionError as exc:
            return bad_position(exc)
        return ApiResponse(200, dict(pos.to_json(), code=code))

    async def drills(self, req: ApiRequest, body: None) -> ApiResponse:
        return ApiResponse(200, headers=[("Content-Type", "application/json")], raw=self._drills)
