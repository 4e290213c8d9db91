"""puzzles: shot puzzles, attempts, the players' puzzle ratings, the puzzle of the day

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02

A snapshot, like 0001 and 0002: the tables are spelt out here, not imported from server/db/models.py.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from server.db.models import UtcDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer, "sqlite")
Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(128), nullable=False),
        sa.Column("discipline", sa.String(32), nullable=False),
        sa.Column("goal", sa.String(8), nullable=False),
        sa.Column("solution", Json, nullable=False),
        sa.Column("source_game_id", Id, nullable=True),
        sa.Column("source_stroke", sa.Integer, nullable=True),
        sa.Column("source_key", sa.String(16), nullable=False),
        sa.Column("successes", sa.SmallInteger, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_puzzles"),
        sa.UniqueConstraint("code", name="uq_puzzles_code"),
        sa.ForeignKeyConstraint(["source_game_id"], ["games.id"], ondelete="SET NULL",
                                name="fk_puzzles_source_game_id_games"),
    )
    op.create_index("ix_puzzles_source_game", "puzzles", ["source_game_id"])
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("puzzle_id", Id, nullable=False),
        sa.Column("account_id", Id, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_puzzle_attempts"),
        sa.UniqueConstraint("puzzle_id", "account_id", "attempt", name="uq_puzzle_attempts_try"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"], ondelete="CASCADE",
                                name="fk_puzzle_attempts_puzzle_id_puzzles"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name="fk_puzzle_attempts_account_id_accounts"),
    )
    op.create_index("ix_puzzle_attempts_account", "puzzle_attempts", ["account_id", "puzzle_id"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("account_id", Id, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("rated_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("account_id", name="pk_puzzle_ratings"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name="fk_puzzle_ratings_account_id_accounts"),
    )
    op.create_table(
        "puzzle_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("puzzle_id", Id, nullable=False),
        sa.PrimaryKeyConstraint("day", name="pk_puzzle_daily"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"], ondelete="CASCADE",
                                name="fk_puzzle_daily_puzzle_id_puzzles"),
    )


def downgrade() -> None:
    for name in ("puzzle_daily", "puzzle_ratings", "puzzle_attempts", "puzzles"):
        op.drop_table(name)
