"""waits per seat: a row for each seat a game waits on, with its own reminders and deadline

Revision ID: 0009
Revises: 0007

A game kept one wait in its own columns. Each running game's wait is carried over to a ``wait`` row for
every seat its state waits on (the only one for the games stored so far); the game keeps
``waiting_since``, ``next_reminder_at`` and ``deadline_at`` as the earliest of its waits, and loses
``wait_ply``, ``reminders_sent`` and ``last_reminder_at``, which now belong to each wait.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_MOVED = ("wait_ply", "reminders_sent", "last_reminder_at")


def _drop_column(table: str, column: str) -> None:
    # SQLite (3.35 and later) drops a plain column in place; a batch copy of the table would have to drop
    # tables that others refer to, which its foreign keys refuse.
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    else:
        op.drop_column(table, column)


def _waited(game: str, state: Any) -> dict[str, tuple[str, str]]:
    """Decision id and wait by player of a stored state (nobody if its game is not known here)."""
    from engine import GAMES

    rules = GAMES.get(game)
    if rules is None:
        return {}
    if isinstance(state, str):
        state = json.loads(state)
    return {p: (d.id, d.wait) for p, d in rules.waiting_for(rules.from_json(state)).items()}


def upgrade() -> None:
    op.create_table(
        "wait",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=64), nullable=False),
        sa.Column("wait", sa.String(length=64), nullable=False),
        sa.Column("waiting_since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reminders_sent", sa.Integer(), nullable=False),
        sa.Column("last_reminder_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("next_reminder_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat"),
    )
    op.create_index("ix_wait_next_reminder_at", "wait", ["next_reminder_at"], unique=False)
    op.create_index("ix_wait_deadline_at", "wait", ["deadline_at"], unique=False)

    bind = op.get_bind()
    meta = sa.MetaData()
    game, seat, wait = (sa.Table(n, meta, autoload_with=bind) for n in ("game", "seat", "wait"))
    running = bind.execute(
        sa.select(
            game.c.id,
            game.c.game,
            game.c.state,
            game.c.waiting_since,
            game.c.wait_ply,
            game.c.reminders_sent,
            game.c.last_reminder_at,
            game.c.next_reminder_at,
            game.c.deadline_at,
        ).where(game.c.waiting_since.is_not(None), game.c.status != "finished")
    ).all()
    rows = []
    for r in running:
        positions = dict(bind.execute(sa.select(seat.c.name, seat.c.position).where(seat.c.game_id == r.id)).all())
        for player, (decision, key) in _waited(r.game, r.state).items():
            rows.append(
                {
                    "game_id": r.id,
                    "seat": positions[player],
                    "decision": decision if r.wait_ply is None else str(r.wait_ply),
                    "wait": key,
                    "waiting_since": r.waiting_since,
                    "reminders_sent": r.reminders_sent,
                    "last_reminder_at": r.last_reminder_at,
                    "next_reminder_at": r.next_reminder_at,
                    "deadline_at": r.deadline_at,
                }
            )
    if rows:
        bind.execute(sa.insert(wait), rows)
    for column in _MOVED:
        _drop_column("game", column)


def downgrade() -> None:
    op.add_column("game", sa.Column("wait_ply", sa.Integer(), nullable=True))
    op.add_column("game", sa.Column("reminders_sent", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("game", sa.Column("last_reminder_at", sa.DateTime(timezone=True), nullable=True))
    bind = op.get_bind()
    meta = sa.MetaData()
    game, wait = (sa.Table(n, meta, autoload_with=bind) for n in ("game", "wait"))
    first = bind.execute(sa.select(wait).order_by(wait.c.game_id, wait.c.seat)).all()
    seen: set[int] = set()
    for w in first:
        if w.game_id in seen:
            continue
        seen.add(w.game_id)
        ply = int(w.decision) if w.decision.isdecimal() else None
        bind.execute(
            sa.update(game)
            .where(game.c.id == w.game_id)
            .values(wait_ply=ply, reminders_sent=w.reminders_sent, last_reminder_at=w.last_reminder_at)
        )
    op.drop_index("ix_wait_deadline_at", table_name="wait")
    op.drop_index("ix_wait_next_reminder_at", table_name="wait")
    op.drop_table("wait")
