"""Plain HTTP on the WebSocket port (``process_request``): the browser client, /healthz, /metrics, match records.

Routes (GET):

- ``/ws``: the WebSocket endpoint (handshake continues);
- ``/healthz``: ``200`` JSON ``{"status": "ok", "redis": bool, "tables": n, "connections": n}``;
- ``/metrics``: Prometheus text;
- ``/records/<table>.json`` (latest game) and ``/records/<table>/<game>.json``: a match record
  in the format of ``rules/replay.py`` (``billar referee DISCIPLINE --replay FILE``);
- anything else: a file of the client build (``client_web/dist``), ``index.html`` for ``/``;
  a short page saying the client is not built when that folder does not exist.
"""

from __future__ import annotations

import json
import mimetypes
import os
import re
from http import HTTPStatus
from typing import TYPE_CHECKING, Optional

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

if TYPE_CHECKING:  # pragma: no cover
    from server.app import Server

RECORD_PATH = re.compile(r"/records/([A-Za-z0-9_-]{1,32})(?:/(\d{1,6}))?\.json")

NOT_BUILT = b"""<!doctype html><meta charset="utf-8"><title>billar</title>
<h1>billar</h1><p>The game server is running, but the browser client is not built
(client_web/dist is missing). WebSocket endpoint: <code>/ws</code>; health: <a href="/healthz">/healthz</a>;
metrics: <a href="/metrics">/metrics</a>.</p>
"""


def response(status: int, body: bytes, content_type: str, extra: Optional[dict] = None) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-store"
    for k, v in (extra or {}).items():
        headers[k] = v
    return Response(status, HTTPStatus(status).phrase, headers, body)


def json_response(status: int, obj) -> Response:
    return response(status, json.dumps(obj, separators=(",", ":")).encode(), "application/json")


def make_router(server: "Server"):
    """The ``process_request`` callable for ``websockets.asyncio.server.serve``."""

    async def route(connection, request: Request) -> Optional[Response]:
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            return None
        if path == "/healthz":
            return json_response(200, server.health())
        if path == "/metrics":
            return response(200, server.render_metrics().encode(), "text/plain; version=0.0.4; charset=utf-8")
        m = RECORD_PATH.fullmatch(path)
        if m:
            status, body = await server.export_record(m.group(1), int(m.group(2)) if m.group(2) else None)
            return json_response(status, body)
        return static(server.settings.static_dir, path)

    return route


def static(root: str, path: str) -> Response:
    """A file under ``root`` (no path outside it is ever served)."""
    if not os.path.isdir(root):
        if path in ("/", "/index.html"):
            return response(200, NOT_BUILT, "text/html; charset=utf-8")
        return response(404, b"not found\n", "text/plain; charset=utf-8")
    rel = path.lstrip("/") or "index.html"
    base = os.path.realpath(root)
    full = os.path.realpath(os.path.join(base, rel))
    if not full.startswith(base + os.sep) or not os.path.isfile(full):
        return response(404, b"not found\n", "text/plain; charset=utf-8")
    ctype = mimetypes.guess_type(full)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
        ctype += "; charset=utf-8"
    with open(full, "rb") as fh:
        return response(200, fh.read(), ctype)
