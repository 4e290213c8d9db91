/**
 * The mapping between the table frame (metres; x along the long axis, y across, y up: DESIGN.md)
 * and the canvas (CSS pixels). A similarity: uniform scale, y flipped, and a quarter turn when
 * the canvas is taller than wide (the head end then at the bottom).
 */

export interface Extent {
  /** world box to fit: [xmin, ymin, xmax, ymax] in metres */
  box: [number, number, number, number];
}

export class Viewport {
  /** CSS pixels per metre */
  scale = 1;
  /** long axis vertical */
  portrait = false;
  ox = 0;
  oy = 0;
  cssWidth = 1;
  cssHeight = 1;

  /** Fit `box` into a cssWidth x cssHeight canvas with `pad` CSS pixels around it. */
  fit(box: [number, number, number, number], cssWidth: number, cssHeight: number, pad = 8): void {
    this.cssWidth = cssWidth;
    this.cssHeight = cssHeight;
    const [x0, y0, x1, y1] = box;
    const bw = x1 - x0;
    const bh = y1 - y0;
    const w = Math.max(1, cssWidth - 2 * pad);
    const h = Math.max(1, cssHeight - 2 * pad);
    const sLand = Math.min(w / bw, h / bh);
    const sPort = Math.min(w / bh, h / bw);
    this.portrait = sPort > sLand * 1.15;
    if (!this.portrait) {
      this.scale = sLand;
      this.ox = (cssWidth - bw * sLand) / 2 - x0 * sLand;
      this.oy = (cssHeight + bh * sLand) / 2 + y0 * sLand;
    } else {
      this.scale = sPort;
      // sx = ox - y s ; sy = oy - x s
      this.ox = (cssWidth + bh * sPort) / 2 + y0 * sPort;
      this.oy = (cssHeight + bw * sPort) / 2 + x0 * sPort;
    }
  }

  toScreen(x: number, y: number): [number, number] {
    if (!this.portrait) return [this.ox + x * this.scale, this.oy - y * this.scale];
    return [this.ox - y * this.scale, this.oy - x * this.scale];
  }

  toWorld(sx: number, sy: number): [number, number] {
    if (!this.portrait) return [(sx - this.ox) / this.scale, (this.oy - sy) / this.scale];
    return [(this.oy - sy) / this.scale, (this.ox - sx) / this.scale];
  }

  /** A direction in the world (radians CCW from +x) as seen on screen (radians, canvas convention: y down). */
  screenAngle(worldAngle: number): number {
    const a = this.portrait ? worldAngle + Math.PI / 2 : worldAngle;
    return -a;
  }

  /** Canvas transform (device pixels) that draws paths given in metres. */
  apply(ctx: CanvasRenderingContext2D, dpr: number): void {
    const s = this.scale * dpr;
    if (!this.portrait) ctx.setTransform(s, 0, 0, -s, this.ox * dpr, this.oy * dpr);
    else ctx.setTransform(0, -s, -s, 0, this.ox * dpr, this.oy * dpr);
  }
}
