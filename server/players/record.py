"""How a finished game's full match record is stored in ``game_records.data``.

Format 1: gzip (level 6, no file name or time stamp) of the compact JSON of the exported record,
the format ``billar referee`` replays and ``GET /api/games/<id>`` serves (server/records.py
``export(meta, entries)``: discipline, config, seed, table, game, players, result, the table
preset, every stroke with its exact event log as ``SimResult.to_json()``, the ruling given and the
carom zones), with each stroke's ``ts`` and ``seq`` from the server's entries added (the referee
ignores them). Storing it exported and compressed costs about 1.3-1.7 times the bytes of the
server's msgpack entries and makes serving a record a copy of stored bytes (``Content-Encoding:
gzip``) instead of 6-30 ms of decoding and encoding per request.
"""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any, Dict, Mapping, Sequence

FORMAT = 1
#: a stored record may decompress to at most this many bytes (a bound against a corrupt row)
MAX_RECORD_BYTES = 256 * 1024 * 1024


def encode(exported: Mapping[str, Any], entries: Sequence[Mapping[str, Any]] = ()) -> bytes:
    """The stored bytes of an exported record (format :data:`FORMAT`); ``entries`` give each stroke's ``ts``/``seq``.

    Raises ``ValueError`` for a record JSON cannot hold (a non-finite number).
    """
    rec = dict(exported)
    strokes = [dict(s) for s in rec.get("strokes") or ()]
    for s, e in zip(strokes, entries):
        for k in ("ts", "seq"):
            if isinstance(e, Mapping) and k in e:
                s[k] = e[k]
    rec["strokes"] = strokes
    raw = json.dumps(rec, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    return gzip.compress(raw, 6, mtime=0)


def decompress(data: bytes, fmt: int = FORMAT) -> bytes:
    """The record's JSON bytes; ``ValueError`` for an unknown format or corrupt data."""
    if fmt != FORMAT:
        raise ValueError(f"record: unknown format {fmt}")
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        raw = d.decompress(data, MAX_RECORD_BYTES)
    except zlib.error as exc:
        raise ValueError(f"record: corrupt ({exc})") from None
    if d.unconsumed_tail:
        raise ValueError("record: larger than the bound")
    return raw


def decode(data: bytes, fmt: int = FORMAT) -> Dict[str, Any]:
    """The exported record of stored bytes; ``ValueError`` for an unknown format or corrupt data."""
    try:
        return json.loads(decompress(data, fmt))
    except json.JSONDecodeError as exc:
        raise ValueError(f"record: corrupt ({exc})") from None
