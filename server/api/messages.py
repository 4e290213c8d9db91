"""The transport-independent request and response of the JSON API.

The HTTP transport builds an :class:`ApiRequest` from what it read (at most
:data:`MAX_BODY_BYTES` + 1 bytes of body: more is refused with 413 without reading on) and writes
the :class:`ApiResponse` it gets back: ``status``, ``headers`` (a list: ``Set-Cookie`` may repeat)
and ``body()`` bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple
from urllib.parse import parse_qsl

#: largest request body accepted (issue 15): 16 KB
MAX_BODY_BYTES = 16 * 1024


@dataclass
class ApiRequest:
    """An HTTP request as the API sees it.

    ``method`` (upper case), ``path`` (percent-encoded, without the query), ``query`` (the raw query
    string), ``headers`` (names in any case; read through :meth:`header`), ``body`` (bytes),
    ``client`` (the client's address, for the login limits), ``https`` (the connection is TLS, or a
    trusted proxy said so: cookies get ``Secure``).
    """

    method: str
    path: str
    query: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    client: str = ""
    https: bool = False

    def __post_init__(self):
        self._h = {str(k).lower(): str(v) for k, v in dict(self.headers).items()}

    def header(self, name: str) -> Optional[str]:
        return self._h.get(name.lower())

    def params(self) -> Dict[str, str]:
        """The query parameters (the first value of a repeated name); malformed pairs are dropped."""
        out: Dict[str, str] = {}
        for k, v in parse_qsl(self.query[:4096], keep_blank_values=True):
            out.setdefault(k, v)
        return out

    def cookie(self, name: str) -> Optional[str]:
        """The value of cookie ``name`` from the Cookie header, or None (never raises on a malformed header)."""
        raw = self.header("cookie")
        if not raw or len(raw) > 8192:
            return None
        for part in raw.split(";"):
            k, sep, v = part.strip().partition("=")
            if sep and k == name:
                return v.strip().strip('"')
        return None


@dataclass
class ApiResponse:
    """``status``; ``json`` (a JSON value) or ``raw`` (bytes sent as they are, with their own
    ``Content-Type``/``Content-Encoding`` in ``headers``); ``headers`` as (name, value) pairs."""

    status: int
    json: Any = None
    headers: List[Tuple[str, str]] = field(default_factory=list)
    raw: Optional[bytes] = None

    def body(self) -> bytes:
        if self.raw is not None:
            return self.raw
        return json.dumps(self.json, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")

    def header(self, name: str) -> List[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def decoded(self) -> Any:
        """The JSON value of the body (gunzipped when it is sent compressed): for tests and clients."""
        body = self.body()
        if "gzip" in self.header("content-encoding"):
            import gzip

            body = gzip.decompress(body)
        return json.loads(body)


def error(status: int, code: str, message: str, headers: Optional[List[Tuple[str, str]]] = None) -> ApiResponse:
    """An error response: ``{"error": {"code": code, "message": message}}``."""
    return ApiResponse(status, {"error": {"code": code, "message": message}}, list(headers or []))
