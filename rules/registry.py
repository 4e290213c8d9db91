"""Discipline name -> referee class: the one place the server and the replay tool look games up.

:data:`DISCIPLINES` maps each discipline name to ``"module:Class"``; the class is imported on
first use, so a discipline whose module is missing or broken never stops the others from
loading. Every class implements the game interface of rules/README.md and has the constructor
``Class(config=None, seed=0)`` and the class method ``Class.from_state(d)``.

Add a discipline with one line in :data:`DISCIPLINES`.
"""

from __future__ import annotations

import importlib
from typing import Dict, Mapping, Optional

DISCIPLINES: Dict[str, str] = {
    "straight_pool": "rules.straight_pool:StraightPool",
    "libre": "rules.carom_disciplines:Libre",
    "balkline_47_2": "rules.carom_disciplines:Balkline47_2",
    "balkline_47_1": "rules.carom_disciplines:Balkline47_1",
    "balkline_71_2": "rules.carom_disciplines:Balkline71_2",
    "one_cushion": "rules.carom_disciplines:OneCushion",
    "three_cushion": "rules.carom_disciplines:ThreeCushion",
    "pentathlon": "rules.multi:Pentathlon",
    "triathlon": "rules.multi:Triathlon",
}

# other spellings accepted on the command line and in records
ALIASES: Dict[str, str] = {
    "14.1": "straight_pool",
    "14_1": "straight_pool",
    "straight-pool": "straight_pool",
}


def canonical_name(name) -> str:
    """The discipline name for ``name`` or an alias of it; ``ValueError`` naming ``discipline`` if unknown."""
    key = ALIASES.get(name, name) if isinstance(name, str) else None
    if key not in DISCIPLINES:
        raise ValueError(f"discipline: unknown discipline {name!r}; expected one of {sorted(DISCIPLINES)}")
    return key


def game_class(name):
    """The referee class of discipline ``name`` (an alias is accepted); ``ValueError`` if unknown."""
    target = DISCIPLINES[canonical_name(name)]
    module_name, _, cls_name = target.partition(":")
    return getattr(importlib.import_module(module_name), cls_name)


def new_game(name, config: Optional[Mapping] = None, seed=0):
    """A new game of discipline ``name`` with ``config`` (section C keys of its spec) and RNG ``seed``.

    Raises ``ValueError`` naming the key for an unknown discipline or a bad configuration value.
    """
    return game_class(name)(config=config, seed=seed)


def game_from_state(state: Mapping):
    """Restore a game from ``game.to_state()`` (the state names its discipline)."""
    try:
        name = state["discipline"]
    except (KeyError, TypeError):
        raise ValueError("discipline: the state does not name its discipline") from None
    return game_class(name).from_state(state)
