"""The connection class of the server's one port: WebSocket connections, and plain HTTP requests with small bodies.

websockets' server reads a request line and headers and refuses any request body (a WebSocket
handshake has none). The JSON API under ``/api/`` takes bodies, so :class:`Connection` (given to
``websockets.asyncio.server.serve`` as ``create_connection``) reads requests with
:func:`parse_request`: a ``Content-Length`` body of at most :data:`MAX_BODY_BYTES` is read into
:attr:`HttpRequest.body` (a larger one is answered 413, a chunked one 411), and the request then
goes to ``process_request`` as usual. Each connection serves one HTTP request (the response
says ``Connection: close``) or becomes a WebSocket.

It also stops writing to a connection whose transport is closing: a peer that sends thousands of
pings and resets the connection made asyncio log one warning per pong written after the reset.
"""

from __future__ import annotations

import dataclasses
import http
from typing import Any, Callable, Generator, Optional

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import HeaderLineTooLong, InvalidMessage, RequestLineTooLong, TooManyHeaders
from websockets.http11 import Request, Response, parse_headers, parse_line
from websockets.protocol import CONNECTING, Protocol
from websockets.server import ServerProtocol

MAX_BODY_BYTES = 16 * 1024  # the largest request body read (bytes)


def peer_address(connection: Any) -> Optional[str]:
    """The client's IP address (the peer of the TCP connection), or None when unknown."""
    try:
        peer = connection.remote_address
    except Exception:
        return None
    return str(peer[0]) if peer else None


class RefusedRequest(Exception):
    """A request refused before it reaches the routes; ``path``: its path when the request line was read."""

    def __init__(self, detail: object = None, path: Optional[str] = None):
        super().__init__(detail)
        self.path = path


class BodyTooLarge(RefusedRequest):
    """The request's ``Content-Length`` is over :data:`MAX_BODY_BYTES`."""


class LengthRequired(RefusedRequest):
    """A request body without ``Content-Length`` (chunked transfer coding)."""


class HeadersTooLarge(RefusedRequest):
    """A header line too long, or too many headers."""


def is_api_path(path: Optional[str]) -> bool:
    """The path (its query aside) is under the JSON API (``/api`` or ``/api/...``): errors answer JSON there."""
    p = (path or "").split("?", 1)[0]
    return p == "/api" or p.startswith("/api/")


def refusal(status: http.HTTPStatus, code: str, text: str, path: Optional[str]) -> Response:
    """The answer to a refused request: the API's JSON error ``{"error": {"code", "message"}}`` under ``/api/``,
    plain text elsewhere."""
    from server.http.responses import json_response, text_response

    if is_api_path(path):
        return json_response(int(status), {"error": {"code": code, "message": text}})
    return text_response(int(status), text)


@dataclasses.dataclass
class HttpRequest(Request):
    """A request with its body (``b""`` when it has none)."""

    body: bytes = b""


def parse_request(read_line: Callable[..., Any], read_exact: Callable[[int], Any],
                  max_body: int = MAX_BODY_BYTES) -> Generator[None, None, HttpRequest]:
    """Parse one HTTP/1.1 request and its body (sans I/O, in the style of ``websockets.http11.Request.parse``).

    Raises :class:`BodyTooLarge`, :class:`LengthRequired`, ``EOFError``, ``ValueError`` (malformed), and
    websockets' line and header limit errors.
    """
    line = yield from parse_line(read_line, RequestLineTooLong)
    try:
        raw_method, raw_path, raw_protocol = line.split(b" ", 2)
    except ValueError:
        raise ValueError("invalid HTTP request line") from None
    if raw_protocol not in (b"HTTP/1.1", b"HTTP/1.0"):
        raise ValueError("unsupported protocol")
    method, path, proto = raw_method.decode("ascii"), raw_path.decode("ascii"), raw_protocol.decode("ascii")
    try:
        headers = yield from parse_headers(read_line)
    except (HeaderLineTooLong, TooManyHeaders) as exc:
        raise HeadersTooLarge(exc, path) from None
    if "Transfer-Encoding" in headers:
        raise LengthRequired(None, path)
    lengths = set(headers.get_all("Content-Length"))
    body = b""
    if lengths - {"0"}:
        if len(lengths) != 1:
            raise ValueError("conflicting Content-Length headers")
        raw = next(iter(lengths))
        if not raw.isdigit() or len(raw) > 18:
            raise ValueError("invalid Content-Length")
        n = int(raw)
        if n > max_body:
            raise BodyTooLarge(n, path)
        body = bytes((yield from read_exact(n)))
    return HttpRequest(path, headers, method, proto, body=body)


class _BodyProtocol(ServerProtocol):
    """websockets' server protocol, reading the handshake (or plain HTTP request) with :func:`parse_request`."""

    def parse(self) -> Generator[None, None, None]:
        if self.state is CONNECTING:
            try:
                request = yield from parse_request(self.reader.read_line, self.reader.read_exact)
            except BodyTooLarge as exc:
                self._refuse(http.HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too_large",
                             f"request body over {MAX_BODY_BYTES} bytes", exc.path)
                yield
                return
            except LengthRequired as exc:
                self._refuse(http.HTTPStatus.LENGTH_REQUIRED, "length_required", "a request body needs Content-Length",
                             exc.path)
                yield
                return
            except RequestLineTooLong:
                self._refuse(http.HTTPStatus.REQUEST_URI_TOO_LONG, "uri_too_long", "request line too long", None)
                yield
                return
            except HeadersTooLarge as exc:
                self._refuse(http.HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "headers_too_large",
                             "header fields too large", exc.path)
                yield
                return
            except Exception as exc:  # malformed or closed early: no answer, as websockets does
                self.handshake_exc = InvalidMessage("did not receive a valid HTTP request")
                self.handshake_exc.__cause__ = exc
                self.send_eof()
                self.parser = self.discard()
                next(self.parser)
                yield
                return
            self.events.append(request)
        yield from Protocol.parse(self)

    def _refuse(self, status: http.HTTPStatus, code: str, text: str, path: Optional[str]) -> None:
        """Answer ``status`` (JSON ``{"error": {"code", "message"}}`` under /api/, text elsewhere) and close."""
        self.handshake_exc = InvalidMessage(text)
        self.send_response(refusal(status, code, text, path))


class Connection(ServerConnection):
    """A connection of the server's port (see the module docstring)."""

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any):
        protocol.__class__ = _BodyProtocol  # same state, our request parser
        protocol.parser = protocol.parse()
        next(protocol.parser)
        super().__init__(protocol, *args, **kwargs)
        self.heard_at = self.loop.time()  # loop time of the last read from the peer (server/http/keepalive.py)
        self.ping_sent_at: Optional[float] = None  # loop time of the keepalive ping awaiting an answer

    def data_received(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        super().data_received(data)

    def send_data(self) -> None:
        """Write what the protocol has to send, unless the transport is closing (then it is dropped: the peer
        has gone, and each write would only log a warning)."""
        for data in self.protocol.data_to_send():
            if self.transport.is_closing():
                continue
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():  # half-close the TCP connection (no TLS)
                try:
                    self.transport.write_eof()
                except Exception:  # pragma: no cover - write_eof documents no exception
                    pass
            else:  # pragma: no cover - TLS
                self.transport.close()

