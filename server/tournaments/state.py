"""A running tournament as one plain, serialisable value, and the transitions a director applies to it.

Pure: no I/O, no asyncio, no clock (the director passes ``now``, Unix seconds), no randomness. A
:class:`TournamentState` round-trips through :meth:`TournamentState.to_dict` /
:meth:`TournamentState.from_dict` (JSON-safe: dicts, lists, str, int, float, bool, None), so it can
be saved in Redis or the database and resumed by another process.

Transitions never modify their input: each returns a new state with ``version`` one higher, or the
very same object when nothing changes (``new is old``). A new state shares the entrants and
pairings it did not change with the old one (a result costs one new pairing, not a copy of a
thousand-game arena): treat states as immutable values, never assign to their fields or to those
of their entrants, pairings and results. The director saves a new state with a
compare-and-set on ``version`` (server/tournaments/store.py ``save_state``), so two directors
cannot both apply a transition to one version.

- :func:`start` — seeds the entrants (rating high to low, then account id) and fixes the format's
  plan (the whole round-robin schedule is stored in the state, so a later code change can never
  re-pair a running tournament differently).
- :func:`next_pairings` — the pairings due now, a pure function of (state, now); :func:`pair` adds
  them. Round robin: the next round once every game of the current one is closed. Single
  elimination: a match as soon as both of its feeder matches are closed (round one at once; byes
  and walkovers close at once). Arena: the players waiting, until the end time. Because the
  pairings are in the state, a resumed director never pairs a round twice: the pairings it would
  add are already there.
- :func:`record_result` — idempotent: the same result for the same pairing again changes nothing; a
  different result for a closed pairing (:class:`ResultConflict`) and an unknown pairing
  (:class:`UnknownPairing`) are refused.
- :func:`forfeit` (no-show), :func:`drop` (a player leaves; arena: pauses), :func:`rejoin` (arena).
- :func:`is_complete`, :func:`finish`, :func:`overdue`.

Standings are in server/tournaments/standings.py.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from server.tournaments import pairing as P
from server.tournaments.standings import standings

FORMATS = ("round_robin", "single_elimination", "arena")
#: why a pairing closed without being played (``GameResult.reason``)
REASONS = ("", "bye", "walkover", "no_show", "drop")
STATE_FORMAT = 1


class TournamentError(ValueError):
    """A transition refused: the message says why (safe to show to the director's log or a player)."""


class UnknownPairing(TournamentError):
    pass


class ResultConflict(TournamentError):
    """A closed pairing got a result different from the one recorded."""


class InvalidResult(TournamentError):
    pass


@dataclass
class Entrant:
    """A player of the tournament: account ``id``, ``name`` as shown, ``rating`` at the start (seeding),
    ``seed`` (1 = strongest; 0 before the start), ``active`` (False: dropped; in an arena: paused)."""

    id: int
    name: str
    rating: float
    seed: int = 0
    active: bool = True


@dataclass
class GameResult:
    """The outcome of one pairing, as the standings read it.

    ``winner``: seat 0 or 1, or None (a draw; or nobody, when both seats forfeited). ``scores``: the
    final score per seat (carom: points over all sets; 14.1: score after penalties) — the 14.1
    tie-breaks read these. ``points``, ``innings``, ``high_runs``: per seat, for the general
    average and the high run (rules spec C26 / R27). ``forfeit``: the seats that forfeited (sorted);
    ``reason``: "" for a played game, else one of :data:`REASONS`. ``game``: [table id, game number],
    the key of the game in the ``games`` table (None for a game not played).
    """

    winner: Optional[int]
    scores: List[int] = field(default_factory=lambda: [0, 0])
    points: List[int] = field(default_factory=lambda: [0, 0])
    innings: List[int] = field(default_factory=lambda: [0, 0])
    high_runs: List[int] = field(default_factory=lambda: [0, 0])
    forfeit: List[int] = field(default_factory=list)
    reason: str = ""
    game: Optional[List[Any]] = None

    @property
    def played(self) -> bool:
        """A game was played (not a bye, walkover or forfeit): its figures count for averages."""
        return self.reason == "" and not self.forfeit

    def outcome(self, seat: int) -> float:
        """1 win, 0.5 draw, 0 loss for ``seat`` (both seats forfeited: 0 each)."""
        if self.winner is None:
            return 0.0 if self.forfeit else 0.5
        return 1.0 if self.winner == seat else 0.0


@dataclass
class Pairing:
    """One game of the tournament: ``id`` (unique in the tournament: ``R<round>-<board>`` or ``A<n>``),
    ``round`` (arena: the pairing wave), ``players`` [seat 0, seat 1] (account ids; None = nobody,
    a bye), ``created_at`` (Unix seconds), ``result`` (None while open), ``closed_seq`` (the order in
    which pairings closed: the arena's streaks read it)."""

    id: str
    round: int
    players: List[Optional[int]]
    created_at: float
    result: Optional[GameResult] = None
    closed_seq: int = 0

    @property
    def closed(self) -> bool:
        return self.result is not None

    @property
    def is_bye(self) -> bool:
        return self.players[0] is None or self.players[1] is None


@dataclass
class TournamentState:
    """Everything a director needs to carry on: settings, entrants, every pairing and result.

    ``schedule`` (round robin): the rounds fixed at the start, [[seat 0 id, seat 1 id or None]...].
    ``ends_at`` (arena): no pairing at or after it. ``closed`` counts closed pairings.
    ``version`` grows by one with every transition that changes something.
    """

    tournament_id: int
    format: str
    discipline: str
    rated: bool
    entrants: List[Entrant]
    pairings: List[Pairing] = field(default_factory=list)
    schedule: List[List[List[Optional[int]]]] = field(default_factory=list)
    started_at: float = 0.0
    ends_at: Optional[float] = None
    finished: bool = False
    closed: int = 0
    version: int = 0

    # ----- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        """A JSON-safe dict of the whole state (:meth:`from_dict` reads it back equal)."""
        return {
            "state_format": STATE_FORMAT, "tournament_id": self.tournament_id, "format": self.format,
            "discipline": self.discipline, "rated": self.rated,
            "entrants": [{"id": e.id, "name": e.name, "rating": e.rating, "seed": e.seed, "active": e.active}
                         for e in self.entrants],
            "pairings": [{"id": p.id, "round": p.round, "players": list(p.players), "created_at": p.created_at,
                          "result": None if p.result is None else _result_dict(p.result), "closed_seq": p.closed_seq}
                         for p in self.pairings],
            "schedule": [[list(g) for g in rnd] for rnd in self.schedule], "started_at": self.started_at,
            "ends_at": self.ends_at, "finished": self.finished, "closed": self.closed, "version": self.version,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TournamentState":
        """The state saved by :meth:`to_dict`; ``ValueError`` for another state format or a malformed dict."""
        if d.get("state_format") != STATE_FORMAT:
            raise ValueError(f"tournament state: format {d.get('state_format')!r}, expected {STATE_FORMAT}")
        try:
            pairings = []
            for p in d["pairings"]:
                r = p.get("result")
                pairings.append(Pairing(id=p["id"], round=int(p["round"]), players=list(p["players"]),
                                        created_at=float(p["created_at"]),
                                        result=GameResult(**_result_fields(r)) if r is not None else None,
                                        closed_seq=int(p.get("closed_seq", 0))))
            return cls(tournament_id=int(d["tournament_id"]), format=d["format"], discipline=d["discipline"],
                       rated=bool(d["rated"]), entrants=[Entrant(**e) for e in d["entrants"]], pairings=pairings,
                       schedule=[[list(g) for g in rnd] for rnd in d.get("schedule", [])],
                       started_at=float(d["started_at"]),
                       ends_at=None if d.get("ends_at") is None else float(d["ends_at"]),
                       finished=bool(d["finished"]), closed=int(d["closed"]), version=int(d["version"]))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"tournament state: malformed ({type(exc).__name__}: {exc})") from None

    # ----- look-ups --------------------------------------------------------------------------------
    def entrant(self, player: int) -> Entrant:
        for e in self.entrants:
            if e.id == player:
                return e
        raise TournamentError(f"player {player} is not in tournament {self.tournament_id}")

    def pairing(self, pairing_id: str) -> Pairing:
        for p in self.pairings:
            if p.id == pairing_id:
                return p
        raise UnknownPairing(f"tournament {self.tournament_id} has no pairing {pairing_id!r}")

    def open_pairings(self) -> List[Pairing]:
        return [p for p in self.pairings if not p.closed]

    def playing(self) -> Dict[int, str]:
        """player -> id of the open pairing they are in."""
        return {pl: p.id for p in self.pairings if not p.closed for pl in p.players if pl is not None}


def _result_dict(r: GameResult) -> Dict[str, Any]:
    return {"winner": r.winner, "scores": list(r.scores), "points": list(r.points), "innings": list(r.innings),
            "high_runs": list(r.high_runs), "forfeit": list(r.forfeit), "reason": r.reason,
            "game": None if r.game is None else list(r.game)}


def _result_fields(r: Mapping[str, Any]) -> Dict[str, Any]:
    keys = ("winner", "scores", "points", "innings", "high_runs", "forfeit", "reason", "game")
    return {k: (list(r[k]) if isinstance(r.get(k), (list, tuple)) else r.get(k)) for k in keys if k in r}


# ----- start ---------------------------------------------------------------------------------------
def seeded(entrants: Iterable[Entrant]) -> List[Entrant]:
    """``entrants`` in seed order (rating high to low, then account id low to high), ``seed`` set 1..n."""
    out = [copy.copy(e) for e in sorted(entrants, key=lambda e: (-e.rating, e.id))]
    for i, e in enumerate(out):
        e.seed = i + 1
    return out


def start(tournament_id: int, format: str, discipline: str, rated: bool, entrants: Sequence[Entrant],
          now: float, duration_s: Optional[float] = None) -> TournamentState:
    """The state of a tournament starting at ``now`` with ``entrants`` (at least two, distinct ids).

    ``format``: one of :data:`FORMATS`; ``duration_s`` (arena only, > 0): the arena's length.
    Raises :class:`TournamentError` for a bad format, too few players, a repeated player or a
    missing arena duration.
    """
    if format not in FORMATS:
        raise TournamentError(f"format: expected one of {FORMATS}, got {format!r}")
    ids = [e.id for e in entrants]
    if len(ids) < 2:
        raise TournamentError("a tournament needs at least two players")
    if len(set(ids)) != len(ids):
        raise TournamentError("a player is entered twice")
    es = seeded(entrants)
    st = TournamentState(tournament_id=tournament_id, format=format, discipline=discipline, rated=rated,
                         entrants=es, started_at=float(now), version=1)
    if format == "round_robin":
        st.schedule = [[list(g) for g in rnd] for rnd in P.round_robin([e.id for e in es])]
    elif format == "arena":
        if duration_s is None or not duration_s > 0:
            raise TournamentError("an arena needs a duration (seconds > 0)")
        st.ends_at = float(now) + float(duration_s)
    return st


# ----- pairing -------------------------------------------------------------------------------------
def _walkover(players: List[Optional[int]], active: Mapping[int, bool]) -> Optional[GameResult]:
    """The result of a pairing closed as it is made: a bye (one side nobody), or forfeits of inactive players."""
    a, b = players
    if a is None and b is None:
        return GameResult(winner=None, forfeit=[0, 1], reason="walkover")
    if b is None:
        return GameResult(winner=0, reason="bye") if active.get(a, False) else GameResult(
            winner=None, forfeit=[0, 1], reason="drop")
    if a is None:
        return GameResult(winner=1, reason="bye") if active.get(b, False) else GameResult(
            winner=None, forfeit=[0, 1], reason="drop")
    out = [s for s, pl in ((0, a), (1, b)) if not active.get(pl, False)]
    if not out:
        return None
    return GameResult(winner=None if len(out) == 2 else 1 - out[0], forfeit=out, reason="drop")


def _make(st: TournamentState, pid: str, rnd: int, players: List[Optional[int]], now: float,
          active: Mapping[int, bool]) -> Pairing:
    p = Pairing(id=pid, round=rnd, players=players, created_at=float(now))
    p.result = _walkover(players, active)
    return p


def next_pairings(st: TournamentState, now: float) -> List[Pairing]:
    """The pairings due at ``now`` that are not in ``st`` yet (deterministic: same state, same answer).

    Byes and games with a dropped player come back closed already (reason "bye", "walkover" or
    "drop"). Nothing once the tournament is finished.
    """
    if st.finished:
        return []
    active = {e.id: e.active for e in st.entrants}
    if st.format == "round_robin":
        return _next_round_robin(st, now, active)
    if st.format == "single_elimination":
        return _next_elimination(st, now, active)
    return _next_arena(st, now, active)


def _next_round_robin(st, now, active) -> List[Pairing]:
    done = max((p.round for p in st.pairings), default=0)
    if done >= len(st.schedule) or any(not p.closed for p in st.pairings):
        return []
    rnd = done + 1
    return [_make(st, f"R{rnd}-{k + 1}", rnd, list(g), now, active) for k, g in enumerate(st.schedule[rnd - 1])]


def _next_elimination(st, now, active) -> List[Pairing]:
    seeds = [e.id for e in sorted(st.entrants, key=lambda e: e.seed)]
    if not st.pairings:
        return [_make(st, f"R1-{j + 1}", 1, list(g), now, active) for j, g in enumerate(P.first_round(seeds))]
    total = P.rounds_in_bracket(len(seeds))
    by_id = {p.id: p for p in st.pairings}
    new: List[Pairing] = []
    progressed = True
    while progressed:  # a walkover made here may complete the feeders of the next round
        progressed = False
        for rnd in range(2, total + 1):
            for j in range(P.bracket_size(len(seeds)) >> rnd):
                pid = f"R{rnd}-{j + 1}"
                if pid in by_id:
                    continue
                feeders = [by_id.get(f"R{rnd - 1}-{2 * j + 1}"), by_id.get(f"R{rnd - 1}-{2 * j + 2}")]
                if any(f is None or not f.closed for f in feeders):
                    continue
                players = [advancing(f) for f in feeders]
                p = _make(st, pid, rnd, players, now, active)
                by_id[pid] = p
                new.append(p)
                progressed = True
    return new


def advancing(p: Pairing) -> Optional[int]:
    """The player who goes through from a closed elimination pairing (None: nobody)."""
    if p.result is None or p.result.winner is None:
        return None
    return p.players[p.result.winner]


def last_opponents(st: TournamentState) -> Dict[int, int]:
    """player -> opponent of their most recent pairing against somebody (by creation order)."""
    out: Dict[int, int] = {}
    for p in st.pairings:
        a, b = p.players
        if a is not None and b is not None:
            out[a], out[b] = b, a
    return out


def _next_arena(st, now, active) -> List[Pairing]:
    if st.ends_at is None or now >= st.ends_at:
        return []
    busy = st.playing()
    rank = {row.player: i for i, row in enumerate(standings(st))}
    waiting = [e.id for e in st.entrants if e.active and e.id not in busy]
    everyone_waiting = all(e.id not in busy for e in st.entrants if e.active)
    pairs = P.arena_pairs(waiting, rank, last_opponents(st), rematch_ok=everyone_waiting)
    if not pairs:
        return []
    seats = P.seat_counts([tuple(p.players) for p in st.pairings])
    wave = max((p.round for p in st.pairings), default=0) + 1
    out = []
    for k, (a, b) in enumerate(pairs):
        sa, sb = seats.get(a, [0, 0]), seats.get(b, [0, 0])
        # seat 0 (the lead-off seat) to whoever has had it less, relative to games played; tie: the better-ranked
        if sa[0] - sa[1] > sb[0] - sb[1]:
            a, b = b, a
        out.append(_make(st, f"A{len(st.pairings) + k + 1}", wave, [a, b], now, active))
    return out


def pair(st: TournamentState, now: float) -> TournamentState:
    """``st`` with :func:`next_pairings` added, again and again while some are due (a round of byes and
    walkovers closes as it is made and may bring the next one): the result is a fixed point,
    ``pair(pair(st, now), now) is pair(st, now)``. Returns ``st`` itself when nothing is due."""
    out = st
    while True:
        new = next_pairings(out, now)
        if not new:
            return out
        closed = out.closed
        for p in new:
            if p.result is not None:
                closed += 1
                p.closed_seq = closed  # p is new: not shared with any state yet
        out = replace(out, pairings=out.pairings + new, closed=closed,
                      version=st.version + 1)


# ----- results -------------------------------------------------------------------------------------
def _two_ints(v: Any, name: str, minimum: Optional[int]) -> List[int]:
    if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise InvalidResult(f"result: {name} must be two integers")
    if minimum is not None and min(v) < minimum:
        raise InvalidResult(f"result: {name} must be >= {minimum}")
    return [int(v[0]), int(v[1])]


def check_result(r: GameResult) -> GameResult:
    """``r`` normalised (lists, sorted forfeits) or :class:`InvalidResult` naming the field."""
    if r.winner is not None and (isinstance(r.winner, bool) or r.winner not in (0, 1)):
        raise InvalidResult(f"result: winner must be 0, 1 or None, got {r.winner!r}")
    if r.reason not in REASONS:
        raise InvalidResult(f"result: reason must be one of {REASONS}, got {r.reason!r}")
    if not isinstance(r.forfeit, (list, tuple)) or any(s not in (0, 1) or isinstance(s, bool) for s in r.forfeit):
        raise InvalidResult("result: forfeit must list seats 0 and/or 1")
    forfeit = sorted(set(r.forfeit))
    if forfeit and r.reason in ("", "bye"):
        raise InvalidResult("result: a forfeit needs a reason (no_show, drop or walkover)")
    if len(forfeit) == 1 and r.winner != 1 - forfeit[0]:
        raise InvalidResult("result: the seat that did not forfeit wins")
    if len(forfeit) == 2 and r.winner is not None:
        raise InvalidResult("result: both seats forfeited, nobody wins")
    game = r.game
    if game is not None:
        if (not isinstance(game, (list, tuple)) or len(game) != 2 or not isinstance(game[0], str)
                or not isinstance(game[1], int) or isinstance(game[1], bool)):
            raise InvalidResult("result: game must be [table id, game number]")
        game = [game[0], int(game[1])]
    return GameResult(winner=r.winner, scores=_two_ints(r.scores, "scores", None),
                      points=_two_ints(r.points, "points", 0), innings=_two_ints(r.innings, "innings", 0),
                      high_runs=_two_ints(r.high_runs, "high_runs", 0), forfeit=forfeit, reason=r.reason, game=game)


def record_result(st: TournamentState, pairing_id: str, result: GameResult) -> TournamentState:
    """``st`` with ``result`` recorded for open pairing ``pairing_id``.

    Idempotent: the same result for a pairing already closed with it returns ``st`` itself.
    Raises :class:`UnknownPairing`, :class:`ResultConflict` (closed with another result),
    :class:`InvalidResult` (malformed; a draw in single elimination; a bye's result), and
    :class:`TournamentError` once the tournament is finished.
    """
    p = st.pairing(pairing_id)
    r = check_result(result)
    if p.closed:
        if p.result == r:
            return st
        raise ResultConflict(f"pairing {pairing_id} is closed with another result")
    if st.finished:
        raise TournamentError(f"tournament {st.tournament_id} is finished")
    if st.format == "single_elimination" and r.winner is None and len(r.forfeit) < 2:
        raise InvalidResult(f"pairing {pairing_id}: single elimination needs a winner (a draw cannot go through)")
    i = next(k for k, q in enumerate(st.pairings) if q.id == pairing_id)
    pairings = list(st.pairings)
    pairings[i] = replace(p, result=r, closed_seq=st.closed + 1)
    return replace(st, pairings=pairings, closed=st.closed + 1, version=st.version + 1)


def forfeit(st: TournamentState, pairing_id: str, seats: Sequence[int], reason: str = "no_show") -> TournamentState:
    """Close open pairing ``pairing_id`` as forfeited by ``seats`` (one seat: the other wins; both: nobody).

    ``reason``: "no_show" (did not sit down in time) or "drop". In an arena the players who did not
    show are also paused (not paired again until :func:`rejoin`), as lichess withdraws a player who
    does not move. Idempotent like :func:`record_result`.
    """
    if reason not in ("no_show", "drop"):
        raise TournamentError(f"forfeit: reason must be no_show or drop, got {reason!r}")
    ss = sorted(set(seats))
    if not ss or any(s not in (0, 1) for s in ss):
        raise TournamentError("forfeit: seats must be 0 and/or 1")
    r = GameResult(winner=None if len(ss) == 2 else 1 - ss[0], forfeit=ss, reason=reason)
    out = record_result(st, pairing_id, r)
    if out is not st and st.format == "arena" and reason == "no_show":
        p = out.pairing(pairing_id)
        absent = {p.players[s] for s in ss}
        out.entrants = [replace(e, active=False) if e.id in absent else e for e in out.entrants]  # out is new
    return out


def drop(st: TournamentState, player: int) -> TournamentState:
    """Player ``player`` leaves: inactive from now on, their open pairing forfeited.

    Round robin: every later game of theirs is a forfeit win for the opponent (made closed when the
    round is paired), results so far stand. Single elimination: they are out. Arena: paused (they
    may :func:`rejoin`); their points stay. Idempotent: dropping an inactive player with no open
    pairing returns ``st``. Raises :class:`TournamentError` for a player not in the tournament.
    """
    e = st.entrant(player)
    open_ids = [p.id for p in st.pairings if not p.closed and player in p.players]
    if not e.active and not open_ids:
        return st
    out = st
    for pid in open_ids:
        p = out.pairing(pid)
        out = forfeit(out, pid, [p.players.index(player)], "drop")
    return replace(out, entrants=[replace(e, active=False) if e.id == player else e for e in out.entrants],
                   version=st.version + 1 if out is st else out.version)


def rejoin(st: TournamentState, player: int, now: float) -> TournamentState:
    """Arena only: a paused player is paired again. Refused after the end or in other formats."""
    if st.format != "arena":
        raise TournamentError("only an arena lets a player come back")
    e = st.entrant(player)
    if e.active:
        return st
    if st.finished or st.ends_at is None or now >= st.ends_at:
        raise TournamentError("the arena is over")
    return replace(st, entrants=[replace(e, active=True) if e.id == player else e for e in st.entrants],
                   version=st.version + 1)


def overdue(st: TournamentState, now: float, no_show_s: float) -> List[str]:
    """Ids of the open pairings made more than ``no_show_s`` ago: the director forfeits the seats still empty."""
    return [p.id for p in st.pairings if not p.closed and now - p.created_at >= no_show_s]


# ----- the end -------------------------------------------------------------------------------------
def is_complete(st: TournamentState, now: float) -> bool:
    """Every game is played: round robin all rounds closed; elimination the final closed; arena past its end
    with no game open (a game paired before the end counts when it finishes)."""
    if st.finished:
        return True
    if any(not p.closed for p in st.pairings):
        return False
    if st.format == "round_robin":
        return max((p.round for p in st.pairings), default=0) >= len(st.schedule)
    if st.format == "single_elimination":
        final = f"R{P.rounds_in_bracket(len(st.entrants))}-1"
        return any(p.id == final for p in st.pairings)
    return st.ends_at is not None and now >= st.ends_at


def finish(st: TournamentState, now: float) -> TournamentState:
    """``st`` marked finished; refused (:class:`TournamentError`) before :func:`is_complete`. Idempotent."""
    if st.finished:
        return st
    if not is_complete(st, now):
        raise TournamentError(f"tournament {st.tournament_id} has games to play")
    return replace(st, finished=True, version=st.version + 1)
