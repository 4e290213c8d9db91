"""The database fixtures of tests/players (SQLite, and PostgreSQL in a schema of its own when DATABASE_URL is set)."""

import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "players_db_fixtures", os.path.join(os.path.dirname(os.path.dirname(__file__)), "players", "conftest.py"))
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)

dbf = _mod.dbf
db = _mod.db
