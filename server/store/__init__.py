"""Redis, the hot store: every command (redis.py), every Lua script (scripts.py), the one pub/sub connection (bus.py)."""

from server.store.bus import Bus
from server.store.redis import Fenced, RedisUnavailable, Store, TableWrite, frame_stream, unframe_stream

__all__ = ["Bus", "Fenced", "RedisUnavailable", "Store", "TableWrite", "frame_stream", "unframe_stream"]
