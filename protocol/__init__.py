"""billar wire protocol: message types, msgpack codec, validation of every inbound field, limits, version.

Sans-I/O (after python-websockets' core): plain functions over bytes and message objects, shared
by the server, the bots, the load tests and any other client. Imports only stdlib and msgpack.

- :mod:`protocol.inbound`: the closed set of client -> server messages and :func:`parse`
- :mod:`protocol.outbound`: the closed set of server -> client messages (builders)
- :mod:`protocol.codec`: :func:`decode_client`, :func:`encode`, :func:`encode_client`, :func:`decode_server`
- :mod:`protocol.eventlog`: the event log of a stroke (formats 1 and 2), exact to the bit
- :mod:`protocol.motion`: the reference motion format 2 recomputes instead of sending
- :mod:`protocol.fields`: the field checkers (types, ranges, finiteness, lengths)
- :mod:`protocol.limits`, :mod:`protocol.errors`: numbers, error codes, close codes

Reference: docs/protocol.md.
"""

from protocol.codec import decode_client, decode_server, encode, encode_client, unpack_frame
from protocol.errors import ERROR_CODES, CloseCode, ErrorCode, ProtocolError
from protocol.eventlog import EVENT_KINDS, STATE_NAMES, decode_log, encode_log, preset_ids
from protocol.inbound import INBOUND, SEAT_ACTIONS, Inbound, parse
from protocol.limits import MAX_FRAME_BYTES, PROTOCOL_VERSION, SUPPORTED_VERSIONS
from protocol.outbound import OUTBOUND_TYPES, STREAM_TYPES

__all__ = [
    "decode_client", "decode_server", "encode", "encode_client", "unpack_frame",
    "ERROR_CODES", "CloseCode", "ErrorCode", "ProtocolError",
    "EVENT_KINDS", "STATE_NAMES", "decode_log", "encode_log", "preset_ids",
    "INBOUND", "SEAT_ACTIONS", "Inbound", "parse",
    "MAX_FRAME_BYTES", "PROTOCOL_VERSION", "SUPPORTED_VERSIONS",
    "OUTBOUND_TYPES", "STREAM_TYPES",
]
