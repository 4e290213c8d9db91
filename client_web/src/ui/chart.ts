/** The rating-over-time chart of a profile: an SVG line drawn from the API's rating history (scaled by players/model.ts). */

import { ChartPoint, chartScale } from "../players/model";

const NS = "http://www.w3.org/2000/svg";
const W = 600;
const H = 200;
const PAD = 34;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function day(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 10);
}

/** An SVG (scales to its box's width) of `points`, oldest first; `label` names it for screen readers. */
export function ratingChart(points: ChartPoint[], label: string): SVGSVGElement {
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img", "aria-label": label, preserveAspectRatio: "xMidYMid meet" });
  const sc = chartScale(points, W, H, PAD);
  for (const t of sc.ticks) {
    root.append(svg("line", { x1: PAD, x2: W - PAD / 2, y1: t.y, y2: t.y, class: "grid" }));
    root.append(svg("text", { x: PAD - 4, y: t.y + 4, "text-anchor": "end", class: "tick" }, String(t.value)));
  }
  if (points.length) {
    root.append(svg("text", { x: PAD, y: H - 8, class: "tick" }, day(points[0].t)));
    if (points.length > 1) root.append(svg("text", { x: W - PAD, y: H - 8, "text-anchor": "end", class: "tick" }, day(points[points.length - 1].t)));
  }
  root.append(svg("polyline", { points: sc.xy.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "), class: "line" }));
  sc.xy.forEach(([x, y], i) => {
    const dot = svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 3.5, class: "dot" });
    dot.append(svg("title", {}, `${day(points[i].t)}: ${Math.round(points[i].rating)}`));
    root.append(dot);
  });
  root.dataset.points = String(points.length);
  return root;
}
