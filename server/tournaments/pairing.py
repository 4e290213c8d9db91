"""Who plays whom: round-robin schedules, single-elimination brackets, arena pairing and arena points.

Pure functions over player ids (any hashable, comparable values; the tournament uses account ids):
no I/O, no clock, no randomness. The same input always gives the same output, which is what lets
a director that takes over from a dead one pair exactly what the first would have paired.

- :func:`round_robin` — the circle method (Berger tables): every pair meets exactly once, one game a
  round, a bye a round for an odd count, first-seat (break) order balanced to within one game.
- :func:`bracket_order` / :func:`first_round` — a single-elimination bracket seeded the standard
  way (1 v 16, 8 v 9, 4 v 13, 5 v 12, ...): seeds 1 and 2 are in opposite halves and meet only in
  the final, seeds 1-4 only in the semi-finals, and the byes of a field that is not a power of two
  go to the top seeds.
- :func:`arena_pairs` — lichess-style arena pairing of the players waiting: closest in rank first,
  never the opponent of a player's previous game when another pairing avoids it.
- :func:`arena_points` — lichess arena scoring (2 a win, 1 a draw, doubled on a streak).
"""

from __future__ import annotations

from typing import Dict, Hashable, List, Mapping, Optional, Sequence, Tuple

Pair = Tuple[Optional[Hashable], Optional[Hashable]]


# ----- round robin -------------------------------------------------------------------------------
def round_robin(players: Sequence[Hashable]) -> List[List[Pair]]:
    """The rounds of a single round robin by the circle method: ``rounds[r]`` is a list of (seat 0, seat 1).

    ``players`` in seed order (2 or more, distinct). For an even count n there are n-1 rounds of n/2
    games; for an odd count a ``None`` joins the circle and there are n rounds, in each of which
    one player has a bye: the pair (player, None), listed last in its round. Every pair of players
    meets exactly once, nobody plays twice in a round, and each player's seat-0 count (the seat that
    breaks or leads off) differs from their seat-1 count by at most one.

    Construction (the Berger tables' circle): with ``None`` in front for an odd count, the first entry
    stays put and the others rotate one place a round; in round r the entry at position i plays the
    one at position m-1-i. The fixed entry alternates seats round by round; the others take seat 0
    in the top half of the circle and seat 1 in the bottom half, so over the m-1 rounds a rotating
    player is m/2-1 times on each side plus once against the fixed entry.

    Raises ``ValueError`` for fewer than two players or a repeated id.
    """
    ps = list(players)
    if len(ps) < 2:
        raise ValueError("round_robin: at least two players")
    if len(set(ps)) != len(ps):
        raise ValueError("round_robin: a player is listed twice")
    # odd: None is the fixed entry, so each round's bye is the game against it and the rotating players'
    # seats stay exactly balanced
    circle: List[Optional[Hashable]] = [None] + ps if len(ps) % 2 else ps[:]
    m = len(circle)
    fixed, rest = circle[0], circle[1:]
    rounds: List[List[Pair]] = []
    for r in range(m - 1):
        arr = [fixed] + rest[r:] + rest[:r] if r else [fixed] + rest
        pairs: List[Pair] = []
        a, b = arr[0], arr[m - 1]
        pairs.append((a, b) if r % 2 == 0 else (b, a))
        for i in range(1, m // 2):
            pairs.append((arr[i], arr[m - 1 - i]))
        games = [p for p in pairs if p[0] is not None and p[1] is not None]
        byes = [(p[0] if p[0] is not None else p[1], None) for p in pairs if p[0] is None or p[1] is None]
        rounds.append(games + byes)
    return rounds


# ----- single elimination ------------------------------------------------------------------------
def bracket_size(n: int) -> int:
    """The smallest power of two >= ``n`` (at least 2)."""
    if n < 2:
        raise ValueError("bracket: at least two players")
    size = 2
    while size < n:
        size *= 2
    return size


def bracket_order(size: int) -> List[int]:
    """The seeds (1-based) in bracket line order for a bracket of ``size`` (a power of two >= 2).

    Standard seeding: start from [1, 2]; to double the bracket, replace each seed s by s and its
    complement size+1-s (the sum of a first-round pair is always size+1). Size 8 gives
    1 8 4 5 2 7 3 6 (matches 1v8, 4v5, 2v7, 3v6); size 16 gives 1 16 8 9 4 13 5 12 2 15 7 10 3 14 6 11.
    If the stronger seed always wins, the quarter-finals are 1v8, 4v5, 2v7, 3v6, the semi-finals
    1v4, 2v3 and the final 1v2. ``ValueError`` if ``size`` is not a power of two >= 2.
    """
    if size < 2 or size & (size - 1):
        raise ValueError(f"bracket: size must be a power of two >= 2, got {size}")
    order = [1, 2]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def first_round(players: Sequence[Hashable]) -> List[Pair]:
    """The first round of a single-elimination bracket: ``players`` in seed order (seed 1 first).

    Returns ``size/2`` pairs in bracket line order (pair j's winner meets pair j^1's in round two).
    A seed beyond the field is ``None``: its opponent has a bye. Since seed s faces size+1-s, the
    byes go to seeds 1..size-n, the top seeds. Raises ``ValueError`` for fewer than two players or
    a repeated id.
    """
    ps = list(players)
    if len(set(ps)) != len(ps):
        raise ValueError("bracket: a player is listed twice")
    size = bracket_size(len(ps))
    order = bracket_order(size)
    line = [ps[s - 1] if s <= len(ps) else None for s in order]
    return [(line[2 * j], line[2 * j + 1]) for j in range(size // 2)]


def rounds_in_bracket(n: int) -> int:
    """Rounds a single-elimination bracket of ``n`` players takes (log2 of its size)."""
    return bracket_size(n).bit_length() - 1


# ----- arena -------------------------------------------------------------------------------------
def arena_pairs(waiting: Sequence[Hashable], rank: Mapping[Hashable, int],
                last_opponent: Mapping[Hashable, Hashable],
                rematch_ok: bool = False) -> List[Tuple[Hashable, Hashable]]:
    """Pair the players ``waiting`` (lichess arena style): as many games as possible, close in rank, no rematch.

    ``rank``: each player's place in the current standings (0 = leader; distinct); ``last_opponent``:
    the opponent of each player's previous game (absent for none). A pair (a, b) is an *immediate
    rematch* when a's last opponent is b or b's is a.

    The rule: players are taken in rank order; each takes the closest-ranked free player (the
    better-ranked on a tie) that is not an immediate rematch. A player left without such a partner
    is repaired into an existing pair (a, b): (x, a) + (y, b) or (x, b) + (y, a) with y another
    player left over, when neither new pair is a rematch. Players still left over wait for the next
    wave (someone else finishing a game), except when ``rematch_ok``: the caller says nobody else
    can become available (every active player of the arena is waiting), and then leftovers are
    paired in rank order even as a rematch (two players alone in an arena play each other again).
    With an odd count one player waits.

    Returns (a, b) pairs with a ranked above b, in rank order of a. Never pairs a player with
    themselves or puts a player in two pairs. ``ValueError`` for a player listed twice or unranked.
    """
    ws = list(waiting)
    if len(set(ws)) != len(ws):
        raise ValueError("arena: a player is waiting twice")
    for p in ws:
        if p not in rank:
            raise ValueError(f"arena: player {p!r} has no rank")
    ws.sort(key=lambda p: rank[p])

    def rematch(a, b) -> bool:
        return last_opponent.get(a) == b or last_opponent.get(b) == a

    free = list(ws)
    pairs: List[List[Hashable]] = []
    left: List[Hashable] = []
    while free:
        x = free.pop(0)
        best = None
        for y in free:  # free is in rank order: the first allowed one is closest below x
            if not rematch(x, y):
                best = y
                break
        if best is None:
            left.append(x)
        else:
            free.remove(best)
            pairs.append([x, best])
    # repair: two leftovers x, y (a rematch of each other, or with nobody free) swap into a pair
    changed = True
    while changed and len(left) >= 2:
        changed = False
        for i in range(len(left)):
            for j in range(i + 1, len(left)):
                x, y = left[i], left[j]
                if not rematch(x, y):
                    pairs.append([x, y])
                    left = [p for p in left if p not in (x, y)]
                    changed = True
                    break
                for k, (a, b) in enumerate(pairs):
                    for (u, v) in ((a, b), (b, a)):
                        if not rematch(x, u) and not rematch(y, v):
                            pairs[k] = [x, u]
                            pairs.append([y, v])
                            left = [p for p in left if p not in (x, y)]
                            changed = True
                            break
                    if changed:
                        break
                if changed:
                    break
            if changed:
                break
    if len(left) >= 2:  # the swaps above are augmenting paths of three edges; a longer one may still exist
        pairs, left = _maximum_pairs(ws, pairs, rematch)
    if rematch_ok:
        while len(left) >= 2:
            pairs.append([left.pop(0), left.pop(0)])
    out = [tuple(sorted(p, key=lambda q: rank[q])) for p in pairs]
    out.sort(key=lambda p: rank[p[0]])
    return out  # type: ignore[return-value]


def _maximum_pairs(players: List[Hashable], pairs: List[List[Hashable]], rematch) -> Tuple[List[List[Hashable]], List[Hashable]]:
    """``pairs`` grown to as many pairs of ``players`` (in rank order) as there can be without an immediate rematch
    (``rematch(a, b)``): a maximum matching of the graph whose edges are the allowed pairs, found by augmenting
    ``pairs`` along alternating paths from each unpaired player, odd cycles (blossoms) shrunk to one vertex as they
    are met (J. Edmonds, "Paths, trees, and flowers", Canadian Journal of Mathematics 17, 1965). The pairs the
    greedy rule made stay unless a path runs through them. Returns (pairs, players left over in rank order)."""
    n = len(players)
    index = {p: i for i, p in enumerate(players)}
    allowed = [[j for j in range(n) if j != i and not rematch(players[i], players[j])] for i in range(n)]
    mate = [-1] * n
    for a, b in pairs:
        mate[index[a]], mate[index[b]] = index[b], index[a]
    for root in range(n):
        if mate[root] == -1:
            _augment(root, allowed, mate)
    done, out = set(), []
    for i in range(n):
        if mate[i] != -1 and i not in done:
            done.update((i, mate[i]))
            out.append([players[i], players[mate[i]]])
    return out, [players[i] for i in range(n) if mate[i] == -1]


def _augment(root: int, allowed: List[List[int]], mate: List[int]) -> bool:
    """One search of Edmonds' algorithm from the unmatched vertex ``root``: a breadth-first alternating tree
    (``parent`` of each odd vertex, the matched edge above each even one); an edge between two even vertices closes
    an odd cycle, whose vertices then share the ``base`` of its top; reaching an unmatched vertex flips the path to
    ``root`` (``mate`` changes, True)."""
    n = len(mate)
    parent = [-1] * n
    base = list(range(n))
    even = [False] * n
    even[root] = True
    queue = [root]

    def top_of_cycle(a: int, b: int) -> int:
        on_path = [False] * n
        while True:  # from a up to the root, marking the bases of the even vertices
            a = base[a]
            on_path[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while not on_path[base[b]]:  # from b up to the first of them
            b = parent[mate[base[b]]]
        return base[b]

    def shrink_path(v: int, top: int, child: int, in_cycle: List[bool]) -> None:
        while base[v] != top:
            in_cycle[base[v]] = in_cycle[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.pop(0)
        for u in allowed[v]:
            if base[v] == base[u] or mate[v] == u:
                continue
            if u == root or (mate[u] != -1 and parent[mate[u]] != -1):  # u is even too: an odd cycle
                top = top_of_cycle(v, u)
                in_cycle = [False] * n
                shrink_path(v, top, u, in_cycle)
                shrink_path(u, top, v, in_cycle)
                for i in range(n):
                    if in_cycle[base[i]]:
                        base[i] = top
                        if not even[i]:
                            even[i] = True
                            queue.append(i)
            elif parent[u] == -1:
                parent[u] = v
                if mate[u] == -1:  # an augmenting path: flip it back to the root
                    while u != -1:
                        w = mate[parent[u]]
                        mate[u], mate[parent[u]] = parent[u], u
                        u = w
                    return True
                even[mate[u]] = True
                queue.append(mate[u])
    return False


#: arena points: a win, a draw, a loss (lichess), doubled on a streak
ARENA_WIN, ARENA_DRAW, ARENA_LOSS = 2, 1, 0


def arena_points(outcomes: Sequence[float]) -> Tuple[int, List[int]]:
    """A player's arena score from their games in order: (total, points of each game).

    ``outcomes``: 1 win, 0.5 draw, 0 loss per game, in the order the games finished.
    The rule (lichess Arena FAQ, https://lichess.org/tournament/help "How are points calculated?"):
    a win is worth 2 points, a draw 1, a loss 0. After two wins in a row the player is *on fire*:
    the following games are worth double (a win 4, a draw 2) until a game is not a win; the game
    that breaks the streak is itself still doubled when it is a draw. Not implemented from the same
    FAQ: berserk (no clock here) and the rule that draws in the first moves score nothing.
    """
    total, per = 0, []
    wins_in_a_row = 0
    for o in outcomes:
        base = ARENA_WIN if o == 1 else ARENA_DRAW if o == 0.5 else ARENA_LOSS
        pts = base * 2 if wins_in_a_row >= 2 else base
        per.append(pts)
        total += pts
        wins_in_a_row = wins_in_a_row + 1 if o == 1 else 0
    return total, per


def on_fire(outcomes: Sequence[float]) -> bool:
    """True when the player's next game scores double (their last two games were wins)."""
    return len(outcomes) >= 2 and outcomes[-1] == 1 and outcomes[-2] == 1


def seat_counts(games: Sequence[Pair]) -> Dict[Hashable, List[int]]:
    """player -> [games in seat 0, games in seat 1] over ``games`` (byes ignored)."""
    out: Dict[Hashable, List[int]] = {}
    for a, b in games:
        if a is None or b is None:
            continue
        out.setdefault(a, [0, 0])[0] += 1
        out.setdefault(b, [0, 0])[1] += 1
    return out
