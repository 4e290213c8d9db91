"""Standings of a tournament: a total order of its players, with the tie-breaks each discipline's players expect.

Pure; reads a :class:`server.tournaments.state.TournamentState` (by its attributes: this module
imports only ``pairing``, so the state module can import it).

Scoring per pairing:
- match points (round robin, single elimination): win 2, draw 1, loss 0 (the 2/1/0 of carom group
  play, rules spec C19/C23); a forfeit win is a win, a forfeit loss a loss; a bye gives nothing and
  is not a game (with an odd count every player has exactly one bye in a round robin).
- arena points: :func:`server.tournaments.pairing.arena_points` (lichess: 2 / 1 / 0, doubled on a
  streak of two wins or more), over the games in the order they closed.

The order, first key first (each key compared only when all before it are equal):

1. the format's primary score: round robin — match points; single elimination — the stage reached
   (the champion, then the finalist, then the semi-finalists, ...); arena — arena points;
2. the discipline's tie-breaks, over the games actually played (byes, walkovers and forfeits
   excluded):
   - carom (every discipline but 14.1): general average (points / innings over the tournament,
     compared exactly as a fraction; no innings: 0), then high run;
   - 14.1 (``straight_pool``): point difference (score for − score against), then score for;
3. head-to-head: among the players still equal on 1 and 2, match points in the games between them
   (a mini-league of the tied group);
4. seed (the entry rating order, higher rating first, then account id): always distinct, so the
   order is total.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict, List, Tuple

from server.tournaments.pairing import arena_points, rounds_in_bracket

POOL = ("straight_pool",)


def family(discipline: str) -> str:
    """``"pool"`` (14.1) or ``"carom"`` (every other discipline): which tie-breaks apply."""
    return "pool" if discipline in POOL else "carom"


@dataclass(frozen=True)
class Standing:
    """One player's line. ``primary``: the format's first key (match points, stage or arena points);
    ``match_points``; ``arena_points``; ``stage`` (single elimination: 1 = out in round one, rounds+1 =
    champion; else 0); games/wins/draws/losses (byes excluded, forfeits included); ``forfeits`` lost;
    ``score_for`` / ``score_against`` / ``points`` / ``innings`` / ``high_run`` over played games;
    ``average`` = points / innings; ``head_to_head`` (match points against the players tied with
    them through the discipline's tie-breaks; 0 when nobody is)."""

    rank: int
    player: int
    name: str
    seed: int
    primary: float
    match_points: int
    arena_points: int
    stage: int
    games: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    score_for: int
    score_against: int
    points: int
    innings: int
    high_run: int
    average: float
    head_to_head: int
    active: bool

    def as_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


def _tiebreaks(fam: str, acc: Dict[str, Any]) -> Tuple:
    if fam == "carom":
        avg = Fraction(acc["points"], acc["innings"]) if acc["innings"] else Fraction(0)
        return (avg, acc["high_run"])
    return (acc["score_for"] - acc["score_against"], acc["score_for"])


def sort_key(row: Standing, discipline: str) -> Tuple:
    """The key the standings are sorted by (ascending): equal keys are impossible (seeds differ)."""
    fam = family(discipline)
    acc = {"points": row.points, "innings": row.innings, "high_run": row.high_run,
           "score_for": row.score_for, "score_against": row.score_against}
    return (-row.primary, *(-x for x in _tiebreaks(fam, acc)), -row.head_to_head, row.seed)


def standings(st: Any) -> List[Standing]:
    """The players of tournament state ``st`` in standing order (rank 1 first); see the module doc."""
    fam = family(st.discipline)
    acc: Dict[int, Dict[str, Any]] = {}
    for e in st.entrants:
        acc[e.id] = dict(mp=0, games=0, wins=0, draws=0, losses=0, forfeits=0, score_for=0, score_against=0,
                         points=0, innings=0, high_run=0, outcomes=[], stage=0, last_round=0)
    for p in sorted(st.pairings, key=lambda p: (p.closed_seq == 0, p.closed_seq)):
        r = p.result
        for seat in (0, 1):
            pl = p.players[seat]
            if pl is None or pl not in acc:
                continue
            a = acc[pl]
            if st.format == "single_elimination" and p.round >= a["last_round"]:
                a["last_round"] = p.round
                a["stage"] = p.round + (1 if r is not None and r.winner == seat else 0)
            if r is None or p.players[1 - seat] is None:
                continue  # open, or a bye: not a game
            o = r.outcome(seat)
            a["games"] += 1
            a["outcomes"].append(o)
            if o == 1:
                a["wins"] += 1
                a["mp"] += 2
            elif o == 0.5:
                a["draws"] += 1
                a["mp"] += 1
            else:
                a["losses"] += 1
            if seat in r.forfeit:
                a["forfeits"] += 1
            if r.played:
                a["score_for"] += r.scores[seat]
                a["score_against"] += r.scores[1 - seat]
                a["points"] += r.points[seat]
                a["innings"] += r.innings[seat]
                a["high_run"] = max(a["high_run"], r.high_runs[seat])
    if st.format == "single_elimination":
        total = rounds_in_bracket(len(st.entrants))
        for a in acc.values():
            a["stage"] = min(a["stage"], total + 1)

    def primary(a) -> float:
        if st.format == "round_robin":
            return a["mp"]
        if st.format == "single_elimination":
            return a["stage"]
        return arena_points(a["outcomes"])[0]

    seeds = {e.id: e for e in st.entrants}
    # head-to-head within the groups equal on the primary score and the tie-breaks
    groups: Dict[Tuple, List[int]] = {}
    for pl, a in acc.items():
        groups.setdefault((primary(a), _tiebreaks(fam, a)), []).append(pl)
    h2h = {pl: 0 for pl in acc}
    for members in groups.values():
        if len(members) < 2:
            continue
        ms = set(members)
        for p in st.pairings:
            if p.result is None or p.players[0] not in ms or p.players[1] not in ms:
                continue
            for seat in (0, 1):
                h2h[p.players[seat]] += int(2 * p.result.outcome(seat))

    def key(pl):
        a = acc[pl]
        return (-primary(a), *(-x for x in _tiebreaks(fam, a)), -h2h[pl], seeds[pl].seed)

    out = []
    for i, pl in enumerate(sorted(acc, key=key)):
        a, e = acc[pl], seeds[pl]
        out.append(Standing(
            rank=i + 1, player=pl, name=e.name, seed=e.seed, primary=primary(a), match_points=a["mp"],
            arena_points=arena_points(a["outcomes"])[0], stage=a["stage"], games=a["games"], wins=a["wins"],
            draws=a["draws"], losses=a["losses"], forfeits=a["forfeits"], score_for=a["score_for"],
            score_against=a["score_against"], points=a["points"], innings=a["innings"], high_run=a["high_run"],
            average=round(a["points"] / a["innings"], 4) if a["innings"] else 0.0, head_to_head=h2h[pl],
            active=e.active))
    return out
