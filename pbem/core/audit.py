"""What organisers did to a game (``AdminAction`` rows): the log of the admin page, and what players are told.

Every organiser action writes one row in the transaction of the change it makes, its line of the log and its
notice to the players stored as codes (``i18n.stored``), put into words when shown: the log in the organiser's
language (``log_words``), the notice in each player's (``actions_since``, in their next email).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from .. import db, i18n
from ..i18n import StoredText
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
    detail: StoredText,
    notice: StoredText | None = None,
    seat: int | None = None,
) -> AdminAction:
    """Write who did what to ``game`` (``detail``: the log's line); ``notice`` is what players are told, ``seat``
    whom it concerns. Both are codes (``i18n.stored``); their parameters share one table (same name, same value)."""
    params = {**detail["params"], **(notice["params"] if notice is not None else {})}
    row = AdminAction(
        game_id=game.id or 0,
        admin_id=actor.id or None,
        admin_name=actor.name,
        action=action,
        seat=seat,
        detail=i18n.english(detail),
        notice=None if notice is None else i18n.english(notice),
        key=_key(detail),
        notice_key=None if notice is None else _key(notice),
        params=params,
    )
    session.add(row)
    session.flush()
    return row


def _key(text: StoredText) -> str:
    key = text["key"]
    return key if isinstance(key, str) else "\x1f".join(key)


def _stored(key: str, params: dict[str, Any] | None) -> StoredText:
    parts = key.split("\x1f")
    return {"key": parts if len(parts) == 2 else key, "params": params or {}}


def log_words(row: AdminAction) -> str:
    """The line of the log for ``row``, in the language spoken now (a row stored as a sentence: as it is)."""
    return i18n.words(_stored(row.key, row.params)) if row.key else row.detail


def notice_words(row: Any) -> str:
    """What players are told of ``row`` (an AdminAction, or a row of its columns), in the language spoken now (a
    row stored as a sentence: as it is)."""
    if row.notice_key:
        return i18n.words(_stored(row.notice_key, row.params))
    return row.notice or ""


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
    sa.select(
        col(AdminAction.created_at),
        col(AdminAction.action),
        col(AdminAction.seat),
        col(AdminAction.notice),
        col(AdminAction.notice_key),
        col(AdminAction.params),
    )
    .where(
        col(AdminAction.game_id) == sa.bindparam("game_id"),
        col(AdminAction.created_at) > sa.bindparam("since"),
        col(AdminAction.notice).is_not(None),
    )
    .order_by(col(AdminAction.created_at), col(AdminAction.id))
)


def actions_since(*, session: Session, game_id: int, since: datetime) -> list[AdminNotice]:
    """The organiser's actions on a game after ``since`` that concern its players, in plain words (the language
    spoken now), oldest first (read as plain rows: every page asks)."""
    rows = db.rows(session, _NOTICES, {"game_id": game_id, "since": utc(since)})
    return [
        AdminNotice(
            utc(r.created_at) or since, r.action, r.seat if r.action in PRIVATE_NOTICES else None, notice_words(r)
        )
        for r in rows
    ]
