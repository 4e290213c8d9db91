/** The palette: dark green felt, cloth-covered cushions, dark wood rails; ball colours. */
export const COLORS = {
  page: "#0c1310",
  wood: "#3a2314",
  woodLight: "#4a2d19",
  woodEdge: "#1f120a",
  leather: "#5a3418",
  leatherDark: "#2a160a",
  pocketRim: "#1a1410",
  cushion: "#11502a",
  felt: "#1b6b39",
  feltDark: "#185f33",
  nose: "rgba(255,255,255,0.10)",
  pocket: "#050605",
  liner: "#141a16",
  diamond: "#efe6cc",
  spot: "rgba(255,255,255,0.55)",
  line: "rgba(255,255,255,0.28)",
  kitchen: "rgba(255,255,255,0.075)",
  aim: "rgba(255,255,255,0.75)",
  ghost: "rgba(255,255,255,0.55)",
  call: "#ffd34d",
  cue: "#d9b27c",
  trailCue: "#f4f1e6",
  trailLag: "#ff9d8a",
  aidObject: "rgba(255, 211, 77, 0.85)",
  aidTangent: "rgba(170, 215, 255, 0.8)",
} as const;

/** Pool ball colours, index = number (1-8 solids, 9-15 stripes share 1-7). */
const POOL = ["#f7f4ea", "#f2c40f", "#1d4fb8", "#d42a1e", "#5b2a86", "#f07a12", "#0f8a44", "#7d1d1d", "#121212"];

export const CUE_WHITE = "#f7f4ea";
export const CAROM_COLORS = ["#f7f4ea", "#f4c418", "#cc1f27"]; // white, yellow, red (ids 0, 1, 2)

export function poolBallColor(id: number): string {
  if (id === 0) return POOL[0];
  return POOL[id <= 8 ? id : id - 8];
}

export function isStripe(id: number): boolean {
  return id >= 9 && id <= 15;
}
