"""Write the golden vectors: whole event logs of reference shots, for regression and for clients.

Each shot becomes ``tests/golden/<name>.json``::

    {"name": str, "note": str,
     "input": {"table": str, "balls": {id: [x, y]}, "shots": [{"cue_ball", "phi_deg", "V0",
               "a", "b", "theta_deg"}], "cushion_model": str, "ball_model": str,
               "max_events": int},
     "result": SimResult.to_json()   (table, initial, events with post-event states, final, capped),
     "samples": [{"t": s, "r": {id: [x, y]}}]}

``samples`` are positions replayed from the log (physics.events.SimResult.state_at, i.e. the
closed-form motion of physics/evolve.pyx) at the midpoint of every interval between distinct
event times and at 40 evenly spaced times: a client that evaluates trajectories between events
must reproduce them (to rounding). tests/physics/test_physics_golden.py checks that the engine
still produces every file exactly (bit for bit, on this build).

Usage: ``.venv/bin/python tests/golden/make_golden.py`` (rewrites every file; review the diff).
"""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from physics import Shot, get_table, simulate  # noqa: E402

P9 = get_table("pool-9ft")
C = get_table("carom")
R = P9.R


def rack(table, cue=None) -> Dict[int, List[float]]:
    balls = {0: list(cue if cue is not None else table.head_spot)}
    for k, p in enumerate(table.rack_sites()):
        balls[k + 1] = list(p)
    return balls


def aim(frm, to) -> float:
    return math.degrees(math.atan2(to[1] - frm[1], to[0] - frm[0]))


def ghost(obj, cut_deg, toward_deg=0.0, table=P9):
    """Ghost-ball centre for cutting ``obj`` by ``cut_deg`` with the object ball sent along ``toward_deg``."""
    a = math.radians(toward_deg + cut_deg)
    return [obj[0] - 2 * table.R * math.cos(a), obj[1] - 2 * table.R * math.sin(a)]


def shot(cue_ball=0, phi=0.0, V0=2.0, a=0.0, b=0.0, theta=0.0):
    return {"cue_ball": cue_ball, "phi_deg": phi, "V0": V0, "a": a, "b": b, "theta_deg": theta}


CAROM_BREAK = {0: list(C.starting_spots["right"]), 1: list(C.bottom_spot), 2: list(C.top_spot)}
FR = P9.pocket_by_name("FR")

SHOTS = [
    # ---- pool, 9 ft ------------------------------------------------------------------------
    dict(name="pool_break_14_1_straight", note="15-ball rack, cue ball on the head spot, full hit on the apex at 8 m/s",
         table="pool-9ft", balls=rack(P9), shots=[shot(phi=0.0, V0=8.0)]),
    dict(name="pool_break_14_1_side_english", note="break from the side of the kitchen with right english at 9 m/s",
         table="pool-9ft", balls=rack(P9, (0.5, 0.4)), shots=[shot(phi=aim((0.5, 0.4), P9.foot_spot), V0=9.0, a=0.2, b=-0.1)]),
    dict(name="pool_break_14_1_10ms", note="hardest accepted break, 10 m/s, slightly off the apex",
         table="pool-9ft", balls=rack(P9), shots=[shot(phi=0.4, V0=10.0)]),
    dict(name="pool_14_1_safety_break", note="14.1 opening safety: soft hit on a corner ball of the rack",
         table="pool-9ft", balls=rack(P9, (0.55, 0.9)), shots=[shot(phi=aim((0.55, 0.9), ghost(P9.rack_sites()[14], 50.0, -120.0)), V0=1.6, b=0.2)]),
    dict(name="pool_stop_shot", note="centre-ball hit straight on from close: the cue ball stops",
         table="pool-9ft", balls={0: [1.2, 0.635], 1: [1.5, 0.635]}, shots=[shot(V0=2.5)]),
    dict(name="pool_follow_shot", note="follow (b = 0.4) straight on: the cue ball follows the object ball",
         table="pool-9ft", balls={0: [0.8, 0.635], 1: [1.4, 0.635]}, shots=[shot(V0=2.5, b=0.4)]),
    dict(name="pool_draw_shot", note="draw (b = -0.45) straight on: the cue ball comes back",
         table="pool-9ft", balls={0: [1.0, 0.635], 1: [1.4, 0.635]}, shots=[shot(V0=3.0, b=-0.45)]),
    dict(name="pool_stun_cut_30", note="stun cut of 30 degrees",
         table="pool-9ft", balls={0: [1.3, 0.5], 1: [1.6, 0.6]}, shots=[shot(phi=aim((1.3, 0.5), ghost((1.6, 0.6), 30.0, 20.0)), V0=2.0)]),
    dict(name="pool_rolling_half_ball", note="rolling half-ball hit: the 30-degree rule",
         table="pool-9ft", balls={0: [0.7, 0.4], 1: [1.5, 0.6]}, shots=[shot(phi=aim((0.7, 0.4), ghost((1.5, 0.6), 30.0, 10.0)), V0=2.0, b=0.4)]),
    dict(name="pool_cut_into_corner", note="cut shot of the 1-ball into the foot-right corner pocket",
         table="pool-9ft", balls={0: [1.6, 0.5], 1: [2.2, 0.3]},
         shots=[shot(phi=aim((1.6, 0.5), ghost((2.2, 0.3), 0.0, aim((2.2, 0.3), FR.corner))), V0=2.0, b=0.1)]),
    dict(name="pool_straight_into_side", note="ball rolled straight into the side pocket",
         table="pool-9ft", balls={0: [P9.length / 2, 0.8]}, shots=[shot(phi=-90.0, V0=1.5, b=0.3)]),
    dict(name="pool_one_rail_bank_english", note="one-rail bank with left english",
         table="pool-9ft", balls={0: [0.7, 0.9], 1: [1.6, 0.3]}, shots=[shot(phi=-35.0, V0=3.0, a=-0.3)]),
    dict(name="pool_two_rail_kick", note="two-rail kick at an object ball near the foot rail",
         table="pool-9ft", balls={0: [0.6, 0.3], 1: [2.3, 1.0], 2: [1.9, 0.7]}, shots=[shot(phi=62.0, V0=4.0, b=0.2)]),
    dict(name="pool_jaw_rattle", note="ball into the near jaw of the foot-left corner",
         table="pool-9ft", balls={0: [2.1, 1.05]}, shots=[shot(phi=aim((2.1, 1.05), (P9.length - 0.03, P9.width)), V0=2.0)]),
    dict(name="pool_along_rail_into_corner", note="ball frozen to the R-foot rail rolled into the foot-right corner",
         table="pool-9ft", balls={0: [1.8, R]}, shots=[shot(phi=0.0, V0=1.5, b=0.4)]),
    dict(name="pool_masse", note="masse: elevated cue (60 deg) with side: the path curves",
         table="pool-9ft", balls={0: [1.0, 0.5], 1: [1.8, 0.8]}, shots=[shot(phi=15.0, V0=2.5, a=0.35, b=-0.1, theta=60.0)]),
    dict(name="pool_frozen_rail_graze", note="ball frozen to the head rail shot at 91 deg, grazing into it",
         table="pool-9ft", balls={0: [R, 0.4]}, shots=[shot(phi=91.0, V0=2.0)]),
    dict(name="pool_newtons_cradle", note="cue ball plus 5 frozen balls in a line at 3 m/s",
         table="pool-9ft", balls={0: [0.8, 0.635], **{k + 1: [1.2 + 2 * R * k, 0.635] for k in range(5)}}, shots=[shot(V0=3.0)]),
    dict(name="pool_lag", note="both players lag at once toward the foot rail",
         table="pool-9ft", balls={0: [0.4, 0.45], 1: [0.4, 0.82]}, shots=[shot(0, 0.0, 2.3, b=0.2), shot(1, 0.0, 2.4, b=0.2)]),
    dict(name="pool_simultaneous_double_kiss", note="cue ball hits two touching balls at once",
         table="pool-9ft", balls={0: [0.8, 0.635], 1: [1.4, 0.635 - R], 2: [1.4, 0.635 + R]}, shots=[shot(V0=3.0)]),
    dict(name="pool_frictionless_model", note="the frictionless elastic ball model (tests only)",
         table="pool-9ft", balls={0: [1.0, 0.4], 1: [1.5, 0.55], 2: [2.0, 0.9]}, shots=[shot(phi=17.0, V0=3.0)],
         ball_model="frictionless_elastic"),
    dict(name="pool_han_2005", note="a multi-rail shot with the Han 2005 cushion model",
         table="pool-9ft", balls={0: [0.6, 0.3], 1: [1.9, 0.9]}, shots=[shot(phi=40.0, V0=5.0, a=0.25, b=0.2)], cushion_model="han_2005"),
    dict(name="pool_event_cap", note="a break stopped by a cap of 30 events (event_cap)",
         table="pool-9ft", balls=rack(P9), shots=[shot(phi=0.0, V0=8.0)], max_events=30),
    dict(name="pool_8ft_nine_balls", note="8-ft table, nine balls scattered, medium shot with draw",
         table="pool-8ft", balls={0: [0.5, 0.5], 1: [1.1, 0.62], 2: [1.5, 0.3], 3: [1.7, 0.9], 4: [2.0, 0.5], 5: [0.9, 1.0], 6: [1.3, 0.9], 7: [0.3, 0.2], 8: [1.8, 0.15]},
         shots=[shot(phi=11.0, V0=4.0, b=-0.3)]),
    dict(name="pool_7ft_break", note="7-ft table, 14.1 rack at 7 m/s",
         table="pool-7ft", balls=rack(get_table("pool-7ft")), shots=[shot(phi=0.2, V0=7.0)]),
    # ---- carom ------------------------------------------------------------------------------
    dict(name="carom_break", note="opening shot: white from the right starting spot onto the red, with english",
         table="carom", balls=CAROM_BREAK, shots=[shot(phi=aim(CAROM_BREAK[0], ghost(CAROM_BREAK[2], -20.0, 0.0, C)), V0=4.0, a=0.3, b=0.2)]),
    dict(name="carom_three_cushion_long", note="long three-cushion shot with running english",
         table="carom", balls={0: [0.6, 0.4], 1: [1.8, 1.1], 2: [2.4, 0.5]}, shots=[shot(phi=52.0, V0=5.5, a=-0.35, b=0.25)]),
    dict(name="carom_umbrella", note="cushions-first shot around the table with english (it misses both balls)",
         table="carom", balls={0: [1.0, 0.3], 1: [2.5, 1.2], 2: [2.2, 1.3]}, shots=[shot(phi=75.0, V0=4.5, a=0.3)]),
    dict(name="carom_draw", note="draw shot on the carom table",
         table="carom", balls={0: [0.9, 0.71], 1: [1.4, 0.71], 2: [0.3, 1.2]}, shots=[shot(V0=3.5, b=-0.45)]),
    dict(name="carom_masse", note="masse on the carom table (theta 45)",
         table="carom", balls={0: [1.2, 0.5], 1: [1.6, 0.7], 2: [2.0, 0.4]}, shots=[shot(phi=30.0, V0=3.0, a=-0.4, b=0.1, theta=45.0)]),
    dict(name="carom_lag", note="both players lag at once toward the top cushion",
         table="carom", balls={0: [0.3, 0.5], 1: [0.3, 0.92]}, shots=[shot(0, 0.0, 3.0, b=0.3), shot(1, 0.0, 3.1, b=0.3)]),
    dict(name="carom_han_2005", note="three-cushion shot with the Han 2005 cushion model",
         table="carom", balls={0: [0.6, 0.4], 1: [1.8, 1.1], 2: [2.4, 0.5]}, shots=[shot(phi=52.0, V0=5.5, a=-0.35, b=0.25)], cushion_model="han_2005"),
    dict(name="carom_soft_push", note="slow shot onto two frozen balls (push rule)",
         table="carom", balls={0: [1.2, 0.71], 1: [1.5, 0.71], 2: [1.5 + 2 * C.R, 0.71]}, shots=[shot(V0=0.6, b=0.4)]),
    dict(name="carom_frozen_to_cushion", note="white frozen to the bottom cushion, shot along it into the red",
         table="carom", balls={0: [C.R, 0.4], 1: [1.0, 1.0], 2: [C.R, 1.1]}, shots=[shot(phi=90.0, V0=2.0, b=0.3)]),
    dict(name="carom_10ms", note="hardest accepted stroke, 10 m/s, many cushions",
         table="carom", balls={0: [0.7, 0.6], 1: [2.0, 1.0], 2: [1.5, 0.2]}, shots=[shot(phi=33.0, V0=10.0, a=0.2, b=-0.2)]),
]


def samples(res) -> list:
    times = sorted({e.t for e in res.events})
    pts = [0.5 * (a + b) for a, b in zip(times, times[1:]) if b > a]
    end = times[-1]
    pts += [end * k / 40.0 for k in range(41)]
    out = []
    for t in sorted(set(pts)):
        st = res.state_at(t)
        out.append({"t": t, "r": {str(b): list(s.r) for b, s in sorted(st.items())}})
    return out


def build(spec) -> dict:
    table = get_table(spec["table"])
    balls = {int(k): tuple(v) for k, v in spec["balls"].items()}
    shots = [Shot(**s) for s in spec["shots"]]
    cushion_model = spec.get("cushion_model", table.default_cushion_model)
    ball_model = spec.get("ball_model", "frictional_inelastic")
    max_events = spec.get("max_events", 5000)
    res = simulate(table, balls, shots, cushion_model=cushion_model, ball_model=ball_model, max_events=max_events)
    return {
        "name": spec["name"],
        "note": spec["note"],
        "input": {
            "table": spec["table"],
            "balls": {str(k): list(v) for k, v in sorted(balls.items())},
            "shots": spec["shots"],
            "cushion_model": cushion_model,
            "ball_model": ball_model,
            "max_events": max_events,
        },
        "result": res.to_json(),
        "samples": samples(res),
    }


def main() -> int:
    names = set()
    for spec in SHOTS:
        assert spec["name"] not in names, spec["name"]
        names.add(spec["name"])
        data = build(spec)
        with open(os.path.join(HERE, spec["name"] + ".json"), "w") as f:
            json.dump(data, f, separators=(",", ":"))
            f.write("\n")
        print(f"{spec['name']}: {len(data['result']['events'])} events, {len(data['samples'])} samples")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
