/**
 * The table's sounds, made with the Web Audio API from a stroke's schedule (audio/schedule.ts):
 * short synthesized voices (no sound files) for the cue tip, ball clicks, cushion thuds, jaw
 * rattles and pocket drops, each started at its event's time and scaled by its gain.
 *
 * Browsers allow audio only after a user gesture: no AudioContext exists before the first
 * pointer press or key press on the page (`armOnFirstGesture`). Muting is remembered across
 * visits (localStorage "billar.muted").
 */

import type { Sound, SoundKind } from "./schedule";

const MUTE_KEY = "billar.muted";
/** A sound this late (real seconds) is still played when its clip is (re)scheduled. */
const LATE_S = 0.05;

function storedMute(): boolean {
  try {
    return localStorage.getItem(MUTE_KEY) === "1";
  } catch {
    return false;
  }
}

export class SoundBoard {
  private ctx: AudioContext | null = null;
  private out: GainNode | null = null;
  private noise: AudioBuffer | null = null;
  /** the nodes of what is scheduled now (stopped by `stop`) */
  private live: { src: AudioScheduledSourceNode; end: number }[] = [];
  private _muted = storedMute();
  private listeners: (() => void)[] = [];
  /** sounds started so far (for tests): kind and gain */
  /** the sounds heard or still to be heard: one cancelled by a later schedule before its time is dropped */
  played: { kind: SoundKind; gain: number; at: number }[] = [];

  /** Create the audio context at the page's first pointer or key press, as autoplay rules want. */
  armOnFirstGesture(target: EventTarget = window): void {
    const arm = () => {
      this.unlock();
      target.removeEventListener("pointerdown", arm, true);
      target.removeEventListener("keydown", arm, true);
    };
    target.addEventListener("pointerdown", arm, true);
    target.addEventListener("keydown", arm, true);
  }

  /** True once a user gesture has allowed sound. */
  get ready(): boolean {
    return this.ctx !== null;
  }

  get muted(): boolean {
    return this._muted;
  }

  set muted(m: boolean) {
    this._muted = m;
    try {
      localStorage.setItem(MUTE_KEY, m ? "1" : "0");
    } catch {
      /* private mode: for this page only */
    }
    if (m) this.stop();
    for (const f of this.listeners) f();
  }

  onChange(f: () => void): void {
    this.listeners.push(f);
  }

  private unlock(): void {
    if (this.ctx) return;
    const AC: typeof AudioContext | undefined = (window as any).AudioContext ?? (window as any).webkitAudioContext;
    if (!AC) return;
    this.ctx = new AC();
    this.out = this.ctx.createGain();
    this.out.gain.value = 0.8;
    this.out.connect(this.ctx.destination);
    const n = Math.floor(this.ctx.sampleRate * 0.5);
    this.noise = this.ctx.createBuffer(1, n, this.ctx.sampleRate);
    const d = this.noise.getChannelData(0);
    let seed = 12345;
    for (let i = 0; i < n; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      d[i] = (seed / 0x3fffffff - 1) * 0.9;
    }
    void this.ctx.resume?.();
    for (const f of this.listeners) f();
  }

  /** Stop everything scheduled. */
  stop(): void {
    const now = this.ctx?.currentTime ?? 0;
    for (const n of this.live) {
      if (n.end > now) {
        try {
          n.src.stop();
        } catch {
          /* not started yet or already stopped */
        }
      }
    }
    this.live = [];
    this.played = this.played.filter((p) => p.at <= now);
  }

  /**
   * Schedule the sounds of `sounds` that come at or after `from` s of the stroke (or at most
   * LATE_S before it), played at
   * `speed` simulated seconds per real second (slow motion spaces them out). Replaces what was
   * scheduled before. Nothing when muted or before the first user gesture.
   */
  play(sounds: readonly Sound[], from: number, speed: number): void {
    this.stop();
    const ctx = this.ctx;
    if (!ctx || this._muted || !(speed > 0)) return;
    const base = ctx.currentTime + 0.02;
    for (const s of sounds) {
      // a sound due a moment ago (the clip started a frame before this call) still plays, at once
      if (s.t < from - LATE_S * speed) continue;
      const at = base + Math.max(0, s.t - from) / speed;
      if (at - base > 30) break;
      this.voice(s.kind, s.gain, at);
      this.played.push({ kind: s.kind, gain: s.gain, at });
    }
  }

  private env(at: number, peak: number, decay: number): GainNode {
    const g = this.ctx!.createGain();
    g.gain.setValueAtTime(0.0001, at);
    g.gain.exponentialRampToValueAtTime(Math.max(0.0002, peak), at + 0.002);
    g.gain.exponentialRampToValueAtTime(0.0001, at + decay);
    g.connect(this.out!);
    return g;
  }

  private tone(freq: number, at: number, peak: number, decay: number, type: OscillatorType = "sine"): void {
    const o = this.ctx!.createOscillator();
    o.type = type;
    o.frequency.setValueAtTime(freq, at);
    o.connect(this.env(at, peak, decay));
    o.start(at);
    o.stop(at + decay + 0.02);
    this.live.push({ src: o, end: at + decay + 0.02 });
  }

  private burst(at: number, peak: number, decay: number, filter: BiquadFilterType, freq: number, q = 1): void {
    const ctx = this.ctx!;
    const src = ctx.createBufferSource();
    src.buffer = this.noise;
    const f = ctx.createBiquadFilter();
    f.type = filter;
    f.frequency.value = freq;
    f.Q.value = q;
    src.connect(f);
    f.connect(this.env(at, peak, decay));
    const off = (at * 7919) % 0.4; // a different stretch of the noise each time
    src.start(at, off, decay + 0.02);
    this.live.push({ src, end: at + decay + 0.02 });
  }

  private voice(kind: SoundKind, gain: number, at: number): void {
    const g = 0.05 + 0.95 * gain;
    switch (kind) {
      case "cue": // the leather tip on the ball: a dull knock
        this.burst(at, 0.5 * g, 0.035, "bandpass", 1400, 1.2);
        this.tone(520, at, 0.25 * g, 0.04, "triangle");
        break;
      case "click": // phenolic on phenolic: a bright, short click
        this.tone(3200 + 600 * gain, at, 0.45 * g, 0.03);
        this.burst(at, 0.35 * g, 0.012, "highpass", 2500);
        break;
      case "cushion": // rubber under cloth: a low thud
        this.tone(120, at, 0.5 * g, 0.09);
        this.burst(at, 0.3 * g, 0.05, "lowpass", 500);
        break;
      case "rattle": // the ball knocking between the jaws
        for (let k = 0; k < 3; k++) this.tone(850 - 120 * k, at + 0.025 * k, (0.35 * g) / (k + 1), 0.025, "triangle");
        break;
      case "pocket": // the drop into the pocket and a short roll
        this.tone(80, at, 0.6 * g, 0.16);
        this.burst(at, 0.35 * g, 0.22, "lowpass", 320);
        break;
    }
  }
}
