"""The players' layer: usernames, accounts and sessions, Glicko-2 ratings, statistics, recording finished games.

Pure logic (``glicko2``, ``names``, ``stats``, ``record``) and the repository over ``server.db``
(``accounts``, ``games``, ``queries``). Imports ``server.db``, ``rules`` and ``protocol``; nothing else
of ``server`` (what the server has to give, it passes as parameters). README.md says more.
"""
