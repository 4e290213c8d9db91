"""What the API asks of the live side (the TV's featured tables, the live games): an interface, filled in by the
server (server/tv/channel.py ``TvChannels``) so that server/api imports nothing of Redis."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Protocol


class LiveSource(Protocol):
    async def featured(self, channels: Optional[List[str]] = None) -> Dict[str, Dict[str, Any]]:
        """``{channel: {"channel", "table": id or None, ...}}``; raises ``ConnectionError`` when unavailable."""

    async def live_games(self, discipline: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every public live game (of ``discipline``), best TV score first."""


class NoLive:
    """No live side (the API alone, as in its own tests): nothing is featured, nothing is live."""

    async def featured(self, channels: Optional[List[str]] = None) -> Dict[str, Dict[str, Any]]:
        return {ch: {"channel": ch, "table": None} for ch in (channels or [])}

    async def live_games(self, discipline: Optional[str] = None) -> List[Dict[str, Any]]:
        return []
