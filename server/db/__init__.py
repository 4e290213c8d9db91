"""The relational store: what must last (accounts, ratings, finished games), SQLAlchemy 2 async + Alembic.

See README.md in this folder. Imports nothing of the rest of ``server``.
"""

from server.db.engine import Database, check_url, database_url
from server.db.migrate import upgrade, upgrade_database

__all__ = ["Database", "check_url", "database_url", "upgrade", "upgrade_database"]
