"""Structured logs: one JSON object per line on stderr (time, level, logger, message and the record's extras)."""

from __future__ import annotations

import json
import logging
import sys
import time

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for k, v in vars(record).items():
            if k not in _STANDARD:
                out[k] = v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, separators=(",", ":"))


def setup(level: str = "INFO") -> None:
    """Send the ``billar`` and ``websockets`` loggers to stderr as JSON lines at ``level``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    quiet = max(root.level, logging.WARNING)  # one line per connection is too much at INFO
    for name in ("websockets", "billar.websockets"):
        logging.getLogger(name).setLevel(quiet)
    logging.Formatter.converter = time.gmtime
