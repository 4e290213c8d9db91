import { describe, expect, test } from "vitest";
import { labelOffset, loupeSpot } from "../src/ui/board";

/** The shortest distance from the point (0, 0) to the box of w x h centred at (cx, cy). */
function gapToBox(cx: number, cy: number, w: number, h: number): number {
  const dx = Math.max(0, Math.abs(cx) - w / 2), dy = Math.max(0, Math.abs(cy) - h / 2);
  return Math.hypot(dx, dy);
}

describe("the diamond readout beside a cushion ring", () => {
  test("its box keeps clear of the ring whatever the direction (QA: labels overlapped their rings)", () => {
    const r = 9, w = 42, h = 9; // "1 · 3.2" at the ring's size on a desktop table
    for (let deg = 0; deg < 360; deg += 7.5) {
      const ux = Math.cos((deg * Math.PI) / 180), uy = Math.sin((deg * Math.PI) / 180);
      const d = labelOffset(r, ux, uy, w, h);
      expect(gapToBox(ux * d, uy * d, w, h)).toBeGreaterThanOrEqual(r * (4 / 3) - 1e-9);
      // and not far away either: the box's near side is a third of a ring from the ring along the direction
      expect(d).toBeLessThanOrEqual(r * (4 / 3) + w / 2 + h / 2 + 1e-9);
    }
    // straight along a long cushion's text (horizontal), the old fixed 2.4 r from the centre overlapped
    expect(gapToBox(2.4 * r, 0, w, h)).toBeLessThan(r);
    expect(labelOffset(r, 1, 0, w, h)).toBe(r * (4 / 3) + w / 2);
  });
});

describe("where the loupe goes", () => {
  // an upright phone's canvas: 390 x 740 px, a loupe of radius 78 px, 6 px from the edges
  const W = 390, H = 740, r = 78, m = 6;
  const corners = { tl: [84, 84], tr: [306, 84], bl: [84, 656], br: [306, 656] };

  test("with nothing else on the table, in the corner farthest from the cue ball", () => {
    expect(loupeSpot(W, H, r, m, [300, 600], [], [[300, 600]])).toEqual(corners.tl);
    expect(loupeSpot(W, H, r, m, [100, 100], [], [[100, 100]])).toEqual(corners.br);
  });

  test("not over the pocket being aimed at (QA): the aim line runs into the far corner", () => {
    const cue: [number, number] = [300, 600];
    const spot = loupeSpot(W, H, r, m, cue, [[cue, [20, 20]]], [[300, 600]]);
    expect(spot).not.toEqual(corners.tl);
    // the spot chosen is clear of the aim line and of the cue ball
    const [cx, cy] = spot;
    const t = Math.max(0, Math.min(1, ((cx - 300) * -280 + (cy - 600) * -580) / (280 * 280 + 580 * 580)));
    expect(Math.hypot(cx - 300 + 280 * t, cy - 600 + 580 * t)).toBeGreaterThanOrEqual(r);
    expect(Math.hypot(cx - 300, cy - 600)).toBeGreaterThanOrEqual(r);
  });

  test("it keeps off the other balls when it can, and never covers the cue ball or the aim for them", () => {
    const cue: [number, number] = [300, 600];
    // a ball in the far corner: the loupe goes to another place clear of it
    const spot = loupeSpot(W, H, r, m, cue, [], [cue, [80, 90]]);
    expect(spot).not.toEqual(corners.tl);
    expect(Math.hypot(spot[0] - 80, spot[1] - 90)).toBeGreaterThanOrEqual(r);
    // balls everywhere but on the aim: clearing the aim comes first
    const everywhere: [number, number][] = Object.values(corners).map(([x, y]) => [x, y]);
    const s2 = loupeSpot(W, H, r, m, cue, [[cue, [300, 40]]], [cue, ...everywhere]);
    expect(Math.hypot(s2[0] - 300, s2[1] - 600)).toBeGreaterThanOrEqual(r);
    expect(Math.abs(s2[0] - 300)).toBeGreaterThanOrEqual(r); // not on the vertical aim line x = 300
  });

  test("sideways the middles of the long sides are candidates", () => {
    const spot = loupeSpot(844, 420, 84, 6, [90, 90], [[[90, 90], [754, 330]]], [[90, 90], [754, 90], [90, 330], [754, 330]]);
    // every corner holds a ball; both middles are clear of the diagonal aim: the one farther from the cue ball
    expect(spot).toEqual([422, 330]);
  });
});
