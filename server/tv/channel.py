"""The TV channels of the cluster: one featured table per discipline (and one over all of them), chosen by one
process at a time and read by every process from Redis.

**Choosing.** Every process runs :class:`TvChannels`; every ``tv_tick_s`` it asks Redis for the
channels' leases (``P tv:lease:<channel>``, SET NX PX ``tv_lease_s``, extended while held: the
TV_LEASES script). For the channels it holds, it reads the public tables' lobby entries (which
carry players, ratings, scores, the current run, status and spectators), runs the pure choice of
server/tv/choice.py against the channel's featured value so far (``P tv:<channel>``, JSON) and
writes the new value, only while it still holds the lease (TV_WRITE). The memory of the choice
(the game, its players, when it ended) lives in that value, so a process that takes a channel
over goes on where the last one stopped. A process leaving releases its leases.

**Reading.** ``/api/tv``, ``/api/tv/<channel>`` and ``/api/games/live`` (server/api/) read the
featured values and the lobby entries from Redis through :meth:`featured` and :meth:`live_games`
(the same answer for a second: one read per second per process, however many viewers poll).
Channels: ``all`` and every discipline of rules/registry.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import msgpack

from rules.registry import DISCIPLINES
from server.config import Settings
from server.store import RedisUnavailable, Store
from server.tv.choice import LIVE, Candidate, Featured, choose, ranked

log = logging.getLogger("billar.tv")

ALL = "all"
CHANNELS: List[str] = [ALL] + sorted(DISCIPLINES)
FEATURED_TTL_S = 120  # a channel's featured value outlives its chooser this long (then: nothing featured)
CACHE_S = 1.0  # the read side answers from memory this long
CHUNK = 250  # lobby entries decoded (4 x CHUNK looked at) between two turns of the event loop


def _featured_of(raw: Optional[bytes]) -> Optional[Featured]:
    if raw is None:
        return None
    try:
        return Featured.from_dict(json.loads(raw))
    except (ValueError, TypeError, AttributeError):
        return None


def game_view(e: Dict[str, Any], tv_score: float) -> Dict[str, Any]:
    """A live game as the API shows it (a lobby entry's fields plus its TV score)."""
    c = Candidate.from_entry(e)
    prov = list(e.get("provisional") or [None, None])[:2] + [None, None]
    return {"table": c.table, "discipline": c.discipline, "seats": list(c.players), "ratings": list(c.ratings),
            "provisional": [p is True for p in prov[:2]], "scores": list(c.scores), "run": c.run, "status": c.status, "spectators": c.spectators,
            "rated": bool(e.get("rated", False)), "game": c.game, "score": round(tv_score, 3)}


class TvChannels:
    """This process's part of the TV: the chooser loop (:meth:`start`, :meth:`stop`) and the read side."""

    def __init__(self, settings: Settings, store: Store, clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic):
        self.settings, self.store, self.clock, self.monotonic = settings, store, clock, monotonic
        self.held: List[str] = []
        self._task: Optional[asyncio.Task] = None
        self._stop = asyncio.Event()
        self._cache: Dict[Any, Tuple[float, Any]] = {}
        # the chooser's candidates by table: (the lobby entry's bytes, its candidate or None); an entry whose bytes
        # have not changed since the last tick is neither decoded nor scored again
        self._seen: Dict[str, Tuple[bytes, Optional[Candidate]]] = {}

    # ----- choosing --------------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="tv-chooser")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        try:
            await self.store.tv_release(self.settings.node, self.held)
        except RedisUnavailable:
            pass
        self.held = []

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                await self.tick()
            except RedisUnavailable:
                self.held = []
            except Exception:
                log.exception("tv choice failed")
            try:
                await asyncio.wait_for(self._stop.wait(), self.settings.tv_tick_s)
            except asyncio.TimeoutError:
                pass

    async def tick(self) -> Dict[str, Featured]:
        """One round: take or keep the leases, choose for the channels held; returns their new featured values."""
        st = self.settings
        self.held = await self.store.tv_leases(st.node, CHANNELS, int(st.tv_lease_s * 1000))
        if not self.held:
            return {}
        cands = await self._candidates()
        stored = await self.store.tv_featured(self.held)
        now = self.clock()
        out: Dict[str, Featured] = {}
        by_discipline: Dict[str, List[Candidate]] = {}
        for c in cands:
            by_discipline.setdefault(c.discipline, []).append(c)
        for ch in self.held:
            mine = cands if ch == ALL else by_discipline.get(ch, [])
            out[ch] = choose(_featured_of(stored.get(ch)), mine, now, linger_s=st.tv_linger_s,
                             rematch_s=st.tv_rematch_s)
            if len(mine) > CHUNK:
                await asyncio.sleep(0)  # one channel's choice at a time: the loop is not held for all of them
        await self.store.tv_write(st.node, {ch: json.dumps(f.to_dict()).encode() for ch, f in out.items()},
                                  FEATURED_TTL_S)
        return out

    async def _candidates(self) -> List[Candidate]:
        """Every public table as a candidate. Only the entries whose bytes changed since the last tick are decoded
        (and scored, :attr:`Candidate.tv_score`); the loop is given back every ``CHUNK`` new entries and every
        ``4 * CHUNK`` entries, so that a tick over thousands of tables never holds the event loop for long."""
        raw, _ = await self.store.lobby_raw()
        seen, fresh = self._seen, {}
        out: List[Candidate] = []
        decoded = 0
        for i, (tid, data) in enumerate(raw, 1):
            if i % (4 * CHUNK) == 0:
                await asyncio.sleep(0)
            hit = seen.get(tid)
            if hit is None or hit[0] != data:
                c = None
                try:
                    e = msgpack.unpackb(data, raw=False)
                    if isinstance(e, dict) and "table" in e:
                        c = Candidate.from_entry(e)
                        c.rank_key  # noqa: B018 - scored (and ranked) now, in this slice of the tick
                except (ValueError, TypeError, KeyError, msgpack.UnpackException):
                    log.warning("tv: unreadable lobby entry", extra={"table": tid})
                hit = (data, c)
                decoded += 1
                if decoded % CHUNK == 0:
                    await asyncio.sleep(0)
            fresh[tid] = hit
            if hit[1] is not None:
                out.append(hit[1])
        self._seen = fresh
        return out

    # ----- reading (the API) -----------------------------------------------------------------
    async def _cached(self, key: Any, make: Callable[[], Any]) -> Any:
        hit = self._cache.get(key)
        now = self.monotonic()
        if hit is not None and hit[0] > now:
            return hit[1]
        try:
            value = await make()
        except RedisUnavailable as exc:
            raise ConnectionError(f"redis unavailable: {exc}") from None  # the API answers 503
        self._cache[key] = (now + CACHE_S, value)
        return value

    async def _lobby(self) -> List[Dict[str, Any]]:
        return await self._cached("lobby", self.store.lobby_list)

    async def featured(self, channels: Optional[List[str]] = None) -> Dict[str, Dict[str, Any]]:
        """``{channel: {"table": id or None, ...the game's fields...}}`` for ``channels`` (default: all)."""
        channels = CHANNELS if channels is None else channels

        async def make():
            stored = await self.store.tv_featured(CHANNELS)
            feats = {ch: _featured_of(stored.get(ch)) for ch in CHANNELS}
            tables = sorted({f.table for f in feats.values() if f is not None and f.table})
            entries = await self.store.lobby_entries(tables)
            out = {}
            for ch in CHANNELS:
                f = feats[ch]
                e = entries.get(f.table) if f is not None and f.table else None
                if f is None or e is None:
                    out[ch] = {"channel": ch, "table": None}
                    continue
                view = game_view(e, f.score)
                view.update(channel=ch, since=f.since, ended=f.ended_at is not None or e.get("status") not in LIVE)
                out[ch] = view
            return out

        every = await self._cached("featured", make)
        return {ch: every[ch] for ch in channels}

    async def live_games(self, discipline: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every public live game (``discipline``'s only, if given), best TV score first, each marked ``featured``
        when it is its discipline's featured table."""
        entries = await self._lobby()
        feats = await self.featured()
        featured = {v["table"] for ch, v in feats.items() if ch != ALL and v["table"]}
        cands = [Candidate.from_entry(e) for e in entries if isinstance(e, dict) and "table" in e]
        by_id = {e["table"]: e for e in entries if isinstance(e, dict) and "table" in e}
        out = []
        for s, c in ranked(cands):
            if discipline is not None and c.discipline != discipline:
                continue
            v = game_view(by_id[c.table], s)
            v["featured"] = c.table in featured
            out.append(v)
        return out
