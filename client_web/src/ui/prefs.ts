/**
 * The player's display switches, remembered across visits (localStorage): ball trails and the aim
 * aid (both on unless turned off). Sound's mute switch lives with the sound (audio/sound.ts).
 */

export type PrefName = "trails" | "aimAid" | "spectatorChat";

const KEYS: Record<PrefName, string> = { trails: "billar.trails", aimAid: "billar.aimAid", spectatorChat: "billar.spectatorChat" };

/** Switches that are off until turned on (the others are on unless turned off). */
const OFF_BY_DEFAULT: ReadonlySet<PrefName> = new Set<PrefName>(["spectatorChat"]);

/** The switch `name`: its default (on; off for the spectators' chat) unless the player changed it. */
export function pref(name: PrefName): boolean {
  try {
    const v = localStorage.getItem(KEYS[name]);
    return OFF_BY_DEFAULT.has(name) ? v === "on" : v !== "off";
  } catch {
    return !OFF_BY_DEFAULT.has(name);
  }
}

export function setPref(name: PrefName, on: boolean): void {
  try {
    localStorage.setItem(KEYS[name], on ? "on" : "off");
  } catch {
    /* private mode: for this page only */
  }
}
