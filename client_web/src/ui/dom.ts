/** Small DOM helpers (no framework). */

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** Create an element: attributes (on* keys become listeners), then children (strings become text). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string | null | undefined | false)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (k === "class") el.className = String(v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return el;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function fmt(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "-";
  return n.toFixed(digits);
}

/** Transient message at the bottom of the screen. */
export function toast(text: string, kind: "info" | "error" = "info"): void {
  const box = document.getElementById("toasts");
  if (!box) return;
  // the same words again replace the toast that says them (QA: nine "chat: too many lines" stacked over the page)
  for (const old of Array.from(box.children)) if (old.textContent === text && old.classList.contains(kind)) old.remove();
  const el = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
  box.append(el);
  setTimeout(() => el.classList.add("fade"), 4000);
  setTimeout(() => el.remove(), 4800);
}

/** The non-null children (for replaceChildren with optional parts). */
export function kids(...c: (Node | string | null | undefined | false)[]): (Node | string)[] {
  return c.filter((x): x is Node | string => x !== null && x !== undefined && x !== false);
}

/**
 * Scroll `el` (a table's canvas) into view when less than half of it is on the screen: a stroke played or replayed
 * there would not be seen (QA: on a phone the page stayed on the stroke panel or the list of strokes).
 */
export function bringIntoView(el: Element): void {
  const r = el.getBoundingClientRect();
  const seen = Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0);
  if (r.height > 0 && seen < r.height / 2) el.scrollIntoView?.({ block: "start" });
}
