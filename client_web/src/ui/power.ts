/**
 * The power slider's travel: positions 0..1 map to the cue ball's speed on the bed (m/s), piecewise
 * linear in four equal quarters that match how players name a stroke: soft (up to 1 m/s, a lag or
 * a touch), medium (to 2.5 m/s), firm (to 5 m/s) and break (to 15 m/s). A linear slider over the
 * cue speeds 0.1-10 m/s put every normal stroke into its first quarter (issue 14).
 */

/** Slider position -> cue-ball speed (m/s) at the ends of the quarters. */
export const POWER_ANCHORS: readonly [number, number][] = [
  [0.0, 0.1],
  [0.25, 1.0],
  [0.5, 2.5],
  [0.75, 5.0],
  [1.0, 15.0],
];

/** The names of the quarters, slowest first. */
export const POWER_BANDS = ["soft", "medium", "firm", "break"] as const;
export type PowerBand = (typeof POWER_BANDS)[number];

export const SPEED_MIN = POWER_ANCHORS[0][1];
export const SPEED_MAX = POWER_ANCHORS[POWER_ANCHORS.length - 1][1];

/** Cue-ball speed (m/s) at slider position `pos` (clamped to 0..1). */
export function speedAt(pos: number): number {
  const p = Math.min(1, Math.max(0, pos));
  for (let i = 1; i < POWER_ANCHORS.length; i++) {
    const [p1, s1] = POWER_ANCHORS[i];
    if (p <= p1) {
      const [p0, s0] = POWER_ANCHORS[i - 1];
      return s0 + ((p - p0) / (p1 - p0)) * (s1 - s0);
    }
  }
  return SPEED_MAX;
}

/** Slider position (0..1) of a cue-ball speed (m/s): the inverse of `speedAt`, clamped. */
export function positionOf(speed: number): number {
  const v = Math.min(SPEED_MAX, Math.max(SPEED_MIN, speed));
  for (let i = 1; i < POWER_ANCHORS.length; i++) {
    const [p1, s1] = POWER_ANCHORS[i];
    if (v <= s1) {
      const [p0, s0] = POWER_ANCHORS[i - 1];
      return p0 + ((v - s0) / (s1 - s0)) * (p1 - p0);
    }
  }
  return 1;
}

/** The name of the quarter a speed falls in. */
export function bandOf(speed: number): PowerBand {
  const p = positionOf(speed);
  return POWER_BANDS[Math.min(POWER_BANDS.length - 1, Math.floor(p * POWER_BANDS.length))];
}
