"""The relational schema: SQLAlchemy Core tables of what must last (accounts, sessions, ratings, games).

One ``MetaData`` (:data:`metadata`) for both backends; the Alembic migrations in
``migrations/versions/`` create exactly these tables (a test compares them). Types are portable:
ids are 64-bit on PostgreSQL and SQLite's ``INTEGER PRIMARY KEY`` (its row id) on SQLite, JSON is
``jsonb`` on PostgreSQL, times are :class:`UtcDateTime` (aware UTC ``datetime`` in and out on both).

Tables::

    accounts        id, username (display, 2-20 chars), username_key (unique: the confusable
                    skeleton without separators, server/players/names.py; migration 0003
                    recomputed the older keys), password_hash (Argon2id; NULL once
                    deleted), created_at, password_changed_at, deleted_at
    sessions        token_hash (SHA-256 of the cookie's token, hex) PK, account_id, created_at,
                    expires_at, client (address at login)
    ratings         (account_id, discipline) PK: Glicko-2 rating, rd, volatility (glicko2.py),
                    rated_games, rated_at (the last rated game), active_until (when the RD grown by
                    inactivity reaches the leaderboard limit: the leaderboard's filter, with a
                    partial index on (discipline, rating) of the rows with rd < 100)
    rating_history  one row per rated game and player: account_id, discipline, game_id, at,
                    rating, rd (after the game)
    statistics      (account_id, discipline) PK: games, wins, draws, losses, points, innings,
                    high_run, best_average (+ best_game_id), updated_at; averages are points/innings
    games           id, (table_id, game_no) unique (the idempotency key), discipline, config,
                    seed, rated, result, winner (seat or NULL for a draw), strokes, started_at,
                    finished_at, recorded_at
    game_records    game_id PK, format, data: the full match record (record.py)
    game_players    (game_id, seat) PK: account_id (NULL for a guest or the computer), name as
                    shown, score (1, 0.5, 0), points, innings, high_run, average, rating_before,
                    rating_after, rd_before, rd_after (NULL when unrated); discipline and
                    finished_at copied from the game for the player's game list

Tournaments (issue 17; server/tournaments/)::

    tournaments             id, name, created_by (account), discipline, config (the match settings:
                            rules spec section C), format (round_robin, single_elimination, arena),
                            rated, min_players, max_players, players (how many have joined: the size
                            limit is checked by a conditional UPDATE of this counter), starts_at (NULL:
                            start when full), duration_s (arena), no_show_s (a seat still empty that long
                            after the pairing is forfeited), status (open, running, finished, cancelled),
                            state (server/tournaments/state.py TournamentState.to_dict, NULL before the
                            start), state_version (the state's version: saves compare-and-set on it),
                            created_at, started_at, finished_at
    tournament_players      (tournament_id, account_id) PK: joined_at; seed and rating fixed at the start
    tournament_games        (tournament_id, pairing_id) PK: round, table_id and game_no (the game's key in
                            ``games``), game_id (set once the game is in ``games``)
    tournament_standings    (tournament_id, rank) PK: account_id (unique per tournament), the final
                            standing line (server/tournaments/standings.py Standing)

Puzzles (issue 16; server/puzzles/)::

    puzzles             id, code (the position's code, rules/position.py; unique: a position is one
                        puzzle), discipline, goal (pot, carom), solution ({"stroke", "call"}),
                        source_game_id (games.id, NULL for the seed set or once the game is deleted),
                        source_stroke (the record entry), source_key (where it came from: "seed" or
                        "game"), successes (of the miner's noisy replays), rating, rd, volatility
                        (the puzzle's Glicko-2 rating), plays, wins (rated first attempts and those
                        solved), created_at
    puzzle_attempts     id, puzzle_id, account_id, attempt (1, 2, ...; unique per puzzle and player),
                        solved, at, rating_before, rating_after (the player's, NULL when unrated)
    puzzle_ratings      account_id PK: the player's puzzle rating, rd, volatility, attempts (rated
                        ones), solved, rated_at
    puzzle_daily        day (YYYY-MM-DD, UTC) PK: puzzle_id, the puzzle of that day once chosen
"""

from __future__ import annotations

import datetime as _dt

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,

    UniqueConstraint,
    JSON,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.types import TypeDecorator

#: constraint names the same on every backend (migrations refer to them)
metadata = MetaData(naming_convention={
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})

Id = BigInteger().with_variant(Integer, "sqlite")  # SQLite autoincrements only INTEGER PRIMARY KEY
Json = JSON().with_variant(JSONB(), "postgresql")

#: longest discipline name stored (rules/registry.py names: "balkline_47_2" ...)
DISCIPLINE_CHARS = 32
#: longest table id (protocol/limits.py MAX_ID_CHARS is 64)
TABLE_ID_CHARS = 64
#: longest name kept for a game's player (protocol/limits.py MAX_NAME_CHARS is 32)
PLAYER_NAME_CHARS = 40


class UtcDateTime(TypeDecorator):
    """A point in time: an aware ``datetime`` in (any zone, stored as UTC), an aware UTC ``datetime`` out.

    PostgreSQL stores ``timestamptz``; SQLite a naive UTC text that this type makes aware again.
    Raises ``ValueError`` for a naive ``datetime`` (its zone would be a guess).
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UtcDateTime: naive datetime (give it a time zone)")
        value = value.astimezone(_dt.timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=_dt.timezone.utc)
        return value.astimezone(_dt.timezone.utc)


accounts = Table(
    "accounts", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("username", String(40), nullable=False),
    Column("username_key", String(200), nullable=False, unique=True),
    Column("password_hash", String(200), nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("password_changed_at", UtcDateTime, nullable=True),
    Column("deleted_at", UtcDateTime, nullable=True),
)

sessions = Table(
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
    Column("client", String(64), nullable=True),
)

ratings = Table(
    "ratings", metadata,
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("discipline", String(DISCIPLINE_CHARS), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("rated_games", Integer, nullable=False),
    Column("rated_at", UtcDateTime, nullable=False),
    Column("active_until", UtcDateTime, nullable=False),
    # the rating leaderboard reads only established players (stored RD under 100: the live RD is never
    # smaller), so its index holds only them
    Index("ix_ratings_leaderboard", "discipline", "rating", postgresql_where=text("rd < 100"),
          sqlite_where=text("rd < 100")),
)

games = Table(
    "games", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("table_id", String(TABLE_ID_CHARS), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("discipline", String(DISCIPLINE_CHARS), nullable=False),
    Column("config", Json, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("result", Json, nullable=False),
    Column("winner", SmallInteger, nullable=True),
    Column("strokes", Integer, nullable=False),
    Column("started_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime, nullable=False),
    Column("recorded_at", UtcDateTime, nullable=False),
    UniqueConstraint("table_id", "game_no", name="uq_games_table_game"),
)

game_records = Table(
    "game_records", metadata,
    Column("game_id", Id, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("format", SmallInteger, nullable=False),
    Column("data", LargeBinary, nullable=False),
)

game_players = Table(
    "game_players", metadata,
    Column("game_id", Id, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", SmallInteger, primary_key=True),
    Column("account_id", Id, ForeignKey("accounts.id"), nullable=True),
    Column("name", String(PLAYER_NAME_CHARS), nullable=False),
    Column("discipline", String(DISCIPLINE_CHARS), nullable=False),
    Column("finished_at", UtcDateTime, nullable=False),
    Column("score", Float, nullable=False),
    Column("points", Integer, nullable=False),
    Column("innings", Integer, nullable=False),
    Column("high_run", Integer, nullable=False),
    Column("average", Float, nullable=False),
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    Column("rd_before", Float, nullable=True),
    Column("rd_after", Float, nullable=True),
    Index("ix_game_players_account", "account_id", "game_id"),
)

rating_history = Table(
    "rating_history", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("discipline", String(DISCIPLINE_CHARS), nullable=False),
    Column("game_id", Id, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Index("ix_rating_history_account", "account_id", "discipline", "id"),
)

statistics = Table(
    "statistics", metadata,
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("discipline", String(DISCIPLINE_CHARS), primary_key=True),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("points", BigInteger, nullable=False),
    Column("innings", BigInteger, nullable=False),
    Column("high_run", Integer, nullable=False),
    Column("best_average", Float, nullable=False),
    Column("best_game_id", Id, ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
    Column("updated_at", UtcDateTime, nullable=False),
    Index("ix_statistics_high_run", "discipline", "high_run", "account_id"),
)


#: longest tournament name
TOURNAMENT_NAME_CHARS = 60
#: longest pairing id (server/tournaments/state.py: "R<round>-<board>", "A<n>")
PAIRING_ID_CHARS = 16

tournaments = Table(
    "tournaments", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("name", String(TOURNAMENT_NAME_CHARS), nullable=False),
    Column("created_by", Id, ForeignKey("accounts.id"), nullable=False),
    Column("discipline", String(DISCIPLINE_CHARS), nullable=False),
    Column("config", Json, nullable=False),
    Column("format", String(24), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("min_players", Integer, nullable=False),
    Column("max_players", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("starts_at", UtcDateTime, nullable=True),
    Column("duration_s", Integer, nullable=True),
    Column("no_show_s", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("state", Json, nullable=True),
    Column("state_version", Integer, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("started_at", UtcDateTime, nullable=True),
    Column("finished_at", UtcDateTime, nullable=True),
    Index("ix_tournaments_status", "status", "starts_at"),
)

tournament_players = Table(
    "tournament_players", metadata,
    Column("tournament_id", Id, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
    Column("account_id", Id, ForeignKey("accounts.id"), primary_key=True),
    Column("joined_at", UtcDateTime, nullable=False),
    Column("seed", Integer, nullable=True),
    Column("rating", Float, nullable=True),
    Index("ix_tournament_players_account", "account_id", "tournament_id"),
)

tournament_games = Table(
    "tournament_games", metadata,
    Column("tournament_id", Id, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
    Column("pairing_id", String(PAIRING_ID_CHARS), primary_key=True),
    Column("round", Integer, nullable=False),
    Column("table_id", String(TABLE_ID_CHARS), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("game_id", Id, ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
    Index("ix_tournament_games_game", "table_id", "game_no"),
)

tournament_standings = Table(
    "tournament_standings", metadata,
    Column("tournament_id", Id, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
    Column("rank", Integer, primary_key=True),
    Column("account_id", Id, ForeignKey("accounts.id"), nullable=False),
    Column("score", Float, nullable=False),
    Column("match_points", Integer, nullable=False),
    Column("arena_points", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("forfeits", Integer, nullable=False),
    Column("score_for", Integer, nullable=False),
    Column("score_against", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("innings", Integer, nullable=False),
    Column("high_run", Integer, nullable=False),
    Column("average", Float, nullable=False),
    UniqueConstraint("tournament_id", "account_id", name="uq_tournament_standings_player"),
    Index("ix_tournament_standings_account", "account_id"),
)


#: longest position code (rules/position.py MAX_CODE_CHARS)
POSITION_CODE_CHARS = 128

puzzles = Table(
    "puzzles", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("code", String(POSITION_CODE_CHARS), nullable=False, unique=True),
    Column("discipline", String(DISCIPLINE_CHARS), nullable=False),
    Column("goal", String(8), nullable=False),
    Column("solution", Json, nullable=False),
    Column("source_game_id", Id, ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
    Column("source_stroke", Integer, nullable=True),
    Column("source_key", String(16), nullable=False),
    Column("successes", SmallInteger, nullable=False),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("plays", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Index("ix_puzzles_source_game", "source_game_id"),
)

puzzle_attempts = Table(
    "puzzle_attempts", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("puzzle_id", Id, ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("solved", Boolean, nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    UniqueConstraint("puzzle_id", "account_id", "attempt", name="uq_puzzle_attempts_try"),
    Index("ix_puzzle_attempts_account", "account_id", "puzzle_id"),
)

puzzle_ratings = Table(
    "puzzle_ratings", metadata,
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("rated_at", UtcDateTime, nullable=False),
)

puzzle_daily = Table(
    "puzzle_daily", metadata,
    Column("day", String(10), primary_key=True),
    Column("puzzle_id", Id, ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
)

#: A logged-in player's record at each drill of rules/drills.py (issue 16): strokes played at the drill's practice
#: table and how many met its goal, as the referee judged them (server/players/drills.py writes it).
drill_progress = Table(
    "drill_progress", metadata,
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("drill_id", String(48), primary_key=True),
    Column("attempts", Integer, nullable=False),
    Column("successes", Integer, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)
