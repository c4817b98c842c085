"""What every part of the admin services shares: their errors, the organiser as an actor, input checks, and the
game a repair may change."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask_babel import gettext as _
from sqlmodel import Session

from .. import games, i18n, timing
from ..audit import Actor as Actor
from ..models import Game, Seat, utcnow

STATUSES = ("playing", "finished", "aborted")
"""A game's status as the admin page shows it: the stored ones, or ``aborted`` (stopped by an organiser)."""
RUNNING = ("playing", "revealing")
"""The stored statuses of a game still played (older versions stored a second one, ``revealing``)."""
MAX_REASON = 150


class InputErrors(games.ServiceError):
    """Some fields of a form are not acceptable: ``errors`` maps each field's name to its message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


class NotNow(games.ServiceError):
    """The action does not fit the game as it is now (finished, paused, not paused, no deadline …)."""

    status = 409


def check_timezone(value: Any, who: str) -> str:
    """A time zone name of the tz database (Europe/Amsterdam, UTC …)."""
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise games.ServiceError(_("%(name)s's time zone must be a name such as Europe/Amsterdam or UTC", name=who))
    return games.check_seat(games.SeatSpec(name=who, timezone=value.strip())).timezone


def require_email(value: Any, who: str) -> str:
    """An email address (one line, one @, a dot in the domain)."""
    if not isinstance(value, str) or not value.strip():
        raise games.ServiceError(_("%(name)s needs an email address: it is how they play", name=who))
    return games.check_email(value.strip(), _("%(name)s's email", name=who))


def check_language(value: Any) -> str:
    """One of the supported languages (i18n.SUPPORTED), any case: 'NL' is 'nl'."""
    code = value.strip().lower() if isinstance(value, str) else ""
    if code not in i18n.SUPPORTED:
        choices = ", ".join(f"{c} ({i18n.NAMES[c]})" for c in i18n.SUPPORTED)
        raise games.ServiceError(_("The language must be one of %(choices)s.", choices=choices))
    return code


def checked(errors: dict[str, str], key: str, check: Any, *args: Any) -> Any:
    """``check(*args)``, or None with its message put in ``errors`` under ``key``."""
    try:
        return check(*args)
    except games.ServiceError as exc:
        errors[key] = exc.message
        return None


def now_or(now: datetime | None) -> datetime:
    """``now`` in UTC, or the current time."""
    return timing.utc(now) or utcnow()


def running(session: Session, game_id: int, *, unpaused: bool = True) -> Game:
    """The game, locked, if it is still running (and, with ``unpaused``, not paused)."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    if game.aborted_at is not None:
        raise NotNow(_("this game was aborted"))
    if game.status not in RUNNING:
        raise NotNow(_("this game is over"))
    if unpaused and game.paused_at is not None:
        raise NotNow(_("this game is paused: resume it first"))
    return game


def seat_at(session: Session, game_id: int, position: int) -> tuple[list[Seat], Seat]:
    """The game's seats and the one at ``position`` (counted from 0)."""
    seats = games.seats_of(session=session, game_id=game_id)
    if not 0 <= position < len(seats):
        raise games.ServiceError(_("game %(id)s has no seat %(number)d", id=game_id, number=position + 1))
    return seats, seats[position]
