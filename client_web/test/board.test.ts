import { describe, expect, test } from "vitest";
import { labelOffset } from "../src/ui/board";

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
