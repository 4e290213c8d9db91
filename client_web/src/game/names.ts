/** Human words for discipline names, decisions, phases and pockets. */

export const DISCIPLINES: { id: string; label: string; kind: "pool" | "carom" }[] = [
  { id: "straight_pool", label: "14.1 continuous", kind: "pool" },
  { id: "three_cushion", label: "Three-cushion", kind: "carom" },
  { id: "one_cushion", label: "One-cushion", kind: "carom" },
  { id: "libre", label: "Straight rail (libre)", kind: "carom" },
  { id: "balkline_47_2", label: "Balkline 47/2", kind: "carom" },
  { id: "balkline_47_1", label: "Balkline 47/1", kind: "carom" },
  { id: "balkline_71_2", label: "Balkline 71/2", kind: "carom" },
  { id: "pentathlon", label: "Pentathlon", kind: "carom" },
  { id: "triathlon", label: "Triathlon", kind: "carom" },
];

export function disciplineLabel(id: string): string {
  return DISCIPLINES.find((d) => d.id === id)?.label ?? id.replace(/_/g, " ");
}

export const POCKET_NAMES: Record<string, string> = {
  HR: "head right",
  HL: "head left",
  SR: "side right",
  SL: "side left",
  FR: "foot right",
  FL: "foot left",
};

/**
 * Words for a decision the referee offers. `seat` is the deciding player's seat, `arg` the
 * argument of the option (a seat, a ball number, a spot name...).
 */
export function decisionLabel(name: string, arg: unknown, seat: number | null): string {
  switch (name) {
    case "CHOOSE_BREAKER":
      if (typeof arg === "number" && seat !== null) return arg === seat ? "I break" : "Opponent breaks";
      return `Seat ${arg} breaks`;
    case "ACCEPT_TABLE":
      return "Accept the table and play";
    case "REQUIRE_REBREAK":
      return "Make the opponent break again";
    case "RERACK_OFFENDER_BREAKS":
      return "Re-rack: the offender breaks";
    case "SPOT_REQUEST":
      return `Spot ball ${arg}`;
    case "OFFER_STALEMATE":
      return "Offer a stalemate";
    case "ACCEPT_STALEMATE":
      return "Accept the stalemate";
    case "DECLINE_STALEMATE":
      return "Decline the stalemate";
    case "EXTENSION":
      return "Take a time extension";
    case "STARTING_SPOT":
      return `Break from the ${arg} spot`;
    case "PLAY_ON":
      return "Play on (balls touching)";
    case "SET_UP":
      return "Set up the balls again";
    default: {
      const words = name.toLowerCase().replace(/_/g, " ");
      return arg === null || arg === undefined ? words : `${words}: ${String(arg)}`;
    }
  }
}

/**
 * A ruling's text with the player's name wherever it names a seat. The referees name seats by
 * index: "A" / "B" in 14.1 (rules/straight_pool.py `SEAT_NAMES`, indexed by seat) and "seat 0" /
 * "Seat 1" in the carom games (rules/carom.py, rules/multi.py). Only the display changes: the
 * server's text stays as it is stored (records compare it). `names[seat]` is the name in that
 * seat; a seat with no name keeps the referee's word. Single letters count as seats only in 14.1
 * and only where the referee writes them: a word of its own followed by a space or "'s".
 */
export function namedRuling(text: string, discipline: string, names: readonly (string | null | undefined)[]): string {
  const nameOf = (seat: number, word: string) => {
    const n = names[seat];
    return typeof n === "string" && n.trim() ? n : word;
  };
  if (DISCIPLINES.find((d) => d.id === discipline)?.kind === "pool") {
    return text.replace(/(^|[\s(;:,])([AB])(?=\s|'s\b)/g, (_m, pre: string, w: string) => pre + nameOf(w === "A" ? 0 : 1, w));
  }
  return text.replace(/\b[Ss]eat ([01])\b/g, (m, k: string) => nameOf(Number(k), m));
}

export const PHASES: Record<string, string> = {
  lag: "Lag for the break",
  break: "Opening break",
  play: "In play",
  decision: "Decision",
  choose_breaker: "Choose who breaks",
  over: "Game over",
};
