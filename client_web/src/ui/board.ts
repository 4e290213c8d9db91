/**
 * The table canvas: draws the table, the ball trails of the last stroke, the balls and the aiming
 * overlay (aim line and ghost ball to the first contact, the aim aid beyond it, the cue stick with
 * its pull-back, the opponent's live aim), and turns mouse/touch input into intentions: aim,
 * pull-back power, ball-in-hand placement, called ball and pocket.
 *
 * Drawing order, bottom to top: table, trails, aim lines, stick shadows, sticks, balls, the rings
 * of the call. Nothing covers a ball (issue 14): the stick lies under them.
 *
 * A loupe (`zoom`, for small screens) magnifies the area around the cue ball in a corner of the
 * canvas; a press inside it acts on the magnified point, for fine aim with a finger.
 *
 * Crisp on HiDPI: the backing store is sized in device pixels (devicePixelRatio) and redrawn on
 * resize (ResizeObserver). Drawing happens on demand (`invalidate`), once per display frame.
 */

import { Contact, aimAid, firstContact, aimAngle } from "../aim/contact";
import type { Trail } from "../game/trails";
import { trailUpTo } from "../game/trails";
import { diamondLabel } from "../game/diamonds";
import type { Preset, Vec2, ZoneShape } from "../protocol/messages";
import { COLORS } from "../view/colors";
import { ballColor, drawBall, drawBallShadow, drawTable, tableBox } from "../view/render";
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

/** The shooter's aim as seen by the others (a spectator, the opponent): drawn faint. */
export interface RemoteAim {
  cue: Vec2;
  cueId: number | null;
  phi: number;
}

export interface BoardHandlers {
  onAim(phiDeg: number): void;
  onPlace(want: Vec2): void;
  onPullChange(power: number): void;
  onPullRelease(power: number): void;
  onCallBall(id: number): void;
  onCallPocket(name: string): void;
  /** a practice table: ball `id` dragged to `want` (m; off the bed when dragged out of it); `done` on release */
  onArrange?(id: number, want: Vec2, done: boolean): void;
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
  /** the pool lag: these two balls are drawn as cue balls, the second (seat 1's) with spots */
  lagBalls: [number, number] | null = null;
  aim: AimView | null = null;
  /** the aim of the player to act, seen by the others */
  remoteAim: RemoteAim | null = null;
  /** the object ball's path and the cue ball's tangent line after the first contact */
  aimAid = true;
  /** the trails are a lag's: the resting point of each lag ball is ringed (14.1: balls 0 and 1 are the two white lag balls) */
  lagTrails = false;
  /** trails of the stroke shown, drawn up to `trailTime` (s) */
  trails: Trail[] | null = null;
  trailTime = Infinity;
  /** magnify the area around the cue ball in a corner */
  zoom = false;
  private loupe: { cx: number; cy: number; r: number; sx: number; sy: number; k: number } | null = null;
  canAim = false;
  canPlace = false;
  canCall = false;
  /** a practice table: any ball may be dragged (onArrange) */
  canArrange = false;
  kitchenXMax: number | null = null;
  zones: ZoneShape[] | null = null;
  callBall: number | null = null;
  callPocket: string | null = null;
  contact: Contact | null = null;
  /** the aim aid drawn last (null: none), for tests */
  aidShown: ReturnType<typeof aimAid> = null;

  private drag: { mode: "pending" | "aim" | "place" | "pull" | "arrange"; x: number; y: number; id: number; loupe: boolean; ball?: number } | null = null;

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

  /** The table with its rails on the canvas: [left, top, right, bottom] in CSS px of the canvas. */
  tableRect(): [number, number, number, number] {
    if (!this.preset) return [0, 0, 0, 0];
    const [x0, y0, x1, y1] = tableBox(this.preset);
    const a = this.vp.toScreen(x0, y0);
    const b = this.vp.toScreen(x1, y1);
    return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
  }

  /** CSS pixels between the canvas's left edge and the table's (rails included): the room beside it. */
  sideMargin(): number {
    if (!this.preset) return 0;
    const [x0, y0, x1, y1] = tableBox(this.preset);
    const a = this.vp.toScreen(x0, y0);
    const b = this.vp.toScreen(x1, y1);
    return Math.min(a[0], b[0]);
  }

  /** CSS-pixel position (relative to the canvas) of a point of the table. */
  screenOf(x: number, y: number): Vec2 {
    return this.vp.toScreen(x, y);
  }

  /** CSS-pixel position (relative to the page) of a table point (m). */
  pointOnPage(x: number, y: number): { x: number; y: number } {
    const rect = this.canvas.getBoundingClientRect();
    const [sx, sy] = this.screenOf(x, y);
    return { x: rect.left + sx, y: rect.top + sy };
  }

  /** CSS-pixel position (relative to the page) and radius of ball `id` as drawn now, or null. */
  ballOnPage(id: number): { x: number; y: number; r: number } | null {
    const b = this.balls.find((q) => q.id === id && !q.pocketed);
    if (!b) return null;
    return { ...this.pointOnPage(b.x, b.y), r: this.R * this.vp.scale };
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
    // a canvas as low as a phone held sideways: a thinner margin, so the balls stay large
    this.vp.fit(tableBox(this.preset), cssW, cssH, cssH < 500 ? 3 : 6);
    ctx.drawImage(this.staticLayer(), 0, 0);
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const rpx = this.R * this.vp.scale;

    if (this.trails) this.drawTrails(this.trails, rpx);
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
    this.aidShown = null;
    const othersThan = (id: number | null) => {
      const m = new Map<number, Vec2>();
      for (const b of this.balls) if (b.id !== id && !b.pocketed) m.set(b.id, [b.x, b.y]);
      return m;
    };
    const remote = !aim ? this.remoteAim : null;
    if (remote) {
      const others = othersThan(remote.cueId);
      this.drawAimLine(remote.cue, firstContact(remote.cue, remote.phi, this.R, others, this.preset), rpx, 0.4);
    }
    if (aim) {
      const others = othersThan(aim.cueId);
      this.contact = firstContact(aim.cue, aim.phi, this.R, others, this.preset);
      this.aidShown = this.aimAid ? aimAid(this.contact, aim.phi, this.R, others, this.preset) : null;
      this.drawAid(this.aidShown, rpx);
      this.drawAimLine(aim.cue, this.contact, rpx, 1);
    }
    // the balls' shadows on the cloth, then the cue stick and its shadow, then the balls: nothing covers a ball
    for (const b of this.balls) {
      if (b.pocketed) continue;
      const [sx, sy] = this.vp.toScreen(b.x, b.y);
      drawBallShadow(this.ctx, sx, sy, rpx);
    }
    if (remote) this.drawCue({ cue: remote.cue, cueId: remote.cueId, phi: remote.phi, pull: 0 }, rpx, 0.35);
    if (aim) this.drawCue(aim, rpx, 1);
    for (const b of this.balls) {
      if (b.pocketed && !b.sink) continue;
      const [sx, sy] = this.vp.toScreen(b.x, b.y);
      const k = b.pocketed ? 1 - (b.sink ?? 1) : 1;
      const lag = this.lagBalls ? this.lagBalls.indexOf(b.id) : -1;
      drawBall(ctx, this.preset.kind, lag >= 0 ? 0 : b.id, sx, sy, rpx * (0.55 + 0.45 * k), 0.25 + 0.75 * k, lag === 1);
      if (this.callBall === b.id) {
        ctx.strokeStyle = COLORS.call;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(sx, sy, rpx + 3, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
    this.drawLoupe(rpx);
  }

  /** The paths of the last stroke: the cue ball's bright and thicker, cushion contacts ringed, a carom cue ball's numbered. */
  private drawTrails(trails: Trail[], rpx: number): void {
    const ctx = this.ctx;
    const kind = this.preset!.kind;
    ctx.save();
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    const nowAt = new Map(this.balls.map((b) => [b.id, b] as const));
    for (const tr of [...trails].sort((a, b) => Number(a.cue) - Number(b.cue))) {
      const cur = nowAt.get(tr.ball);
      const pts = trailUpTo(tr, this.trailTime, Number.isFinite(this.trailTime) && cur && !cur.pocketed ? cur : undefined);
      if (pts.length < 2) continue;
      const poolLag = this.lagTrails && kind === "pool";
      const colour = poolLag && tr.ball === 1 ? COLORS.trailLag : tr.cue && kind === "pool" ? COLORS.trailCue : ballColor(kind, tr.ball);
      // fainter while the player aims: the aim lines come first then
      const dim = this.aim ? 0.45 : 1;
      ctx.globalAlpha = (tr.cue ? 0.85 : 0.6) * dim;
      ctx.strokeStyle = "rgba(0,0,0,0.35)";
      ctx.lineWidth = (tr.cue ? 3.2 : 2.4) + 1.5;
      this.polyline(pts);
      ctx.strokeStyle = colour;
      ctx.lineWidth = tr.cue ? 3.2 : 2.4;
      if (!tr.cue) ctx.setLineDash([6, 4]);
      this.polyline(pts);
      ctx.setLineDash([]);
      ctx.globalAlpha = dim;
      if (this.lagTrails && !Number.isFinite(this.trailTime) && tr.pocketed === null) {
        // where the lag ball stopped (the position is set up anew for the break right after)
        const end = pts[pts.length - 1];
        const [ex, ey] = this.vp.toScreen(end.x, end.y);
        ctx.strokeStyle = colour;
        ctx.lineWidth = 2;
        ctx.setLineDash([3, 3]);
        ctx.beginPath();
        ctx.arc(ex, ey, rpx, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      for (const c of tr.cushions) {
        if (c.t > this.trailTime) break;
        const [sx, sy] = this.vp.toScreen(c.x, c.y);
        if (c.n !== null) {
          const r = Math.max(7, rpx * 0.62);
          ctx.fillStyle = "rgba(10,14,12,0.85)";
          ctx.strokeStyle = colour;
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.arc(sx, sy, r, 0, 2 * Math.PI);
          ctx.fill();
          ctx.stroke();
          ctx.fillStyle = "#fff";
          ctx.font = `700 ${Math.round(r * 1.2)}px system-ui, sans-serif`;
          ctx.textAlign = "center";
          ctx.textBaseline = "middle";
          ctx.fillText(String(c.n), sx, sy + 0.5);
          if (c.diamond !== null && this.preset) {
            // the diamond readout beside the ring, toward the middle of the table: "1 · 3.5"; its box starts a
            // third of a ring clear of the ring along that direction (QA: a label centred a fixed distance away
            // overlapped its ring where the direction runs along the text)
            const [mx, my] = this.vp.toScreen(this.preset.length / 2, this.preset.width / 2);
            const len = Math.max(1, Math.hypot(mx - sx, my - sy));
            const ux = (mx - sx) / len, uy = (my - sy) / len;
            const size = Math.round(r * 1.05);
            ctx.font = `600 ${size}px system-ui, sans-serif`;
            ctx.lineWidth = 3;
            ctx.strokeStyle = "rgba(10,14,12,0.85)";
            const label = diamondLabel({ n: c.n, diamond: c.diamond });
            const d = labelOffset(r, ux, uy, ctx.measureText(label).width, size);
            ctx.strokeText(label, sx + ux * d, sy + uy * d);
            ctx.fillText(label, sx + ux * d, sy + uy * d);
          }
        } else {
          ctx.strokeStyle = colour;
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.arc(sx, sy, Math.max(3, rpx * 0.35), 0, 2 * Math.PI);
          ctx.stroke();
        }
      }
    }
    ctx.restore();
  }

  private polyline(pts: { x: number; y: number }[]): void {
    const ctx = this.ctx;
    ctx.beginPath();
    pts.forEach((p, i) => {
      const [sx, sy] = this.vp.toScreen(p.x, p.y);
      if (i) ctx.lineTo(sx, sy);
      else ctx.moveTo(sx, sy);
    });
    ctx.stroke();
  }

  /** The object ball's path and the cue ball's tangent line, up to the first cushion. */
  private drawAid(aid: ReturnType<typeof aimAid>, rpx: number): void {
    if (!aid) return;
    const ctx = this.ctx;
    ctx.save();
    ctx.lineWidth = 1.5;
    const line = (a: Vec2, b: Vec2, colour: string, dash: number[]) => {
      const [x0, y0] = this.vp.toScreen(a[0], a[1]);
      const [x1, y1] = this.vp.toScreen(b[0], b[1]);
      ctx.strokeStyle = colour;
      ctx.setLineDash(dash);
      ctx.beginPath();
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.arc(x1, y1, Math.max(2.5, rpx * 0.3), 0, 2 * Math.PI);
      ctx.stroke();
    };
    line(aid.object.from, aid.object.to, COLORS.aidObject, []);
    if (aid.tangent) line(aid.tangent.from, aid.tangent.to, COLORS.aidTangent, [3, 4]);
    ctx.restore();
  }

  /** A magnified view of the area around the cue ball, where it hides the least (see `loupeSpot`). */
  private drawLoupe(rpx: number): void {
    this.loupe = null;
    const focus = this.aim?.cue ?? this.remoteAim?.cue ?? null;
    if (!this.zoom || !focus) return;
    const cssW = this.canvas.width / this.dpr;
    const cssH = this.canvas.height / this.dpr;
    const [sx, sy] = this.vp.toScreen(focus[0], focus[1]);
    const r = Math.round(Math.min(cssW, cssH) * 0.2);
    const k = Math.max(2, Math.min(4, (14 * 1.5) / Math.max(1, rpx)));
    const scr = (p: Vec2): [number, number] => this.vp.toScreen(p[0], p[1]);
    const path: [number, number][][] = [];
    if (this.aim && this.contact) path.push([[sx, sy], scr(this.contact.at)]);
    if (this.aidShown) path.push([scr(this.aidShown.object.from), scr(this.aidShown.object.to)]);
    const balls = this.balls.filter((b) => !b.pocketed).map((b) => scr([b.x, b.y]));
    const [cx, cy] = loupeSpot(cssW, cssH, r, 6, [sx, sy], path, balls);
    const ctx = this.ctx;
    const d = this.dpr;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.beginPath();
    ctx.arc(cx * d, cy * d, r * d, 0, 2 * Math.PI);
    ctx.fillStyle = COLORS.page;
    ctx.fill();
    ctx.clip();
    const w = (2 * r) / k;
    ctx.drawImage(this.canvas, (sx - w / 2) * d, (sy - w / 2) * d, w * d, w * d, (cx - r) * d, (cy - r) * d, 2 * r * d, 2 * r * d);
    ctx.restore();
    ctx.save();
    ctx.setTransform(d, 0, 0, d, 0, 0);
    ctx.strokeStyle = "rgba(255,255,255,0.7)";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.restore();
    this.loupe = { cx, cy, r, sx, sy, k };
  }

  private drawAimLine(cue: Vec2, c: Contact, rpx: number, alpha: number): void {
    const ctx = this.ctx;
    const [cx, cy] = this.vp.toScreen(cue[0], cue[1]);
    const [gx, gy] = this.vp.toScreen(c.at[0], c.at[1]);
    ctx.save();
    ctx.globalAlpha = alpha;
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
    ctx.restore();
  }

  private drawCue(aim: AimView, rpx: number, alpha: number): void {
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
    ctx.globalAlpha = alpha;
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
  /** True when (clientX, clientY) falls inside the loupe. */
  private inLoupe(e: { clientX: number; clientY: number }): boolean {
    const l = this.loupe;
    if (!l) return false;
    const r = this.canvas.getBoundingClientRect();
    return Math.hypot(e.clientX - r.left - l.cx, e.clientY - r.top - l.cy) <= l.r;
  }

  /** The table point under the pointer; through the loupe when the press began in it. */
  private world(e: PointerEvent): Vec2 {
    const r = this.canvas.getBoundingClientRect();
    let x = e.clientX - r.left;
    let y = e.clientY - r.top;
    const l = this.loupe;
    const via = this.drag ? this.drag.loupe : this.inLoupe(e);
    if (l && via) {
      // a press in the loupe acts on the point it magnifies
      x = l.sx + (x - l.cx) / l.k;
      y = l.sy + (y - l.cy) / l.k;
    }
    return this.vp.toWorld(x, y);
  }

  private near(w: Vec2, q: Vec2, radius: number): boolean {
    return Math.hypot(w[0] - q[0], w[1] - q[1]) <= radius;
  }

  private down(e: PointerEvent): void {
    if (!this.preset) return;
    this.canvas.focus();
    this.drag = null;
    const w = this.world(e);
    const viaLoupe = this.inLoupe(e);
    const pick = this.cuePick();
    let mode: "pending" | "aim" | "place" | "pull" | "arrange" = "pending";
    const ball = this.canArrange ? this.ballAt(w) : null;
    if (this.aim && this.canPlace && this.near(w, this.aim.cue, pick)) mode = "place";
    else if (ball !== null) mode = "arrange";
    else if (this.aim && this.canAim && (this.near(w, this.aim.cue, pick) || this.onCue(e))) mode = "pull";
    this.drag = { mode, x: e.clientX, y: e.clientY, id: e.pointerId, loupe: viaLoupe, ball: ball ?? undefined };
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

  /** The ball drawn under table point `w` (within its radius and a few pixels), or null. */
  private ballAt(w: Vec2): number | null {
    let best: number | null = null;
    let bestD = this.R + 4 / this.vp.scale;
    for (const b of this.balls) {
      if (b.pocketed) continue;
      const d = Math.hypot(w[0] - b.x, w[1] - b.y);
      if (d <= bestD) {
        best = b.id;
        bestD = d;
      }
    }
    return best;
  }

  private move(e: PointerEvent): void {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    if (d.mode === "arrange") {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) > CLICK_SLOP_PX) this.handlers.onArrange?.(d.ball!, this.world(e), false);
      return;
    }
    if (!this.aim) return;
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
    const w = this.world(e);
    this.drag = null;
    // a press on the cue stick released where it began is a click: the stick is drawn over the
    // felt, so a ball or pocket under it must still be callable
    const still = Math.hypot(e.clientX - d.x, e.clientY - d.y) <= CLICK_SLOP_PX;
    if (d.mode === "pull" && !still) {
      this.handlers.onPullRelease(power);
      return;
    }
    if (d.mode === "arrange" && !still) {
      this.handlers.onArrange?.(d.ball!, w, true);
      return;
    }
    if (d.mode === "pull") this.handlers.onPullChange(0);
    else if (d.mode !== "pending" && d.mode !== "arrange") return;
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

/**
 * How far (px) from a ring of radius `r` to centre a label of `w` x `h` px along the unit direction (`ux`, `uy`)
 * so that the label's box starts `r / 3` clear of the ring: the box reaches `|ux| w/2 + |uy| h/2` back
 * toward the ring along that direction.
 */
export function labelOffset(r: number, ux: number, uy: number, w: number, h: number): number {
  return r * (4 / 3) + Math.abs(ux) * (w / 2) + Math.abs(uy) * (h / 2);
}

/** The distance (px) from point `p` to the segment `a`-`b`. */
function segmentDistance(p: [number, number], a: [number, number], b: [number, number]): number {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2)) : 0;
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/**
 * Where the loupe of radius `r` goes on a canvas of `w` x `h` px (`m` px from its edges): one of the four corners
 * or the middles of the two long sides, chosen in turn by what it would cover (QA: in the corner farthest from the
 * cue ball it covered the pocket being aimed at):
 * 1. clear of the cue ball and of the aim (`path`: the cue ball's line to its first contact, the object ball's line);
 * 2. clear of the other balls (`balls`, their centres);
 * 3. the farthest from the cue ball.
 * "Clear" means the point or line is at least the loupe's radius and a sixth of it from the loupe's centre.
 * Returns the loupe's centre (px).
 */
export function loupeSpot(w: number, h: number, r: number, m: number, cue: [number, number],
                          path: [number, number][][], balls: [number, number][]): [number, number] {
  const x0 = r + m, x1 = w - r - m, y0 = r + m, y1 = h - r - m;
  const spots: [number, number][] = [[x0, y0], [x1, y0], [x0, y1], [x1, y1]];
  spots.push(...(w >= h ? [[(x0 + x1) / 2, y0], [(x0 + x1) / 2, y1]] : [[x0, (y0 + y1) / 2], [x1, (y0 + y1) / 2]]) as [number, number][]);
  const clear = r * (7 / 6);
  const score = (c: [number, number]): [number, number, number] => {
    const aim = Math.min(Math.hypot(c[0] - cue[0], c[1] - cue[1]), ...path.map(([a, b]) => segmentDistance(c, a, b)));
    const others = Math.min(Infinity, ...balls.map((b) => Math.hypot(c[0] - b[0], c[1] - b[1])));
    return [Math.min(aim, clear), Math.min(others, clear), Math.hypot(c[0] - cue[0], c[1] - cue[1])];
  };
  let best = spots[0], bestScore = score(best);
  for (const c of spots.slice(1)) {
    const sc = score(c);
    const i = sc.findIndex((v, j) => v !== bestScore[j]);
    if (i >= 0 && sc[i] > bestScore[i]) [best, bestScore] = [c, sc];
  }
  return best;
}
