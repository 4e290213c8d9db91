"""HTTP responses of the server (websockets' ``Response``), JSON or text, never cached."""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any, Iterable, Optional, Tuple

from websockets.datastructures import Headers
from websockets.http11 import Response


def response(status: int, body: bytes, content_type: str, extra: Optional[Iterable[Tuple[str, str]]] = None) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-store"
    headers["Connection"] = "close"
    for k, v in extra or ():
        headers[k] = v
    return Response(status, HTTPStatus(status).phrase, headers, body)


def json_response(status: int, obj: Any, extra: Optional[Iterable[Tuple[str, str]]] = None) -> Response:
    return response(status, json.dumps(obj, separators=(",", ":")).encode(), "application/json", extra)


def text_response(status: int, text: str) -> Response:
    return response(status, (text + "\n").encode(), "text/plain; charset=utf-8")
