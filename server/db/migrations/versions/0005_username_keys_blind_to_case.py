"""username keys blind to case: recompute accounts.username_key from the name in capitals

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02

The uniqueness key of a username (server/players/names.py ``canonical_key``) is now taken from the
name in capitals: the confusables skeleton maps some capitals and their small letters apart (capital
"I" passes for "l", small "m" for "rn"), so "mike" and "MIKE" had two keys and could both be
registered. Every account's key is recomputed from its name. When the new key is already another
account's (both "mike" and "MIKE" were registered before), the younger account keeps its old key: it
is still found by its name (``names.lookup_keys`` tries the older keys too). A deleted account (its name
retired, its key kept so that the name stays taken) keeps its key.

Downgrade: nothing to undo on the way down; a downgraded server looks names up by their old keys
and finds the accounts whose key did not change (most: names without an i, I, m or a capital that
passes for another letter).
"""

import re
import unicodedata

from alembic import op
import icu
import sqlalchemy as sa

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


_SEP_RE = re.compile(r"[ _\-.]")
_checker = icu.SpoofChecker()


def _fold(text: str) -> str:
    return _checker.getSkeleton(0, unicodedata.normalize("NFKC", text)).casefold()


def new_key(name: str) -> str:
    """names.canonical_key of ``name`` as of this revision (a snapshot: server/db imports nothing of server)."""
    key = _SEP_RE.sub("", _fold(unicodedata.normalize("NFKC", name).upper()))
    for _ in range(8):
        nxt = _SEP_RE.sub("", _fold(key))
        if nxt == key:
            return key
        key = nxt
    return key


def upgrade() -> None:
    conn = op.get_bind()
    accounts = sa.table("accounts", sa.column("id", sa.Integer), sa.column("username", sa.String),
                        sa.column("username_key", sa.String), sa.column("deleted_at", sa.DateTime))
    rows = conn.execute(sa.select(accounts.c.id, accounts.c.username, accounts.c.username_key, accounts.c.deleted_at)
                        .order_by(accounts.c.id)).all()
    taken = {k for _, _, k, _ in rows}
    for id_, name, key, deleted in rows:
        if deleted is not None:
            continue  # a deleted account shows a retired name: its key (the old name's) stays as it is
        nk = new_key(name)
        if nk == key or nk in taken or not nk:
            continue  # unchanged, or an older account has it: this one keeps its key
        taken.discard(key)
        taken.add(nk)
        conn.execute(sa.update(accounts).where(accounts.c.id == id_).values(username_key=nk))


def downgrade() -> None:
    pass
