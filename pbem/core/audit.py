"""What organisers did to a game (``AdminAction`` rows): the log of the admin page, and what players are told.

Every organiser action writes one row in the transaction of the change it makes. Those with a ``notice``
reach the players in their next email (``actions_since``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from ..models import AdminAction, Game
from ..timing import utc


@dataclass(frozen=True)
class Actor:
    """The organiser doing something: kept on every action they take."""

    id: int
    name: str
    email: str | None = None
    timezone: str = "UTC"


def log_action(
    session: Session,
    game: Game,
    actor: Actor,
    action: str,
    detail: str,
    notice: str | None = None,
    seat: int | None = None,
) -> AdminAction:
    """Write who did what to ``game``; ``notice`` is what players are told, ``seat`` whom it concerns."""
    row = AdminAction(
        game_id=game.id or 0,
        admin_id=actor.id or None,
        admin_name=actor.name,
        action=action,
        seat=seat,
        detail=detail,
        notice=notice,
    )
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True)
class AdminNotice:
    """An organiser action players should hear about: when, what, in words, and who: ``seat`` is the only seat
    to tell (a change to that player's own contact details), None for every player at the table."""

    at: datetime
    action: str
    seat: int | None
    text: str


PRIVATE_NOTICES = ("change_email",)
"""Actions only the seat they were done to hears about; the table hears about every other one."""


_NOTICES = (
    select(AdminAction)
    .where(
        col(AdminAction.game_id) == sa.bindparam("game_id"),
        col(AdminAction.created_at) > sa.bindparam("since"),
        col(AdminAction.notice).is_not(None),
    )
    .order_by(col(AdminAction.created_at), col(AdminAction.id))
)


def actions_since(*, session: Session, game_id: int, since: datetime) -> list[AdminNotice]:
    """The organiser's actions on a game after ``since`` that concern its players, in plain words, oldest first."""
    rows = session.exec(_NOTICES, params={"game_id": game_id, "since": utc(since)})
    return [
        AdminNotice(
            utc(r.created_at) or since, r.action, r.seat if r.action in PRIVATE_NOTICES else None, r.notice or ""
        )
        for r in rows
    ]
