"""Write the stored wire logs the decoders are held to: one file per golden vector and format.

``<golden name>.f<format>.msgpack`` is ``msgpack.packb(protocol.encode_log(sim, ..., fmt=format))``
of ``tests/golden/<golden name>.json``. They stand for logs already stored (match records in
Redis, table streams) and must decode, in Python (tests/protocol/test_eventlog.py) and in
TypeScript (client_web/test/wirelog.test.ts), to the golden vector's ``result`` exactly, whatever
the encoder writes later. Never rewrite a file: add new ones.

Usage: ``.venv/bin/python tests/protocol/data/make_logs.py`` (writes only the files that are missing).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, ROOT)

import msgpack  # noqa: E402

import protocol  # noqa: E402
from physics import SimResult  # noqa: E402

GOLDEN = ("carom_break", "pool_cut_into_corner")
FORMATS = (1, 2)


def main() -> None:
    for name in GOLDEN:
        with open(os.path.join(ROOT, "tests", "golden", name + ".json")) as f:
            sim = SimResult.from_json(json.load(f)["result"])
        ids = protocol.preset_ids(sim.table.to_json())
        for fmt in FORMATS:
            path = os.path.join(HERE, f"{name}.f{fmt}.msgpack")
            if os.path.exists(path):
                continue
            log = protocol.encode_log(sim, *ids, fmt=fmt)
            assert log.get("f", 1) == fmt
            with open(path, "wb") as f:
                f.write(msgpack.packb(log))
            print("wrote", os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()
