/**
 * The stroke controls: aim angle (fine aim with buttons and keyboard), power (slider or cue
 * pull-back on the table), tip offset on a cue-ball diagram limited to the miscue circle
 * (sqrt(a^2 + b^2) <= 0.5 ball radii), cue elevation, the call (ball and pocket, or safety)
 * and the shoot button. Every value also has an accessible numeric input.
 *
 * Power is the speed the stroke gives the cue ball (m/s on the bed, physics/cue.ts), which is
 * what a player judges; the cue speed V0 sent to the server follows from it and from the tip
 * offset and elevation (the same ball speed needs a faster cue off centre or elevated).
 */

import { normDeg } from "../aim/contact";
import { Cue, cueBallSpeed, cueOf, cueSpeedFor } from "../physics/cue";
import { LIMITS } from "../protocol/messages";
import { h } from "./dom";
import { POCKET_NAMES } from "../game/names";
import { ballColor } from "../view/render";
import { POWER_BANDS, SPEED_MAX, SPEED_MIN, bandOf, positionOf, speedAt } from "./power";

export interface StrokeState {
  phi: number;
  /** cue speed (m/s) sent to the server, in (0, V0_MAX] */
  V0: number;
  a: number;
  b: number;
  theta: number;
  /** the cue ball's speed on the bed (m/s) that V0 gives with this tip offset and elevation */
  speed: number;
}

/** Smallest cue speed the controls send (m/s): the server wants V0 > 0. */
export const V0_MIN = 0.02;
/** Cue-ball speed (m/s) of a fresh page: a medium stroke. */
export const SPEED_DEFAULT = 2.0;
/** Ball mass (kg) until the table's preset says (pool balls, physics/table.py). */
const DEFAULT_BALL_MASS = 0.17;
/** the shot dock's + and - move the power slider by this share of its travel */
const DOCK_STEP = 0.02;

/** Clamp (a, b) into the miscue circle of radius LIMITS.TIP_OFFSET_MAX. */
export function clampTip(a: number, b: number): [number, number] {
  const r = Math.hypot(a, b);
  const m = LIMITS.TIP_OFFSET_MAX;
  if (r <= m) return [a, b];
  return [(a / r) * m, (b / r) * m];
}

function round(x: number, d: number): number {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

/** A number box's value, NaN when the box is empty or unreadable: `set` then keeps the value in force and shows
 * it again (Number("") is 0: clearing the power box played the softest stroke, clearing the aim turned it to 0 deg; QA). */
function boxNumber(el: HTMLInputElement): number {
  return el.value.trim() === "" ? NaN : Number(el.value);
}

export class StrokeControls {
  readonly el: HTMLElement;
  readonly state: StrokeState = { phi: 0, V0: 0, a: 0, b: 0, theta: 0, speed: SPEED_DEFAULT };
  private mass = DEFAULT_BALL_MASS;
  private cue: Cue = cueOf("pool");
  private phiIn: HTMLInputElement;
  private speedIn: HTMLInputElement;
  private speedRange: HTMLInputElement;
  private speedNote: HTMLElement;
  private aIn: HTMLInputElement;
  private bIn: HTMLInputElement;
  private thIn: HTMLInputElement;
  private thRange: HTMLInputElement;
  private tip: HTMLCanvasElement;
  readonly shootBtn: HTMLButtonElement;
  /** the phone's shot dock: power and Shoot kept on the screen (fixed; CSS shows it on small screens only, while
   * the panel's own Shoot button is scrolled out of sight) */
  readonly dock: HTMLElement;
  private dockSpeed: HTMLElement;
  private dockButtons: HTMLButtonElement[];
  readonly callBox: HTMLElement;
  private callBalls: HTMLElement;
  private callPockets: HTMLElement;
  readonly safetyIn: HTMLInputElement;
  private callHint: HTMLElement;
  call: { ball: number | null; pocket: string | null; safety: boolean } = { ball: null, pocket: null, safety: false };

  constructor(
    private readonly onChange: () => void,
    private readonly onShoot: () => void,
    private readonly onCallChange: () => void,
  ) {
    const num = (id: string, label: string, step: string, min?: number, max?: number) =>
      h("input", { id, type: "number", step, min, max, "aria-label": label, class: "num" }) as HTMLInputElement;
    this.phiIn = num("aim-phi", "Aim angle in degrees", "0.01", LIMITS.PHI_DEG_MIN, LIMITS.PHI_DEG_MAX);
    this.speedIn = num("power-speed", "Cue-ball speed in metres per second", "0.01", SPEED_MIN, SPEED_MAX);
    this.speedRange = h("input", { id: "power-slider", type: "range", min: 0, max: 1, step: "0.001", "aria-label": "Power: soft, medium, firm, break" }) as HTMLInputElement;
    this.speedNote = h("div", { class: "hint power-note", "data-testid": "power-note" });
    this.aIn = num("tip-a", "Side offset (english), ball radii", "0.01", -0.5, 0.5);
    this.bIn = num("tip-b", "Vertical offset (follow/draw), ball radii", "0.01", -0.5, 0.5);
    this.thIn = num("elev-theta", "Cue elevation in degrees", "0.5", 0, LIMITS.THETA_DEG_MAX);
    this.thRange = h("input", { id: "elev-slider", type: "range", min: 0, max: LIMITS.THETA_DEG_MAX, step: "0.5", "aria-label": "Cue elevation" }) as HTMLInputElement;
    this.tip = h("canvas", { class: "tip-diagram", width: 112, height: 112, "aria-label": "Tip offset: click where the cue tip strikes the cue ball", role: "img" }) as HTMLCanvasElement;
    this.shootBtn = h("button", { id: "shoot-btn", class: "primary shoot", type: "button" }, "Shoot") as HTMLButtonElement;
    this.safetyIn = h("input", { id: "call-safety", type: "checkbox" }) as HTMLInputElement;
    this.callBalls = h("div", { class: "chips", "aria-label": "Called ball" });
    this.callPockets = h("div", { class: "chips", "aria-label": "Called pocket" });
    this.callHint = h("div", { class: "hint" });
    this.callBox = h(
      "div",
      { class: "call-box" },
      h("div", { class: "row-title" }, "Call"),
      this.callBalls,
      this.callPockets,
      h("label", { class: "check" }, this.safetyIn, " Safety"),
      this.callHint,
    );
    const step = (d: number) => h("button", { type: "button", class: "small", title: `${d > 0 ? "+" : ""}${d} deg`, onclick: () => this.nudge(d) }, d > 0 ? `+${d}` : `${d}`);
    this.el = h(
      "div",
      { class: "stroke-controls" },
      h("div", { class: "field" }, h("label", { for: "aim-phi" }, "Aim (deg)"), h("div", { class: "inline" }, step(-1), step(-0.1), this.phiIn, step(0.1), step(1))),
      h(
        "div",
        { class: "field power-field" },
        h("label", { for: "power-speed" }, "Power: cue-ball speed (m/s)"),
        h("div", { class: "inline" }, h("div", { class: "power-track" }, this.speedRange, h("div", { class: "power-bands", "aria-hidden": "true" }, ...POWER_BANDS.map((b) => h("span", {}, b)))), this.speedIn),
        this.speedNote,
      ),
      h(
        "div",
        { class: "field tip-field" },
        this.tip,
        h(
          "div",
          { class: "tip-nums" },
          h("label", { for: "tip-a" }, "Side a"),
          this.aIn,
          h("label", { for: "tip-b" }, "Top/draw b"),
          this.bIn,
          h("button", { type: "button", class: "small", onclick: () => this.set({ a: 0, b: 0 }) }, "Centre"),
        ),
      ),
      h("div", { class: "field" }, h("label", { for: "elev-theta" }, "Elevation (deg)"), h("div", { class: "inline" }, this.thRange, this.thIn)),
      this.callBox,
      this.shootBtn,
      h("div", { class: "hint keys" }, "Drag on the table to aim, or pull back from the cue ball to shoot. Keys: \u2190 \u2192 aim (Shift x10, Alt /10), \u2191 \u2193 power, Enter shoot."),
    );
    // a typed aim outside the box's own range (-360 to 360) is refused like an empty box, not wrapped: 1e308 has no
    // whole degrees left in a double and came out as -64 (QA)
    this.phiIn.addEventListener("change", () => {
      const phi = boxNumber(this.phiIn);
      this.set({ phi: Math.abs(phi) <= LIMITS.PHI_DEG_MAX ? phi : NaN });
    });
    this.speedIn.addEventListener("change", () => this.set({ speed: boxNumber(this.speedIn) }));
    this.speedRange.addEventListener("input", () => this.set({ speed: speedAt(Number(this.speedRange.value)) }));
    this.aIn.addEventListener("change", () => this.set({ a: boxNumber(this.aIn) }));
    this.bIn.addEventListener("change", () => this.set({ b: boxNumber(this.bIn) }));
    this.thIn.addEventListener("change", () => this.set({ theta: boxNumber(this.thIn) }));
    this.thRange.addEventListener("input", () => this.set({ theta: Number(this.thRange.value) }));
    this.shootBtn.addEventListener("click", () => this.onShoot());
    this.dockSpeed = h("output", { class: "dock-speed", "data-testid": "dock-speed", "aria-label": "Cue-ball speed in metres per second" });
    this.dockButtons = [
      h("button", { type: "button", class: "small", id: "dock-power-up", "aria-label": "More power", onclick: () => this.nudgePower(DOCK_STEP) }, "+") as HTMLButtonElement,
      h("button", { type: "button", class: "small", id: "dock-power-down", "aria-label": "Less power", onclick: () => this.nudgePower(-DOCK_STEP) }, "\u2212") as HTMLButtonElement,
      h("button", { type: "button", class: "primary", id: "dock-shoot", onclick: () => this.onShoot() }, "Shoot") as HTMLButtonElement,
    ];
    const [up, down, shoot] = this.dockButtons;
    // less on the left, more on the right, as on a slider (QA: "+" stood left of "-")
    this.dock = h("div", { class: "shot-dock", role: "group", "aria-label": "Power and shoot", "data-testid": "shot-dock" }, down, this.dockSpeed, up, shoot);
    if (typeof IntersectionObserver !== "undefined") {
      new IntersectionObserver((entries) => {
        for (const e of entries) this.dock.classList.toggle("main-visible", e.isIntersecting);
      }).observe(this.shootBtn);
    }
    this.safetyIn.addEventListener("change", () => {
      this.call.safety = this.safetyIn.checked;
      if (this.call.safety) this.call = { ball: null, pocket: null, safety: true };
      this.onCallChange();
    });
    let tipDrag = false;
    const tipAt = (e: PointerEvent) => {
      const r = this.tip.getBoundingClientRect();
      const R = r.width * 0.42;
      const a = (e.clientX - (r.left + r.width / 2)) / R;
      const b = -(e.clientY - (r.top + r.height / 2)) / R;
      this.set({ a: round(a, 3), b: round(b, 3) });
    };
    this.tip.addEventListener("pointerdown", (e) => {
      tipDrag = true;
      this.tip.setPointerCapture(e.pointerId);
      tipAt(e);
    });
    this.tip.addEventListener("pointermove", (e) => tipDrag && tipAt(e));
    this.tip.addEventListener("pointerup", () => (tipDrag = false));
    // the cue speed of the default power: a stroke shot before any control is touched must carry it (the
    // state began with V0 0, which the server refuses; on a pool table nothing else set it, and the lag
    // stalled: QA, 7 Dec)
    this.followSpeed();
    this.sync();
  }

  /**
   * Change stroke values (clamped to the protocol's ranges) and refresh the inputs. The ball
   * speed is kept when the tip offset or the elevation change (V0 follows); `V0` given alone
   * sets the cue speed and the ball speed follows.
   */
  set(p: Partial<StrokeState>): void {
    const s = this.state;
    if (p.phi !== undefined && Number.isFinite(p.phi)) s.phi = round(normDeg(p.phi), 6);
    if (p.theta !== undefined && Number.isFinite(p.theta)) s.theta = round(Math.min(LIMITS.THETA_DEG_MAX, Math.max(0, p.theta)), 2);
    if ((p.a !== undefined && Number.isFinite(p.a)) || (p.b !== undefined && Number.isFinite(p.b))) {
      const [a, b] = clampTip(p.a ?? s.a, p.b ?? s.b);
      s.a = round(a, 4);
      s.b = round(b, 4);
    }
    if (p.speed !== undefined && Number.isFinite(p.speed)) s.speed = Math.min(SPEED_MAX, Math.max(SPEED_MIN, p.speed));
    if (p.V0 !== undefined && Number.isFinite(p.V0) && p.speed === undefined) {
      s.V0 = Math.min(LIMITS.V0_MAX, Math.max(V0_MIN, p.V0));
      s.speed = cueBallSpeed(s.V0, s.a, s.b, s.theta, this.mass, this.cue.mass);
    } else this.followSpeed();
    this.sync();
    this.onChange();
  }

  /** The table's balls and cue (the preset's ball mass in kg and its kind): the same ball speed
   * needs another cue speed on another table. */
  setTable(ballMass: number, kind: string): void {
    const cue = cueOf(kind);
    if (!(ballMass > 0) || (ballMass === this.mass && cue === this.cue)) return;
    this.mass = ballMass;
    this.cue = cue;
    this.followSpeed();
    this.sync();
  }

  /** V0 for the chosen ball speed, within the protocol's range (a speed out of reach is lowered to it). */
  private followSpeed(): void {
    const s = this.state;
    const V0 = cueSpeedFor(s.speed, s.a, s.b, s.theta, this.mass, this.cue.mass);
    s.V0 = Math.min(LIMITS.V0_MAX, Math.max(V0_MIN, V0));
    if (s.V0 !== V0) s.speed = cueBallSpeed(s.V0, s.a, s.b, s.theta, this.mass, this.cue.mass);
  }

  /** Move the power slider by `d` of its travel (keyboard: the same feel as dragging it). */
  nudgePower(d: number): void {
    this.set({ speed: speedAt(positionOf(this.state.speed) + d) });
  }

  /**
   * The stroke's keys (README "Aiming"): Left/Right aim by 0.1 deg (Shift 1, Alt or Ctrl 0.01), Up/Down move
   * the power slider by 1 % of its travel (Shift 5 %), Enter applies the number box being typed in (`target`)
   * and calls `shoot`. Returns whether the key was one of these (the caller then prevents its default).
   */
  strokeKey(e: KeyboardEvent, shoot: () => void): boolean {
    const fine = e.shiftKey ? 1 : e.altKey || e.ctrlKey ? 0.01 : 0.1;
    switch (e.key) {
      case "ArrowLeft":
        this.nudge(fine);
        return true;
      case "ArrowRight":
        this.nudge(-fine);
        return true;
      case "ArrowUp":
        this.nudgePower(e.shiftKey ? 0.05 : 0.01);
        return true;
      case "ArrowDown":
        this.nudgePower(e.shiftKey ? -0.05 : -0.01);
        return true;
      case "Enter":
        if (e.target instanceof HTMLInputElement) e.target.dispatchEvent(new Event("change"));
        shoot();
        return true;
    }
    return false;
  }

  nudge(dDeg: number): void {
    this.set({ phi: this.state.phi + dDeg });
  }

  setEnabled(on: boolean): void {
    for (const el of this.el.querySelectorAll("input, button")) (el as HTMLInputElement).disabled = !on;
    for (const b of this.dockButtons) b.disabled = !on;
    this.dock.hidden = !on;
  }

  /** Show the call choices (14.1): `need` is required / optional / none; `safety`: whether a safety may be declared
   * (not at a puzzle, which asks for a pot). */
  setCallOptions(need: string, balls: number[], pockets: string[], kind: string, safety = true): void {
    this.callBox.hidden = need === "none";
    if (need === "none") return;
    const mk = (label: string, attrs: Record<string, string | number>, on: boolean, onclick: () => void, style = "") =>
      h("button", { type: "button", class: `chip${on ? " on" : ""}`, ...attrs, style, onclick }, label);
    this.callBalls.replaceChildren(
      ...balls.map((b) =>
        mk(String(b), { "data-ball": b, "aria-pressed": String(this.call.ball === b), title: `Call ball ${b}` }, this.call.ball === b, () => {
          this.call = { ...this.call, ball: b, safety: false };
          this.onCallChange();
        }, `--ball:${ballColor(kind, b)}`),
      ),
    );
    this.callPockets.replaceChildren(
      ...pockets.map((p) =>
        mk(p, { "data-pocket": p, "aria-pressed": String(this.call.pocket === p), title: `Call the ${POCKET_NAMES[p] ?? p} pocket` }, this.call.pocket === p, () => {
          this.call = { ...this.call, pocket: p, safety: false };
          this.onCallChange();
        }),
      ),
    );
    this.safetyIn.checked = this.call.safety;
    const c = this.call;
    this.callHint.textContent = c.safety
      ? "Safety declared."
      : c.ball !== null && c.pocket
        ? `Ball ${c.ball} in the ${POCKET_NAMES[c.pocket] ?? c.pocket} pocket.`
        : need === "required"
          ? `Click a ball and a pocket (on the table or here)${safety ? ", or declare safety" : ""}.`
          : "Optional on the break.";
  }

  /** Show a cue-ball ``speed`` (m/s) in the power box and slider while a pull-back is under way,
   * without setting it; ``null`` shows the set power again (the pull was let go where it began). */
  previewPower(speed: number | null): void {
    this.showPower(speed === null ? this.state.speed : speed);
  }

  private showPower(speed: number): void {
    this.speedIn.value = String(round(speed, 2));
    this.dockSpeed.textContent = speed.toFixed(2);
    this.speedRange.value = String(positionOf(speed));
    const V0 = cueSpeedFor(speed, this.state.a, this.state.b, this.state.theta, this.mass, this.cue.mass);
    // at the cue's top speed say so: a typed 15 m/s shows as the most this tip and elevation give (QA: 14.59, unexplained)
    const top = V0 >= LIMITS.V0_MAX - 1e-9 ? " (the fastest stroke)" : "";
    this.speedNote.textContent = `${bandOf(speed)} \u00b7 cue speed ${V0.toFixed(2)} m/s${top}`;
  }

  private sync(): void {
    const s = this.state;
    // to the box's step (0.01 deg): a dragged aim has a dozen decimals; the stroke keeps them all
    this.phiIn.value = String(round(s.phi, 2));
    this.showPower(s.speed);
    this.aIn.value = String(s.a);
    this.bIn.value = String(s.b);
    this.thIn.value = String(s.theta);
    this.thRange.value = String(s.theta);
    this.drawTip();
  }

  private drawTip(): void {
    const c = this.tip;
    const ctx = c.getContext("2d")!;
    const dpr = window.devicePixelRatio || 1;
    const css = 112;
    if (c.width !== css * dpr) {
      c.width = css * dpr;
      c.height = css * dpr;
      c.style.width = `${css}px`;
      c.style.height = `${css}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, css, css);
    const cx = css / 2;
    const R = css * 0.42;
    const g = ctx.createRadialGradient(cx - R * 0.3, cx - R * 0.35, R * 0.1, cx, cx, R);
    g.addColorStop(0, "#ffffff");
    g.addColorStop(1, "#cfcabb");
    ctx.fillStyle = g;
    ctx.beginPath();
    ctx.arc(cx, cx, R, 0, 2 * Math.PI);
    ctx.fill();
    ctx.strokeStyle = "rgba(200,40,40,0.6)";
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.arc(cx, cx, R * LIMITS.TIP_OFFSET_MAX, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.strokeStyle = "rgba(0,0,0,0.25)";
    ctx.beginPath();
    ctx.moveTo(cx - R, cx);
    ctx.lineTo(cx + R, cx);
    ctx.moveTo(cx, cx - R);
    ctx.lineTo(cx, cx + R);
    ctx.stroke();
    const tx = cx + this.state.a * R;
    const ty = cx - this.state.b * R;
    ctx.fillStyle = "#2f66b3";
    ctx.beginPath();
    ctx.arc(tx, ty, 6, 0, 2 * Math.PI);
    ctx.fill();
    ctx.strokeStyle = "#fff";
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
}
