"""``billar sim``: simulate one shot from the command line.

    billar sim --table {pool-9ft,pool-8ft,pool-7ft,carom} [--rack 14.1 | --layout carom-break]
               [--ball ID:X,Y ...] [--cue-ball ID] --phi DEG --speed V0 [--a A] [--b B]
               [--theta DEG] [--cushion-model NAME] [--json]

``--rack 14.1`` puts object balls 1..15 on the 15 rack sites in order (apex on the foot spot)
and the cue ball 0 on the head spot; ``--layout carom-break`` puts the red (2) on the top spot,
the yellow (1) on the bottom spot and the white (0) on the right starting spot. ``--ball``
places a ball or overrides one of the layout (metres, table frame); ball ids are the table's
(``Table.ball_ids``: 0..15 on pool tables, 0..2 on the carom table). ``--phi`` is any angle
within +-1e6 degrees (it wraps every 360). Without ``--json`` the command prints a table of
events and the final layout (the first line names any stroke flags); with ``--json`` one JSON
object, ``SimResult.to_json()``: ``{"table", "initial", "events": [{"t", "kind", "balls",
"cushion", "pocket", "states": {id: {"state", "r", "v", "w"}}}], "final": {id: {"r",
"state"}}, "capped"}``, plus ``"flags"`` when the stroke has any (``double_hit``, ``push``).
Bad arguments (argparse errors and every ValueError of :func:`physics.simulate`) exit with
status 2 and a one-line message.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Dict, List, Tuple

from physics.events import SimResult
from physics.simulate import CUSHION_MODELS, Shot, simulate
from physics.table import TABLES, Table, get_table

PHI_MAX_DEG = 1.0e6  # |--phi| accepted (deg); beyond it a float no longer resolves small aims
RACKS = ("14.1",)
LAYOUTS = ("carom-break",)


def _ball_arg(text: str) -> Tuple[int, Tuple[float, float]]:
    """Parse ``ID:X,Y`` (argparse type); ArgumentTypeError on a malformed value."""
    try:
        bid, xy = text.split(":", 1)
        x, y = xy.split(",", 1)
        return int(bid), (float(x), float(y))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ID:X,Y (e.g. 3:1.2,0.6), got {text!r}") from None


def register(subparsers) -> None:
    """Add the ``sim`` sub-command to ``billar``'s parser."""
    p = subparsers.add_parser("sim", help="simulate one shot and print its event log", description=__doc__.split("\n\n")[0])
    p.add_argument("--table", required=True, choices=sorted(TABLES), help="table preset")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--rack", choices=RACKS, help="14.1: 15 object balls racked, cue ball on the head spot")
    group.add_argument("--layout", choices=LAYOUTS, help="carom-break: red top spot, yellow bottom spot, white right starting spot")
    p.add_argument("--ball", action="append", default=[], type=_ball_arg, metavar="ID:X,Y", help="place or move a ball (m); repeatable")
    p.add_argument("--cue-ball", type=int, default=0, metavar="ID", help="ball struck by the cue (default 0)")
    p.add_argument("--phi", type=float, required=True, metavar="DEG", help="aim, degrees counter-clockwise from +x")
    p.add_argument("--speed", type=float, required=True, metavar="V0", help="cue speed in m/s, in (0, 10]")
    p.add_argument("--a", type=float, default=0.0, help="side offset of the tip, fraction of R (+ = right english)")
    p.add_argument("--b", type=float, default=0.0, help="vertical offset of the tip, fraction of R (+ = follow)")
    p.add_argument("--theta", type=float, default=0.0, metavar="DEG", help="cue elevation in [0, 70] degrees")
    p.add_argument("--cushion-model", choices=CUSHION_MODELS, default=None, help="default: the table's own")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(func=run)


def layout(table: Table, rack: str = None, preset: str = None, extra: List[Tuple[int, Tuple[float, float]]] = ()) -> Dict[int, Tuple[float, float]]:
    """The balls of ``--rack``/``--layout`` with ``--ball`` placements applied; ValueError if they do not fit the table."""
    balls: Dict[int, Tuple[float, float]] = {}
    if rack == "14.1":
        if table.kind != "pool":
            raise ValueError(f"rack: the 14.1 rack needs a pool table, not {table.name}")
        balls[0] = table.head_spot
        for k, site in enumerate(table.rack_sites()):
            balls[k + 1] = site
    if preset == "carom-break":
        if table.kind != "carom":
            raise ValueError(f"layout: carom-break needs the carom table, not {table.name}")
        balls = {2: table.top_spot, 1: table.bottom_spot, 0: table.starting_spots["right"]}
    for bid, pos in extra:
        check_ball_id(table, "balls", bid)
        balls[bid] = pos
    if not balls:
        raise ValueError("balls: no balls on the table (use --rack, --layout or --ball)")
    return balls


def check_ball_id(table: Table, field: str, bid: int) -> None:
    """ValueError naming ``field`` unless ``bid`` is one of ``table.ball_ids``."""
    ids = table.ball_ids
    if bid not in ids:
        what = " (0 white, 1 yellow, 2 red)" if table.kind == "carom" else " (0 the cue ball, 1-15 object balls)"
        raise ValueError(f"{field}: ball ids on the {table.name} table are {ids[0]}..{ids[-1]}{what}, got {bid}")


def check_phi(phi: float) -> float:
    """``--phi`` (deg) if finite and within +-``PHI_MAX_DEG`` (angles wrap every 360, so any
    aim is reachable); else ValueError starting with ``phi_deg``."""
    if not math.isfinite(phi):
        raise ValueError(f"phi_deg: --phi must be a finite angle in degrees, got {phi!r}")
    if abs(phi) > PHI_MAX_DEG:
        raise ValueError(f"phi_deg: --phi must lie within +-{PHI_MAX_DEG:g} degrees (angles wrap every 360), got {phi!r}")
    return phi


def _fmt(v) -> str:
    return "(" + ", ".join(f"{c:+.4f}" for c in v) + ")"


def render(res: SimResult) -> str:
    """A readable table of the event log and the final layout."""
    lines = [f"table {res.table.name}: {len(res.initial)} balls, {len(res.events)} events" + (" (event cap reached)" if res.capped else "")
             + (f"; stroke flags: {', '.join(res.flags)}" if res.flags else "")]
    lines.append(f"{'t (s)':>10}  {'event':<14} {'balls':<8} {'cushion/pocket':<14} post-event states")
    for e in res.events:
        where = e.cushion or e.pocket or ""
        balls = ",".join(str(b) for b in e.balls)
        states = "; ".join(f"{b}: {s.state} r={_fmt(s.r)} v={_fmt(s.v)}" for b, s in e.states.items())
        lines.append(f"{e.t:>10.6f}  {e.kind:<14} {balls:<8} {where:<14} {states}")
    lines.append("final layout:")
    lines.append(f"{'ball':>6}  {'state':<11} {'x (m)':>8} {'y (m)':>8}")
    for b, s in sorted(res.final.items()):
        lines.append(f"{b:>6}  {s.state:<11} {s.r[0]:>8.4f} {s.r[1]:>8.4f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``billar sim``; ValueError (bad layout or shot) propagates to the caller (exit 2)."""
    table = get_table(args.table)
    balls = layout(table, args.rack, args.layout, args.ball)
    check_ball_id(table, "cue_ball", args.cue_ball)
    shot = Shot(args.cue_ball, check_phi(args.phi), args.speed, args.a, args.b, args.theta)
    res = simulate(table, balls, shot, cushion_model=args.cushion_model)
    if args.json:
        sys.stdout.write(json.dumps(res.to_json()) + "\n")
    else:
        sys.stdout.write(render(res) + "\n")
    return 0
