# cython: annotation_typing=False
"""Multi-discipline carom matches: pentathlon and triathlon (rules-carom C23, C25, C26).

A match is a sequence of games, one per discipline, played in a fixed order (C23); each game
follows its own discipline's rules and distance (:mod:`rules.carom_disciplines`). One match
record holds every game.

- Pentathlon: libre, balkline 47/1, one-cushion, balkline 71/2, three-cushion.
- Triathlon: balkline 47/2, one-cushion, three-cushion.
(The spec flags these lists for confirmation against the federation text; ``disciplines``
configures them.)

Who breaks (``multi_break_order``): ``alternate`` (the lag of game 1 decides, then the
breaker alternates from game to game) or ``lag_each`` (every game starts with its own lag).
In every game the breaker plays white (C3, C23).

Match result (configurable, C23): ``match_points`` per game for a win, a draw and a loss
(default 2/1/0); equal match points are decided by the sum over games of score / distance,
then by a deciding game (``decider``, default three-cushion to 5 with ``extra_inning``
tie-breaks so that it always has a winner).

The interface is the one of rules/README.md; actions go to the game in progress, and when it
ends the next one starts in the same call (the ruling says so in ``extras``).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import List, Mapping, Optional

from rules.base import GameBase, IllegalAction, Ruling, plain_copy
from rules.carom.config import DEFAULT_DISTANCE, OVER, pos_int
from rules.carom_disciplines import CAROM_GAMES

PENTATHLON = ("libre", "balkline_47_1", "one_cushion", "balkline_71_2", "three_cushion")
TRIATHLON = ("balkline_47_2", "one_cushion", "three_cushion")

#: configuration keys handed to every game of the match (spec section C)
GAME_KEYS = (
    "inning_limit",
    "limit_last_inning",
    "equalizing_inning",
    "draw_resolution",
    "anchors",
    "corner_zone_legs",
    "libre_frozen_reset",
    "break_red_first",
    "lag_mode",
    "shot_clock",
)



def _derive_seed(seed: int, index: int) -> int:
    h = hashlib.sha256(f"billar-multi:{seed}:{index}".encode()).digest()
    return int.from_bytes(h[:6], "big")


def multi_config(name: str, defaults, config: Optional[Mapping]) -> dict:
    """Full configuration of a multi-discipline match; ``ValueError`` naming the key on bad input.

    Keys: ``disciplines`` (list of carom discipline names), ``distances`` ({discipline: int},
    defaults C25), ``multi_break_order`` (``alternate`` | ``lag_each``), ``match_points``
    ([win, draw, loss]), ``decider`` (None or ``{"discipline", "distance"}``), ``breaker``
    (None or the seat that breaks game 1 without a lag), plus the game keys of
    :data:`GAME_KEYS`, passed to every game.
    """
    cfg = dict(config or {})
    out = {
        "discipline": name,
        "disciplines": list(defaults),
        "distances": {},
        "multi_break_order": "alternate",
        "match_points": [2, 1, 0],
        "decider": {"discipline": "three_cushion", "distance": 5},
        "breaker": None,
        "game": {},
    }
    for key, v in cfg.items():
        if key == "discipline":
            if v != name:
                raise ValueError(f"discipline: expected {name!r}, got {v!r}")
        elif key == "disciplines":
            if not isinstance(v, (list, tuple)) or not v or any(d not in CAROM_GAMES for d in v):
                raise ValueError(f"disciplines: must be a non-empty list of {sorted(CAROM_GAMES)}, got {v!r}")
            out[key] = list(v)
        elif key == "distances":
            if not isinstance(v, Mapping) or any(d not in CAROM_GAMES for d in v):
                raise ValueError(f"distances: must map carom disciplines to integers, got {v!r}")
            out[key] = {str(d): pos_int("distances", n) for d, n in v.items()}
        elif key == "multi_break_order":
            if v not in ("alternate", "lag_each"):
                raise ValueError(f"multi_break_order: must be 'alternate' or 'lag_each', got {v!r}")
            out[key] = v
        elif key == "match_points":
            if not isinstance(v, (list, tuple)) or len(v) != 3 or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
                raise ValueError(f"match_points: must be [win, draw, loss] integers, got {v!r}")
            if not v[0] > v[1] >= v[2]:
                raise ValueError(f"match_points: must satisfy win > draw >= loss, got {v!r}")
            out[key] = list(v)
        elif key == "decider":
            if v is None:
                out[key] = None
                continue
            if not isinstance(v, Mapping) or v.get("discipline", "three_cushion") not in CAROM_GAMES or set(v) - {"discipline", "distance"}:
                raise ValueError(f"decider: must be null or {{discipline, distance}}, got {v!r}")
            out[key] = {"discipline": v.get("discipline", "three_cushion"), "distance": pos_int("decider", v.get("distance", 5))}
        elif key == "breaker":
            if v is not None and (isinstance(v, bool) or v not in (0, 1)):
                raise ValueError(f"breaker: must be null, 0 or 1, got {v!r}")
            out[key] = v
        elif key in GAME_KEYS:
            out["game"][key] = plain_copy(v)
        elif key == "game":
            if not isinstance(v, Mapping) or set(v) - set(GAME_KEYS):
                raise ValueError(f"game: must hold only {list(GAME_KEYS)}, got {v!r}")
            out["game"].update(plain_copy(dict(v)))
        else:
            raise ValueError(f"{key}: unknown configuration key for {name}")
    for d in out["disciplines"]:
        out["distances"].setdefault(d, DEFAULT_DISTANCE[d])
    # validate the game keys once, on every discipline of the match
    for d in set(out["disciplines"]) | ({out["decider"]["discipline"]} if out["decider"] else set()):
        CAROM_GAMES[d](config=dict(out["game"], breaker=0))
    return out


class MultiGame(GameBase):
    """A pentathlon or triathlon match (see the module docstring).

    ``MultiGame(config=None, seed=0)``; the members of rules/README.md, plus ``game`` (the game
    in progress, a :class:`rules.carom.CaromGame`), ``games`` (records of the finished games),
    ``index`` (0-based position of the game in progress; ``len(disciplines)`` for a decider).
    """

    discipline = ""
    default_disciplines = ()

    def __init__(self, config: Optional[Mapping] = None, seed: int = 0):
        if not self.discipline:
            raise TypeError("MultiGame is abstract: use Pentathlon or Triathlon")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed: must be an integer, got {seed!r}")
        self.config = multi_config(self.discipline, self.default_disciplines, config)
        self.seed = int(seed)
        self.index = 0
        self.games: List[dict] = []
        self.result: Optional[dict] = None
        self.game = self._new_game(0, self.config["breaker"])

    # ----- games of the match --------------------------------------------------------------
    def _discipline_at(self, index: int):
        ds = self.config["disciplines"]
        if index < len(ds):
            d = ds[index]
            return d, self.config["distances"][d]
        dec = self.config["decider"]
        return dec["discipline"], dec["distance"]

    def _new_game(self, index: int, breaker: Optional[int]):
        d, dist = self._discipline_at(index)
        cfg = dict(self.config["game"])
        cfg["distance"] = dist
        cfg["breaker"] = breaker
        if index >= len(self.config["disciplines"]):
            cfg["draw_resolution"] = "extra_inning"  # a decider needs a winner
        return CAROM_GAMES[d](config=cfg, seed=_derive_seed(self.seed, index))

    def _after_action(self, ruling: Ruling) -> Ruling:
        """Close the game that just ended (if any), start the next one, and fix the ruling up."""
        if self.game.over:
            record = self._record(self.game)
            self.games.append(record)
            ruling.text = ruling.text.replace("Game over:", f"Game {self.index + 1} ({self.game.discipline}) over:")
            ruling.extras["discipline_over"] = True
            ruling.extras["game_result"] = plain_copy(record)
            nxt = self.index + 1
            if nxt < len(self.config["disciplines"]) or (nxt == len(self.config["disciplines"]) and self._tied()):
                if nxt == len(self.config["disciplines"]) and self.config["decider"] is None:
                    self._finish()
                else:
                    breaker = None
                    if self.config["multi_break_order"] == "alternate":
                        breaker = 1 - record["breaker"]
                    self.index = nxt
                    self.game = self._new_game(nxt, breaker)
                    d, dist = self._discipline_at(nxt)
                    who = "a lag decides who breaks" if breaker is None else f"seat {breaker} breaks and plays white"
                    ruling.text += f"; next game {nxt + 1}: {d} to {dist}, {who}"
            else:
                self._finish()
        ruling.game_over = self.over
        ruling.next_player = self.to_act
        ruling.options = [d["name"] for d in self.legal_actions()["decisions"]]
        ruling.winner = self.result["winner"] if self.result else None
        ruling.extras["match"] = self.match_table()
        ruling.extras["game_index"] = self.index
        ruling.extras["game_discipline"] = self.game.discipline
        if self.result is not None:
            ruling.extras["match_result"] = plain_copy(self.result)
            w = self.result["winner"]
            mp = self.result["match_points"]
            ruling.text += "; match over: " + ("draw" if w is None else f"seat {w} wins") + f" ({mp[0]}-{mp[1]} in match points)"
        return ruling

    def _record(self, game) -> dict:
        res = game.result
        mp = self.config["match_points"]
        if res["winner"] is None:
            pts = [mp[1], mp[1]]
        else:
            pts = [mp[2], mp[2]]
            pts[res["winner"]] = mp[0]
        return {
            "discipline": game.discipline,
            "distance": game.target,
            "breaker": game.white_seat,
            "decider": len(self.games) >= len(self.config["disciplines"]),
            "scores": list(res["scores"]),
            "innings": list(res["innings"]),
            "averages": list(res["averages"]),
            "high_runs": list(res["high_runs"]),
            "winner": res["winner"],
            "reason": res["reason"],
            "match_points": pts,
        }

    def _regular(self) -> List[dict]:
        return [g for g in self.games if not g["decider"]]

    def _totals(self):
        pts = [0, 0]
        frac = [Fraction(0), Fraction(0)]
        for g in self._regular():
            for s in (0, 1):
                pts[s] += g["match_points"][s]
                frac[s] += Fraction(g["scores"][s], g["distance"])
        return pts, frac

    def _tied(self) -> bool:
        pts, frac = self._totals()
        return pts[0] == pts[1] and frac[0] == frac[1]

    def _finish(self, winner: Optional[int] = None, reason: Optional[str] = None) -> None:
        pts, frac = self._totals()
        if reason is None:
            if pts[0] != pts[1]:
                winner, reason = (0 if pts[0] > pts[1] else 1), "match points"
            elif frac[0] != frac[1]:
                winner, reason = (0 if frac[0] > frac[1] else 1), "sum of score / distance"
            else:
                deciders = [g for g in self.games if g["decider"]]
                if deciders:
                    winner, reason = deciders[-1]["winner"], "deciding game"
                else:
                    winner, reason = None, "draw"
        pts_all = [0, 0]
        inn_all = [0, 0]
        best = [0.0, 0.0]
        for g in self.games:
            for s in (0, 1):
                pts_all[s] += g["scores"][s]
                inn_all[s] += g["innings"][s]
                best[s] = max(best[s], g["averages"][s])
        self.result = {
            "winner": winner,
            "draw": winner is None,
            "reason": reason,
            "match_points": pts,
            "score_fractions": [float(frac[0]), float(frac[1])],
            "scores": list(pts),
            "general_average": [round(pts_all[s] / inn_all[s], 3) if inn_all[s] else 0.0 for s in (0, 1)],
            "best_game_average": best,
            "games": plain_copy(self.games),
        }

    # ----- the game interface ----------------------------------------------------------------
    @property
    def table(self):
        return self.game.table

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def phase(self) -> str:
        return OVER if self.over else self.game.phase

    @property
    def to_act(self) -> Optional[int]:
        return None if self.over else self.game.to_act

    def layout(self):
        return self.game.layout()

    def cue_ball(self, seat: int) -> int:
        return self.game.cue_ball(seat)

    def lag_layout(self):
        return self.game.lag_layout()

    def table_zones(self):
        """Zone polygons of the game in progress (see :meth:`rules.carom.CaromGame.table_zones`)."""
        return self.game.table_zones()

    def legal_actions(self) -> dict:
        if self.over:
            return {"player": None, "phase": OVER, "shoot": None, "decisions": []}
        return self.game.legal_actions()

    def _check_open(self) -> None:
        if self.over:
            raise IllegalAction("game_over", "the match is over")

    def prepare_shot(self, player, call=None, cue_ball_position=None):
        self._check_open()
        return self.game.prepare_shot(player, call, cue_ball_position)

    def evaluate_stroke(self, player, sim) -> dict:
        self._check_open()
        return self.game.evaluate_stroke(player, sim)

    def _in_game(self, action, *args) -> Ruling:
        """Run ``action`` (a method of the game in progress) while the match is on, the whole match
        restored when it fails (:meth:`rules.base.GameBase._guarded`: the next game starts there)."""
        self._check_open()
        return self._guarded(action, *args)

    def apply_shot(self, player, call, sim) -> Ruling:
        """The stroke in the game in progress (see :meth:`rules.carom.CaromGame.apply_shot`)."""
        return self._in_game(self.game.apply_shot, player, call, sim)

    def apply_lag(self, sim) -> Ruling:
        return self._in_game(self.game.apply_lag, sim)

    def apply_decision(self, player, decision, arg=None) -> Ruling:
        return self._in_game(self.game.apply_decision, player, decision, arg)

    def clock_applies(self) -> bool:
        """The game in progress decides (:meth:`rules.base.GameBase.clock_applies`)."""
        return not self.over and self.game.clock_applies()

    def apply_timeout(self, player) -> Ruling:
        return self._in_game(self.game.apply_timeout, player)

    def apply_serious_foul(self, player, penalty=None, loss_of_game=False) -> Ruling:
        """K-F9 in the game in progress (:meth:`rules.carom.CaromGame.apply_serious_foul`); a loss of
        the game ends that game only, and the match goes on."""
        return self._in_game(self.game.apply_serious_foul, player, penalty, loss_of_game)

    def apply_forfeit(self, player, reason: str = "forfeit") -> Ruling:
        """Seat ``player`` forfeits the match: the game in progress and the match go to the other seat."""
        self._check_open()
        snap = self.to_state()
        try:
            ruling = self.game.apply_forfeit(player, reason)
            self.games.append(self._record(self.game))
            self._finish(1 - int(player), f"forfeit: {reason}")
            ruling.extras["discipline_over"] = True
            return self._after_action_closed(ruling)
        except BaseException:
            self._load(snap)
            raise

    def _after_action_closed(self, ruling: Ruling) -> Ruling:
        ruling.game_over = True
        ruling.next_player = None
        ruling.options = []
        ruling.winner = self.result["winner"]
        ruling.extras["match"] = self.match_table()
        ruling.extras["match_result"] = plain_copy(self.result)
        return ruling

    def match_table(self) -> dict:
        """``{"discipline", "index", "games": [records], "match_points": [a, b], "score_fractions": [a, b],
        "order": [disciplines]}``."""
        pts, frac = self._totals()
        return {
            "discipline": self.discipline,
            "index": self.index,
            "order": list(self.config["disciplines"]),
            "games": plain_copy(self.games),
            "match_points": pts,
            "score_fractions": [float(frac[0]), float(frac[1])],
        }

    def scores_now(self) -> List[int]:
        return self.game.scores_now()

    def scoreboard(self) -> dict:
        """The game in progress (:meth:`rules.carom.CaromGame.scoreboard`) plus ``"match"``: :meth:`match_table`."""
        board = self.game.scoreboard()
        board["game"] = board.pop("match")
        board["discipline"] = self.discipline
        board["game_discipline"] = self.game.discipline
        board["match"] = self.match_table()
        if self.over:
            board["phase"] = OVER
        return board

    # ----- state -----------------------------------------------------------------------------
    def to_state(self) -> dict:
        return {
            "version": self.state_version,
            "discipline": self.discipline,
            "config": plain_copy(self.config),
            "seed": self.seed,
            "index": self.index,
            "games": plain_copy(self.games),
            "game": self.game.to_state(),
            "result": plain_copy(self.result),
        }

    def _load(self, d: Mapping) -> None:
        cfg = dict(d["config"])
        game_keys = dict(cfg.pop("game", {}))
        cfg.pop("discipline", None)
        cfg.update(game_keys)
        self.config = multi_config(self.discipline, self.default_disciplines, cfg)
        self.seed = int(d["seed"])
        self.index = int(d["index"])
        self.games = plain_copy(list(d["games"]))
        g = d["game"]
        self.game = CAROM_GAMES[g["discipline"]].from_state(g)
        self.result = plain_copy(d["result"])



class Pentathlon(MultiGame):
    """Pentathlon (C23): libre, balkline 47/1, one-cushion, balkline 71/2, three-cushion."""

    discipline = "pentathlon"
    default_disciplines = PENTATHLON


class Triathlon(MultiGame):
    """Triathlon (C23): balkline 47/2, one-cushion, three-cushion."""

    discipline = "triathlon"
    default_disciplines = TRIATHLON


MULTI_GAMES = {cls.discipline: cls for cls in (Pentathlon, Triathlon)}
