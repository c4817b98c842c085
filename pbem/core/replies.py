"""Replies by email, the core's part: each inbound message once (by Message-ID), and the seat commands a reply
may carry besides the game's own (``away until 2026-12-01``, ``back``, ``reminders off``, ``help``, ``status``).

The seat commands are words of the server's catalogs, understood in the seat's language and in English.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from .. import i18n
from ..i18n import N_
from ..models import Game, InboundMail, Seat

AWAY = N_("away until %(date)s")
BACK = N_("back")
REMINDERS_ON = N_("reminders on")
REMINDERS_OFF = N_("reminders off")
HELP = N_("help")
STATUS = N_("status")
ACCEPT = N_("accept")
DECLINE = N_("decline")
SEAT_COMMANDS = (AWAY, BACK, REMINDERS_OFF, REMINDERS_ON, HELP, STATUS)
INVITATION_COMMANDS = (ACCEPT, DECLINE)
"""The answers to an invitation of a game that waits for everyone to accept (only then are they listed)."""
EXAMPLE_DATE = "2026-12-24"
LONGEST_LINE = 200
"""A longer line is no command (it may still be said to the table, within the talk rules)."""
_DATE = r"(?P<date>\d{4}-\d{1,2}-\d{1,2})"
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class SeatCommand:
    """A seat command read from a line: which (one of SEAT_COMMANDS) and, for ``away``, until when (None: the
    date is not a real date)."""

    key: str
    until: date | None = None


def _plain(text: str) -> str:
    """``text`` as seat commands compare it: case-folded, accents dropped, spaces single, end punctuation off."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(c for c in folded if not unicodedata.combining(c)).replace("’", "'")
    return _SPACES.sub(" ", folded).strip().rstrip(".!").strip()


def seat_command(line: str, lang: str) -> SeatCommand | None:
    """The seat command ``line`` is in ``lang`` or in English, or None."""
    plain = _plain(line)
    if not plain or len(plain) > LONGEST_LINE:
        return None
    for speaking in dict.fromkeys((i18n.language(lang), "en")):
        with i18n.in_language(speaking):
            for key in SEAT_COMMANDS + INVITATION_COMMANDS:
                words = _plain(i18n.text(key, date="\0"))
                if key != AWAY:
                    if plain == words:
                        return SeatCommand(key)
                    continue
                pattern = re.escape(words).replace(re.escape("\0"), _DATE)
                match = re.fullmatch(pattern, plain)
                if match:
                    return SeatCommand(key, _date(match.group("date")))
    return None


def _date(text: str) -> date | None:
    try:
        year, month, day = (int(part) for part in text.split("-"))
        return date(year, month, day)
    except ValueError:
        return None


def examples() -> str:
    """The seat commands in the language spoken now, as the emails list them."""
    return ", ".join(i18n.text(key, date=EXAMPLE_DATE) for key in SEAT_COMMANDS)


_INSERT_ONCE: dict[str, Any] = {}


def claim(*, session: Session, message_id: str, now: datetime) -> int | None:
    """Record that the message ``message_id`` is being handled, in the caller's transaction: its row's id, or
    None when it was handled before (or is being handled now by another reader, which then commits first)."""
    dialect = session.get_bind().dialect.name
    if dialect not in _INSERT_ONCE:
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        table = InboundMail.__table__  # type: ignore[attr-defined]
        _INSERT_ONCE[dialect] = (
            insert(table).on_conflict_do_nothing(index_elements=["message_id"]).returning(table.c.id)
        )
    values = {"message_id": message_id, "received_at": now, "outcome": "received", "moves": 0}
    found: int | None = session.execute(_INSERT_ONCE[dialect], values).scalar()
    return found


def record(
    *, session: Session, row_id: int, outcome: str, game_id: int | None = None, seat: int | None = None, moves: int = 0
) -> None:
    """What was done with a claimed message (``outcome``: a code such as "applied", "robot", "unknown")."""
    session.execute(
        update(InboundMail)
        .where(col(InboundMail.id) == row_id)
        .values(outcome=outcome, game_id=game_id, seat=seat, moves=moves)
    )


def normal_address(address: str) -> str:
    """An address as replies compare it: trimmed, lower-case, its domain in IDNA ASCII form ("" if it is not one
    address)."""
    local, at, domain = address.strip().strip("<>").rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in address.strip()):
        return ""
    try:
        ascii_domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        ascii_domain = domain
    return f"{local}@{ascii_domain}".lower()


def seats_with_addresses(*, session: Session, addresses: tuple[str, ...]) -> list[tuple[int, int]]:
    """(game, seat) of every person's seat in a game that is not over whose address is one of ``addresses``
    (normalised as ``normal_address`` gives them)."""
    if not addresses:
        return []
    rows = session.execute(
        select(col(Seat.game_id), col(Seat.position), col(Seat.email))
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(
            func.lower(col(Seat.email)).in_([a.lower() for a in addresses]),
            col(Seat.kind) == "human",
            col(Game.status) != "finished",
            col(Game.aborted_at).is_(None),
        )
    ).all()
    return [(r[0], r[1]) for r in rows]


def mark_bounced(*, session: Session, game_id: int, seat: int, detail: str, now: datetime) -> Seat | None:
    """Mark the seat's address as failing (locked, in the caller's transaction): the seat when it was healthy until
    now (its organiser is to be told), None when it was already marked (only its detail is updated)."""
    query = select(Seat).where(col(Seat.game_id) == game_id, col(Seat.position) == seat).with_for_update()
    row = session.execute(query).scalars().first()
    if row is None or row.is_bot:
        return None
    first = row.bounced_at is None
    row.bounced_at = now
    row.bounce_detail = detail[:300] or None
    session.add(row)
    session.flush()
    return row if first else None
