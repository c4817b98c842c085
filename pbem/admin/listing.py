"""The games list: a page of games, filtered by status and by "needs attention", from aggregates only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import and_, func, or_
from sqlmodel import Session, col, select

import engine

from .. import i18n, timing
from ..core.errors import ServiceError
from ..i18n import N_
from ..mail import outbox
from ..models import Game, OutboxEmail, Seat
from .common import RUNNING, STATUSES


def _title(key: str) -> str:
    found = engine.GAMES.get(key)
    return found.title if found is not None else key


@dataclass(frozen=True)
class GameRow:
    """One line of the games list."""

    id: int
    name: str
    status: str
    game: str
    """The title of the game played (``engine.GAMES``), or its key if this server no longer knows it."""
    turn: str | None
    turn_is_bot: bool
    waiting_since: datetime | None
    next_reminder_at: datetime | None
    deadline_at: datetime | None
    paused: bool
    paused_reason: str | None
    """Why, in the language spoken now."""
    undelivered: int
    dead: int
    stuck_since: datetime | None = None
    """When the game's oldest email that keeps failing was queued (MAIL_STUCK_NOTICE_MINUTES or more ago)."""
    bouncing: int = 0
    """How many of the game's players have an address that bounces (``Seat.bounced_at``)."""

    def attention(self, now: datetime) -> list[str]:
        """Why this game needs the organiser, in words (empty when it does not)."""
        reasons = []
        if self.paused:
            reasons.append(_("paused"))
        if self.dead:
            reasons.append(
                ngettext("%(num)d email could not be delivered", "%(num)d emails could not be delivered", self.dead)
            )
        if self.stuck_since is not None:
            reasons.append(_("mail stuck"))
        if self.bouncing:
            reasons.append(
                ngettext("%(num)d player's address bounces", "%(num)d players' addresses bounce", self.bouncing)
            )
        if self.deadline_at is not None and self.deadline_at < now and self.status in RUNNING:
            reasons.append(_("deadline passed"))
        return reasons


@dataclass
class GameList:
    """A page of the games list, with the filters that made it."""

    rows: list[GameRow]
    total: int
    page: int
    per_page: int
    status: str | None
    attention: bool

    @property
    def pages(self) -> int:
        """How many pages the filtered list has (at least 1)."""
        return max(1, -(-self.total // self.per_page))


def list_games(
    *,
    session: Session,
    now: datetime,
    status: str | None = None,
    attention: bool = False,
    page: int = 1,
    per_page: int = 50,
    stuck_after: timedelta | None = None,
) -> GameList:
    """A page of games, newest first: one query for the count and one for the rows (aggregates, no snapshots).

    A game's mail is stuck when an email of it has waited ``stuck_after`` (default MAIL_STUCK_NOTICE_MINUTES)
    and keeps failing; that counts as needing attention."""
    if status is not None and status not in STATUSES:
        raise ServiceError(N_("a game's status is one of %(statuses)s"), statuses=", ".join(STATUSES))
    if page < 1:
        raise ServiceError(N_("pages are counted from 1"))
    stuck = outbox.stuck(now, stuck_after if stuck_after is not None else outbox.stuck_after())
    filters: list[Any] = []
    if status == "aborted":
        filters.append(col(Game.aborted_at).is_not(None))
    elif status is not None:
        stored = RUNNING if status == "playing" else (status,)
        filters += [col(Game.status).in_(stored), col(Game.aborted_at).is_(None)]
    if attention:
        dead_games = select(OutboxEmail.game_id).where(col(OutboxEmail.status) == "dead")
        stopped = and_(col(Game.paused_at).is_not(None), col(Game.aborted_at).is_(None))
        late = and_(col(Game.deadline_at) < now, col(Game.status).in_(RUNNING), col(Game.aborted_at).is_(None))
        stuck_games = select(OutboxEmail.game_id).where(stuck)
        bouncing = select(Seat.game_id).where(col(Seat.bounced_at).is_not(None), col(Seat.kind) == "human")
        filters.append(
            or_(stopped, col(Game.id).in_(dead_games), col(Game.id).in_(stuck_games), late, col(Game.id).in_(bouncing))
        )
    total = session.exec(select(func.count()).select_from(Game).where(*filters)).one()
    page_ids = (
        select(col(Game.id)).where(*filters).order_by(col(Game.id).desc()).limit(per_page).offset((page - 1) * per_page)
    )

    def outbox_count(match: Any) -> Any:
        return (
            select(func.count())
            .select_from(OutboxEmail)
            .where(col(OutboxEmail.game_id) == col(Game.id), match)
            .scalar_subquery()
        )

    # Undelivered: what failed (dead, or waiting for another try after a failure), not what is merely queued.
    failed = or_(
        col(OutboxEmail.status) == "dead",
        and_(col(OutboxEmail.status).in_(("queued", "sending")), col(OutboxEmail.last_error).is_not(None)),
    )
    bounced = sa.table("seat", sa.column("game_id"), sa.column("bounced_at"), sa.column("kind")).alias("bounced")
    query = (
        sa.select(
            col(Game.id),
            col(Game.name),
            col(Game.status),
            col(Game.game),
            col(Seat.name),
            col(Seat.kind),
            col(Game.waiting_since),
            col(Game.next_reminder_at),
            col(Game.deadline_at),
            col(Game.paused_at),
            col(Game.paused_reason),
            col(Game.aborted_at),
            outbox_count(failed),
            outbox_count(col(OutboxEmail.status) == "dead"),
            select(func.min(OutboxEmail.created_at))
            .where(col(OutboxEmail.game_id) == col(Game.id), stuck)
            .scalar_subquery(),
            col(Game.paused_why),
            select(func.count())
            .select_from(bounced)
            .where(bounced.c.game_id == col(Game.id), bounced.c.bounced_at.is_not(None), bounced.c.kind == "human")
            .scalar_subquery(),
        )
        .outerjoin(Seat, and_(col(Seat.game_id) == col(Game.id), col(Seat.position) == col(Game.current_seat)))
        .where(col(Game.id).in_(page_ids.scalar_subquery()))
        .order_by(col(Game.id).desc())
    )
    rows = []
    for r in session.execute(query):
        shown = "aborted" if r[11] is not None else "playing" if r[2] in RUNNING else r[2]
        rows.append(
            GameRow(
                id=r[0],
                name=r[1],
                status=shown,
                game=_title(r[3]),
                turn=r[4] if shown in RUNNING else None,
                turn_is_bot=r[5] is not None and r[5] != "human",
                waiting_since=timing.utc(r[6]),
                next_reminder_at=timing.utc(r[7]) if shown in RUNNING else None,
                deadline_at=timing.utc(r[8]) if shown in RUNNING else None,
                paused=r[9] is not None and shown in RUNNING,
                paused_reason=i18n.words(r[15]) if r[15] else r[10],
                undelivered=r[12],
                dead=r[13],
                stuck_since=timing.utc(r[14]),
                bouncing=r[16] if shown in RUNNING else 0,
            )
        )
    return GameList(rows=rows, total=total, page=page, per_page=per_page, status=status, attention=attention)
