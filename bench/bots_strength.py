"""Bot figures: decision time per stroke at each level; level 5 against level 1 (average run, win rate).

Games are played straight through the referee and the physics (bots/selfplay.py), not over the
network. Run:

    .venv/bin/python bench/bots_strength.py                 # default: 4 games per match-up
    .venv/bin/python bench/bots_strength.py --games 10 --pool-target 50 --carom-target 15

Prints two tables. "Decision time" gives, per level, the median, 90th percentile and maximum
seconds a move took (every stroke and decision of every game that level played) with the
number of moves. "Level 5 against level 1" gives, per discipline, games played, level 5's wins,
both sides' average run (points per inning at the table, misses included) and strokes.
Half the games give level 5 seat 0, half seat 1.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots.engine import Player  # noqa: E402
from bots.selfplay import play_game  # noqa: E402


def q(vals, p):
    s = sorted(vals)
    return s[min(len(s) - 1, int(p * len(s)))] if s else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4, help="games per discipline (level 5 vs level 1), default 4")
    ap.add_argument("--pool-target", type=int, default=50)
    ap.add_argument("--carom-target", type=int, default=15)
    ap.add_argument("--timing-games", type=int, default=1, help="games per level for the decision-time table (level n vs n)")
    args = ap.parse_args()
    t_start = time.time()

    think = {lv: [] for lv in range(1, 6)}
    for lv in range(1, 6):  # decision time: level n against level n, one short game of each discipline
        for k in range(args.timing_games):
            for disc, cfg in (("straight_pool", {"target_points": 15}), ("three_cushion", {"distance": 5})):
                st = play_game(disc, cfg, [Player(lv, 100 + k), Player(lv, 200 + k)], seed=k + 1)
                think[lv] += st.think_s[0] + st.think_s[1]

    rows = []
    for disc, cfg in (("straight_pool", {"target_points": args.pool_target}), ("three_cushion", {"distance": args.carom_target})):
        wins = 0
        runs5, runs1, strokes5, strokes1 = [], [], 0, 0
        for k in range(args.games):
            s5 = k % 2
            players = [None, None]
            players[s5] = Player(5, 1000 + k)
            players[1 - s5] = Player(1, 2000 + k)
            st = play_game(disc, cfg, players, seed=k + 11)
            wins += st.winner == s5
            runs5 += st.runs[s5]
            runs1 += st.runs[1 - s5]
            strokes5 += st.strokes[s5]
            strokes1 += st.strokes[1 - s5]
            for s, lv in ((s5, 5), (1 - s5, 1)):
                think[lv] += st.think_s[s]
        rows.append((disc, cfg, args.games, wins, statistics.fmean(runs5) if runs5 else 0.0,
                     statistics.fmean(runs1) if runs1 else 0.0, strokes5, strokes1))

    print("Decision time per move (s), both disciplines")
    print(f"{'level':>5} {'median':>8} {'p90':>8} {'max':>8} {'moves':>6}")
    for lv in range(1, 6):
        v = think[lv]
        print(f"{lv:>5} {statistics.median(v):8.3f} {q(v, 0.9):8.3f} {max(v):8.3f} {len(v):6d}")
    print()
    print("Level 5 against level 1")
    print(f"{'discipline':<14} {'target':>6} {'games':>5} {'L5 wins':>7} {'L5 avg run':>10} {'L1 avg run':>10} "
          f"{'L5 strokes':>10} {'L1 strokes':>10}")
    for disc, cfg, n, wins, r5, r1, s5, s1 in rows:
        target = cfg.get("target_points", cfg.get("distance"))
        print(f"{disc:<14} {target:>6} {n:>5} {wins:>7} {r5:10.2f} {r1:10.2f} {s5:>10} {s1:>10}")
    print(f"\n({time.time() - t_start:.0f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
