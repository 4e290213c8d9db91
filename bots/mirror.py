"""A local referee kept in step with a table's stream, so a networked bot can think with the real rules.

The server sends every stroke's exact event log (float64, protocol/eventlog.py), the ruling
and the new position; the referees are deterministic. A client that replays each stream
message through its own copy of the game (``apply_shot`` / ``apply_lag`` on the decoded
:class:`physics.SimResult`, ``apply_decision``, ``apply_timeout``, ``apply_forfeit``) therefore
holds the same game as the server, and the shot-selection engine can judge candidates with it.

One thing the stream does not carry is the match seed, which 14.1 uses only to draw the order of
the balls in a rack (rules-14-1 R4, ``wpa_random``). After every message the mirror compares
its position with the server's ``state`` (phase, seat to act, layout): for 14.1, a layout that
holds the same ball positions under other numbers is a rack drawn in another order and is
taken from the server; any other difference raises :class:`MirrorError` (a bug on one side).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional

from physics.events import SimResult
from protocol.eventlog import decode_log, preset_ids
from rules.registry import game_from_state, new_game

TOL = 1e-9  # m, positions equal on the wire (float64 round trip is exact; this only absorbs nothing)


class MirrorError(RuntimeError):
    """The local game and the server's stream disagree (or a stream message cannot be replayed)."""


class Mirror:
    """The game of one table, rebuilt from its ``table_snapshot`` and every stream message after it.

    ``game``: the local referee game (the interface of rules/README.md); ``v``: the last version
    applied. A snapshot taken at the start of a game (version of the seat changes only, no stroke
    played) is required: a game joined midway cannot be rebuilt, and :meth:`reset` raises
    :class:`MirrorError` then.
    """

    def __init__(self, snapshot: Mapping[str, Any]):
        self.game: Any = None
        self.v = 0
        self.reset(snapshot)

    def reset(self, snapshot: Mapping[str, Any]) -> None:
        """Start over from a ``table_snapshot`` (a new table, or a rematch)."""
        cushions, pockets = preset_ids(snapshot["preset"])
        self._names = ({i: n for n, i in cushions.items()}, {i: n for n, i in pockets.items()})
        self.discipline = snapshot["discipline"]
        self.game = new_game(self.discipline, snapshot["config"], 0)
        self.v = int(snapshot["v"])
        self._sync(snapshot["state"])

    def sim_of(self, log: Mapping[str, Any]) -> SimResult:
        """The :class:`physics.SimResult` of a wire event log."""
        return SimResult.from_json(decode_log(log, *self._names))

    def apply(self, msg: Mapping[str, Any]) -> None:
        """Replay one stream message (``stroke``, ``ruling``, ``table_snapshot``; others change no game).

        Raises :class:`MirrorError` when the replay is refused or ends in another position.
        """
        t = msg["type"]
        if t == "table_snapshot":
            self.reset(msg)
            return
        try:
            if t == "stroke":
                sim = self.sim_of(msg["log"])
                shots = msg["shots"]
                if len(shots) == 2:
                    self.game.apply_lag(sim)
                else:
                    self.game.apply_shot(shots[0]["seat"], shots[0]["call"], sim)
            elif t == "ruling":
                cause, seat = msg["cause"], msg["seat"]
                if cause == "decision":
                    d = msg["decision"]
                    arg = tuple(d["arg"]) if isinstance(d["arg"], list) else d["arg"]
                    self.game.apply_decision(seat, d["name"], arg)
                elif cause == "timeout":
                    self.game.apply_timeout(seat)
                else:  # resign, claim, abandon: ``seat`` is the seat that forfeits
                    self.game.apply_forfeit(seat, {"resign": "resigned", "claim": "abandoned"}.get(cause, "left"))
        except MirrorError:
            raise
        except Exception as exc:
            raise MirrorError(f"v{msg.get('v')}: the local referee refused the {t}: {exc}") from exc
        if "v" in msg:
            self.v = int(msg["v"])
        if "state" in msg:
            self._sync(msg["state"])

    def _sync(self, state: Mapping[str, Any]) -> None:
        g = self.game
        view = {int(k): (float(p[0]), float(p[1])) for k, p in state["layout"].items()}
        if g.phase != state["phase"] or g.to_act != state["to_act"] or bool(g.over) != bool(state["over"]):
            raise MirrorError(f"v{self.v}: local phase {g.phase}/{g.to_act}, server {state['phase']}/{state['to_act']}")
        mine = g.layout()
        if _same(mine, view):
            return
        if self.discipline == "straight_pool" and _same_places(mine, view):
            st = g.to_state()
            st["balls"] = {str(b): [p[0], p[1]] for b, p in sorted(view.items())}
            self.game = game_from_state(st)
            return
        raise MirrorError(f"v{self.v}: local layout differs from the server's")


def _same(a: Mapping[int, Any], b: Mapping[int, Any]) -> bool:
    return set(a) == set(b) and all(abs(a[k][0] - b[k][0]) <= TOL and abs(a[k][1] - b[k][1]) <= TOL for k in a)


def _same_places(a: Mapping[int, Any], b: Mapping[int, Any]) -> bool:
    """The same positions (as a set), whatever the ball numbers; the cue ball (0) must match itself."""
    if set(a) != set(b) or (0 in a and not _same({0: a[0]}, {0: b[0]})):
        return False
    pa = sorted((round(p[0], 9), round(p[1], 9)) for p in a.values())
    pb = sorted((round(p[0], 9), round(p[1], 9)) for p in b.values())
    return all(math.isclose(x[0], y[0], abs_tol=1e-8) and math.isclose(x[1], y[1], abs_tol=1e-8) for x, y in zip(pa, pb))


def target_config(discipline: str, target: Optional[int]) -> Dict[str, Any]:
    """The configuration that sets the game's target (``--target``): 14.1 ``target_points``, a carom
    discipline ``distance``, pentathlon/triathlon the ``distances`` of every discipline they play.
    Raises ``ValueError`` naming ``target`` for a value below 1."""
    if target is None:
        return {}
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise ValueError(f"target: expected a positive integer, got {target!r}")
    if discipline == "straight_pool":
        return {"target_points": target}
    if discipline in ("pentathlon", "triathlon"):
        g = new_game(discipline, {}, 0)
        return {"distances": {d: target for d in g.config["distances"]}}
    return {"distance": target}
