"""An organiser who also plays: the seat their login's address holds in a game, and their choice to see everything.

While an organiser plays in a running game and has not chosen to see everything (``show_hidden``), the admin page
shows them only what their own seat may see, and an export leaves out the seed and what reveals hidden cards.
That choice is an ``AdminAction`` whose notice tells every player, and it holds for the rest of the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from flask_babel import gettext
from sqlmodel import Session, col, select

from .. import i18n, timing
from ..core import audit, checks
from ..core import seats as seat_rows
from ..core.errors import NotNow, ServiceError
from ..i18n import N_
from ..models import AdminAction, Game, Seat
from .common import RUNNING, Actor, now_or, running

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""

SHOW_HIDDEN = "show_hidden"
"""The ``AdminAction.action`` of an organiser who plays and chose to see every hand and the hidden cards."""


@dataclass(frozen=True)
class Playing:
    """An organiser's seat in a game they play in, and when (if ever) they chose to see everything."""

    seat: Seat
    looked_at: datetime | None = None

    @property
    def hidden(self) -> bool:
        """Other hands, hidden cards and the seed are kept from the organiser."""
        return self.looked_at is None


def address(value: str | None) -> str:
    """An email address in the form seats store it (``checks.check_email``), compared case-insensitively."""
    if not value:
        return ""
    try:
        value = checks.check_email(value.strip(), _("the address"))
    except ServiceError:
        value = value.strip()
    return value.casefold()


def seat_of(seats: Sequence[Seat], actor: Actor) -> Seat | None:
    """The seat of a person, not left, whose address is the organiser's login address (None: they do not play)."""
    mine = address(actor.email)
    if not mine:
        return None
    return next((s for s in seats if not s.is_bot and s.left_at is None and address(s.email) == mine), None)


def _looked_at(session: Session, game_id: int, actor: Actor) -> datetime | None:
    query = (
        select(AdminAction.created_at)
        .where(
            col(AdminAction.game_id) == game_id,
            col(AdminAction.admin_id) == actor.id,
            col(AdminAction.action) == SHOW_HIDDEN,
        )
        .order_by(col(AdminAction.id))
        .limit(1)
    )
    return timing.utc(session.exec(query).first())


def playing(*, session: Session, game: Game, seats: Sequence[Seat], actor: Actor | None) -> Playing | None:
    """The organiser's seat while the game runs and they play in it; None once it is over or when they do not play."""
    if actor is None or game.status not in RUNNING or game.aborted_at is not None:
        return None
    seat = seat_of(seats, actor)
    if seat is None:
        return None
    return Playing(seat, _looked_at(session, game.id or 0, actor))


def hidden_seat(*, session: Session, game: Game, seats: Sequence[Seat], actor: Actor | None) -> Seat | None:
    """The organiser's seat if everything hidden must be kept from them now, else None."""
    found = playing(session=session, game=game, seats=seats, actor=actor)
    return found.seat if found is not None and found.hidden else None


def show_hidden(*, session: Session, game_id: int, actor: Actor, now: datetime | None = None) -> str:
    """An organiser who plays chooses to see every hand and the hidden cards for the rest of the game; logged,
    and every player is told (the action's notice, in their next email)."""
    game = running(session, game_id, unpaused=False)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    found = playing(session=session, game=game, seats=seats, actor=actor)
    if found is None:
        raise NotNow(N_("you do not play in this game: its page already shows everything"))
    if not found.hidden:
        raise NotNow(N_("you already chose to see everything in this game"))
    at = now_or(now)
    audit.log_action(
        session,
        game,
        actor,
        SHOW_HIDDEN,
        i18n.stored(N_("plays as %(name)s and chose to see every hand and the hidden cards"), name=found.seat.name),
        i18n.stored(N_("The organiser (who also plays) looked at the hidden cards of this game on %(at)s."), at=at),
    )
    return _("Every hand and the hidden cards are shown now. Every player is told in their next email.")
