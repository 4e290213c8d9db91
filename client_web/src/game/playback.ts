/**
 * Plays strokes from their event logs at the display's frame rate, in order, and holds back the
 * position, scores and ruling that follow each stroke until its animation ends (or is skipped),
 * so the score never spoils the shot. Rulings without a stroke are shown in turn.
 */

import type { Ball } from "../physics/motion";
import type { GameState, Ruling } from "../protocol/messages";
import type { PlayedStroke } from "./model";

export type Item = { kind: "stroke"; stroke: PlayedStroke; v: number } | { kind: "state"; state: GameState; ruling: Ruling | null; v: number };

export interface Shown {
  state: GameState;
  ruling: Ruling | null;
  v: number;
}

export class Playback {
  private queue: Item[] = [];
  private current: { stroke: PlayedStroke; v: number; start: number; duration: number; after: Shown | null } | null = null;
  /** simulated seconds per real second */
  speed = 1;

  constructor(
    private readonly show: (s: Shown) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get animating(): boolean {
    return this.current !== null;
  }

  /** Something is animating or waiting to be shown. */
  get busy(): boolean {
    return this.current !== null || this.queue.length > 0;
  }

  get playing(): PlayedStroke | null {
    return this.current?.stroke ?? null;
  }

  /** Drop everything queued (a snapshot replaces the position). */
  clear(): void {
    this.queue = [];
    this.current = null;
  }

  push(item: Item): void {
    this.queue.push(item);
    if (!this.current) this.advance();
  }

  /** Animate `stroke` again (replay the last shot); the shown position is unchanged at the end. */
  replay(stroke: PlayedStroke, shown: Shown): void {
    if (this.current) return;
    this.current = { stroke, v: shown.v, start: this.now(), duration: stroke.log.duration(), after: shown };
  }

  /** Jump to the end of the current animation and of everything queued behind it. */
  skip(): void {
    while (this.current) this.finish();
  }

  /** Ball states to draw now, or null when nothing is animating. Ends the animation when its time is up. */
  frame(): { stroke: PlayedStroke; balls: Map<number, Ball>; t: number } | null {
    const c = this.current;
    if (!c) return null;
    const t = ((this.now() - c.start) / 1000) * this.speed;
    if (t >= c.duration) {
      this.finish();
      return this.frame();
    }
    return { stroke: c.stroke, balls: c.stroke.log.at(t), t };
  }

  private finish(): void {
    const c = this.current!;
    this.current = null;
    this.show(c.after ?? { state: c.stroke.state, ruling: c.stroke.ruling, v: c.v });
    this.advance();
  }

  private advance(): void {
    while (!this.current && this.queue.length) {
      const it = this.queue.shift()!;
      if (it.kind === "state") {
        this.show({ state: it.state, ruling: it.ruling, v: it.v });
      } else {
        this.current = { stroke: it.stroke, v: it.v, start: this.now(), duration: it.stroke.log.duration(), after: null };
      }
    }
  }
}
