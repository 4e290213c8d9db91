"""The pooltool 0.6.0 side of the physics benchmark (runs inside ``.venv-pooltool`` only).

``bench/physics_vs_pooltool.py`` starts this script with ``.venv-pooltool/bin/python`` and talks
to it in JSON lines over its standard input and output, so that it can time each shot of
pooltool right between two timings of the same shot by billar (both engines then run under the
same machine load). Nothing of billar is imported here (pooltool and billar never share an
interpreter), so the opening request carries everything: the table geometry in billar's frame
and the shots.

Opening request (one line)::

    {"warmup": true,
     "workloads": [{"name": str,
                    "table": {"kind": "pool"|"carom", "length": m, "width": m,
                              "cushion_height": m, "ball": {"radius": m, "mass": kg},
                              "cloth": {"mu_s", "mu_r", "mu_sp" (m), "e_b", "e_c", "f_c", "g"},
                              "cue": {"mass": kg, "tip_radius": m, "end_mass": kg},
                              "cushions": [{"name", "p1": [x, y], "p2": [x, y], "normal": [nx, ny]}],
                              "jaws": [{"name", "centre": [x, y], "radius": m}],
                              "pockets": [{"name", "centre": [x, y], "radius": m}]},
                    "cushion_model": "han_2005"|"mathavan_2010"|"stronge_compliant",
                    "ball_model": "frictional_inelastic"|"frictionless_elastic",
                    "max_events": int,
                    "shots": [{"balls": {"<id>": [x, y]},
                               "shot": {"cue_ball": int, "phi_deg": deg, "V0": m/s,
                                        "a": R-fraction, "b": R-fraction, "theta_deg": deg}}]}]}

Answer, after an untimed pass over every shot (numba JIT)::

    {"pooltool": "0.6.0", "numba": str, "numpy": str, "python": str, "warmup_s": s}

Then, per line ``{"workload": index, "shot": index, "repeats": n, "batch_ms": ms}``, one line::

    {"wall_s": [s per run], "cpu_s": [process CPU s per run], "runs_per_read": int, "events": int, "duration_s": s, "capped": bool,
     "first_contact": [kind, what] | null, "final": {"<id>": [x, y] | null}, "error": str | null}

Each of the ``repeats`` timings reads the clocks once around as many back-to-back runs of the shot
as fill about ``batch_ms`` (one untimed run sizes it; at least one run, each on its own fresh copy
made before the clocks are read) and gives their time divided by their number: the bench's rule
for both engines (bench/physics_vs_pooltool.py). The script ends at the end of its input.

``events`` counts the physical events of the shot (the strike, collisions, pocketings and
motion transitions), as billar's log does: pooltool's two ``NONE`` markers (start and end of
the simulation) are left out. ``first_contact`` is the cue ball's first collision after the
strike in billar's terms: ``["ball", id]``, ``["cushion", name]`` or ``["pocket", name]``.
``final`` gives each ball's resting position in billar's frame (``null`` for a pocketed ball).

Frame and sign translation (checked against pooltool 0.6.0's installed source):

- billar (DESIGN.md): x along the table from the head cushion, y across, right long cushion at
  y = 0, ``phi_deg = 0`` toward +x, counter-clockwise positive.
- pooltool (``objects/cue/datatypes.py::Cue``): x across the table with the left cushion at
  x = 0, y along the table from the head (bottom) cushion, ``phi = 90`` toward the foot rail.
  The map is the rotation by +90 deg about the head-right corner moved back onto the bed:
  ``(x_pt, y_pt) = (W - y, x)`` and ``phi_pt = phi_deg + 90``. A rotation keeps handedness, so
  spins and cut directions agree.
- Side english: billar's ``a > 0`` is right english; in pooltool ``a = +1`` is the leftmost
  point of the ball (``cue_strike`` gives ``w_z = -a * ...``: left english spins the ball
  clockwise seen from above), so ``a_pt = -a``. ``b`` (top +) and ``theta`` (deg, 0 = level)
  are the same in both. Both express a and b as fractions of the ball radius; pooltool 0.6.0's
  ``InstantaneousPoint`` uses them directly as the contact point (no tip-radius scaling).
- Geometry: every straight cushion, jaw and pocket circle of billar's table is rebuilt as the
  same pooltool segment (mapped by the rotation above), so both engines see identical
  cushions. A straight cushion's playing side is given to pooltool as ``CushionDirection``:
  SIDE1 when pooltool's line function ``lx*x + ly*y + l0`` is negative on the table side,
  SIDE2 when positive (``evolution/event_based/solve.py::ball_linear_cushion_collision_time``).
- Ball constants come from billar's table (``u_sp_proportionality = mu_sp / R``); the cue from
  billar's ``CueSpec``. Resolvers: pooltool's default resolver with the ball-cushion model
  replaced by the one named in the request (same model as billar uses).

pooltool writes ``~/.config/pooltool`` when imported: the caller points ``HOME`` at a
temporary directory (this script refuses to run otherwise, to leave the user's home alone).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time


def _require_temp_home() -> None:
    if os.environ.get("BILLAR_BENCH_TMP_HOME") != "1":
        raise SystemExit("pooltool_side.py: run it through bench/physics_vs_pooltool.py (HOME must be a temp dir)")


_require_temp_home()

import attrs  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402
import pooltool as pt  # noqa: E402
from pooltool.events.datatypes import EventType  # noqa: E402
from pooltool.objects.table.components import (  # noqa: E402
    CircularCushionSegment,
    CushionDirection,
    CushionSegments,
    LinearCushionSegment,
    Pocket,
)
from pooltool.objects.table.specs import TableType  # noqa: E402
from pooltool.physics.engine import PhysicsEngine  # noqa: E402
from pooltool.physics.resolve.ball_ball.frictionless_elastic import FrictionlessElastic  # noqa: E402
from pooltool.physics.resolve.ball_cushion.han_2005 import Han2005Circular, Han2005Linear  # noqa: E402
from pooltool.physics.resolve.ball_cushion.mathavan_2010 import (  # noqa: E402
    Mathavan2010Circular,
    Mathavan2010Linear,
)
from pooltool.physics.resolve.ball_cushion.stronge_compliant import (  # noqa: E402
    StrongeCompliantCircular,
    StrongeCompliantLinear,
)
from pooltool.physics.resolve.resolver import default_resolver  # noqa: E402

CUSHION_MODELS = {
    "han_2005": (Han2005Linear, Han2005Circular),
    "mathavan_2010": (Mathavan2010Linear, Mathavan2010Circular),
    "stronge_compliant": (StrongeCompliantLinear, StrongeCompliantCircular),
}


# ----- frame translation ------------------------------------------------------------------


def to_pt_xy(xy, width: float):
    """billar (x, y) -> pooltool (x, y): ``(W - y, x)`` (a rotation, see the module docstring)."""
    return (width - float(xy[1]), float(xy[0]))


def from_pt_xy(xy, width: float):
    """pooltool (x, y) -> billar (x, y): the inverse of :func:`to_pt_xy`."""
    return (float(xy[1]), width - float(xy[0]))


def to_pt_dir(v):
    """A billar direction (vx, vy) in pooltool's axes: the rotation by +90 deg, ``(-vy, vx)``."""
    return (-float(v[1]), float(v[0]))


def pt_ball_id(kind: str, ball: int) -> str:
    """pooltool's usual ball names (only the cue ball's name matters to its simulator)."""
    if kind == "carom":
        return {0: "white", 1: "yellow", 2: "red"}.get(ball, str(ball))
    return "cue" if ball == 0 else str(ball)


def our_ball_id(kind: str, name: str) -> int:
    if kind == "carom":
        back = {"white": 0, "yellow": 1, "red": 2}
        if name in back:
            return back[name]
    return 0 if name == "cue" else int(name)


# ----- pooltool objects from the request --------------------------------------------------


def build_table(tj: dict) -> pt.Table:
    """The pooltool ``Table`` with billar's exact cushions, jaws and pockets (rotated)."""
    W = float(tj["width"])
    h = float(tj["cushion_height"])
    linear = {}
    for c in tj["cushions"]:
        p1 = to_pt_xy(c["p1"], W)
        p2 = to_pt_xy(c["p2"], W)
        seg = LinearCushionSegment(c["name"], p1=np.array([*p1, h]), p2=np.array([*p2, h]))
        # which side of pooltool's line is the bed: test a point one unit along the normal
        n = to_pt_dir(c["normal"])
        probe = (p1[0] + n[0], p1[1] + n[1])
        f = seg.lx * probe[0] + seg.ly * probe[1] + seg.l0
        direction = CushionDirection.SIDE1 if f < 0.0 else CushionDirection.SIDE2
        linear[c["name"]] = attrs.evolve(seg, direction=direction)
    circular = {}
    for j in tj.get("jaws", []):
        cx, cy = to_pt_xy(j["centre"], W)
        circular[j["name"]] = CircularCushionSegment(j["name"], center=np.array([cx, cy, h]), radius=float(j["radius"]))
    pockets = {}
    for p in tj.get("pockets", []):
        cx, cy = to_pt_xy(p["centre"], W)
        pockets[p["name"]] = Pocket(p["name"], center=np.array([cx, cy, 0.0]), radius=float(p["radius"]))
    kind = TableType.POCKET if tj["kind"] == "pool" else TableType.BILLIARD
    return pt.Table(cushion_segments=CushionSegments(linear=linear, circular=circular), pockets=pockets, table_type=kind)


def build_engine(cushion_model: str, ball_model: str) -> PhysicsEngine:
    """pooltool's default resolver with the named ball-cushion and ball-ball models."""
    try:
        lin, circ = CUSHION_MODELS[cushion_model]
    except KeyError:
        raise ValueError(f"cushion_model: pooltool side knows {sorted(CUSHION_MODELS)}, got {cushion_model!r}") from None
    resolver = default_resolver()
    changes = {"ball_linear_cushion": lin(), "ball_circular_cushion": circ()}
    if ball_model == "frictionless_elastic":
        changes["ball_ball"] = FrictionlessElastic()
    elif ball_model != "frictional_inelastic":
        raise ValueError(f"ball_model: unknown {ball_model!r}")
    return PhysicsEngine(resolver=attrs.evolve(resolver, **changes))


def build_system(table: pt.Table, tj: dict, balls: dict, shot: dict) -> pt.System:
    """A ready-to-simulate ``System``: balls at rest where billar puts them, cue set for ``shot``."""
    W = float(tj["width"])
    kind = tj["kind"]
    cl = tj["cloth"]
    R = float(tj["ball"]["radius"])
    params = dict(
        m=float(tj["ball"]["mass"]),
        R=R,
        u_s=cl["mu_s"],
        u_r=cl["mu_r"],
        u_sp_proportionality=cl["mu_sp"] / R,
        e_b=cl["e_b"],
        e_c=cl["e_c"],
        f_c=cl["f_c"],
        g=cl["g"],
    )
    pt_balls = {}
    for bid, xy in balls.items():
        name = pt_ball_id(kind, int(bid))
        pt_balls[name] = pt.Ball.create(name, xy=to_pt_xy(xy, W), **params)
    cue_spec = tj["cue"]
    specs = pt.objects.CueSpecs(M=cue_spec["mass"], tip_radius=cue_spec["tip_radius"], end_mass=cue_spec["end_mass"])
    cue = pt.Cue(cue_ball_id=pt_ball_id(kind, int(shot["cue_ball"])), specs=specs)
    system = pt.System(cue=cue, table=table, balls=pt_balls)
    system.strike(
        V0=float(shot["V0"]),
        phi=(float(shot["phi_deg"]) + 90.0) % 360.0,
        theta=float(shot.get("theta_deg", 0.0)),
        a=-float(shot.get("a", 0.0)),
        b=float(shot.get("b", 0.0)),
    )
    return system


# ----- reading a simulated system ---------------------------------------------------------

_CUSHION_TYPES = (EventType.BALL_LINEAR_CUSHION, EventType.BALL_CIRCULAR_CUSHION)


def first_contact(system: pt.System, kind: str):
    """The cue ball's first collision after the strike, in billar's terms (or None)."""
    cue = system.cue.cue_ball_id
    for ev in system.events:
        et = ev.event_type
        if not et.is_collision() and et != EventType.BALL_POCKET:
            continue
        ids = ev.ids
        if cue not in ids:
            continue
        if et == EventType.BALL_BALL:
            other = ids[1] if ids[0] == cue else ids[0]
            return ["ball", our_ball_id(kind, other)]
        if et in _CUSHION_TYPES:
            return ["cushion", ids[1]]
        if et == EventType.BALL_POCKET:
            return ["pocket", ids[1]]
    return None


def final_layout(system: pt.System, tj: dict) -> dict:
    W = float(tj["width"])
    out = {}
    for name, ball in system.balls.items():
        bid = str(our_ball_id(tj["kind"], name))
        if ball.state.s == pt.constants.pocketed:
            out[bid] = None
        else:
            out[bid] = list(from_pt_xy(ball.state.rvw[0][:2], W))
    return out


# ----- running ----------------------------------------------------------------------------


class Workload:
    """One workload of the opening request, with its pooltool table, engine and shot systems built once."""

    def __init__(self, wl: dict):
        self.name = wl["name"]
        self.tj = wl["table"]
        self.table = build_table(self.tj)
        self.engine = build_engine(wl.get("cushion_model", "han_2005"), wl.get("ball_model", "frictional_inelastic"))
        self.max_events = int(wl.get("max_events", 5000))
        self.shots = wl["shots"]
        self._templates: dict = {}

    def template(self, i: int) -> pt.System:
        t = self._templates.get(i)
        if t is None:
            item = self.shots[i]
            t = self._templates[i] = build_system(self.table, self.tj, item["balls"], item["shot"])
        return t

    def run_shot(self, i: int, repeats: int, batch_ms: float = 0.0) -> dict:
        """Simulate shot ``i`` ``repeats`` times (each timing over a batch of runs, see the module docstring) on
        fresh copies; wall and CPU time around ``pt.simulate`` only."""
        rec = {"wall_s": [], "cpu_s": [], "runs_per_read": 1, "events": 0, "duration_s": 0.0, "capped": False,
               "first_contact": None, "final": {}, "error": None}
        try:
            template = self.template(i)
            system = template.copy()
            t0 = time.perf_counter()
            pt.simulate(system, engine=self.engine, inplace=True, max_events=self.max_events)
            n = max(1, math.ceil(batch_ms * 1e-3 / max(time.perf_counter() - t0, 1e-9)))
            rec["runs_per_read"] = n
            for _ in range(max(1, repeats)):
                systems = [template.copy() for _ in range(n)]
                c0 = time.process_time()
                t0 = time.perf_counter()
                for system in systems:
                    pt.simulate(system, engine=self.engine, inplace=True, max_events=self.max_events)
                t1 = time.perf_counter()
                rec["cpu_s"].append((time.process_time() - c0) / n)
                rec["wall_s"].append((t1 - t0) / n)
            rec["events"] = sum(1 for ev in system.events if ev.event_type != EventType.NONE)
            rec["duration_s"] = float(system.t)
            rec["capped"] = bool(self.max_events and rec["events"] > self.max_events)
            rec["first_contact"] = first_contact(system, self.tj["kind"])
            rec["final"] = final_layout(system, self.tj)
        except Exception as exc:  # a pooltool failure is a result to report, not a crash of the bench
            rec["error"] = f"{type(exc).__name__}: {exc}"
        return rec


def _send(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    opening = json.loads(sys.stdin.readline())
    workloads = [Workload(wl) for wl in opening["workloads"]]
    warmup_s = 0.0
    if opening.get("warmup", True):
        # numba compiles (or loads from its cache) each kernel on first use: run every shot
        # once, untimed, so that no JIT time is counted later.
        t0 = time.perf_counter()
        for w in workloads:
            for i in range(len(w.shots)):
                w.run_shot(i, 1)
        warmup_s = time.perf_counter() - t0
    _send(
        {
            "pooltool": pt.__version__,
            "numba": numba.__version__,
            "numpy": np.__version__,
            "python": sys.version.split()[0],
            "warmup_s": warmup_s,
        }
    )
    for line in sys.stdin:
        if not line.strip():
            continue
        ask = json.loads(line)
        _send(workloads[int(ask["workload"])].run_shot(int(ask["shot"]), int(ask.get("repeats", 1)),
                                                       float(ask.get("batch_ms", 0.0))))


if __name__ == "__main__":
    main()
