"""drill progress: a logged-in player's strokes and successes at each drill

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02

A snapshot, like 0001, 0002 and 0004: the table is spelt out here, not imported from server/db/models.py.
"""

from alembic import op
import sqlalchemy as sa

from server.db.models import UtcDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "drill_progress",
        sa.Column("account_id", Id, nullable=False),
        sa.Column("drill_id", sa.String(48), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("successes", sa.Integer, nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "drill_id", name="pk_drill_progress"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name="fk_drill_progress_account_id_accounts"),
    )


def downgrade() -> None:
    op.drop_table("drill_progress")
