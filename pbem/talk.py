"""Table talk: short messages a player says to the table (shown on the others' pages and in their next email)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask_babel import gettext as _
from sqlalchemy import bindparam, func
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from . import db, games
from .models import Message, utcnow
from .timing import utc

LONGEST = 280
PER_WINDOW = 5
WINDOW = timedelta(minutes=10)
"""A seat may say at most PER_WINDOW things in WINDOW."""
SHOWN = 15


class TooChatty(games.ServiceError):
    """A seat said too many things in a short time."""

    status = 429
    retry_after = int(WINDOW.total_seconds())


class BadMessage(games.ServiceError):
    """A message that cannot be said: empty, too long, more than one line, invisible characters."""


@dataclass(frozen=True)
class Said:
    """One message as pages and emails show it."""

    id: int
    name: str
    text: str
    at: datetime


def say(*, session: Session, game_id: int, seat: int, text: str, nonce_tag: str | None, now: datetime) -> Message:
    """Store what ``seat`` says to the table: one line of at most LONGEST characters, at most PER_WINDOW in WINDOW,
    not in a game stopped by its organiser, not from a seat a bot plays."""
    game, seats = games.lock_seat(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag)
    if game.aborted_at is not None:
        raise games.GamePaused(_("This game was stopped by its organiser: the table is closed."))
    if seats[seat].is_bot:
        raise games.ServiceError(f"{seats[seat].name} is played by a bot")
    try:
        line = games.check_name(text, "your message", LONGEST)
    except games.ServiceError:
        raise BadMessage(_why_not(text)) from None
    recent = session.exec(
        select(func.count())
        .select_from(Message)
        .where(col(Message.game_id) == game_id, col(Message.seat) == seat, col(Message.created_at) > now - WINDOW)
    ).one()
    if recent >= PER_WINDOW:
        raise TooChatty(_("You said a lot in a short time: wait a few minutes before the next message."))
    message = Message(game_id=game_id, seat=seat, text=line, created_at=now)
    session.add(message)
    session.flush()
    return message


_MESSAGES = Message.__table__  # type: ignore[attr-defined]
_SAID = core_select(_MESSAGES.c.id, _MESSAGES.c.seat, _MESSAGES.c.text, _MESSAGES.c.created_at).where(
    _MESSAGES.c.game_id == bindparam("game_id"), _MESSAGES.c.hidden_at.is_(None)
)
_SAID_SINCE = _SAID.where(_MESSAGES.c.created_at > bindparam("since")).order_by(_MESSAGES.c.id)
_SAID_LATEST = _SAID.order_by(_MESSAGES.c.id.desc()).limit(SHOWN)


def said(*, session: Session, game_id: int, names: dict[int, str], since: datetime | None = None) -> list[Said]:
    """What was said at a game and not hidden, oldest first: after ``since``, or the latest SHOWN."""
    if since is not None:
        rows = db.rows(session, _SAID_SINCE, {"game_id": game_id, "since": since}).all()
    else:
        rows = db.rows(session, _SAID_LATEST, {"game_id": game_id}).all()[::-1]
    return [Said(r.id or 0, names.get(r.seat, "?"), r.text, utc(r.created_at) or utcnow()) for r in rows]


def _why_not(text: str) -> str:
    """Why ``games.check_name`` refused ``text`` as a message, in the reader's language."""
    if not text.strip():
        return str(_("your message must not be empty"))
    if len(text) > LONGEST:
        return str(_("your message must be at most %(num)d characters", num=LONGEST))
    if any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in text):
        return str(_("your message may not contain line breaks or control characters"))
    return str(_("your message may not contain invisible or text-direction characters"))


def hide(*, session: Session, game_id: int, message_id: int, now: datetime) -> Message:
    """Hide a message from the table (the organiser's call); ServiceError if the game has no such message."""
    message = session.get(Message, message_id) if 0 < message_id < 2**31 else None
    if message is None or message.game_id != game_id:
        raise games.ServiceError("this game has no such message")
    if message.hidden_at is None:
        message.hidden_at = now
        session.add(message)
    return message
