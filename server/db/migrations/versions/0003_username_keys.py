"""username keys ignore separators: recompute accounts.username_key

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02

The uniqueness key of a username (server/players/names.py ``canonical_key``) now drops the
separators (space, ``_``, ``-``, ``.``): "Ann 4712" and "ann4712" are one name. A stored key that
contained a separator is recomputed. When the recomputed key is already another account's (both
"ann4712" and "ann_4712" were registered before), the account keeps its old key, which no new key
can equal (new keys have no separators): it is still found by its name (``names.lookup_keys`` tries
the legacy key first), and its look-alikes can no longer be registered. Keys without a separator are
unchanged (the new key of such a name is the old one), so this touches few rows.

Downgrade: nothing to undo (old keys are recomputed from the names on the way up only; keys of names
without separators are the same either way); a downgraded server finds the recomputed accounts by
their names without separators.
"""

import re
import unicodedata

from alembic import op
import icu
import sqlalchemy as sa

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


SEPARATORS = " _-."
_SEP_RE = re.compile(r"[ _\-.]")
_checker = icu.SpoofChecker()


def _fold(text: str) -> str:
    return _checker.getSkeleton(0, unicodedata.normalize("NFKC", text)).casefold()


def new_key(old_key: str) -> str:
    """The key without separators of a stored (legacy) key: names.canonical_key of its name (a snapshot of it:
    server/db imports nothing of server)."""
    key = _SEP_RE.sub("", old_key)
    for _ in range(8):
        nxt = _SEP_RE.sub("", _fold(key))
        if nxt == key:
            return key
        key = nxt
    return key


def upgrade() -> None:
    conn = op.get_bind()
    accounts = sa.table("accounts", sa.column("id", sa.Integer), sa.column("username_key", sa.String))
    rows = conn.execute(sa.select(accounts.c.id, accounts.c.username_key).order_by(accounts.c.id)).all()
    taken = {k for _, k in rows if not any(c in SEPARATORS for c in k)}
    for id_, key in rows:
        if not any(c in SEPARATORS for c in key):
            continue
        nk = new_key(key)
        if nk in taken or not nk:
            continue  # an older account has it: this one keeps its legacy key
        taken.add(nk)
        conn.execute(sa.update(accounts).where(accounts.c.id == id_).values(username_key=nk))


def downgrade() -> None:
    pass
