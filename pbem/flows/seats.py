"""A seat's player or address changes (the organiser's repairs), and a seat's turn email is sent again.

Each runs in the caller's transaction and queues the emails its change calls for (``mail.notify``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlmodel import Session

from .. import timing
from ..core import games, waits
from ..mail import notify
from ..models import Game, OutboxEmail, Seat


def rotate(seat: Seat) -> None:
    """Give the seat a new nonce: every link made for it before stops working."""
    seat.nonce = secrets.token_urlsafe(24)


@dataclass(frozen=True)
class Former:
    """The person who played a seat before the organiser handed it on: where and how to tell them."""

    email: str
    language: str
    timezone: str

    @classmethod
    def of(cls, seat: Seat) -> Former | None:
        """The person playing ``seat`` now, if a person with an address plays it."""
        if seat.is_bot or not seat.email or seat.left_at is not None:
            return None
        return cls(seat.email, seat.language, seat.timezone)


def welcome(
    *,
    session: Session,
    game: Game,
    seats: list[Seat],
    seat: Seat,
    person: str | None = None,
    former: Former | None = None,
) -> None:
    """Store the seat's new address or person, give them a wait of their own if they must act (reminders and
    deadline anew), then queue a fresh invitation and, if they must act now, their turn email (with that deadline).

    ``person``: the name of a new person who takes the seat over (their invitation greets them by it and says the
    game is under way); ``former``: the person who played it before, told that it is no longer theirs.
    A new address starts healthy (no bounce)."""
    seat.bounced_at, seat.bounce_detail = None, None
    session.add(seat)
    session.flush()
    waits.restart(session, game, seat, timing.now())
    notify.queue_invitation(session=session, game=game, seats=seats, seat=seat, person=person)
    if former is not None and former.email.lower() != (seat.email or "").lower():
        notify.queue_replaced(
            session=session,
            game=game,
            seat=seat,
            email=former.email,
            language=former.language,
            timezone=former.timezone,
        )
    rules = games.rules_of(game)
    state = games.load_state(game)
    if game.paused_at is None and games.decision_of(rules, state, seat.name) is not None:
        resend_turn(session=session, game=game, seats=seats, seat=seat)


def resend_turn(*, session: Session, game: Game, seats: list[Seat], seat: Seat) -> OutboxEmail | None:
    """Queue ``seat``'s turn email again, naming the deadline of its own wait (None: nothing to send)."""
    deadline = notify.deadline_of(session, game, seat)
    state = games.load_state(game)
    return notify.queue_turn_email(session=session, game=game, seats=seats, seat=seat, state=state, deadline=deadline)
