"""tournaments: tournaments, their players, their games (linked to games) and final standings

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02

A snapshot, like 0001: the tables are spelt out here, not imported from server/db/models.py.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from server.db.models import UtcDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer, "sqlite")
Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("created_by", Id, nullable=False),
        sa.Column("discipline", sa.String(32), nullable=False),
        sa.Column("config", Json, nullable=False),
        sa.Column("format", sa.String(24), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("min_players", sa.Integer, nullable=False),
        sa.Column("max_players", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("starts_at", UtcDateTime, nullable=True),
        sa.Column("duration_s", sa.Integer, nullable=True),
        sa.Column("no_show_s", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("state", Json, nullable=True),
        sa.Column("state_version", sa.Integer, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("started_at", UtcDateTime, nullable=True),
        sa.Column("finished_at", UtcDateTime, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
        sa.ForeignKeyConstraint(["created_by"], ["accounts.id"], name="fk_tournaments_created_by_accounts"),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "starts_at"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", Id, nullable=False),
        sa.Column("account_id", Id, nullable=False),
        sa.Column("joined_at", UtcDateTime, nullable=False),
        sa.Column("seed", sa.Integer, nullable=True),
        sa.Column("rating", sa.Float, nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "account_id", name="pk_tournament_players"),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE",
                                name="fk_tournament_players_tournament_id_tournaments"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_tournament_players_account_id_accounts"),
    )
    op.create_index("ix_tournament_players_account", "tournament_players", ["account_id", "tournament_id"])
    op.create_table(
        "tournament_games",
        sa.Column("tournament_id", Id, nullable=False),
        sa.Column("pairing_id", sa.String(16), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game_no", sa.Integer, nullable=False),
        sa.Column("game_id", Id, nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "pairing_id", name="pk_tournament_games"),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE",
                                name="fk_tournament_games_tournament_id_tournaments"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="SET NULL",
                                name="fk_tournament_games_game_id_games"),
    )
    op.create_index("ix_tournament_games_game", "tournament_games", ["table_id", "game_no"])
    op.create_table(
        "tournament_standings",
        sa.Column("tournament_id", Id, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("account_id", Id, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("match_points", sa.Integer, nullable=False),
        sa.Column("arena_points", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("forfeits", sa.Integer, nullable=False),
        sa.Column("score_for", sa.Integer, nullable=False),
        sa.Column("score_against", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("innings", sa.Integer, nullable=False),
        sa.Column("high_run", sa.Integer, nullable=False),
        sa.Column("average", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "rank", name="pk_tournament_standings"),
        sa.UniqueConstraint("tournament_id", "account_id", name="uq_tournament_standings_player"),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE",
                                name="fk_tournament_standings_tournament_id_tournaments"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name="fk_tournament_standings_account_id_accounts"),
    )
    op.create_index("ix_tournament_standings_account", "tournament_standings", ["account_id"])


def downgrade() -> None:
    for name in ("tournament_standings", "tournament_games", "tournament_players", "tournaments"):
        op.drop_table(name)
