# cython: annotation_typing=False
"""The carom disciplines: each adds only its validity condition and its zones to :class:`CaromGame`.

| discipline | carom (C6) | zones | touching balls (C15) | off table (C18) |
|---|---|---|---|---|
| ``libre`` (straight rail, C7) | both object balls | corner zones, 2 caroms (C8) | set-up compulsory, all three | all three set up |
| ``balkline_47_2`` (C9) | both | 9 balk spaces 0.47 m + 8 anchors, 2 caroms | choice, all three | all three |
| ``balkline_47_1`` (C9) | both | as 47/2 with 1 carom (*dentro* on arrival) | choice, all three | all three |
| ``balkline_71_2`` (C10) | both | 6 balk spaces 0.71 m + 6 anchors, 2 caroms | choice, all three | all three |
| ``one_cushion`` (C13) | >= 1 cue-ball cushion impact before the second ball | none | choice, touching balls | balls off the table |
| ``three_cushion`` (C13) | >= 3 impacts before the second ball | none | choice, touching balls | balls off the table |

Anchors follow the ``anchors`` switch (C11); corner-zone legs the ``corner_zone_legs`` switch (C8).
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from rules.carom import CaromGame
from rules.zones import ZoneSet, balkline_zones, libre_zones

# zone sets are immutable once built: one per (table, geometry) is shared by every game
_ZONE_CACHE: Dict[Tuple, ZoneSet] = {}


def _cached(key: Tuple, build) -> ZoneSet:
    zs = _ZONE_CACHE.get(key)
    if zs is None:
        zs = _ZONE_CACHE[key] = build()
    return zs


class Libre(CaromGame):
    """Libre / straight rail (C7, C8): any carom; corner zones limit caroms in a corner."""

    discipline = "libre"
    min_cushions = 0
    frozen_setup = "auto"
    off_table_setup = "all"

    def build_zones(self) -> Optional[ZoneSet]:
        a, b = self.config["corner_zone_legs"]
        return _cached((self.table.name, "libre", a, b), lambda: libre_zones(self.table, (a, b)))


class _Balkline(CaromGame):
    min_cushions = 0
    frozen_setup = "all"
    off_table_setup = "all"
    balk_distance_attr = "balkline_47"
    caroms_in_zone = 2

    def build_zones(self) -> Optional[ZoneSet]:
        d = getattr(self.table, self.balk_distance_attr)
        anchors = self.config["anchors"]
        return _cached((self.table.name, "balkline", d, self.caroms_in_zone, anchors),
                       lambda: balkline_zones(self.table, d, self.caroms_in_zone, anchors))


class Balkline47_2(_Balkline):
    """Balkline 47/2 (C9, C11, C12): two caroms in a balk space or anchor, the second must drive a ball out."""

    discipline = "balkline_47_2"
    balk_distance_attr = "balkline_47"
    caroms_in_zone = 2


class Balkline47_1(_Balkline):
    """Balkline 47/1 (C9, C11, C12): one carom in a balk space or anchor (*dentro* on arrival)."""

    discipline = "balkline_47_1"
    balk_distance_attr = "balkline_47"
    caroms_in_zone = 1


class Balkline71_2(_Balkline):
    """Balkline 71/2 (C10, C11, C12): six balk spaces, two caroms each, and six anchors."""

    discipline = "balkline_71_2"
    balk_distance_attr = "balkline_71"
    caroms_in_zone = 2


class OneCushion(CaromGame):
    """One-cushion (C13): at least one cue-ball cushion impact before the second object ball."""

    discipline = "one_cushion"
    min_cushions = 1


class ThreeCushion(CaromGame):
    """Three-cushion (C13): at least three cue-ball cushion impacts before the second object ball."""

    discipline = "three_cushion"
    min_cushions = 3


#: discipline name -> game class (the registry imports this)
CAROM_GAMES = {
    cls.discipline: cls for cls in (Libre, Balkline47_2, Balkline47_1, Balkline71_2, OneCushion, ThreeCushion)
}
