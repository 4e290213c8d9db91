/**
 * Drawing the table (from the preset the server sends, Table.to_json()) and the balls on a 2D canvas.
 *
 * The static layer (rails, cushions, pockets and jaws, felt, diamonds, spots, head string, zone
 * lines) is drawn once per size into an offscreen canvas; every frame copies it and draws the
 * balls and overlays. Paths are given in metres through the Viewport transform, so proportions
 * are the preset's own; text is drawn in screen pixels.
 *
 * The look: wooden rails with a grain, cloth with a faint weave and the light of a lamp over the
 * middle of the table (brighter there, falling off toward the cushions), pockets lined with
 * leather behind rubber-tipped jaws; balls shaded as lit from above left with a highlight and a
 * soft shadow on the cloth, their numbers large enough to read at any size.
 */

import type { Preset, Vec2, ZoneShape } from "../protocol/messages";
import { CAROM_COLORS, COLORS, isStripe, poolBallColor } from "./colors";
import { Viewport } from "./viewport";

/** Depth of the cushion band behind the nose (m) and the width of the wooden rail outside it (m). */
export function railGeometry(p: Preset): { cushion: number; rail: number } {
  // the sight diamonds sit on the rail at a known inset: the rail reaches a little beyond them
  let inset = 0;
  for (const d of p.diamonds) inset = Math.max(inset, -d[1], -d[0], d[0] - p.length, d[1] - p.width);
  const cushion = p.kind === "pool" ? 0.0508 : 0.045;
  const outer = Math.max(inset + 0.04, cushion + 0.06);
  return { cushion, rail: outer };
}

/** The world box the view fits: the table with its rails. */
export function tableBox(p: Preset): [number, number, number, number] {
  const { rail } = railGeometry(p);
  return [-rail, -rail, p.length + rail, p.width + rail];
}

function sub(a: Vec2, b: Vec2): Vec2 {
  return [a[0] - b[0], a[1] - b[1]];
}

/** Intersection of the lines p + s d and q + t e (null when parallel). */
function intersect(p: Vec2, d: Vec2, q: Vec2, e: Vec2): Vec2 | null {
  const den = d[0] * e[1] - d[1] * e[0];
  if (Math.abs(den) < 1e-15) return null;
  const w = sub(q, p);
  const s = (w[0] * e[1] - w[1] * e[0]) / den;
  return [p[0] + s * d[0], p[1] + s * d[1]];
}

export interface PocketMouth {
  name: string;
  /** the opening polygon: nose ends, jaw tips, facing ends (m) */
  polygon: Vec2[];
  /** the opening through the whole cushion band: for a corner pocket also the band's corner behind it */
  throat: Vec2[];
}

/** The mouths of the pockets: for each pocket its two facings and jaws, closed by the nose ends. */
export function pocketMouths(p: Preset): PocketMouth[] {
  const rails = p.cushions.filter((c) => !c.name.includes("."));
  const ends: { pt: Vec2; dir: Vec2 }[] = [];
  for (const r of rails) {
    const d = sub(r.p2, r.p1);
    ends.push({ pt: r.p1, dir: d }, { pt: r.p2, dir: d });
  }
  const out: PocketMouth[] = [];
  for (const pk of p.pockets) {
    const sides: Vec2[][] = [];
    for (let k = 0; k < 2; k++) {
      const jaw = p.jaws.find((j) => j.name === `${pk.name}.jaw${k}`);
      const face = p.cushions.find((c) => c.name === `${pk.name}.facing${k}`);
      if (!jaw || !face) continue;
      let best = ends[0];
      let bd = Infinity;
      for (const e of ends) {
        const dd = Math.hypot(e.pt[0] - jaw.centre[0], e.pt[1] - jaw.centre[1]);
        if (dd < bd) {
          bd = dd;
          best = e;
        }
      }
      const tip = intersect(best.pt, best.dir, face.p1, sub(face.p2, face.p1)) ?? face.p1;
      sides.push([best.pt, tip, face.p2]);
    }
    if (sides.length === 2) {
      const polygon = [...sides[0], ...sides[1].slice().reverse()];
      const { cushion } = railGeometry(p);
      const cx = pk.corner[0];
      const cy = pk.corner[1];
      const atCorner = (cx === 0 || cx === p.length) && (cy === 0 || cy === p.width);
      const back: Vec2 = [cx === 0 ? -cushion : cx + cushion, cy === 0 ? -cushion : cy + cushion];
      const throat = atCorner ? [...sides[0], back, ...sides[1].slice().reverse()] : polygon;
      out.push({ name: pk.name, polygon, throat });
    }
  }
  return out;
}

function polyPath(ctx: CanvasRenderingContext2D, pts: Vec2[]): void {
  ctx.beginPath();
  pts.forEach((q, i) => (i ? ctx.lineTo(q[0], q[1]) : ctx.moveTo(q[0], q[1])));
  ctx.closePath();
}

export interface StaticOptions {
  /** chalk lines of the discipline's restricted zones (balkline, corner zones, anchors) */
  zones?: ZoneShape[] | null;
  /** shade the kitchen (ball in hand behind the head string), x_max in m */
  kitchenXMax?: number | null;
}

/** Draw the static table (in metres through `vp`) onto `ctx` of a canvas of dpr-scaled size. */
export function drawTable(ctx: CanvasRenderingContext2D, p: Preset, vp: Viewport, dpr: number, opt: StaticOptions = {}): void {
  const L = p.length;
  const W = p.width;
  const px = 1 / vp.scale; // one CSS pixel in metres
  const { cushion, rail } = railGeometry(p);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = COLORS.page;
  ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  vp.apply(ctx, dpr);

  // wooden rail with a soft edge and a grain along it
  const r0 = rail;
  ctx.fillStyle = COLORS.woodEdge;
  roundRect(ctx, -r0, -r0, L + 2 * r0, W + 2 * r0, 0.035);
  ctx.fill();
  const wood = ctx.createLinearGradient(0, -r0, 0, W + r0);
  wood.addColorStop(0, COLORS.woodLight);
  wood.addColorStop(0.06, COLORS.wood);
  wood.addColorStop(0.94, COLORS.wood);
  wood.addColorStop(1, COLORS.woodLight);
  ctx.fillStyle = wood;
  roundRect(ctx, -r0 + 4 * px, -r0 + 4 * px, L + 2 * r0 - 8 * px, W + 2 * r0 - 8 * px, 0.03);
  ctx.fill();
  ctx.save();
  ctx.beginPath();
  ctx.rect(-r0, -r0, L + 2 * r0, W + 2 * r0);
  ctx.rect(-cushion, -cushion, L + 2 * cushion, W + 2 * cushion);
  ctx.clip("evenodd");
  ctx.strokeStyle = "rgba(0,0,0,0.16)";
  ctx.lineWidth = 1 * px;
  for (let k = 0; k < 9; k++) {
    // a few long grain lines on each rail, slightly wavy
    const f = (k + 0.5) / 9;
    for (const [y0, x0, len, along] of [[-r0 + f * (r0 - cushion), -r0, L + 2 * r0, true], [W + cushion + f * (r0 - cushion), -r0, L + 2 * r0, true], [-r0 + f * (r0 - cushion), -r0, W + 2 * r0, false], [L + cushion + f * (r0 - cushion), -r0, W + 2 * r0, false]] as [number, number, number, boolean][]) {
      ctx.beginPath();
      for (let t = 0; t <= 24; t++) {
        const u = x0 + (len * t) / 24;
        const v = y0 + 0.0015 * Math.sin(t * 1.7 + k * 2.3);
        if (along) t ? ctx.lineTo(u, v) : ctx.moveTo(u, v);
        else t ? ctx.lineTo(v, u) : ctx.moveTo(v, u);
      }
      ctx.stroke();
    }
  }
  ctx.restore();
  // cloth-covered cushions, then the bed: cloth with a weave, lit from above the middle
  ctx.fillStyle = COLORS.cushion;
  ctx.fillRect(-cushion, -cushion, L + 2 * cushion, W + 2 * cushion);
  ctx.fillStyle = COLORS.felt;
  ctx.fillRect(0, 0, L, W);
  ctx.save();
  ctx.beginPath();
  ctx.rect(-cushion, -cushion, L + 2 * cushion, W + 2 * cushion);
  ctx.clip();
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  const weave = clothPattern(ctx);
  if (weave) {
    ctx.fillStyle = weave;
    ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  }
  ctx.restore();
  // the lamp: an ellipse of light over the bed, darker toward the cushions (a few per cent)
  ctx.save();
  ctx.translate(L / 2, W / 2);
  ctx.scale(L / W, 1);
  const lamp = ctx.createRadialGradient(0, 0, 0, 0, 0, (W / 2) * 1.35);
  lamp.addColorStop(0, "rgba(255,255,240,0.035)");
  lamp.addColorStop(0.55, "rgba(255,255,240,0.0)");
  lamp.addColorStop(0.85, "rgba(0,0,0,0.05)");
  lamp.addColorStop(1, "rgba(0,0,0,0.12)");
  ctx.fillStyle = lamp;
  ctx.fillRect(-W, -W, 2 * W, 2 * W);
  ctx.restore();
  ctx.restore();

  const mouths = pocketMouths(p);
  for (const m of mouths) {
    // the throat between the facings: cloth on the bed, the dark pocket liner behind the noses
    ctx.fillStyle = COLORS.feltDark;
    polyPath(ctx, m.polygon);
    ctx.fill();
    ctx.save();
    ctx.beginPath();
    ctx.rect(-r0, -r0, L + 2 * r0, W + 2 * r0);
    ctx.rect(0, 0, L, W);
    ctx.clip("evenodd");
    ctx.fillStyle = COLORS.liner;
    polyPath(ctx, m.throat);
    ctx.fill();
    ctx.restore();
  }
  // the pockets' leather, set into the rail around each hole
  ctx.save();
  ctx.beginPath();
  ctx.rect(-r0, -r0, L + 2 * r0, W + 2 * r0);
  ctx.rect(-cushion, -cushion, L + 2 * cushion, W + 2 * cushion);
  ctx.clip("evenodd");
  for (const pk of p.pockets) {
    const lr = pk.radius + Math.max(0.014, 3 * px);
    const g = ctx.createRadialGradient(pk.centre[0], pk.centre[1], pk.radius * 0.9, pk.centre[0], pk.centre[1], lr);
    g.addColorStop(0, COLORS.leatherDark);
    g.addColorStop(0.6, COLORS.leather);
    g.addColorStop(1, COLORS.leatherDark);
    ctx.fillStyle = g;
    ctx.beginPath();
    ctx.arc(pk.centre[0], pk.centre[1], lr, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
  // pocket holes, seen through the mouth, over the bed and through the wooden rail
  for (const pk of p.pockets) {
    const m = mouths.find((q) => q.name === pk.name);
    const clips: ((c: CanvasRenderingContext2D) => void)[] = [
      (c) => c.rect(0, 0, L, W),
      (c) => {
        c.rect(-r0, -r0, L + 2 * r0, W + 2 * r0);
        c.rect(-cushion, -cushion, L + 2 * cushion, W + 2 * cushion);
      },
    ];
    if (m) clips.push((c) => m.throat.forEach((q, i) => (i ? c.lineTo(q[0], q[1]) : c.moveTo(q[0], q[1]))));
    for (const clip of clips) {
      ctx.save();
      ctx.beginPath();
      clip(ctx);
      ctx.closePath();
      ctx.clip("evenodd");
      const hole = ctx.createRadialGradient(pk.centre[0], pk.centre[1], pk.radius * 0.2, pk.centre[0], pk.centre[1], pk.radius);
      hole.addColorStop(0, COLORS.pocket);
      hole.addColorStop(0.8, COLORS.pocket);
      hole.addColorStop(1, COLORS.pocketRim);
      ctx.fillStyle = hole;
      ctx.beginPath();
      ctx.arc(pk.centre[0], pk.centre[1], pk.radius, 0, 2 * Math.PI);
      ctx.fill();
      ctx.restore();
    }
  }
  // the jaws: the rounded rubber tips of the cushions at the pocket mouths
  for (const j of p.jaws) {
    ctx.fillStyle = COLORS.cushion;
    ctx.beginPath();
    ctx.arc(j.centre[0], j.centre[1], j.radius, 0, 2 * Math.PI);
    ctx.fill();
  }
  // cushion noses and facings: a faint highlight line
  ctx.strokeStyle = COLORS.nose;
  ctx.lineWidth = 1.5 * px;
  for (const c of p.cushions) {
    ctx.beginPath();
    ctx.moveTo(c.p1[0], c.p1[1]);
    ctx.lineTo(c.p2[0], c.p2[1]);
    ctx.stroke();
  }

  // sight diamonds on the rail
  ctx.fillStyle = COLORS.diamond;
  const dsz = Math.max(0.008, 3 * px);
  for (const d of p.diamonds) {
    if (p.pockets.some((q) => Math.hypot(q.centre[0] - d[0], q.centre[1] - d[1]) < q.radius + dsz)) continue; // no sight mark over a pocket
    ctx.beginPath();
    ctx.moveTo(d[0] - dsz, d[1]);
    ctx.lineTo(d[0], d[1] + dsz * 0.7);
    ctx.lineTo(d[0] + dsz, d[1]);
    ctx.lineTo(d[0], d[1] - dsz * 0.7);
    ctx.closePath();
    ctx.fill();
  }

  // kitchen (ball in hand behind the head string)
  if (opt.kitchenXMax != null) {
    ctx.fillStyle = COLORS.kitchen;
    ctx.fillRect(0, 0, opt.kitchenXMax, W);
  }
  // head string (pool)
  ctx.strokeStyle = COLORS.line;
  ctx.lineWidth = 1 * px;
  if (p.kind === "pool") {
    ctx.setLineDash([6 * px, 5 * px]);
    ctx.beginPath();
    ctx.moveTo(p.head_string_x, 0);
    ctx.lineTo(p.head_string_x, W);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  // zone chalk lines (the sides that are not cushion noses)
  if (opt.zones) {
    ctx.strokeStyle = "rgba(255,255,255,0.42)";
    ctx.lineWidth = 1.2 * px;
    const on = 1e-9;
    const onCushion = (a: Vec2, b: Vec2) =>
      (Math.abs(a[0]) < on && Math.abs(b[0]) < on) ||
      (Math.abs(a[0] - L) < on && Math.abs(b[0] - L) < on) ||
      (Math.abs(a[1]) < on && Math.abs(b[1]) < on) ||
      (Math.abs(a[1] - W) < on && Math.abs(b[1] - W) < on);
    for (const z of opt.zones) {
      const v = z.vertices;
      for (let i = 0; i < v.length; i++) {
        const a = v[i];
        const b = v[(i + 1) % v.length];
        if (onCushion(a, b)) continue;
        ctx.beginPath();
        ctx.moveTo(a[0], a[1]);
        ctx.lineTo(b[0], b[1]);
        ctx.stroke();
      }
    }
  }
  // spots
  ctx.fillStyle = COLORS.spot;
  const sr = Math.max(0.004, 1.8 * px);
  for (const s of Object.values(p.spots)) {
    ctx.beginPath();
    ctx.arc(s[0], s[1], sr, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

function roundRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.lineTo(x + w - r, y);
  ctx.arcTo(x + w, y, x + w, y + r, r);
  ctx.lineTo(x + w, y + h - r);
  ctx.arcTo(x + w, y + h, x + w - r, y + h, r);
  ctx.lineTo(x + r, y + h);
  ctx.arcTo(x, y + h, x, y + h - r, r);
  ctx.lineTo(x, y + r);
  ctx.arcTo(x, y, x + r, y, r);
  ctx.closePath();
}

/** Base colour of ball `id` on a table of `kind`. */
export function ballColor(kind: string, id: number): string {
  return kind === "carom" ? CAROM_COLORS[id] ?? "#888" : poolBallColor(id);
}

/** The cloth's weave: a small tile of faint light and dark specks (fixed seed), as a pattern. */
let weaveTile: HTMLCanvasElement | null = null;
function clothPattern(ctx: CanvasRenderingContext2D): CanvasPattern | null {
  if (typeof document === "undefined") return null;
  if (!weaveTile) {
    const n = 96;
    weaveTile = document.createElement("canvas");
    weaveTile.width = n;
    weaveTile.height = n;
    const c = weaveTile.getContext("2d")!;
    const img = c.createImageData(n, n);
    let seed = 1414;
    for (let i = 0; i < n * n; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const v = seed / 0x7fffffff;
      // alternate rows lean light and dark a touch: the weave
      const row = Math.floor(i / n) % 2 ? 0.55 : 0.45;
      const light = v < row;
      img.data[4 * i] = light ? 255 : 0;
      img.data[4 * i + 1] = light ? 255 : 0;
      img.data[4 * i + 2] = light ? 255 : 0;
      img.data[4 * i + 3] = Math.round(2 + 6 * Math.abs(v - 0.5));
    }
    c.putImageData(img, 0, 0);
  }
  return ctx.createPattern(weaveTile, "repeat");
}

/** A ball's soft shadow on the cloth (lit from above left): drawn under every ball first. */
export function drawBallShadow(ctx: CanvasRenderingContext2D, sx: number, sy: number, r: number, alpha = 1): void {
  ctx.save();
  ctx.globalAlpha = alpha;
  const cx = sx + r * 0.22;
  const cy = sy + r * 0.3;
  const g = ctx.createRadialGradient(cx, cy, r * 0.3, cx, cy, r * 1.3);
  g.addColorStop(0, "rgba(0,0,0,0.42)");
  g.addColorStop(0.6, "rgba(0,0,0,0.22)");
  g.addColorStop(1, "rgba(0,0,0,0)");
  ctx.fillStyle = g;
  ctx.beginPath();
  ctx.arc(cx, cy, r * 1.3, 0, 2 * Math.PI);
  ctx.fill();
  ctx.restore();
}


/**
 * One ball in screen pixels (the ctx transform must be the identity scaled by dpr): pool balls
 * numbered, 9-15 striped; carom balls plain white, yellow, red. `alpha` fades pocketed balls;
 * `spotted` draws the red spots of the second 14.1 lag ball. The number sits on a white disc
 * when the ball is large enough for one (radius >= 9 px); on smaller balls it is drawn larger,
 * white with a dark edge, over the ball itself, so that it stays readable.
 */
export function drawBall(ctx: CanvasRenderingContext2D, kind: string, id: number, sx: number, sy: number, r: number, alpha = 1, spotted = false): void {
  ctx.save();
  ctx.globalAlpha = alpha;
  ctx.beginPath();
  ctx.arc(sx, sy, r, 0, 2 * Math.PI);
  ctx.closePath();
  const base = ballColor(kind, id);
  if (kind === "pool" && isStripe(id)) {
    ctx.fillStyle = "#f7f4ea";
    ctx.fill();
    ctx.save();
    ctx.clip();
    ctx.fillStyle = base;
    ctx.fillRect(sx - r, sy - r * 0.56, 2 * r, r * 1.12);
    ctx.restore();
  } else {
    ctx.fillStyle = base;
    ctx.fill();
  }
  if (spotted) {
    // the second lag ball of 14.1: a white ball with red spots (like a carom spot white)
    ctx.fillStyle = "#c8312a";
    for (const [dx, dy] of [[0, 0], [0.5, 0.25], [-0.5, 0.25], [0, -0.55]]) {
      ctx.beginPath();
      ctx.arc(sx + dx * r, sy + dy * r, Math.max(1.2, r * 0.16), 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  if (kind === "pool" && id > 0) {
    const label = String(id);
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    if (r >= 9) {
      ctx.fillStyle = "#fbfaf4";
      ctx.beginPath();
      ctx.arc(sx, sy, r * 0.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.fillStyle = "#111";
      ctx.font = `650 ${Math.round(r * (label.length > 1 ? 0.56 : 0.66))}px system-ui, sans-serif`;
      ctx.fillText(label, sx, sy + r * 0.05);
    } else {
      const size = Math.max(7, Math.round(r * (label.length > 1 ? 1.1 : 1.3)));
      ctx.font = `800 ${size}px system-ui, sans-serif`;
      ctx.lineJoin = "round";
      ctx.lineWidth = Math.max(2, size * 0.28);
      ctx.strokeStyle = "rgba(0,0,0,0.85)";
      ctx.strokeText(label, sx, sy + 0.5);
      ctx.fillStyle = "#fff";
      ctx.fillText(label, sx, sy + 0.5);
    }
  }
  // shading: lit from above left, a small bright highlight, darker toward the far rim
  const g = ctx.createRadialGradient(sx - r * 0.38, sy - r * 0.42, r * 0.02, sx - r * 0.1, sy - r * 0.1, r * 1.12);
  g.addColorStop(0, "rgba(255,255,255,0.75)");
  g.addColorStop(0.12, "rgba(255,255,255,0.22)");
  g.addColorStop(0.3, "rgba(255,255,255,0.0)");
  g.addColorStop(0.72, "rgba(0,0,0,0.0)");
  g.addColorStop(1, "rgba(0,0,0,0.42)");
  ctx.fillStyle = g;
  ctx.beginPath();
  ctx.arc(sx, sy, r, 0, 2 * Math.PI);
  ctx.fill();
  ctx.restore();
}
