"""SQLModel tables: games, seats and the append-only move log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, UniqueConstraint
from sqlmodel import Field, SQLModel

SOURCES = ("link", "page", "admin", "bot", "timeout")
"""Where a move came from (the move log's ``source``)."""


def utcnow() -> datetime:
    """Now, in UTC (the database keeps UTC only)."""
    return datetime.now(UTC)


def _ts(**kw: Any) -> Any:
    return Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False, **kw))


class Game(SQLModel, table=True):
    """One game: its options, the engine state snapshot and a version that rises with every move."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    status: str = Field(default="playing", max_length=16, index=True)
    options: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    version: int = 0
    current_seat: int | None = Field(default=None)
    created_at: datetime = _ts()
    updated_at: datetime = _ts()


class Seat(SQLModel, table=True):
    """A place at a game: a person (name, email, language, time zone) or a bot."""

    __table_args__ = (UniqueConstraint("game_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    position: int
    name: str = Field(max_length=40)
    email: str | None = Field(default=None, max_length=254)
    language: str = Field(default="en", max_length=8)
    timezone: str = Field(default="UTC", max_length=64)
    nonce: str = Field(max_length=64)
    discard_preference: str = Field(default="smaller", max_length=8)
    kind: str = Field(default="human", max_length=16)

    @property
    def is_bot(self) -> bool:
        """True if a bot plays this seat."""
        return self.kind != "human"


class MoveRecord(SQLModel, table=True):
    """One entry of a game's append-only move log, with the events the move caused."""

    __tablename__ = "move"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seq: int
    seat: int
    move: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    events: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    source: str = Field(max_length=8)
    created_at: datetime = _ts()
