"""Game drivers for the browser tests: two player pages play a discipline through the UI.

The test computes good strokes (bots/aim.py for 14.1 pots, bots/carom_search.py for caroms) and
enters them with the page's controls; every referee option is taken in the page's decision
dialog or options panel. The carom driver keeps a mirror of the game (the same referee code fed
with the event logs the server broadcast), because the carom search needs the referee's state.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bots.aim import pots, speed_for
from physics import Shot, simulate
from physics.events import SimResult
from physics.table import Table, get_table

from e2e_driver import ClientPage


def layout_of(state: Dict[str, Any]) -> Dict[int, Tuple[float, float]]:
    return {int(k): (float(p[0]), float(p[1])) for k, p in state["layout"].items()}


def wait_all(pages: Sequence[ClientPage], v: int, timeout: float = 60.0) -> None:
    for p in pages:
        p.settle(v, timeout)


def next_version(pages: Sequence[ClientPage], v0: int, timeout: float = 60.0) -> int:
    """Wait until a new position (a stroke, ruling or snapshot after version ``v0``) reached the
    first page; return its version."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        d = pages[0].debug()
        if d["stateV"] > v0:
            return d["modelV"]
        for p in pages:
            if p.errors:
                raise AssertionError(f"{p.name}: page error {p.errors}")
        time.sleep(0.05)
    toasts = {p.name: p.error_toasts() for p in pages}
    raise AssertionError(f"no stream message after version {v0} within {timeout} s; error toasts: {toasts}")


# ----- 14.1 ------------------------------------------------------------------------------------
def pool_lag_speed(table: Table, x: float, y: float) -> float:
    """The cue speed sending a lone ball from (x, y) to the foot cushion and back nearest the head cushion."""
    best = None
    for k in range(60):
        V0 = 1.0 + 0.05 * k
        sim = simulate(table, {0: (x, y)}, Shot(cue_ball=0, phi_deg=0.0, V0=V0))
        if [e.cushion for e in sim.events if e.kind == "ball_cushion"] != ["foot"]:
            continue
        r = sim.final[0].r
        if sim.final[0].state == "pocketed":
            continue
        if best is None or r[0] < best[0]:
            best = (r[0], V0)
    assert best is not None
    return best[1]


def kitchen_placement(table: Table, layout: Dict[int, Tuple[float, float]], x_max: float, balls: Sequence[int]):
    """A cue-ball spot in the kitchen with the straightest available pot (grid search), or None."""
    R = table.R
    best = None
    nx, ny = 7, 9
    for i in range(nx):
        for j in range(ny):
            x = R + 0.01 + (x_max - 2 * R - 0.02) * i / (nx - 1)
            y = R + 0.02 + (table.width - 2 * R - 0.04) * j / (ny - 1)
            if any(math.hypot(x - p[0], y - p[1]) < 2.5 * R for p in layout.values()):
                continue
            lay = dict(layout)
            lay[0] = (x, y)
            found = pots(table, lay, 0, balls)
            if found and (best is None or found[0].cut_deg < best[1]):
                best = ((x, y), found[0].cut_deg)
    return best[0] if best else None


def both_played(d: Dict[str, Any]) -> bool:
    """Has each seat played a stroke of its own (not the lag) in the game a page's debug view ``d`` shows? (A rated
    game forfeited before that is aborted, not rated: server/table/play.py ``both_played``.)"""
    return {e["seat"] for e in d["history"] if e["kind"] == "stroke"} >= {0, 1}


def play_straight_pool(A: ClientPage, B: ClientPage, watchers: Sequence[ClientPage], max_actions: int = 120,
                       on_action: Optional[Callable[[int], None]] = None,
                       until: Optional[Callable[[Dict[str, Any]], bool]] = None) -> Dict[str, Any]:
    """Play a 14.1 game through the UI of pages A (seat 0) and B (seat 1) until it is over (or
    until ``until(state)`` holds before an action).

    Returns facts about what was exercised (decisions taken, calls made on the canvas, balls in
    hand placed by dragging, keyboard fine aims, strokes played).
    """
    pages = {0: A, 1: B}
    everyone = [A, B, *watchers]
    facts: Dict[str, Any] = {"decisions": [], "strokes": 0, "canvas_calls": 0, "placements": 0, "keyboard_aims": 0,
                             "safeties": 0, "pots_called": 0, "log": [],
                             "drag_aims": 0, "pull_backs": 0}
    for n in range(max_actions):
        d = A.debug()
        v = d["modelV"]
        st = d["state"]
        if st["over"] or (until is not None and until(st)):
            return facts
        table = get_table(d["preset"])
        legal = st["legal"]
        shoot = legal["shoot"]
        if shoot and shoot["lag"]:
            for seat, P in pages.items():
                pos = shoot["lag_balls"][str(seat)]
                V0 = pool_lag_speed(table, pos[0], pos[1]) + (0.0 if seat == 0 else 0.2)
                P.page.wait_for_function("() => window.billar.table.debug().canShoot")
                P.set_stroke(0.0, V0)
                if seat == 0:
                    # aim by dragging on the felt toward the foot cushion, straight down the table
                    phi = P.aim_by_drag(table.length - 0.3, pos[1])
                    assert abs(phi) < 0.5, f"dragged aim {phi}"
                    facts["drag_aims"] += 1
                P.shoot()
        elif not shoot:
            seat = legal["player"]
            P = pages[seat]
            P.page.wait_for_selector("dialog.decision-dialog[open]")
            options = {o["name"]: o["args"] for o in legal["decisions"]}
            if "CHOOSE_BREAKER" in options:
                name, arg = "CHOOSE_BREAKER", seat
            elif "ACCEPT_TABLE" in options:
                name, arg = "ACCEPT_TABLE", None
            else:
                name = legal["decisions"][0]["name"]
                args = legal["decisions"][0]["args"]
                arg = args[0] if args else None
            P.decide(name, arg)
            facts["decisions"].append(name)
        else:
            seat = legal["player"]
            P = pages[seat]
            P.page.wait_for_function("() => window.billar.table.debug().canShoot")
            layout = layout_of(st)
            if shoot["in_hand"]:
                region = shoot["in_hand"]
                x_max = region.get("x_max", table.length - table.R) if region["region"] == "kitchen" else table.length - table.R
                if st["phase"] == "break":
                    want = (table.head_string_x - 0.12, table.width / 2 + 0.04)
                else:
                    want = kitchen_placement(table, layout, x_max, shoot["balls"]) or (x_max - 0.1, table.width / 2 + 0.11)
                got = P.place_cue_ball(*want)
                assert got[0] <= x_max + 1e-9, f"placement {got} beyond the kitchen line {x_max}"
                assert math.hypot(got[0] - want[0], got[1] - want[1]) < 0.02, f"dragged to {got}, wanted {want}"
                layout[0] = (float(got[0]), float(got[1]))
                facts["placements"] += 1
            cue = layout[0]
            if st["phase"] == "break":
                apex = table.foot_spot
                phi = math.degrees(math.atan2(apex[1] - cue[1], apex[0] - cue[0]))
                P.set_stroke(phi, 2.0)
                # the break is shot by pulling the cue back from the cue ball, as far as a cue speed of 7.5 m/s
                P.pull_back_shot(P.pull_for(7.5))
                facts["pull_backs"] += 1
                facts["strokes"] += 1
                nv = next_version(everyone, v)
                played = A.debug()["lastStroke"]["shots"][0]["stroke"]
                # (one pixel of pull is 0.15 m/s of cue speed in the break quarter of the travel)
                assert abs(played["V0"] - 7.5) < 0.3 and abs(played["phi_deg"] - round(phi, 6)) < 1e-6, played
                wait_all(everyone, nv)
                after = A.debug()
                facts["log"].append((after["state"]["phase"], after["state"]["scoreboard"].get("scores"), (after["lastRuling"] or {}).get("text")))
                if on_action:
                    on_action(n)
                continue
            else:
                found = pots(table, layout, 0, shoot["balls"])
                if found:
                    aim = found[0]
                    on_canvas = facts["pots_called"] % 2 == 1
                    P.call(aim.ball, aim.pocket, on_canvas=on_canvas)
                    facts["canvas_calls"] += int(on_canvas)
                    facts["pots_called"] += 1
                    keyboard = facts["keyboard_aims"] < 2
                    P.set_stroke(aim.phi_deg, speed_for(table, aim), keyboard_fine=keyboard)
                    facts["keyboard_aims"] += int(keyboard)
                    want_phi = ((aim.phi_deg + 180.0) % 360.0) - 180.0
                    assert abs(P.stroke_values()["phi"] - want_phi) < 1e-5
                else:
                    target = min((b for b in shoot["balls"]), key=lambda b: math.dist(cue, layout[b]))
                    q = layout[target]
                    P.declare_safety()
                    facts["safeties"] += 1
                    P.set_stroke(math.degrees(math.atan2(q[1] - cue[1], q[0] - cue[0])), 2.2)
            P.shoot()
            facts["strokes"] += 1
        nv = next_version(everyone, v)
        wait_all(everyone, nv)
        after = A.debug()
        facts["log"].append((after["state"]["phase"], after["state"]["scoreboard"].get("scores"), (after["lastRuling"] or {}).get("text")))
        if on_action:
            on_action(n)
    raise AssertionError(f"the game did not end within {max_actions} actions: {facts}")


# ----- carom -------------------------------------------------------------------------------------
class CaromMirror:
    """The same referee as the server's, fed with the event logs the server broadcast."""

    def __init__(self, discipline: str, config: Dict[str, Any]):
        from rules.registry import new_game

        self.game = new_game(discipline, config, 0)
        self.table = self.game.table

    def sim_of(self, wire_log: Dict[str, Any]) -> SimResult:
        import protocol

        cushions, pockets = protocol.preset_ids(self.table.to_json())
        d = protocol.decode_log(wire_log, {v: k for k, v in cushions.items()}, {v: k for k, v in pockets.items()})
        return SimResult.from_json(d, self.table)

    def follow(self, debug: Dict[str, Any], last_v: int) -> None:
        """Apply what happened at the table since ``last_v``: a stroke (log) or a decision."""
        ls = debug["lastStroke"]
        if ls and ls["v"] > last_v:
            sim = self.sim_of(ls["log"])
            if ls["lag"]:
                self.game.apply_lag(sim)
            else:
                seat = ls["shots"][0]["seat"]
                self.game.apply_shot(seat, None, sim)


def play_carom(A: ClientPage, B: ClientPage, watchers: Sequence[ClientPage], discipline: str, config: Dict[str, Any],
               max_actions: int = 120, on_action: Optional[Callable[[int], None]] = None,
               until: Optional[Callable[[Dict[str, Any]], bool]] = None, caroms: bool = True) -> Dict[str, Any]:
    """Play a carom game through the UI of A (seat 0) and B (seat 1) until it is over (or until ``until(A's
    debug view)`` holds before an action); with ``caroms`` False nobody looks for a carom (safe strokes only)."""
    from bots.carom_search import find_carom, lag_shots, safe_stroke

    pages = {0: A, 1: B}
    everyone = [A, B, *watchers]
    mirror = CaromMirror(discipline, config)
    facts: Dict[str, Any] = {"decisions": [], "strokes": 0, "caroms_found": 0, "misses": 0, "log": []}
    for n in range(max_actions):
        d = A.debug()
        v = d["modelV"]
        st = d["state"]
        if st["over"] or (until is not None and until(d)):
            return facts
        legal = st["legal"]
        shoot = legal["shoot"]
        # the mirror must stand where the table stands
        assert mirror.game.phase == st["phase"], (mirror.game.phase, st["phase"])
        assert {int(k): tuple(p) for k, p in st["layout"].items()} == {k: tuple(p) for k, p in mirror.game.layout().items()}
        if shoot and shoot["lag"]:
            shots = lag_shots(mirror.game)
            for seat, P in pages.items():
                P.page.wait_for_function("() => window.billar.table.debug().canShoot")
                P.set_stroke(shots[seat].phi_deg, shots[seat].V0 + (0.0 if seat == 0 else 0.1))
                P.shoot()
        elif not shoot:
            seat = legal["player"]
            P = pages[seat]
            options = {o["name"]: o["args"] for o in legal["decisions"]}
            if "CHOOSE_BREAKER" in options:
                name, arg = "CHOOSE_BREAKER", seat
            elif "SET_UP" in options:
                name, arg = "SET_UP", None
            else:
                name = legal["decisions"][0]["name"]
                args = legal["decisions"][0]["args"]
                arg = args[0] if args else None
            P.page.wait_for_selector("dialog.decision-dialog[open]")
            P.decide(name, arg)
            mirror.game.apply_decision(seat, name, arg)
            facts["decisions"].append(name)
        else:
            seat = legal["player"]
            P = pages[seat]
            P.page.wait_for_function("() => window.billar.table.debug().canShoot")
            found = find_carom(mirror.game, seat) if caroms else None
            if found is not None:
                shot = found.shot
                facts["caroms_found"] += 1
            else:
                shot = safe_stroke(mirror.game, seat)
                facts["misses"] += 1
            P.set_stroke(shot.phi_deg, shot.V0, shot.a, shot.b, shot.theta_deg)
            P.shoot()
            facts["strokes"] += 1
        nv = next_version(everyone, v)
        wait_all(everyone, nv)
        after = A.debug()
        mirror.follow(after, v)
        facts["log"].append((after["state"]["phase"], after["state"]["scoreboard"].get("scores"), (after["lastRuling"] or {}).get("text")))
        if on_action:
            on_action(n)
    raise AssertionError(f"the game did not end within {max_actions} actions: {facts}")
