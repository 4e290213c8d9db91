"""players: accounts, sessions, ratings and their history, statistics, finished games and their records

Revision ID: 0001
Revises:
Create Date: 2026-12-01

A migration is a snapshot: it spells its tables out instead of importing server/db/models.py,
which moves on with later revisions.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from server.db.models import UtcDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer, "sqlite")
Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(40), nullable=False),
        sa.Column("username_key", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("password_changed_at", UtcDateTime, nullable=True),
        sa.Column("deleted_at", UtcDateTime, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.UniqueConstraint("username_key", name="uq_accounts_username_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", Id, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("expires_at", UtcDateTime, nullable=False),
        sa.Column("client", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name="fk_sessions_account_id_accounts"),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_table(
        "ratings",
        sa.Column("account_id", Id, nullable=False),
        sa.Column("discipline", sa.String(32), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("rated_games", sa.Integer, nullable=False),
        sa.Column("rated_at", UtcDateTime, nullable=False),
        sa.Column("active_until", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "discipline", name="pk_ratings"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name="fk_ratings_account_id_accounts"),
    )
    op.create_index("ix_ratings_leaderboard", "ratings", ["discipline", "rating"], postgresql_where=sa.text("rd < 100"),
                    sqlite_where=sa.text("rd < 100"))
    op.create_table(
        "games",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game_no", sa.Integer, nullable=False),
        sa.Column("discipline", sa.String(32), nullable=False),
        sa.Column("config", Json, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("result", Json, nullable=False),
        sa.Column("winner", sa.SmallInteger, nullable=True),
        sa.Column("strokes", sa.Integer, nullable=False),
        sa.Column("started_at", UtcDateTime, nullable=False),
        sa.Column("finished_at", UtcDateTime, nullable=False),
        sa.Column("recorded_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
        sa.UniqueConstraint("table_id", "game_no", name="uq_games_table_game"),
    )
    op.create_table(
        "game_records",
        sa.Column("game_id", Id, nullable=False),
        sa.Column("format", sa.SmallInteger, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.PrimaryKeyConstraint("game_id", name="pk_game_records"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_game_records_game_id_games"),
    )
    if op.get_context().dialect.name == "postgresql":
        # the record is compressed already (record.py): PostgreSQL need not try again
        op.execute("ALTER TABLE game_records ALTER COLUMN data SET STORAGE EXTERNAL")
    op.create_table(
        "game_players",
        sa.Column("game_id", Id, nullable=False),
        sa.Column("seat", sa.SmallInteger, nullable=False),
        sa.Column("account_id", Id, nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("discipline", sa.String(32), nullable=False),
        sa.Column("finished_at", UtcDateTime, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("innings", sa.Integer, nullable=False),
        sa.Column("high_run", sa.Integer, nullable=False),
        sa.Column("average", sa.Float, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.Column("rd_before", sa.Float, nullable=True),
        sa.Column("rd_after", sa.Float, nullable=True),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_game_players"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_game_players_game_id_games"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_game_players_account_id_accounts"),
    )
    op.create_index("ix_game_players_account", "game_players", ["account_id", "game_id"])
    op.create_table(
        "rating_history",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("account_id", Id, nullable=False),
        sa.Column("discipline", sa.String(32), nullable=False),
        sa.Column("game_id", Id, nullable=False),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rating_history"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name="fk_rating_history_account_id_accounts"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_rating_history_game_id_games"),
    )
    op.create_index("ix_rating_history_account", "rating_history", ["account_id", "discipline", "id"])
    op.create_table(
        "statistics",
        sa.Column("account_id", Id, nullable=False),
        sa.Column("discipline", sa.String(32), nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("points", sa.BigInteger, nullable=False),
        sa.Column("innings", sa.BigInteger, nullable=False),
        sa.Column("high_run", sa.Integer, nullable=False),
        sa.Column("best_average", sa.Float, nullable=False),
        sa.Column("best_game_id", Id, nullable=True),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "discipline", name="pk_statistics"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name="fk_statistics_account_id_accounts"),
        sa.ForeignKeyConstraint(["best_game_id"], ["games.id"], ondelete="SET NULL",
                                name="fk_statistics_best_game_id_games"),
    )
    op.create_index("ix_statistics_high_run", "statistics", ["discipline", "high_run", "account_id"])


def downgrade() -> None:
    for name in ("statistics", "rating_history", "game_players", "game_records", "games", "ratings", "sessions",
                 "accounts"):
        op.drop_table(name)
