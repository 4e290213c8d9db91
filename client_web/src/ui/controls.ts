/**
 * The stroke controls: aim angle (fine aim with buttons and keyboard), power (slider or cue
 * pull-back on the table), tip offset on a cue-ball diagram limited to the miscue circle
 * (sqrt(a^2 + b^2) <= 0.5 ball radii), cue elevation, the call (ball and pocket, or safety)
 * and the shoot button. Every value also has an accessible numeric input.
 */

import { normDeg } from "../aim/contact";
import { LIMITS } from "../protocol/messages";
import { h } from "./dom";
import { POCKET_NAMES } from "../game/names";
import { ballColor } from "../view/render";

export interface StrokeState {
  phi: number;
  V0: number;
  a: number;
  b: number;
  theta: number;
}

export const V0_MIN = 0.1;
export const V0_DEFAULT = 2.0;

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

export class StrokeControls {
  readonly el: HTMLElement;
  readonly state: StrokeState = { phi: 0, V0: V0_DEFAULT, a: 0, b: 0, theta: 0 };
  private phiIn: HTMLInputElement;
  private v0In: HTMLInputElement;
  private v0Range: HTMLInputElement;
  private aIn: HTMLInputElement;
  private bIn: HTMLInputElement;
  private thIn: HTMLInputElement;
  private thRange: HTMLInputElement;
  private tip: HTMLCanvasElement;
  readonly shootBtn: HTMLButtonElement;
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
    this.v0In = num("power-v0", "Cue speed in metres per second", "0.05", V0_MIN, LIMITS.V0_MAX);
    this.v0Range = h("input", { id: "power-slider", type: "range", min: V0_MIN, max: LIMITS.V0_MAX, step: "0.05", "aria-label": "Power" }) as HTMLInputElement;
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
      h("div", { class: "field" }, h("label", { for: "power-v0" }, "Power (m/s)"), h("div", { class: "inline" }, this.v0Range, this.v0In)),
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
    this.phiIn.addEventListener("change", () => this.set({ phi: Number(this.phiIn.value) }));
    this.v0In.addEventListener("change", () => this.set({ V0: Number(this.v0In.value) }));
    this.v0Range.addEventListener("input", () => this.set({ V0: Number(this.v0Range.value) }));
    this.aIn.addEventListener("change", () => this.set({ a: Number(this.aIn.value) }));
    this.bIn.addEventListener("change", () => this.set({ b: Number(this.bIn.value) }));
    this.thIn.addEventListener("change", () => this.set({ theta: Number(this.thIn.value) }));
    this.thRange.addEventListener("input", () => this.set({ theta: Number(this.thRange.value) }));
    this.shootBtn.addEventListener("click", () => this.onShoot());
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
    this.sync();
  }

  /** Change stroke values (clamped to the protocol's ranges) and refresh the inputs. */
  set(p: Partial<StrokeState>): void {
    const s = this.state;
    if (p.phi !== undefined && Number.isFinite(p.phi)) s.phi = round(normDeg(p.phi), 6);
    if (p.V0 !== undefined && Number.isFinite(p.V0)) s.V0 = round(Math.min(LIMITS.V0_MAX, Math.max(V0_MIN, p.V0)), 3);
    if (p.theta !== undefined && Number.isFinite(p.theta)) s.theta = round(Math.min(LIMITS.THETA_DEG_MAX, Math.max(0, p.theta)), 2);
    if ((p.a !== undefined && Number.isFinite(p.a)) || (p.b !== undefined && Number.isFinite(p.b))) {
      const [a, b] = clampTip(p.a ?? s.a, p.b ?? s.b);
      s.a = round(a, 4);
      s.b = round(b, 4);
    }
    this.sync();
    this.onChange();
  }

  nudge(dDeg: number): void {
    this.set({ phi: this.state.phi + dDeg });
  }

  setEnabled(on: boolean): void {
    for (const el of this.el.querySelectorAll("input, button")) (el as HTMLInputElement).disabled = !on;
  }

  /** Show the call choices (14.1): `need` is required / optional / none. */
  setCallOptions(need: string, balls: number[], pockets: string[], kind: string): void {
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
          ? "Click a ball and a pocket (on the table or here), or declare safety."
          : "Optional on the break.";
  }

  /** Show ``V0`` (m/s) in the power box and slider while a pull-back is under way, without setting it;
   * ``null`` shows the set power again (the pull was let go where it began). */
  previewPower(V0: number | null): void {
    const v = V0 === null ? this.state.V0 : Math.round(V0 * 100) / 100;
    this.v0In.value = String(v);
    this.v0Range.value = String(v);
  }

  private sync(): void {
    const s = this.state;
    this.phiIn.value = String(s.phi);
    this.v0In.value = String(s.V0);
    this.v0Range.value = String(s.V0);
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
