/**
 * Drawing the table (from the preset the server sends, Table.to_json()) and the balls on a 2D canvas.
 *
 * The static layer (rails, cushions, pockets and jaws, felt, diamonds, spots, head string, zone
 * lines) is drawn once per size into an offscreen canvas; every frame copies it and draws the
 * balls and overlays. Paths are given in metres through the Viewport transform, so proportions
 * are the preset's own; text is drawn in screen pixels.
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

  // wooden rail with a soft edge
  const r0 = rail;
  ctx.fillStyle = COLORS.woodEdge;
  roundRect(ctx, -r0, -r0, L + 2 * r0, W + 2 * r0, 0.035);
  ctx.fill();
  ctx.fillStyle = COLORS.wood;
  roundRect(ctx, -r0 + 4 * px, -r0 + 4 * px, L + 2 * r0 - 8 * px, W + 2 * r0 - 8 * px, 0.03);
  ctx.fill();
  // cloth-covered cushions, then the bed
  ctx.fillStyle = COLORS.cushion;
  ctx.fillRect(-cushion, -cushion, L + 2 * cushion, W + 2 * cushion);
  ctx.fillStyle = COLORS.felt;
  ctx.fillRect(0, 0, L, W);

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
      ctx.fillStyle = COLORS.pocket;
      ctx.beginPath();
      ctx.arc(pk.centre[0], pk.centre[1], pk.radius, 0, 2 * Math.PI);
      ctx.fill();
      ctx.restore();
    }
  }
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

/**
 * One ball in screen pixels (the ctx transform must be the identity scaled by dpr): pool balls
 * numbered, 9-15 striped; carom balls plain white, yellow, red. `alpha` fades pocketed balls.
 */
export function drawBall(ctx: CanvasRenderingContext2D, kind: string, id: number, sx: number, sy: number, r: number, alpha = 1): void {
  ctx.save();
  ctx.globalAlpha = alpha;
  // contact shadow
  ctx.fillStyle = "rgba(0,0,0,0.28)";
  ctx.beginPath();
  ctx.arc(sx + r * 0.12, sy + r * 0.16, r, 0, 2 * Math.PI);
  ctx.fill();
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
  if (kind === "pool" && id > 0 && r >= 5) {
    ctx.fillStyle = "#fbfaf4";
    ctx.beginPath();
    ctx.arc(sx, sy, r * 0.5, 0, 2 * Math.PI);
    ctx.fill();
    ctx.fillStyle = "#111";
    ctx.font = `600 ${Math.max(6, Math.round(r * 0.62))}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(String(id), sx, sy + r * 0.04);
  }
  // shading: a soft highlight and a darker rim
  const g = ctx.createRadialGradient(sx - r * 0.35, sy - r * 0.4, r * 0.05, sx, sy, r);
  g.addColorStop(0, "rgba(255,255,255,0.55)");
  g.addColorStop(0.25, "rgba(255,255,255,0.0)");
  g.addColorStop(0.8, "rgba(0,0,0,0.0)");
  g.addColorStop(1, "rgba(0,0,0,0.35)");
  ctx.fillStyle = g;
  ctx.beginPath();
  ctx.arc(sx, sy, r, 0, 2 * Math.PI);
  ctx.fill();
  ctx.restore();
}
