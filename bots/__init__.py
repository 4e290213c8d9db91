"""billar bots: computer players and the geometry they aim with.

- :mod:`bots.aim`: ghost-ball aiming for pool (aim angle, cut angle, pocket aim points, clear
  paths, a rough stroke speed).

Bots may import ``physics``, ``rules`` and ``protocol`` (DESIGN.md), never ``server``.
"""
