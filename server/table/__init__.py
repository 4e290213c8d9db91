"""The table: one actor per table (actor.py) and its parts; see README.md."""

from server.table.actor import TableActor, new_table_id
from server.table.batch import TableLost
from server.table.seats import Seat, token_hash

__all__ = ["Seat", "TableActor", "TableLost", "new_table_id", "token_hash"]
