/**
 * Plays strokes from their event logs at the display's frame rate, in order, and holds back the
 * position, scores and ruling that follow each stroke until its animation ends (or is skipped),
 * so the score never spoils the shot. Rulings without a stroke are shown in turn.
 *
 * The clip being played can be paused, scrubbed to any time (`seek`), stepped from event to event
 * (collisions, cushions, pockets) and played at 0.1x to 4x. Positions at every time come from the
 * log's closed-form motion (ShotLog.at), the same as the animation. A replay (of the last shot or
 * of a history entry) shows the same position again when it ends, and gives way to a new stroke.
 */

import type { Ball } from "../physics/motion";
import type { ShotLog } from "../physics/shotlog";
import type { GameState, Ruling } from "../protocol/messages";
import type { PlayedStroke } from "./model";

export type Item = { kind: "stroke"; stroke: PlayedStroke; v: number } | { kind: "state"; state: GameState; ruling: Ruling | null; v: number };

export interface Shown {
  state: GameState;
  ruling: Ruling | null;
  v: number;
}

/** What is animated: an event log, with a key naming it (a stream version, a history index). */
export interface Clip {
  log: ShotLog;
  /** both players' lag balls in one log */
  lag: boolean;
  key: string;
}

/** The speeds offered (simulated seconds per real second). */
export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4] as const;

/** Event kinds a step goes to: what a player sees happen (not the motion transitions). */
const STEP_KINDS = new Set(["strike", "ball_ball", "ball_cushion", "ball_pocket"]);

/** The distinct times (s) of the collisions, cushion contacts and pocketings of a log, in order. */
export function stepTimes(log: ShotLog): number[] {
  const out: number[] = [];
  for (const e of log.events) if (STEP_KINDS.has(e.kind) && (out.length === 0 || e.t > out[out.length - 1])) out.push(e.t);
  return out;
}

interface Current<S> {
  clip: Clip;
  stroke: PlayedStroke | null;
  v: number;
  /** simulated time at wall time `start` (ms) */
  t0: number;
  start: number;
  paused: boolean;
  duration: number;
  /** for a replay: what to show again at its end; null: the stroke's own position */
  after: S | null;
}

export class Playback<S = Shown> {
  private queue: Item[] = [];
  private current: Current<S> | null = null;
  private _speed = 1;

  /**
   * `show` receives what to display when a clip ends: a replay's `after`, or for a live stroke
   * `toShown` of it (default: its state, ruling and version).
   */
  constructor(
    private readonly show: (s: S) => void,
    private readonly now: () => number = () => performance.now(),
    private readonly toShown: (it: { state: GameState; ruling: Ruling | null; v: number }) => S = (it) => it as unknown as S,
  ) {}

  get animating(): boolean {
    return this.current !== null;
  }

  /** Something is animating or waiting to be shown. */
  get busy(): boolean {
    return this.current !== null || this.queue.length > 0;
  }

  /** The live stroke being played (null for a replay or nothing). */
  get playing(): PlayedStroke | null {
    return this.current?.stroke ?? null;
  }

  /** The clip being played, or null. */
  get clip(): Clip | null {
    return this.current?.clip ?? null;
  }

  /** True while the clip is a replay (it ends by showing the position it started from). */
  get replaying(): boolean {
    return this.current !== null && this.current.after !== null;
  }

  get paused(): boolean {
    return this.current?.paused ?? false;
  }

  get duration(): number {
    return this.current?.duration ?? 0;
  }

  /** Simulated time (s) of the clip now, within [0, duration]. */
  get time(): number {
    const c = this.current;
    if (!c) return 0;
    const t = c.paused ? c.t0 : c.t0 + ((this.now() - c.start) / 1000) * this._speed;
    return Math.min(c.duration, Math.max(0, t));
  }

  get speed(): number {
    return this._speed;
  }

  /** Simulated seconds per real second; the clip goes on from where it is. */
  set speed(s: number) {
    if (!(s > 0) || !Number.isFinite(s)) return;
    const c = this.current;
    if (c && !c.paused) {
      c.t0 = this.time;
      c.start = this.now();
    }
    this._speed = s;
  }

  /** Drop everything queued (a snapshot replaces the position). */
  clear(): void {
    this.queue = [];
    this.current = null;
  }

  /** A live item: a replay in progress gives way to it (its position is shown first). */
  push(item: Item): void {
    if (this.current && this.current.after !== null) this.finish();
    this.queue.push(item);
    if (!this.current) this.advance();
  }

  /**
   * Animate `clip` again (the last shot, a history entry); `after` is shown when it ends. With
   * `at`, start at that time (s); with `paused`, hold there. Refused (false) while a live stroke
   * plays or waits.
   */
  replay(clip: Clip, after: S, opts: { at?: number; paused?: boolean } = {}): boolean {
    if (this.current?.stroke || this.queue.length) return false;
    const duration = clip.log.duration();
    this.current = { clip, stroke: null, v: -1, t0: Math.min(duration, Math.max(0, opts.at ?? 0)), start: this.now(), paused: !!opts.paused, duration, after };
    return true;
  }

  pause(): void {
    const c = this.current;
    if (!c || c.paused) return;
    c.t0 = this.time;
    c.paused = true;
  }

  /** Go on playing (from the start again when paused at the end). */
  play(): void {
    const c = this.current;
    if (!c || !c.paused) return;
    if (c.t0 >= c.duration) c.t0 = 0;
    c.start = this.now();
    c.paused = false;
  }

  toggle(): void {
    if (this.paused) this.play();
    else this.pause();
  }

  /** Show time `t` (s, clamped into the clip); keeps playing or paused as it was. */
  seek(t: number): void {
    const c = this.current;
    if (!c || !Number.isFinite(t)) return;
    c.t0 = Math.min(c.duration, Math.max(0, t));
    c.start = this.now();
  }

  /** Pause at the next (dir > 0) or previous event (collision, cushion, pocket); at the ends, the clip's ends. */
  step(dir: number): void {
    const c = this.current;
    if (!c) return;
    const t = this.time;
    const times = stepTimes(c.clip.log);
    const eps = 1e-9;
    let to: number;
    if (dir > 0) to = times.find((x) => x > t + eps) ?? c.duration;
    else {
      const before = times.filter((x) => x < t - eps);
      to = before.length ? before[before.length - 1] : 0;
    }
    this.pause();
    c.t0 = to;
  }

  /** Jump to the end of the current animation and of everything queued behind it. */
  skip(): void {
    while (this.current) this.finish();
  }

  /** Ball states to draw now, or null when nothing is animating. Ends the animation when its time is up (unless paused). */
  frame(): { clip: Clip; stroke: PlayedStroke | null; balls: Map<number, Ball>; t: number } | null {
    const c = this.current;
    if (!c) return null;
    const t = this.time;
    if (!c.paused && t >= c.duration) {
      this.finish();
      return this.frame();
    }
    return { clip: c.clip, stroke: c.stroke, balls: c.clip.log.at(t), t };
  }

  private finish(): void {
    const c = this.current!;
    this.current = null;
    this.show(c.after ?? this.toShown({ state: c.stroke!.state, ruling: c.stroke!.ruling, v: c.v }));
    this.advance();
  }

  private advance(): void {
    while (!this.current && this.queue.length) {
      const it = this.queue.shift()!;
      if (it.kind === "state") {
        this.show(this.toShown({ state: it.state, ruling: it.ruling, v: it.v }));
      } else {
        const clip = { log: it.stroke.log, lag: it.stroke.lag, key: `v${it.v}` };
        this.current = { clip, stroke: it.stroke, v: it.v, t0: 0, start: this.now(), paused: false, duration: it.stroke.log.duration(), after: null };
      }
    }
  }
}
