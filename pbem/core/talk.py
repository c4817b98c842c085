"""Table talk: short messages a player says to the table (shown on the others' pages and in their next email)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, func
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from .. import db, timing
from ..i18n import N_
from ..models import Message
from ..timing import utc
from . import seats
from .checks import check_name
from .errors import BadMessage, NotFound, Paused, ServiceError, TooMany

LONGEST = 280
PER_WINDOW = 5
WINDOW = timedelta(minutes=10)
"""A seat may say at most PER_WINDOW things in WINDOW."""
SHOWN = 15


@dataclass(frozen=True)
class Said:
    """One message as pages and emails show it."""

    id: int
    name: str
    text: str
    at: datetime
    hidden: bool = False
    """Hidden by the organiser (only the organiser's page shows such a message, marked)."""


def say(*, session: Session, game_id: int, seat: int, text: str, nonce_tag: str | None, now: datetime) -> Message:
    """Store what ``seat`` says to the table: one line of at most LONGEST characters, at most PER_WINDOW in WINDOW,
    not in a game stopped by its organiser, not from a seat a bot plays."""
    found = seats.load(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag, lock=True)
    if found.game.aborted_at is not None:
        raise Paused(N_("This game was stopped by its organiser: the table is closed."))
    if found.seat.is_bot:
        raise ServiceError(N_("%(name)s is played by a bot"), name=found.seat.name)
    try:
        line = check_name(text, "your message", LONGEST)
    except ServiceError:
        raise BadMessage(_why_not(text), num=LONGEST) from None
    recent = session.exec(
        select(func.count())
        .select_from(Message)
        .where(col(Message.game_id) == game_id, col(Message.seat) == seat, col(Message.created_at) > now - WINDOW)
    ).one()
    if recent >= PER_WINDOW:
        raise TooMany(
            N_("You said a lot in a short time: wait a few minutes before the next message."),
            retry_after=int(WINDOW.total_seconds()),
        )
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
_ALL_SAID = (
    core_select(_MESSAGES.c.id, _MESSAGES.c.seat, _MESSAGES.c.text, _MESSAGES.c.created_at, _MESSAGES.c.hidden_at)
    .where(_MESSAGES.c.game_id == bindparam("game_id"))
    .order_by(_MESSAGES.c.id.desc())
    .limit(SHOWN)
)


def said(*, session: Session, game_id: int, names: dict[int, str], since: datetime | None = None) -> list[Said]:
    """What was said at a game and not hidden, oldest first: after ``since``, or the latest SHOWN."""
    if since is not None:
        rows = db.rows(session, _SAID_SINCE, {"game_id": game_id, "since": since}).all()
    else:
        rows = db.rows(session, _SAID_LATEST, {"game_id": game_id}).all()[::-1]
    return [Said(r.id or 0, names.get(r.seat, "?"), r.text, utc(r.created_at) or timing.now()) for r in rows]


def said_to_organiser(*, session: Session, game_id: int, names: dict[int, str]) -> list[Said]:
    """The latest SHOWN messages of a game, oldest first, the hidden ones too (marked): the organiser's view."""
    rows = db.rows(session, _ALL_SAID, {"game_id": game_id}).all()[::-1]
    return [
        Said(r.id or 0, names.get(r.seat, "?"), r.text, utc(r.created_at) or timing.now(), r.hidden_at is not None)
        for r in rows
    ]


def _why_not(text: str) -> str:
    """Why ``check_name`` refused ``text`` as a message: a message key (with ``num``, the longest)."""
    if not text.strip():
        return N_("your message must not be empty")
    if len(text) > LONGEST:
        return N_("your message must be at most %(num)d characters")
    if any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in text):
        return N_("your message may not contain line breaks or control characters")
    return N_("your message may not contain invisible or text-direction characters")


def _message(session: Session, game_id: int, message_id: int) -> Message:
    message = session.get(Message, message_id) if 0 < message_id < 2**31 else None
    if message is None or message.game_id != game_id:
        raise NotFound(N_("this game has no such message"))
    return message


def hide(*, session: Session, game_id: int, message_id: int, now: datetime) -> Message:
    """Hide a message from the table (the organiser's call); ServiceError if the game has no such message."""
    message = _message(session, game_id, message_id)
    if message.hidden_at is None:
        message.hidden_at = now
        session.add(message)
    return message


def show(*, session: Session, game_id: int, message_id: int) -> Message:
    """Show a hidden message to the table again (the organiser's call); NotFound if the game has no such message."""
    message = _message(session, game_id, message_id)
    if message.hidden_at is not None:
        message.hidden_at = None
        session.add(message)
    return message
