/**
 * Diamond readout: where the cue ball met each cushion, in diamond units (the twin of
 * rules/carom/diamonds.py; client_web/test/diamonds.test.ts checks both give the same numbers on the
 * golden logs).
 *
 * Convention (the table frame of DESIGN.md; corners count 0): a long rail reads 8·x/L, 0 at the
 * bottom rail (B) to 8 at the top rail (T); a short rail reads 4·y/W, 0 at the right long rail (R)
 * to 4 at the left one (Lf); one decimal, half away from zero. The contact is the ball's centre
 * projected on the cushion's nose line. Diamond systems count the same grid (Alciatore, TP 7.2,
 * "Corner-5 three-rail diamond system", billiards.colostate.edu; Byrne's Standard Book of Pool and
 * Billiards): the table's sight marks every L/8 and W/4.
 */

import type { ShotLog } from "../physics/shotlog";

export interface DiamondContact {
  /** 1, 2, 3... the cue ball's cushion contacts in log order (as the trails number them) */
  n: number;
  cushion: string;
  rail: "long" | "short";
  /** one decimal */
  diamond: number;
}

export interface RailGeometry {
  length: number;
  width: number;
  cushions: { name: string; normal: [number, number] | number[] }[];
}

export const LONG_DIAMONDS = 8;
export const SHORT_DIAMONDS = 4;

/** `v` rounded to one decimal, half away from zero (the same float operations as the Python). */
export function round1(v: number): number {
  const s = v < 0 ? -1 : 1;
  return (s * Math.floor(Math.abs(v) * 10 + 0.5)) / 10;
}

/** [rail, unrounded diamond] of a ball centred at (x, y) touching straight cushion `cushion`; null for a jaw or facing. */
export function diamondAt(preset: RailGeometry, cushion: string, x: number, y: number): ["long" | "short", number] | null {
  const c = preset.cushions.find((k) => k.name === cushion);
  if (!c) return null;
  const [nx, ny] = c.normal;
  if (Math.abs(ny) > 0.99) return ["long", (LONG_DIAMONDS * x) / preset.length];
  if (Math.abs(nx) > 0.99) return ["short", (SHORT_DIAMONDS * y) / preset.width];
  return null;
}

/** The struck ball of a log (its first strike event), or null. */
export function strokeCueBall(log: Pick<ShotLog, "events">): number | null {
  for (const e of log.events) if (e.kind === "strike" && e.balls.length) return e.balls[0];
  return null;
}

/** The diamond readout of `ball` (default: the stroke's cue ball) over `log`. */
export function cushionDiamonds(preset: RailGeometry, log: Pick<ShotLog, "events">, ball?: number): DiamondContact[] {
  const id = ball ?? strokeCueBall(log);
  if (id === null) return [];
  const out: DiamondContact[] = [];
  let n = 0;
  for (const e of log.events) {
    if (e.kind !== "ball_cushion" || !e.balls.includes(id)) continue;
    const s = e.states.get(id);
    if (!s) continue;
    n++;
    if (e.cushion === null) continue;
    const d = diamondAt(preset, e.cushion, s.rx, s.ry);
    if (!d) continue;
    out.push({ n, cushion: e.cushion, rail: d[0], diamond: round1(d[1]) });
  }
  return out;
}

/** A trail label: "1 · 3.5". */
export function diamondLabel(c: { n: number; diamond: number }): string {
  return `${c.n} · ${c.diamond.toFixed(1)}`;
}

/** The readout in words, as the stroke history shows it (the Python readout_text): "1 Lf 1.8, 2 R 2.3". */
export function readoutText(r: readonly { n: number; cushion: string; diamond: number }[]): string {
  return r.map((d) => `${d.n} ${d.cushion} ${d.diamond.toFixed(1)}`).join(", ");
}
