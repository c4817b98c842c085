"""What every part of the admin services shares: the organiser as an actor, and the game a repair may change."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from .. import timing
from ..core import games
from ..core import seats as seat_rows
from ..core.audit import Actor as Actor
from ..core.errors import NotNow
from ..i18n import N_
from ..models import Game, Seat

STATUSES = ("invited", "playing", "finished", "aborted")
"""A game's status as the admin page shows it: the stored ones (``invited``: waiting for answers to its invitations),
or ``aborted`` (stopped by an organiser)."""
RUNNING = ("playing", "revealing")
"""The stored statuses of a game still played (older versions stored a second one, ``revealing``)."""
MAX_REASON = 150


def now_or(now: datetime | None) -> datetime:
    """``now`` in UTC, or the current time."""
    return timing.utc(now) or timing.now()


def running(session: Session, game_id: int, *, unpaused: bool = True) -> Game:
    """The game, locked, if it is still running (and, with ``unpaused``, not paused)."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    if game.aborted_at is not None:
        raise NotNow(N_("this game was aborted"))
    if game.status == games.INVITED:
        raise NotNow(N_("this game has not started: it waits for answers to its invitations"))
    if game.status not in RUNNING:
        raise NotNow(N_("this game is over"))
    if unpaused and game.paused_at is not None:
        raise NotNow(N_("this game is paused: resume it first"))
    return game


def seat_at(session: Session, game_id: int, position: int) -> tuple[list[Seat], Seat]:
    """The game's seats and the one at ``position`` (counted from 0)."""
    found = seat_rows.load(session=session, game_id=game_id, seat=position)
    return found.seats, found.seat
