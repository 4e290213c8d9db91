"""The browser client's files (``client_web/dist``), served read-only; no path outside that folder is ever served."""

from __future__ import annotations

import mimetypes
import os

from server.http.responses import response, text_response

NOT_BUILT = b"""<!doctype html><meta charset="utf-8"><title>billar</title>
<h1>billar</h1><p>The game server is running, but the browser client is not built
(client_web/dist is missing). WebSocket endpoint: <code>/ws</code>; health: <a href="/healthz">/healthz</a>;
metrics: <a href="/metrics">/metrics</a>.</p>
"""


def static(root: str, path: str):
    """A file under ``root`` for the URL path ``path`` (``index.html`` for ``/``), else 404."""
    if not os.path.isdir(root):
        if path in ("/", "/index.html"):
            return response(200, NOT_BUILT, "text/html; charset=utf-8")
        return text_response(404, "not found")
    rel = path.lstrip("/") or "index.html"
    base = os.path.realpath(root)
    full = os.path.realpath(os.path.join(base, rel))
    if not full.startswith(base + os.sep) or not os.path.isfile(full):
        return text_response(404, "not found")
    ctype = mimetypes.guess_type(full)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
        ctype += "; charset=utf-8"
    with open(full, "rb") as fh:
        return response(200, fh.read(), ctype)
