"""Plain HTTP on the WebSocket port (``process_request``): the browser client, /healthz, /metrics, match records.

Routes (GET):

- ``/ws``: the WebSocket endpoint (handshake continues);
- ``/healthz``: ``200`` JSON ``{"status": "ok", "redis": bool, "tables": n, "connections": n, ...}``;
- ``/metrics``: Prometheus text;
- ``/records/<table>.json`` (latest game) and ``/records/<table>/<game>.json``: a match record
  in the format of ``rules/replay.py`` (``billar referee DISCIPLINE --replay FILE``), looked up by
  key; at most ``http_per_s`` requests a second per client address (burst ``http_burst``), 429 beyond;
- ``/api/...``: the JSON API (server/api/: accounts, players, games, leaderboards; its OpenAPI 3
  document at ``/api/openapi.json``), bodies read by server/http/transport.py;
- anything else: a file of the client build (``client_web/dist``), ``index.html`` for ``/``;
  a short page saying the client is not built when that folder does not exist.

A path with a NUL byte or another control character (raw or percent-encoded) is answered 400 (under
``/api/`` with the API's JSON error ``{"error": {"code": "bad_request", "message"}}``, as every
error there, those of the transport included: 413 ``too_large``, 411 ``length_required``, 431
``headers_too_large``).
"""

from __future__ import annotations

import re
from typing import Any, Awaitable, Callable, Dict, Optional, Tuple

from websockets.http11 import Request, Response

from server.api.messages import ApiRequest, ApiResponse
from server.config import Settings
from server.http.responses import json_response, response, text_response
from server.http.static import static
from server.http.transport import is_api_path, peer_address
from server.metrics import Metrics
from server.ratelimit import KeyedLimiter

RECORD_PATH = re.compile(r"/records/([A-Za-z0-9_-]{1,32})(?:/(\d{1,6}))?\.json")
BAD_PATH = re.compile(r"[\x00-\x1f\x7f]|%[01][0-9a-fA-F]|%7[fF]")  # control characters, raw or percent-encoded


class Router:
    """The ``process_request`` of the server's port (``health``, ``render_metrics`` and ``export_record`` come from
    the app: ``export_record(table, game) -> (status, body)``)."""

    def __init__(self, settings: Settings, metrics: Metrics, health: Callable[[], Dict[str, Any]],
                 render_metrics: Callable[[], str],
                 export_record: Callable[[str, Optional[int]], Awaitable[Tuple[int, Any]]],
                 api: Optional[Callable[[ApiRequest], Awaitable[ApiResponse]]] = None, openapi: Optional[bytes] = None):
        self.settings, self.metrics = settings, metrics
        self.health, self.render_metrics, self.export_record = health, render_metrics, export_record
        self.api, self.openapi = api, openapi
        self.records_limiter = KeyedLimiter(settings.http_per_s, settings.http_burst)

    async def route(self, connection: Any, request: Request) -> Optional[Response]:
        path = request.path.split("?", 1)[0]
        if BAD_PATH.search(path):
            if is_api_path(path):
                return json_response(400, {"error": {"code": "bad_request", "message": "bad request path"}})
            return text_response(400, "bad request path")
        if path == "/ws":
            return None
        if path == "/healthz":
            return json_response(200, self.health())
        if path == "/metrics":
            return response(200, self.render_metrics().encode(), "text/plain; version=0.0.4; charset=utf-8")
        if path == "/api/openapi.json" and self.openapi is not None and request.method == "GET":
            return response(200, self.openapi, "application/json")
        if (path == "/api" or path.startswith("/api/")) and self.api is not None:
            return await self._api(connection, request, path)
        m = RECORD_PATH.fullmatch(path)
        if m:
            if not self.records_limiter.take(peer_address(connection) or "?"):
                return json_response(429, {"error": {"code": "too_many_requests", "message": "too many requests: slow down"}},
                                     [("Retry-After", "1")])
            status, body = await self.export_record(m.group(1), int(m.group(2)) if m.group(2) else None)
            return json_response(status, body)
        return static(self.settings.static_dir, path)

    async def _api(self, connection: Any, request: Request, path: str) -> Response:
        """One request of the JSON API: its method, query, headers and body (read by server/http/transport.py)."""
        headers = {}
        for k, v in request.headers.raw_items():
            k = k.lower()
            headers[k] = f"{headers[k]}, {v}" if k in headers and k != "cookie" else v
        query = request.path.split("?", 1)[1] if "?" in request.path else ""
        req = ApiRequest(request.method, path, query, headers, getattr(request, "body", b""),
                         peer_address(connection) or "", https=False)
        res = await self.api(req)
        body = res.body()
        ctype = next(iter(res.header("content-type")), "application/json")
        extra = [(k, v) for k, v in res.headers if k.lower() != "content-type"]
        return response(res.status, body, ctype, extra)
