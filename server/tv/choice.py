"""Which live game the TV features: candidate scores, hysteresis and the rematch preference. Pure: no I/O, no clock.

After lichess's TV (a game's score from its players' ratings; the featured game is kept until it
ends or a candidate scores clearly higher), adapted to billiards, where what makes a game worth
watching is the players' strength, a close score and a run in progress.

**A candidate** is a public table whose game is on: status ``playing`` (or ``paused``: a player
is away, the seat held) with both seats taken. Its score::

    score = R * (0.55 + 0.30 * closeness + 0.15 * heat) * presence

    R         = mean of the two players' ratings in the discipline (a guest or unrated player
                counts GUEST_RATING = 1500), at least 100
    closeness = 1 / (1 + |a - b| / (3 + 0.25 * max(|a|, |b|)))      a, b: the two scores
                (1 for a level game; a gap of 3 points at 0:3 halves it, at 40:43 it is 0.88)
    heat      = min(run, cap) / cap                                   run: the current run
                cap: a long run of the discipline (RUN_CAP: 15 in 14.1, 5 in three-cushion, ...)
    presence  = 1 when both players are there, 0.5 when paused

So a game between higher-rated players wins over a lower-rated one of the same shape, and among
equally rated games a close one with a run going wins.

**The choice** (:func:`choose`), once per tick, given the channel's :class:`Featured` so far:

1. The featured game still on (the same table, not over): kept, unless the best other candidate
   scores more than ``margin`` (17 %) higher: then that one is featured.
2. The featured game ended (its table's status ``over`` or ``waiting``, or the table is gone): the
   **rematch** is preferred: the same table with a new game, or a live table of the same two
   players, is featured as soon as it is on (within ``rematch_s`` of the end). Otherwise the ended
   game stays on screen for ``linger_s`` (the result is seen), then the best candidate replaces
   it; with no candidate at all the ended table stays featured while it exists (a rematch there
   is still taken).
3. Nothing featured: the best candidate (ties: more spectators, then the table id).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from operator import attrgetter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

GUEST_RATING = 1500.0
MARGIN = 0.17  # a candidate must score this much more than the featured game to replace it
LINGER_S = 6.0  # an ended game stays featured this long (unless its rematch starts)
REMATCH_S = 60.0  # the rematch of the ended game is preferred this long after the end
LIVE = ("playing", "paused")
DEFAULT_RUN_CAP = 10
RUN_CAP: Dict[str, int] = {
    "straight_pool": 15, "three_cushion": 5, "one_cushion": 8, "libre": 30, "balkline_47_2": 25,
    "balkline_47_1": 20, "balkline_71_2": 25, "pentathlon": 10, "triathlon": 8,
}


@dataclass(frozen=True)
class Candidate:
    """What the chooser knows of a public table (from its lobby entry)."""

    table: str
    discipline: str
    players: Tuple[Optional[str], Optional[str]]
    ratings: Tuple[Optional[float], Optional[float]] = (None, None)
    scores: Tuple[float, float] = (0, 0)
    run: int = 0
    status: str = "playing"
    game: int = 1
    spectators: int = 0
    #: a practice table (a student and a coach): never a game to feature or list
    practice: bool = False

    @cached_property
    def live(self) -> bool:
        return (not self.practice and self.status in LIVE and self.players[0] is not None
                and self.players[1] is not None)

    @property
    def pair(self) -> frozenset:
        return frozenset(p for p in self.players if p is not None)

    @cached_property
    def tv_score(self) -> float:
        """:func:`score` of this candidate, computed once (a candidate is immutable; the chooser keeps the
        candidates of unchanged lobby entries from tick to tick)."""
        return score(self)

    @cached_property
    def rank_key(self) -> Tuple[float, int, str]:
        """The order of the ranking: best score first, then more spectators, then the table id."""
        return (-self.tv_score, -self.spectators, self.table)

    @classmethod
    def from_entry(cls, e: Mapping[str, Any]) -> "Candidate":
        """A candidate from a lobby entry (``run`` and ``game`` are absent from entries of older servers: 0, 1)."""
        seats = list(e.get("seats") or [None, None])[:2] + [None, None]
        ratings = list(e.get("ratings") or [None, None])[:2] + [None, None]
        scores = [s if isinstance(s, (int, float)) else 0 for s in list(e.get("scores") or [])[:2]] + [0, 0]
        return cls(str(e["table"]), str(e.get("discipline", "")), (seats[0], seats[1]), (ratings[0], ratings[1]),
                   (scores[0], scores[1]), int(e.get("run") or 0), str(e.get("status", "")), int(e.get("game") or 1),
                   int(e.get("spectators") or 0), e.get("practice") is True)


def score(c: Candidate) -> float:
    """The candidate's TV score (the module docstring's formula); 0 for a table whose game is not on."""
    if not c.live:
        return 0.0
    rs = [GUEST_RATING if r is None else float(r) for r in c.ratings]
    r = max(100.0, (rs[0] + rs[1]) / 2)
    a, b = c.scores
    closeness = 1.0 / (1.0 + abs(a - b) / (3.0 + 0.25 * max(abs(a), abs(b))))
    cap = RUN_CAP.get(c.discipline, DEFAULT_RUN_CAP)
    heat = min(max(c.run, 0), cap) / cap
    presence = 1.0 if c.status == "playing" else 0.5
    return r * (0.55 + 0.30 * closeness + 0.15 * heat) * presence


@dataclass(frozen=True)
class Featured:
    """A channel's featured table and what the choice remembers of it.

    ``table`` None: nothing featured. ``game``: the table's game number when it was last seen on;
    ``players``: its two players; ``ended_at``: when its game was first seen ended (None while on);
    ``since``: when it became featured; ``score``: its score at the last tick."""

    table: Optional[str] = None
    score: float = 0.0
    since: float = 0.0
    game: int = 0
    players: Tuple[str, ...] = ()
    ended_at: Optional[float] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"table": self.table, "score": self.score, "since": self.since, "game": self.game,
                "players": list(self.players), "ended_at": self.ended_at}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Featured":
        return cls(d.get("table"), float(d.get("score") or 0.0), float(d.get("since") or 0.0), int(d.get("game") or 0),
                   tuple(d.get("players") or ()), None if d.get("ended_at") is None else float(d["ended_at"]))


def _feature(c: Candidate, now: float, s: float) -> Featured:
    return Featured(c.table, s, now, c.game, tuple(sorted(c.pair)), None)


def ranked(candidates: Iterable[Candidate]) -> List[Tuple[float, Candidate]]:
    """The live candidates with their scores, best first (ties: more spectators, then the table id)."""
    live = sorted((c for c in candidates if c.live), key=_rank_key)
    return [(c.tv_score, c) for c in live]


def best(candidates: Iterable[Candidate]) -> Optional[Candidate]:
    """The first of :func:`ranked` (None without a live candidate), in one pass: a tick looks at every public
    table, and only the best matters to it."""
    return min((c for c in candidates if c.live), key=_rank_key, default=None)


_rank_key = attrgetter("rank_key")


def choose(current: Optional[Featured], candidates: Iterable[Candidate], now: float, *, margin: float = MARGIN,
           linger_s: float = LINGER_S, rematch_s: float = REMATCH_S) -> Featured:
    """The channel's featured table after this tick (see the module docstring). ``candidates``: every public table
    of the channel (any status); ``now``: seconds (any clock, the same from tick to tick)."""
    cands = list(candidates)
    top = best(cands)
    cur = current if current is not None and current.table is not None else None
    if cur is None:
        return _feature(top, now, top.tv_score) if top is not None else Featured(since=now)
    mine = next((c for c in cands if c.table == cur.table), None)
    if mine is not None and mine.live and cur.ended_at is None and mine.game == cur.game:
        s = mine.tv_score
        if top.table != cur.table and top.tv_score > s * (1.0 + margin):
            return _feature(top, now, top.tv_score)
        return replace(cur, score=s)
    # the featured game has ended (or its table started a new game: that is its rematch)
    ended_at = cur.ended_at if cur.ended_at is not None else now
    if now - ended_at <= rematch_s:
        if mine is not None and mine.live:  # a new game at the same table
            return _feature(mine, now, mine.tv_score)
        pair = frozenset(cur.players)
        rematch = best(c for c in cands if len(pair) == 2 and c.pair == pair)
        if rematch is not None:
            return _feature(rematch, now, rematch.tv_score)
    if top is not None and now - ended_at >= linger_s:
        return _feature(top, now, top.tv_score)
    if mine is None and (top is None or now - ended_at >= linger_s):
        return Featured(since=now)
    return replace(cur, ended_at=ended_at, score=0.0)
