"""``billar referee DISCIPLINE --replay FILE.json [--json]``: re-judge a recorded game.

``FILE`` may be gzip-compressed (``FILE.json.gz``).

A record is the game as the server stores it::

    {"discipline": "straight_pool", "config": {...}, "seed": 12345,
     "strokes": [
        {"player": 0, "call": {"ball": 7, "pocket": "FL"} | {"safety": true} | null,
         "cue_ball_position": null | [x, y], "decision": null, "sim": SimResult.to_json(),
         "flags": [...] (optional), "ruling": {...} (optional: the ruling given at the time)},
        {"player": 1, "decision": {"name": "ACCEPT_TABLE", "arg": null}},
        {"lag": true, "sim": SimResult.to_json()},
        {"player": 0, "timeout": true},
        {"player": 1, "forfeit": "resigned"},
        {"admin": "serious_foul", "player": 0, "args": {...}}
     ]}

The referee of the discipline (rules/registry.py) is created from ``config`` and ``seed`` and
every entry is applied in order. The tool prints each entry's ruling and the final score; with
``--json`` one JSON object per entry, then one with the final result. When an entry carries the
ruling given at the time and the new ruling differs (scores, foul, next player, text, or the
warning where the record has one), the difference is reported and the exit status is 1. A
record that cannot be applied (an illegal action, a log that does not start from the referee's
layout) stops the replay with exit status 2 and names the entry.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from typing import Iterator, List, Mapping, Optional, TextIO, Tuple

from physics.events import SimResult
from rules.registry import canonical_name, new_game

SEATS = ("A", "B")
ADMIN_ACTIONS = ("serious_foul",)
COMPARED = ("scores", "foul", "next_player", "text", "warning")


def _seat(p) -> str:
    return SEATS[p] if p in (0, 1) else "-"


def _describe_call(call) -> str:
    if call is None:
        return "no call"
    if isinstance(call, Mapping) and call.get("safety"):
        return "safety"
    if isinstance(call, Mapping) and "ball" in call:
        return f"call {call['ball']} in {call.get('pocket')}"
    return f"call {call!r}"


def apply_entry(game, entry: Mapping) -> Tuple[str, Optional[int], str, object]:
    """Apply one record entry to ``game``; returns (kind, player, description, Ruling).

    Raises ``ValueError`` (``IllegalAction`` is one) when the entry is malformed or illegal.
    """
    if not isinstance(entry, Mapping):
        raise ValueError(f"expected an object, got {type(entry).__name__}")
    table = game.table
    if entry.get("lag"):
        sim = SimResult.from_json(entry["sim"], table)
        return "lag", None, "lag", game.apply_lag(sim)
    player = entry.get("player")
    if entry.get("admin") is not None:
        action = entry["admin"]
        if action not in ADMIN_ACTIONS or not hasattr(game, f"apply_{action}"):
            raise ValueError(f"admin: unknown action {action!r}")
        args = entry.get("args") or {}
        if not isinstance(args, Mapping):
            raise ValueError("args: expected an object")
        return "admin", player, action.replace("_", " "), getattr(game, f"apply_{action}")(player, **args)
    if entry.get("timeout"):
        return "timeout", player, "time-out", game.apply_timeout(player)
    if entry.get("forfeit"):
        return "forfeit", player, "forfeit", game.apply_forfeit(player, str(entry["forfeit"]))
    decision = entry.get("decision")
    if decision:
        if not isinstance(decision, Mapping) or "name" not in decision:
            raise ValueError("decision: expected {name, arg}")
        name, arg = decision["name"], decision.get("arg")
        desc = f"decision {name}" + (f" {arg}" if arg is not None else "")
        return "decision", player, desc, game.apply_decision(player, name, arg)
    if entry.get("sim") is None:
        raise ValueError("expected a stroke (sim), a decision, a lag, a time-out, a forfeit or an admin action")
    call = entry.get("call")
    cue = entry.get("cue_ball_position")
    game.prepare_shot(player, call, cue)
    sim = SimResult.from_json(entry["sim"], table)
    flags = entry.get("flags") or ()
    if flags:
        ruling = game.apply_shot(player, call, sim, flags)
    else:
        ruling = game.apply_shot(player, call, sim)
    return "stroke", player, _describe_call(call), ruling


def replay(record: Mapping, discipline: Optional[str] = None) -> Iterator[Tuple[int, str, Optional[int], str, dict, List[str]]]:
    """Re-judge ``record``; yields (index, kind, player, description, ruling dict, differences).

    ``discipline`` (name or alias) must agree with the record's when both are given. The game
    object is available afterwards as the generator's return value via ``StopIteration.value``;
    :func:`run` is the usual entry point.
    """
    if not isinstance(record, Mapping):
        raise ValueError("record: expected a JSON object")
    name = record.get("discipline") or discipline
    if name is None:
        raise ValueError("discipline: neither the record nor the command line names it")
    name = canonical_name(name)
    if discipline is not None and canonical_name(discipline) != name:
        raise ValueError(f"discipline: the record is a {name} game, not {canonical_name(discipline)}")
    seed = record.get("seed", 0)
    game = new_game(name, record.get("config") or {}, seed=seed)
    strokes = record.get("strokes")
    if not isinstance(strokes, list):
        raise ValueError("strokes: expected a list")
    for i, entry in enumerate(strokes):
        try:
            kind, player, desc, ruling = apply_entry(game, entry)
        except ValueError as exc:
            raise ValueError(f"entry {i}: {exc}") from exc
        except (TypeError, KeyError, IndexError, AttributeError) as exc:
            raise ValueError(f"entry {i}: malformed entry ({type(exc).__name__}: {exc})") from None
        d = ruling.to_dict()
        diffs = []
        old = entry.get("ruling") if isinstance(entry, Mapping) else None
        if isinstance(old, Mapping):
            for k in COMPARED:
                if k in old and old[k] != d.get(k):
                    diffs.append(f"{k}: recorded {old[k]!r}, now {d.get(k)!r}")
        yield i, kind, player, desc, d, diffs
    return game


def run(record: Mapping, discipline: Optional[str], as_json: bool, out: TextIO) -> int:
    """Print the re-judged record to ``out``; returns 0, or 1 when a recorded ruling differs."""
    gen = replay(record, discipline)
    differ = 0
    game = None
    while True:
        try:
            i, kind, player, desc, d, diffs = next(gen)
        except StopIteration as stop:
            game = stop.value
            break
        differ += bool(diffs)
        if as_json:
            out.write(json.dumps({"index": i, "kind": kind, "player": player, "ruling": d, "differences": diffs}) + "\n")
            continue
        scores = d.get("scores") or []
        score_txt = ":".join(str(s) for s in scores)
        out.write(f"#{i:<4d} {_seat(player)}  {desc}: {d.get('text', '')}  [{score_txt}]\n")
        for diff in diffs:
            out.write(f"       ! differs from the record: {diff}\n")
    result = game.result if game is not None else None
    scores = list(game.scoreboard()["scores"]) if game is not None else []
    if as_json:
        out.write(json.dumps({"final": True, "scores": scores, "over": bool(game.over), "result": result, "differences": differ}) + "\n")
    else:
        line = "Final score: " + ", ".join(f"{SEATS[s]} {v}" for s, v in enumerate(scores))
        if result is not None and game.over:
            w = result.get("winner")
            line += f"; winner {SEATS[w]}" if w in (0, 1) else "; draw"
        else:
            line += "; game not finished"
        out.write(line + "\n")
        if differ:
            out.write(f"{differ} ruling(s) differ from the record\n")
    return 1 if differ else 0


def load_record(path: str) -> Mapping:
    """Read a record from ``path`` (JSON; gzip-compressed when the name ends in ``.gz``)."""
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _main(args) -> int:
    try:
        record = load_record(args.replay)
    except json.JSONDecodeError as exc:
        raise ValueError(f"replay: {args.replay} is not JSON ({exc.msg} at line {exc.lineno})") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:  # gzip.BadGzipFile is an OSError
        raise ValueError(f"replay: cannot read {args.replay}: {getattr(exc, 'strerror', None) or exc}") from None
    return run(record, args.discipline, args.json, sys.stdout)


def register(subparsers) -> None:
    """Add ``referee`` to the ``billar`` command (server/cli.py)."""
    p = subparsers.add_parser("referee", help="re-judge a recorded game", description=__doc__.split("\n\n")[0])
    p.add_argument("discipline", help="discipline name (straight_pool or 14.1, three_cushion, ...)")
    p.add_argument("--replay", required=True, metavar="FILE.json", help="the game record")
    p.add_argument("--json", action="store_true", help="one JSON object per entry, then the final result")
    p.set_defaults(func=_main)


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m rules.replay``)."""
    parser = argparse.ArgumentParser(prog="billar referee")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(["referee"] + list(argv if argv is not None else sys.argv[1:]))
    try:
        return args.func(args)
    except ValueError as exc:
        sys.stderr.write(f"billar referee: error: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
