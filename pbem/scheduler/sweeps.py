"""The scheduler's sweeps: find the rows that are due, claim each, and hand it to its flow (``flows.timers``).

The database is the scheduler's memory: each seat a game waits on has a ``Wait`` row (since when, for
which decision), with when its next reminder is due (``next_reminder_at``) and its deadline
(``deadline_at``), both indexed; ``core.waits`` keeps them up to date at every stored move.
A sweep reads the waits that are due, then claims and handles each one (with its game) in its own short
write transaction (``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL; BEGIN IMMEDIATE and a re-check on
SQLite), so two schedulers can sweep at once; a reminder's outbox ``dedupe_key`` makes it unique.
The start sweep starts the games waiting for answers whose start date has come (``Game.start_at``).
The digest sweep does the same with the seats whose daily digest is due (``Seat.next_digest_at``), with one
``dedupe_key`` per seat and local day.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, or_
from sqlmodel import Session, col, select

from .. import db
from ..core import invites
from ..core.errors import ServiceError
from ..flows import invites as invite_flows
from ..flows import timers
from ..models import Game, Seat, Wait
from ..timing import utc

log = logging.getLogger(__name__)

BATCH = 200

# ---------------------------------------------------------------------------------------------- sweeps


def reminder_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Send the reminders that are due at ``now`` (each once, however late); the number queued."""
    return _sweep(engine, col(Wait.next_reminder_at), now, timers.remind)


def deadline_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Apply the timeout policy to every wait whose deadline passed, oldest deadline first; the number applied."""
    return _sweep(engine, col(Wait.deadline_at), now, timers.time_out)


Handler = Callable[[Session, Game, Wait, datetime], int]


def _sweep(engine: Engine | None, column: Any, now: datetime, handle: Handler) -> int:
    """Visit each due wait once, in order of ``column``, handling each in its own write transaction."""
    engine = engine or db.get_engine()
    now = now.astimezone(UTC)
    return sum(
        _handle_one(engine, column, wait_id, now, handle) for wait_id in due_ids(engine, column, col(Wait.id), now)
    )


def due_ids(engine: Engine, column: Any, key: Any, now: datetime) -> Iterator[int]:
    """The ids (``key``) of the rows whose ``column`` is at or before ``now``, in order of ``column``: read a
    BATCH at a time (keyset paging on (column, key), so a row handled meanwhile is neither skipped nor read
    twice), each batch in a short read of its own."""
    after: tuple[datetime, int] | None = None
    while True:
        with Session(engine) as session:
            query = select(column, key).where(column <= now)
            if after is not None:
                # `column >= t` bounds the index range; the rest skips the rows of this run with that same time.
                query = query.where(column >= after[0], or_(column > after[0], key > after[1]))
            due = list(session.exec(query.order_by(column, key).limit(BATCH)))
        yield from (int(row_id or 0) for _moment, row_id in due)
        if len(due) < BATCH:
            return
        after = (utc(due[-1][0]) or now, int(due[-1][1] or 0))


def _handle_one(engine: Engine, column: Any, wait_id: int, now: datetime, handle: Handler) -> int:
    game_id: int | None = None
    try:
        with db.write_session(engine) as session:
            claimed = _claim(session, column, wait_id, now)
            if claimed is None:
                return 0
            game, wait = claimed
            game_id = game.id
            return handle(session, game, wait, now)
    except ServiceError as exc:
        log.warning("game %s: %s", game_id, exc.message)
    except Exception:  # one broken game must not stop the sweep; the next sweep tries it again
        log.exception("game %s (wait %s) could not be handled", game_id, wait_id)
    return 0


def _claim(session: Session, column: Any, wait_id: int, now: datetime) -> tuple[Game, Wait] | None:
    """The wait and its game if it is still due and nobody else holds them (SKIP LOCKED), locked for this
    transaction; a paused game has nothing due."""
    query = (
        select(Game, Wait)
        .join(Wait, col(Wait.game_id) == col(Game.id))
        .where(col(Wait.id) == wait_id, column <= now, col(Game.paused_at).is_(None))
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    row = session.exec(query).first()
    return None if row is None else (row[0], row[1])


def digest_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Queue the daily digests that are due at ``now`` (each seat's once per local day); the number queued."""
    engine = engine or db.get_engine()
    now = now.astimezone(UTC)
    return sum(
        _digest_one(engine, seat_id, now) for seat_id in due_ids(engine, col(Seat.next_digest_at), col(Seat.id), now)
    )


def _digest_one(engine: Engine, seat_id: int, now: datetime) -> int:
    try:
        with db.write_session(engine) as session:
            query = select(Seat).where(col(Seat.id) == seat_id, col(Seat.next_digest_at) <= now)
            if session.get_bind().dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True)
            seat = session.exec(query).first()
            if seat is None:
                return 0
            return timers.digest(session, seat, now)
    except Exception:  # one broken game must not stop the sweep; the next sweep tries it again
        log.exception("the digest of seat %s could not be handled", seat_id)
    return 0


def start_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Start the games waiting for answers whose start date has come (``Game.start_at``), each in its own write
    transaction with the game locked and checked again, so a second scheduler starts none twice; the number started."""
    engine = engine or db.get_engine()
    now = now.astimezone(UTC)
    with Session(engine) as session:
        due = invites.due(session=session, now=now)
    started = 0
    for game_id in due:
        try:
            with db.write_session(engine) as session:
                started += invite_flows.start_due(session=session, game_id=game_id, now=now)
        except Exception:  # one broken game must not stop the sweep; the next sweep tries it again
            log.exception("game %s could not be started", game_id)
    return started
