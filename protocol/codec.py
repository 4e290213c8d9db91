"""msgpack framing: one binary WebSocket message = one msgpack map with a ``type`` field.

Sans-I/O: plain functions from bytes to messages and back, used by the server, the bots, the
load tests and any other client. Floats are packed as float64 (msgpack's default in
``msgpack.packb``; never ``use_single_float``), so event logs travel exactly.
"""

from __future__ import annotations

from typing import Any, Dict, Union

import msgpack

from protocol import limits as L
from protocol.errors import ErrorCode, ProtocolError
from protocol.inbound import Inbound, parse
from protocol.outbound import OUTBOUND_TYPES

_UNPACK_LIMITS = dict(
    max_str_len=L.MAX_FRAME_BYTES,
    max_bin_len=L.MAX_FRAME_BYTES,
    max_array_len=L.MAX_FRAME_BYTES,
    max_map_len=L.MAX_FRAME_BYTES,
    max_ext_len=0,
)


def encode(message: Dict[str, Any]) -> bytes:
    """Pack one outbound (or any) message map. Raises ``TypeError`` for values msgpack cannot pack."""
    return msgpack.packb(message, use_bin_type=True)


def encode_client(message: Inbound) -> bytes:
    """Pack an inbound message object (what a client sends)."""
    return msgpack.packb(message.to_wire(), use_bin_type=True)


def unpack_frame(data: Union[bytes, bytearray, memoryview, str], max_bytes: int = L.MAX_FRAME_BYTES) -> Any:
    """Unpack one inbound frame, refusing text frames, oversized frames, trailing bytes and ext types.

    Raises :class:`ProtocolError` (``not_binary``, ``bad_field`` with field ``frame`` for size,
    ``not_msgpack``).
    """
    if isinstance(data, str):
        raise ProtocolError(ErrorCode.NOT_BINARY, "frame: the protocol uses binary frames (msgpack), got text", field="frame")
    if len(data) > max_bytes:
        raise ProtocolError(ErrorCode.BAD_FIELD, f"frame: larger than {max_bytes} bytes", field="frame")
    try:
        return msgpack.unpackb(bytes(data), raw=False, strict_map_key=True, use_list=True, **_UNPACK_LIMITS)
    except Exception as exc:  # msgpack raises several types (ExtraData, FormatError, ValueError, UnicodeDecodeError, ...)
        raise ProtocolError(ErrorCode.NOT_MSGPACK, f"frame: not one msgpack value ({type(exc).__name__})", field="frame") from None


def decode_client(data: Union[bytes, bytearray, memoryview, str], max_bytes: int = L.MAX_FRAME_BYTES) -> Inbound:
    """Bytes from a client -> a validated inbound message. Raises :class:`ProtocolError` naming the field."""
    return parse(unpack_frame(data, max_bytes))


def decode_server(data: Union[bytes, bytearray, memoryview]) -> Dict[str, Any]:
    """Bytes from the server -> the message map (for clients). Raises ``ValueError`` if it is not an outbound message."""
    try:
        msg = msgpack.unpackb(bytes(data), raw=False, use_list=True)
    except Exception as exc:
        raise ValueError(f"not a msgpack message: {exc!r}") from None
    if not isinstance(msg, dict) or msg.get("type") not in OUTBOUND_TYPES:
        raise ValueError(f"not a server message: {str(msg)[:80]}")
    return msg
