"""What the server's state says about its health: the scheduler's heartbeats, the outbox's backlog and the moves
made, for ``/readyz`` and ``/metrics``. Counts only: no address, name or token leaves here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from ..models import Game, MoveRecord, OutboxEmail, SchedulerBeat


@dataclass(frozen=True)
class Beat:
    """One scheduler job's heartbeat as stored."""

    job: str
    beat_at: datetime
    seconds: float
    runs: int
    done: int


def beat(*, session: Session, job: str, now: datetime, seconds: float, done: int, host: str) -> None:
    """Record that ``job`` finished a run at ``now`` that took ``seconds`` and did ``done`` items (one row per job,
    shared by every scheduler: the totals add up)."""
    table = SchedulerBeat.__table__  # type: ignore[attr-defined]
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(table).values(job=job, beat_at=now, seconds=seconds, runs=1, done=done, host=host[:64])
    session.execute(
        statement.on_conflict_do_update(
            index_elements=["job"],
            set_={
                "beat_at": statement.excluded.beat_at,
                "seconds": statement.excluded.seconds,
                "host": statement.excluded.host,
                "runs": table.c.runs + 1,
                "done": table.c.done + statement.excluded.done,
            },
        )
    )


def beats(*, session: Session) -> dict[str, Beat]:
    """Every job's heartbeat, by job."""
    found = session.exec(select(SchedulerBeat)).all()
    return {b.job: Beat(b.job, _utc(b.beat_at), float(b.seconds), int(b.runs), int(b.done)) for b in found}


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def oldest_queued(*, session: Session) -> datetime | None:
    """When the oldest email still waiting to go out (queued or being sent) was queued; None if there is none."""
    found = session.exec(
        select(func.min(OutboxEmail.created_at)).where(col(OutboxEmail.status).in_(("queued", "sending")))
    ).one()
    return _utc(found) if found is not None else None


def emails_by_status(*, session: Session) -> dict[str, int]:
    """How many emails the outbox holds in each status (queued, sending, sent, dead, dropped)."""
    found = session.exec(select(OutboxEmail.status, func.count()).group_by(col(OutboxEmail.status))).all()
    return {status: int(count) for status, count in found}


def emails_failing(*, session: Session) -> int:
    """Emails waiting to be tried again after a failed attempt."""
    query = select(func.count()).where(col(OutboxEmail.status) == "queued", col(OutboxEmail.last_error).is_not(None))
    return int(session.exec(query).one())


def moves_by_source(*, session: Session) -> list[tuple[str, str, int]]:
    """(game key, source, moves) for every game key and move source (link, page, email, admin, bot, timeout)."""
    query: Any = (
        select(Game.game, MoveRecord.source, func.count())
        .join(Game, col(Game.id) == col(MoveRecord.game_id))
        .group_by(col(Game.game), col(MoveRecord.source))
    )
    return [(key, source, int(count)) for key, source, count in session.exec(query).all()]
