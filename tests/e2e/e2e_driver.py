"""Driving the browser client like a person: pages, controls, canvas pixels.

Every action goes through the page's own controls (inputs, buttons, keyboard, mouse drags and
clicks on the canvas). What the page knows is read back through ``window.billar`` (the app
object, exposed read-only for tests and debugging) and the DOM.
"""

from __future__ import annotations

import math
import time
from typing import Any, Dict, Optional, Tuple

from playwright.sync_api import Page

#: the felt, cushion and ball colours of client_web/src/view/colors.ts (RGB)
FELT = (0x1B, 0x6B, 0x39)
CUSHION = (0x11, 0x50, 0x2A)
WHITE = (0xF7, 0xF4, 0xEA)
YELLOW = (0xF4, 0xC4, 0x18)
RED = (0xCC, 0x1F, 0x27)
#: how far a pixel of cloth may be from FELT or CUSHION: the weave and the lamp's light falloff of
#: client_web/src/view/render.ts shade it by a few levels
CLOTH_TOL = 10


#: records the text of every error toast (client_web/src/ui/dom.ts) in window.__errorToasts
_TOAST_RECORDER = """
window.__errorToasts = [];
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType === 1 && n.classList.contains('toast') && n.classList.contains('error')) window.__errorToasts.push(n.textContent);
  }
}).observe(document, { childList: true, subtree: true });
"""


class ClientPage:
    """One browser page of the client (a player or a spectator)."""

    def __init__(self, page: Page, base_url: str, name: str):
        self.page = page
        self.base_url = base_url
        self.name = name
        self.errors: list = []
        self.calls_under_stick = 0  # canvas calls of a ball the cue stick was drawn over
        page.on("pageerror", lambda e: self.errors.append(f"{e} {getattr(e, 'stack', '')}"))
        # what the browser's console shows as errors (a failed request's status among them)
        self.console_errors: list = []
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        # every error toast the page shows (a refused stroke, a server error), kept in order
        page.add_init_script(_TOAST_RECORDER)

    def error_toasts(self) -> list:
        """The texts of the error toasts this page has shown so far (oldest first)."""
        return self.page.evaluate("window.__errorToasts || []")

    # ----- navigation ------------------------------------------------------------------------
    def open(self, hash_: str = "#/") -> None:
        self.page.goto(f"{self.base_url}/{hash_}")
        self.page.fill("#player-name", self.name)
        self.page.reload()
        self.wait_connected()

    def join_from_lobby(self, table: str, timeout: float = 15.0) -> None:
        """Join ``table`` with its lobby row's Join button (once the row shows) and wait for the table."""
        self.page.wait_for_selector(f"tr[data-table='{table}'] [data-action=join]", timeout=timeout * 1000)
        self.page.click(f"tr[data-table='{table}'] [data-action=join]")
        self.wait_table()

    def wait_connected(self, timeout: float = 20.0) -> None:
        self.page.wait_for_selector("#link-status.open", timeout=timeout * 1000)

    def link_status(self) -> str:
        return self.page.inner_text("#link-status")

    # ----- reading state ----------------------------------------------------------------------
    def debug(self) -> Dict[str, Any]:
        return self.page.evaluate("window.billar.table ? window.billar.table.debug() : null")

    def table_id(self) -> str:
        return self.page.get_attribute(".table-view", "data-table-id")

    def wait_table(self, timeout: float = 20.0) -> None:
        self.page.wait_for_function("() => window.billar.table && window.billar.table.debug().v >= 0", timeout=timeout * 1000)

    def wait_version(self, v: int, timeout: float = 30.0) -> None:
        """Wait until the page has received stream version ``v`` and shows it (animation ended)."""
        self.page.wait_for_function(
            "v => { const d = window.billar.table && window.billar.table.debug(); return d && d.modelV >= v && !d.busy; }",
            arg=v,
            timeout=timeout * 1000,
        )

    def skip_animation(self) -> None:
        # in one step in the page: the animation may end between a check and a click from here,
        # and a click on the then disabled button would wait for it to be enabled again
        self.page.evaluate("() => { const b = document.querySelector('#skip-btn'); if (b && !b.disabled) b.click(); }")

    def settle(self, v: int, timeout: float = 40.0) -> None:
        """Wait for version ``v``, skipping the shot animation once it runs."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            d = self.debug()
            if d and d["modelV"] >= v and not d["busy"]:
                return
            if d and d["busy"]:
                self.skip_animation()
            time.sleep(0.05)
        raise AssertionError(f"{self.name}: version {v} not shown in {timeout} s (page at {self.debug() and self.debug()['v']})")

    def scores_text(self) -> Tuple[str, str]:
        return (self.page.inner_text("[data-testid=score-0]"), self.page.inner_text("[data-testid=score-1]"))

    # ----- stroke controls -------------------------------------------------------------------
    def set_input(self, selector: str, value: float) -> None:
        loc = self.page.locator(selector)
        loc.fill(repr(float(value)))
        loc.press("Tab")

    def set_stroke(self, phi_deg: float, V0: float, a: float = 0.0, b: float = 0.0, theta_deg: float = 0.0, keyboard_fine: bool = False) -> None:
        """Enter a stroke through the controls. With ``keyboard_fine`` the last 0.3 degrees of the aim
        are entered with the arrow keys on the canvas (3 x 0.1 degrees, counter-clockwise).

        The power box takes the cue ball's speed: the one cue speed ``V0`` gives with this tip
        offset and elevation on this table, by the physics (:func:`ball_speed`); the page works
        out the cue speed it sends, which must come back as ``V0``."""
        phi = ((phi_deg + 180.0) % 360.0) - 180.0
        self.set_input("#aim-phi", round(phi - 0.3, 6) if keyboard_fine else round(phi, 6))
        if keyboard_fine:
            self.page.locator("canvas.table-canvas").focus()
            for _ in range(3):
                self.page.keyboard.press("ArrowLeft")
        self.set_input("#tip-a", a)
        self.set_input("#tip-b", b)
        self.set_input("#elev-theta", theta_deg)
        got = self.stroke_values()
        self.set_input("#power-speed", ball_speed(self.debug()["preset"], V0, got["a"], got["b"], got["theta"]))
        sent = self.stroke_values()["V0"]
        assert abs(sent - V0) <= 1e-9 * max(1.0, V0), f"cue speed {sent} for a ball speed meant to need {V0}"
        self.check_drawn_aim()

    def check_drawn_aim(self) -> None:
        """The aim line and cue stick drawn on the canvas follow the aim control at once (not only at the
        next server message)."""
        drawn = self.page.evaluate("() => { const a = window.billar.table['board'].aim; return a ? a.phi : null; }")
        if drawn is not None:
            assert abs(drawn - self.stroke_values()["phi"]) < 1e-9, f"stick drawn at {drawn}, aim {self.stroke_values()['phi']}"

    def stroke_values(self) -> Dict[str, float]:
        return self.debug()["stroke"]

    def shoot(self) -> None:
        self.page.click("#shoot-btn")

    def call(self, ball: int, pocket: str, on_canvas: bool = False) -> None:
        """Call ``ball`` in ``pocket``: by the chips of the call panel, or by clicking the ball and
        the pocket on the canvas."""
        if on_canvas:
            # aim straight away from the ball first: the cue stick is then drawn over it (when it
            # is near), and a click on a ball under the stick must still call it
            cue = self.page.evaluate("() => { const a = window.billar.table['board'].aim; return a ? a.cue : null; }")
            target = self.debug()["state"]["layout"][str(ball)]
            assert cue is not None, "no cue ball on the board"
            self.set_input("#aim-phi", round(math.degrees(math.atan2(cue[1] - target[1], cue[0] - target[0])), 6))
            self.check_drawn_aim()
            bx = self.ball_on_screen(ball)
            assert bx is not None, f"ball {ball} not drawn"
            self.calls_under_stick += int(self.page.evaluate(
                "([x, y]) => window.billar.table['board'].onCue({ clientX: x, clientY: y })", [bx["x"], bx["y"]]))
            self.page.mouse.click(bx["x"], bx["y"])
            pk = self.page.evaluate(
                "name => { const t = window.billar.table; const p = t.model.preset.pockets.find(q => q.name === name);"
                " return t.pointOnScreen(p.centre[0], p.centre[1]); }",
                pocket,
            )
            self.page.mouse.click(pk["x"], pk["y"])
        else:
            self.page.click(f"button.chip[data-ball='{ball}']")
            self.page.click(f"button.chip[data-pocket='{pocket}']")

    def declare_safety(self) -> None:
        self.page.check("#call-safety")

    def place_cue_ball(self, x: float, y: float) -> Tuple[float, float]:
        """Drag the cue ball (in hand) with the mouse to the table point (x, y) m; returns where it landed."""
        start = self.page.evaluate("window.billar.table.placementNow")
        assert start is not None, "the cue ball is not in hand"
        s = self.page.evaluate("([x, y]) => window.billar.table.pointOnScreen(x, y)", start)
        t = self.page.evaluate("([x, y]) => window.billar.table.pointOnScreen(x, y)", [x, y])
        m = self.page.mouse
        m.move(s["x"], s["y"])
        m.down()
        for k in range(1, 11):
            m.move(s["x"] + (t["x"] - s["x"]) * k / 10, s["y"] + (t["y"] - s["y"]) * k / 10)
        m.up()
        return tuple(self.page.evaluate("window.billar.table.placementNow"))

    def aim_by_drag(self, x: float, y: float) -> float:
        """Aim by dragging on the felt toward the table point (x, y) m; returns the aim angle set."""
        t = self.page.evaluate("([x, y]) => window.billar.table.pointOnScreen(x, y)", [x, y])
        m = self.page.mouse
        m.move(t["x"] + 40, t["y"] + 40)
        m.down()
        for k in range(1, 9):
            m.move(t["x"] + 40 * (1 - k / 8), t["y"] + 40 * (1 - k / 8))
        m.up()
        phi = self.stroke_values()["phi"]
        # the aim box shows the dragged aim to its own step, 0.01 deg (QA: six decimals), the stroke keeps all of it
        box = self.page.input_value("#aim-phi")
        assert float(box) == round(phi, 2) and len(box.partition(".")[2]) <= 2, (box, phi)
        return phi

    def pull_back_shot(self, power: float) -> None:
        """Press on the cue stick just behind the cue ball and pull it back by ``power`` (0..1) of a full
        pull, then release: shoots."""
        cue = self.page.evaluate(
            "() => { const t = window.billar.table; const b = t['board'].aim; return b ? t.pointOnScreen(b.cue[0], b.cue[1]) : null; }")
        assert cue is not None, "no cue ball to pull back from"
        full = self.page.evaluate("() => 170")  # PULL_FULL_PX of client_web/src/ui/board.ts
        ang = self.page.evaluate("() => { const t = window.billar.table; return t['board'].vp.screenAngle(t.debug().stroke.phi * Math.PI / 180); }")
        ux, uy = math.cos(ang), math.sin(ang)
        rpx = self.page.evaluate("() => { const t = window.billar.table; return t['board'].R * t['board'].vp.scale; }")
        start = (cue["x"] - ux * (rpx + 25), cue["y"] - uy * (rpx + 25))
        m = self.page.mouse
        m.move(*start)
        m.down()
        for k in range(1, 11):
            d = full * power * k / 10
            m.move(start[0] - ux * d, start[1] - uy * d)
        # while pulling, the stick is drawn back and the power box shows the speed the release will give
        drawn = self.page.evaluate("() => window.billar.table['board'].aim.pull")
        assert abs(drawn - power) < 0.02, f"stick drawn back by {drawn}, pulled {power}"
        shown = float(self.page.input_value("#power-speed"))
        want = self.page.evaluate("p => window.billar.table.speedOfPull(p)", drawn)
        assert abs(shown - want) <= 0.006, f"power box {shown} m/s during a pull of {drawn} (speed {want})"
        m.up()

    def pull_for(self, V0: float) -> float:
        """The pull-back (0..1 of a full pull) whose ball speed is the one cue speed ``V0`` gives a centre hit."""
        return self.page.evaluate("v => window.billar.table.pullFor(v)", ball_speed(self.debug()["preset"], V0))

    def decide(self, name: str, arg: Any) -> None:
        import json

        self.page.click(f"button[data-decision='{name}'][data-arg='{json.dumps(arg)}']")

    def resign(self) -> None:
        """Resign as a person would: accept the confirmation, press the Resign in front of them
        (the decision dialog's while one waits, otherwise the side panel's)."""
        self.page.once("dialog", lambda d: d.accept())
        if self.page.query_selector("dialog.decision-dialog[open]"):
            self.page.click("dialog.decision-dialog[open] [data-testid=dialog-resign]")
        else:
            self.page.click("#resign-btn")

    # ----- canvas pixels ---------------------------------------------------------------------
    def ball_on_screen(self, ball: int) -> Optional[Dict[str, float]]:
        return self.page.evaluate("id => window.billar.table.ballOnScreen(id)", ball)

    def pixel_at_world(self, x: float, y: float) -> Tuple[int, int, int]:
        """RGB of the canvas at the table point (x, y) m (read from the canvas backing store)."""
        return tuple(
            self.page.evaluate(
                """([x, y]) => {
                  const t = window.billar.table; const c = document.querySelector('canvas.table-canvas');
                  const r = c.getBoundingClientRect(); const p = t.pointOnScreen(x, y);
                  const k = c.width / r.width;
                  const d = c.getContext('2d').getImageData(Math.round((p.x - r.left) * k), Math.round((p.y - r.top) * k), 1, 1).data;
                  return [d[0], d[1], d[2]];
                }""",
                [x, y],
            )
        )

    def redraw(self) -> None:
        """Draw the canvas now (it draws on demand) so pixels read afterwards are current."""
        self.page.evaluate("window.billar.table && (window.billar.table.refresh(), window.billar.table['board'].draw())")


def ball_speed(preset: str, V0: float, a: float = 0.0, b: float = 0.0, theta_deg: float = 0.0) -> float:
    """Speed on the bed (m/s) a cue speed ``V0`` gives the cue ball on table ``preset``: the strike
    event of ``physics.simulate`` (physics/cue_strike.pyx)."""
    from physics import Shot, simulate
    from physics.table import get_table

    t = get_table(preset)
    sim = simulate(t, {0: (t.length / 2, t.width / 2)}, Shot(cue_ball=0, phi_deg=0.0, V0=V0, a=a, b=b, theta_deg=theta_deg))
    v = sim.events[0].states[0].v
    return math.hypot(v[0], v[1])


def close(c1: Tuple[int, int, int], c2: Tuple[int, int, int], tol: int) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(c1, c2))


def nearest(c: Tuple[int, int, int], palette: Dict[str, Tuple[int, int, int]]) -> str:
    return min(palette, key=lambda k: sum((a - b) ** 2 for a, b in zip(c, palette[k])))


def unit(phi_deg: float) -> Tuple[float, float]:
    r = math.radians(phi_deg)
    return (math.cos(r), math.sin(r))
