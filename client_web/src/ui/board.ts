/**
 * The table canvas: draws the table, the balls and the aiming overlay (aim line and ghost ball
 * to the first contact, the cue stick with its pull-back), and turns mouse/touch input into
 * intentions: aim, pull-back power, ball-in-hand placement, called ball and pocket.
 *
 * Crisp on HiDPI: the backing store is sized in device pixels (devicePixelRatio) and redrawn on
 * resize (ResizeObserver). Drawing happens on demand (`invalidate`), once per display frame.
 */

import { Contact, firstContact, aimAngle } from "../aim/contact";
import type { Preset, Vec2, ZoneShape } from "../protocol/messages";
import { COLORS } from "../view/colors";
import { drawBall, drawTable, tableBox } from "../view/render";
import { Viewport } from "../view/viewport";

export interface BallView {
  id: number;
  x: number;
  y: number;
  pocketed?: boolean;
  /** 0..1: a ball just pocketed, drawn shrinking into the pocket */
  sink?: number;
}

export interface AimView {
  cue: Vec2;
  cueId: number | null;
  phi: number;
  /** pull-back 0..1 while dragging the cue stick */
  pull: number;
}

export interface BoardHandlers {
  onAim(phiDeg: number): void;
  onPlace(want: Vec2): void;
  onPullChange(power: number): void;
  onPullRelease(power: number): void;
  onCallBall(id: number): void;
  onCallPocket(name: string): void;
}

/** Pull distance (CSS px) that gives full power. */
export const PULL_FULL_PX = 170;
/** Pointer travel (px) below which a press and release is a click, not a drag. */
const CLICK_SLOP_PX = 6;

export class Board {
  readonly canvas: HTMLCanvasElement;
  private ctx: CanvasRenderingContext2D;
  readonly vp = new Viewport();
  private dpr = 1;
  private layer: HTMLCanvasElement | null = null;
  private layerKey = "";
  private frame = 0;
  private ro: ResizeObserver;

  preset: Preset | null = null;
  balls: BallView[] = [];
  /** draw every ball as a cue ball (the pool lag uses two white balls) */
  allWhite = false;
  aim: AimView | null = null;
  canAim = false;
  canPlace = false;
  canCall = false;
  kitchenXMax: number | null = null;
  zones: ZoneShape[] | null = null;
  callBall: number | null = null;
  callPocket: string | null = null;
  contact: Contact | null = null;

  private drag: { mode: "pending" | "aim" | "place" | "pull"; x: number; y: number; id: number } | null = null;

  constructor(
    readonly host: HTMLElement,
    private readonly handlers: BoardHandlers,
  ) {
    this.canvas = document.createElement("canvas");
    this.canvas.className = "table-canvas";
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("aria-label", "Billiard table");
    this.canvas.setAttribute("role", "img");
    host.append(this.canvas);
    this.ctx = this.canvas.getContext("2d")!;
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(host);
    this.canvas.addEventListener("pointerdown", (e) => this.down(e));
    this.canvas.addEventListener("pointermove", (e) => this.move(e));
    this.canvas.addEventListener("pointerup", (e) => this.up(e));
    this.canvas.addEventListener("pointercancel", () => this.cancel());
    window.addEventListener("resize", () => this.resize());
  }

  destroy(): void {
    this.ro.disconnect();
    cancelAnimationFrame(this.frame);
  }

  get R(): number {
    return this.preset?.ball.radius ?? 0.03;
  }

  private resize(): void {
    const rect = this.host.getBoundingClientRect();
    const w = Math.max(50, Math.floor(rect.width));
    const h = Math.max(50, Math.floor(rect.height));
    const dpr = window.devicePixelRatio || 1;
    this.dpr = dpr;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.layerKey = "";
    this.invalidate();
  }

  /** Schedule one redraw on the next display frame. */
  invalidate(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** CSS-pixel position (relative to the canvas) of a point of the table. */
  screenOf(x: number, y: number): Vec2 {
    return this.vp.toScreen(x, y);
  }

  private staticLayer(): HTMLCanvasElement {
    const p = this.preset!;
    const key = [this.canvas.width, this.canvas.height, p.name, this.kitchenXMax, JSON.stringify(this.zones ?? null)].join("|");
    if (this.layer && key === this.layerKey) return this.layer;
    const c = this.layer ?? document.createElement("canvas");
    c.width = this.canvas.width;
    c.height = this.canvas.height;
    drawTable(c.getContext("2d")!, p, this.vp, this.dpr, { zones: this.zones, kitchenXMax: this.kitchenXMax });
    this.layer = c;
    this.layerKey = key;
    return c;
  }

  draw(): void {
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    if (!this.preset) {
      ctx.fillStyle = COLORS.page;
      ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
      return;
    }
    const cssW = this.canvas.width / this.dpr;
    const cssH = this.canvas.height / this.dpr;
    this.vp.fit(tableBox(this.preset), cssW, cssH, 6);
    ctx.drawImage(this.staticLayer(), 0, 0);
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const rpx = this.R * this.vp.scale;

    // called pocket highlight
    if (this.callPocket) {
      const pk = this.preset.pockets.find((q) => q.name === this.callPocket);
      if (pk) {
        const [sx, sy] = this.vp.toScreen(pk.centre[0], pk.centre[1]);
        ctx.strokeStyle = COLORS.call;
        ctx.lineWidth = 2.5;
        ctx.beginPath();
        ctx.arc(sx, sy, pk.radius * this.vp.scale + 3, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
    const aim = this.aim;
    this.contact = null;
    if (aim) {
      const others = new Map<number, Vec2>();
      for (const b of this.balls) if (b.id !== aim.cueId && !b.pocketed) others.set(b.id, [b.x, b.y]);
      this.contact = firstContact(aim.cue, aim.phi, this.R, others, this.preset);
      this.drawAim(aim, this.contact, rpx);
    }
    for (const b of this.balls) {
      if (b.pocketed && !b.sink) continue;
      const [sx, sy] = this.vp.toScreen(b.x, b.y);
      const k = b.pocketed ? 1 - (b.sink ?? 1) : 1;
      drawBall(ctx, this.preset.kind, this.allWhite ? 0 : b.id, sx, sy, rpx * (0.55 + 0.45 * k), 0.25 + 0.75 * k);
      if (this.callBall === b.id) {
        ctx.strokeStyle = COLORS.call;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(sx, sy, rpx + 3, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
    if (aim) this.drawCue(aim, rpx);
  }

  private drawAim(aim: AimView, c: Contact, rpx: number): void {
    const ctx = this.ctx;
    const [cx, cy] = this.vp.toScreen(aim.cue[0], aim.cue[1]);
    const [gx, gy] = this.vp.toScreen(c.at[0], c.at[1]);
    ctx.save();
    ctx.strokeStyle = COLORS.aim;
    ctx.lineWidth = 1.25;
    ctx.setLineDash([7, 5]);
    ctx.beginPath();
    ctx.moveTo(cx, cy);
    ctx.lineTo(gx, gy);
    ctx.stroke();
    ctx.setLineDash([]);
    if (c.kind !== "none") {
      ctx.strokeStyle = COLORS.ghost;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(gx, gy, rpx, 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (c.kind === "ball" && c.objectDir && c.ball !== undefined) {
      const ob = this.balls.find((b) => b.id === c.ball)!;
      const [ox, oy] = this.vp.toScreen(ob.x, ob.y);
      const [ex, ey] = this.vp.toScreen(ob.x + c.objectDir[0] * 5 * this.R, ob.y + c.objectDir[1] * 5 * this.R);
      ctx.strokeStyle = "rgba(255, 211, 77, 0.8)";
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(ox, oy);
      ctx.lineTo(ex, ey);
      ctx.stroke();
    }
    ctx.restore();
  }

  private drawCue(aim: AimView, rpx: number): void {
    const ctx = this.ctx;
    const [cx, cy] = this.vp.toScreen(aim.cue[0], aim.cue[1]);
    const ang = this.vp.screenAngle((aim.phi * Math.PI) / 180);
    const ux = Math.cos(ang);
    const uy = Math.sin(ang);
    const gap = rpx + 4 + aim.pull * PULL_FULL_PX * 0.6;
    const len = Math.max(220, 1.45 * this.vp.scale);
    const x0 = cx - ux * gap;
    const y0 = cy - uy * gap;
    const x1 = cx - ux * (gap + len);
    const y1 = cy - uy * (gap + len);
    ctx.save();
    ctx.lineCap = "round";
    ctx.strokeStyle = "rgba(0,0,0,0.35)";
    ctx.lineWidth = Math.max(4, rpx * 0.75);
    ctx.beginPath();
    ctx.moveTo(x0 + 3, y0 + 4);
    ctx.lineTo(x1 + 3, y1 + 4);
    ctx.stroke();
    const grad = ctx.createLinearGradient(x0, y0, x1, y1);
    grad.addColorStop(0, "#3d6fb0");
    grad.addColorStop(0.012, "#f1ead8");
    grad.addColorStop(0.05, "#f1ead8");
    grad.addColorStop(0.06, COLORS.cue);
    grad.addColorStop(0.7, "#a0703f");
    grad.addColorStop(1, "#2b1a0e");
    ctx.strokeStyle = grad;
    ctx.lineWidth = Math.max(3, rpx * 0.55);
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    ctx.restore();
  }

  // ----- input -------------------------------------------------------------------------------
  private world(e: PointerEvent): Vec2 {
    const r = this.canvas.getBoundingClientRect();
    return this.vp.toWorld(e.clientX - r.left, e.clientY - r.top);
  }

  private near(w: Vec2, q: Vec2, radius: number): boolean {
    return Math.hypot(w[0] - q[0], w[1] - q[1]) <= radius;
  }

  private down(e: PointerEvent): void {
    if (!this.preset) return;
    this.canvas.focus();
    const w = this.world(e);
    const pick = this.cuePick();
    let mode: "pending" | "aim" | "place" | "pull" = "pending";
    if (this.aim && this.canPlace && this.near(w, this.aim.cue, pick)) mode = "place";
    else if (this.aim && this.canAim && (this.near(w, this.aim.cue, pick) || this.onCue(e))) mode = "pull";
    this.drag = { mode, x: e.clientX, y: e.clientY, id: e.pointerId };
    this.canvas.setPointerCapture(e.pointerId);
    e.preventDefault();
  }

  /** True when the pointer is on the cue stick drawn behind the cue ball (where a pull-back starts). */
  private onCue(e: PointerEvent): boolean {
    if (!this.aim) return false;
    const r = this.canvas.getBoundingClientRect();
    const [cx, cy] = this.vp.toScreen(this.aim.cue[0], this.aim.cue[1]);
    const ang = this.vp.screenAngle((this.aim.phi * Math.PI) / 180);
    const dx = e.clientX - r.left - cx;
    const dy = e.clientY - r.top - cy;
    const behind = -(dx * Math.cos(ang) + dy * Math.sin(ang));
    const side = Math.abs(dx * Math.sin(ang) - dy * Math.cos(ang));
    const rpx = this.R * this.vp.scale;
    return behind > rpx && behind < rpx + 260 && side < Math.max(10, rpx * 0.8);
  }

  private move(e: PointerEvent): void {
    const d = this.drag;
    if (!d || e.pointerId !== d.id || !this.aim) return;
    const w = this.world(e);
    if (d.mode === "pending" && Math.hypot(e.clientX - d.x, e.clientY - d.y) > CLICK_SLOP_PX && this.canAim) d.mode = "aim";
    if (d.mode === "aim") this.handlers.onAim(aimAngle(this.aim.cue, w));
    else if (d.mode === "place") this.handlers.onPlace(w);
    else if (d.mode === "pull") this.handlers.onPullChange(this.pullPower(e));
  }

  private pullPower(e: PointerEvent): number {
    const d = this.drag!;
    const ang = this.vp.screenAngle((this.aim!.phi * Math.PI) / 180);
    const back = -((e.clientX - d.x) * Math.cos(ang) + (e.clientY - d.y) * Math.sin(ang));
    return Math.max(0, Math.min(1, back / PULL_FULL_PX));
  }

  private up(e: PointerEvent): void {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    const power = d.mode === "pull" ? this.pullPower(e) : 0;
    this.drag = null;
    const w = this.world(e);
    // a press on the cue stick released where it began is a click: the stick is drawn over the
    // felt, so a ball or pocket under it must still be callable
    const still = Math.hypot(e.clientX - d.x, e.clientY - d.y) <= CLICK_SLOP_PX;
    if (d.mode === "pull" && !still) {
      this.handlers.onPullRelease(power);
      return;
    }
    if (d.mode === "pull") this.handlers.onPullChange(0);
    else if (d.mode !== "pending") return;
    // a click: call a ball or a pocket, else aim at the point
    if (this.canCall) {
      for (const b of this.balls) {
        if (!b.pocketed && b.id !== this.aim?.cueId && this.near(w, [b.x, b.y], this.R * 1.15)) {
          this.handlers.onCallBall(b.id);
          return;
        }
      }
      for (const pk of this.preset?.pockets ?? []) {
        if (this.near(w, pk.centre, pk.radius + 0.02)) {
          this.handlers.onCallPocket(pk.name);
          return;
        }
      }
    }
    // (a click on the cue ball, or just beside it, has no direction to aim at)
    if (this.aim && this.canAim && !this.near(w, this.aim.cue, this.cuePick())) this.handlers.onAim(aimAngle(this.aim.cue, w));
  }

  /** Distance (m) from the cue ball's centre within which a press picks the cue ball (its radius and 8 px). */
  private cuePick(): number {
    return this.R + 8 / this.vp.scale;
  }

  private cancel(): void {
    if (this.drag?.mode === "pull") this.handlers.onPullChange(0);
    this.drag = null;
  }
}
