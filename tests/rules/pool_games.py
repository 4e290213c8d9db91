"""Whole 14.1 games through the real physics, with a simple ghost-ball player (bots/aim.py).

The player: with the cue ball in hand it tries kitchen placements and keeps the one with the
nearest-to-straight pot; it calls the ball and pocket of the pot with the smallest cut angle
(ghost-ball aim, speed from :func:`bots.aim.speed_for`); with no pot it plays a safety (a full
hit on the nearest object ball, firm enough to reach a rail). Opening breaks are a firm hit on
the apex ball. Decisions: the lag winner lets the opponent break, a spot request is always
taken, after a breaking foul the table is accepted, after a serious foul the offender re-breaks.

:func:`play_game` checks the referee after every action against what the simulation shows
(the ball accounting of the issue: 15 object balls on the table plus in pockets, spotted and
re-racked balls where the ruling says, scores equal to legally pocketed balls minus penalties,
no two balls overlapping) and returns the game record in the ``billar referee`` format.
"""

from __future__ import annotations

import math
import random
from typing import Dict, List, Optional, Tuple

from bots.aim import nearest_to_straight, speed_for
from physics import Shot, simulate
from physics.simulate import OVERLAP_TOL, on_playing_surface
from rules.registry import new_game
from rules.spotting import behind_head_string

OBJECT_BALLS = set(range(1, 16))


class AccountingError(AssertionError):
    pass


def _kitchen_candidates(table, layout, rng: random.Random, n: int = 24) -> List[Tuple[float, float]]:
    R = table.R
    hx = table.head_string_x
    out = [(hx - 0.12, table.width / 2.0)]
    for _ in range(n):
        out.append((rng.uniform(R + 0.01, hx - 0.01), rng.uniform(R + 0.01, table.width - R - 0.01)))
    ok = []
    for p in out:
        if on_playing_surface(table, p) and all(math.hypot(p[0] - q[0], p[1] - q[1]) >= 2.0 * R + 1e-6 for q in layout.values()):
            ok.append(p)
    return ok


def choose_stroke(g, rng: random.Random):
    """(call, cue_ball_position, Shot) for the player to act (see the module docstring)."""
    T = g.table
    acts = g.legal_actions()
    sh = acts["shoot"]
    layout = g.layout()
    if g.phase == "break":
        apex = min((b for b in layout if b != 0), key=lambda b: layout[b][0])
        cue = (T.head_string_x - 0.15, T.width / 2.0 + rng.uniform(-0.15, 0.15))
        ax, ay = layout[apex]
        phi = math.degrees(math.atan2(ay - cue[1], ax - cue[0]))
        return None, cue, Shot(0, phi_deg=phi + rng.uniform(-0.3, 0.3), V0=rng.uniform(6.0, 8.0), b=-0.1)
    placement = None
    best = None
    if sh["in_hand"]:
        for p in _kitchen_candidates(T, layout, rng):
            lay = dict(layout)
            lay[0] = p
            a = nearest_to_straight(T, lay, 0, sh["balls"])
            if placement is None or (a is not None and (best is None or a.cut_deg < best.cut_deg)):
                placement, best = p, a
        layout = dict(layout)
        layout[0] = placement
    else:
        best = nearest_to_straight(T, layout, 0, sh["balls"])
    if best is not None:
        call = {"ball": best.ball, "pocket": best.pocket}
        return call, placement, Shot(0, phi_deg=best.phi_deg, V0=speed_for(T, best), b=0.1)
    # safety: full hit on the nearest object ball (in front of the head string when in hand)
    cue = layout[0]
    cands = [b for b in sh["balls"] if not (sh["in_hand"] and behind_head_string(T, layout[b]))] or sh["balls"]
    tgt = min(cands, key=lambda b: math.hypot(layout[b][0] - cue[0], layout[b][1] - cue[1]))
    phi = math.degrees(math.atan2(layout[tgt][1] - cue[1], layout[tgt][0] - cue[0]))
    return {"safety": True}, placement, Shot(0, phi_deg=phi + rng.uniform(-2.0, 2.0), V0=rng.uniform(1.8, 2.6))


def choose_decision(g) -> Tuple[str, object]:
    names = {d["name"]: d["args"] for d in g.legal_actions()["decisions"]}
    p = g.to_act
    if "CHOOSE_BREAKER" in names:
        return "CHOOSE_BREAKER", 1 - p
    if "SPOT_REQUEST" in names:
        return "SPOT_REQUEST", names["SPOT_REQUEST"][0]
    if "ACCEPT_TABLE" in names and g.pending["kind"] == "breaking_foul":
        return "ACCEPT_TABLE", None
    if "RERACK_OFFENDER_BREAKS" in names:
        return "RERACK_OFFENDER_BREAKS", None
    if "ACCEPT_TABLE" in names:
        return "ACCEPT_TABLE", None
    if "DECLINE_STALEMATE" in names:
        return "DECLINE_STALEMATE", None
    raise AssertionError(f"no decision strategy for {names}")


def _check_layout(g) -> None:
    T = g.table
    lay = g.layout()
    ids = sorted(lay)
    for i, a in enumerate(ids):
        x, y = lay[a]
        if not (-T.R <= x <= T.length + T.R and -T.R <= y <= T.width + T.R):  # the bed or a pocket mouth
            raise AccountingError(f"ball {a} off the bed at {lay[a]}")
        for b in ids[i + 1:]:
            d = math.hypot(lay[a][0] - lay[b][0], lay[a][1] - lay[b][1])
            if d < 2.0 * T.R - OVERLAP_TOL:  # the physics leaves touching balls within its tolerance
                raise AccountingError(f"balls {a} and {b} overlap ({d})")


class Ledger:
    """Accounts for every object ball and point independently of the referee."""

    def __init__(self, g=None) -> None:
        self.in_pockets: set = set()
        self.scored = [0, 0]
        self.penalties = [0, 0]
        self.points_seen = [0, 0]
        self.rack_scored = 0  # balls legally pocketed since the current rack was set (R27's AZ check)
        self.racks_checked = 0
        if g is not None and g.phase not in ("lag",) and g.layout():
            self.in_pockets = OBJECT_BALLS - set(g.layout())
            self.rack_scored = len(self.in_pockets)
        if g is not None:  # a game set up mid-match: take its history as given
            sb = g.scoreboard()["players"]
            self.scored = [sb[0]["points"], sb[1]["points"]]
            self.penalties = [self.scored[s] - g.scores[s] for s in (0, 1)]
            self.points_seen = list(g.scores)

    def stroke(self, g, player: int, sim, ruling: dict) -> None:
        final_lay = {b: tuple(s.r) for b, s in sim.final.items() if s.state != "pocketed"}
        pocketed = {b for b, s in sim.final.items() if s.state == "pocketed" and b != 0}
        self.in_pockets |= pocketed
        scored = ruling.get("scored") or []
        if set(scored) - pocketed:
            raise AccountingError(f"scored {scored} but pocketed {sorted(pocketed)}")
        self.scored[player] += len(scored)
        self.rack_scored += len(scored)
        if ruling["rerack"] and ruling.get("call_fulfilled"):
            left = sum(1 for b in final_lay if b != 0)  # off-table object balls count: they are always spotted
            if self.rack_scored + left != 15:
                raise AccountingError(f"rack: {self.rack_scored} balls scored and {left} left on the table")
            self.racks_checked += 1
        self.after_action(g, ruling)
        lay = g.layout()
        moved = set(ruling["spotted"]) | set(ruling["placed"])
        if ruling["rerack"]:
            moved |= {str(b) for b in ruling["rerack"]["balls"]}
        if g.phase == "break" and ruling.get("foul") == "third_successive_foul":
            return  # everything re-racked
        for b, p in final_lay.items():
            if str(b) in moved or b not in lay:
                continue
            if math.hypot(lay[b][0] - p[0], lay[b][1] - p[1]) > 1e-12:
                raise AccountingError(f"ball {b} rests at {p} but the referee has it at {lay[b]}")

    def after_action(self, g, ruling: dict) -> None:
        if ruling["rerack"]:
            self.rack_scored = 0
        for b in ruling["spotted"]:
            self.in_pockets.discard(int(b))
        if ruling["rerack"]:
            for b in ruling["rerack"]["balls"]:
                self.in_pockets.discard(int(b))
        if ruling.get("penalty"):
            self.penalties[ruling["player"]] += ruling["penalty"]
        for s in (0, 1):
            self.points_seen[s] += ruling["points"][s]
        self.check(g)

    def check(self, g) -> None:
        if g.phase == "lag" or (g.phase == "decision" and g.pending["kind"] == "lag"):
            return  # the balls are racked once the breaker is chosen
        _check_layout(g)
        on_table = {b for b in g.layout() if b != 0}
        if on_table & self.in_pockets or (on_table | self.in_pockets) != OBJECT_BALLS:
            raise AccountingError(f"ball count: table {sorted(on_table)}, pockets {sorted(self.in_pockets)}")
        st = g.scoreboard()["players"]
        for s in (0, 1):
            if g.scores[s] != self.points_seen[s]:
                raise AccountingError(f"seat {s}: score {g.scores[s]} but rulings add up to {self.points_seen[s]}")
            if not g.config["cap_final_score"] or not g.over:
                if g.scores[s] != self.scored[s] - self.penalties[s]:
                    raise AccountingError(f"seat {s}: score {g.scores[s]} != scored {self.scored[s]} - penalties {self.penalties[s]}")
            if st[s]["points"] != self.scored[s]:
                raise AccountingError(f"seat {s}: statistics say {st[s]['points']} points, the ledger {self.scored[s]}")


def play_game(seed: int, config: Optional[Dict] = None, max_actions: int = 5000, record: bool = False):
    """Play one game with the ghost-ball player; returns (game, record or None, counters).

    ``counters``: number of strokes, re-racks of 14 and of 15, fouls by kind. Raises
    :class:`AccountingError` on any inconsistency between referee and simulation.
    """
    rng = random.Random(seed)
    g = new_game("straight_pool", config or {}, seed=seed)
    ledger = Ledger(g)
    rec = {"discipline": "straight_pool", "config": dict(config or {}), "seed": seed, "strokes": []} if record else None
    counters: Dict[str, object] = {"strokes": 0, "rerack14": 0, "rerack15": 0, "fouls": {}, "breaks": 0, "lags": 0, "ledger": ledger}
    ledger.check(g)
    for _ in range(max_actions):
        if g.over:
            break
        if g.phase == "lag":
            lay = g.lag_layout()
            shots = [Shot(s, phi_deg=rng.uniform(-0.8, 0.8), V0=rng.uniform(1.7, 2.1)) for s in (0, 1)]
            sim = simulate(g.table, lay, shots)
            r = g.apply_lag(sim).to_dict()
            counters["lags"] += 1
            if rec is not None:
                rec["strokes"].append({"lag": True, "sim": sim.to_json()})
            ledger.after_action(g, r)
            continue
        if g.phase == "decision" or (g.legal_actions()["decisions"] and any(d["name"] == "SPOT_REQUEST" for d in g.legal_actions()["decisions"])):
            name, arg = choose_decision(g)
            p = g.to_act
            r = g.apply_decision(p, name, arg).to_dict()
            if rec is not None:
                rec["strokes"].append({"player": p, "decision": {"name": name, "arg": arg}})
            ledger.after_action(g, r)
            continue
        p = g.to_act
        call, cue, shot = choose_stroke(g, rng)
        start = g.prepare_shot(p, call, cue)
        sim = simulate(g.table, start, shot)
        was_break = g.phase == "break"
        r = g.apply_shot(p, call, sim).to_dict()
        counters["strokes"] += 1
        counters["breaks"] += int(was_break)
        if r["foul"]:
            counters["fouls"][r["foul"]] = counters["fouls"].get(r["foul"], 0) + 1
        if r["rerack"] and not was_break and r["foul"] is None:
            counters["rerack15" if len(r["rerack"]["balls"]) == 15 else "rerack14"] += 1
        if rec is not None:
            rec["strokes"].append(
                {
                    "player": p,
                    "call": call,
                    "cue_ball_position": list(cue) if cue is not None else None,
                    "decision": None,
                    "sim": sim.to_json(),
                    "ruling": r,
                }
            )
        ledger.stroke(g, p, sim, r)
    return g, rec, counters


def write_record(path: str, seed: int, config: Optional[Dict] = None) -> dict:
    """Play a game (see :func:`play_game`) and write its record, with the rulings given, to ``path`` (gzip JSON)."""
    import gzip
    import json

    g, rec, counters = play_game(seed, config, record=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(rec, fh, separators=(",", ":"))
    return {"scores": list(g.scores), "over": g.over, "counters": counters}


if __name__ == "__main__":  # PYTHONPATH=. python tests/rules/pool_games.py OUT.json.gz SEED TARGET
    import sys

    print(write_record(sys.argv[1], int(sys.argv[2]), {"target_points": int(sys.argv[3])}))
