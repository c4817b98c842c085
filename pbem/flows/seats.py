"""A seat's player or address changes (the organiser's repairs), and a seat's turn email is sent again.

Each runs in the caller's transaction and queues the emails its change calls for (``mail.notify``).
"""

from __future__ import annotations

import secrets

from sqlmodel import Session

from ..core import games, waits
from ..mail import notify
from ..models import Game, OutboxEmail, Seat, utcnow


def rotate(seat: Seat) -> None:
    """Give the seat a new nonce: every link made for it before stops working."""
    seat.nonce = secrets.token_urlsafe(24)


def welcome(*, session: Session, game: Game, seats: list[Seat], seat: Seat) -> None:
    """Store the seat's new address or person, give them a wait of their own if they must act (reminders and
    deadline anew), then queue a fresh invitation and, if they must act now, their turn email (with that deadline).
    A new address starts healthy (no bounce)."""
    seat.bounced_at, seat.bounce_detail = None, None
    session.add(seat)
    session.flush()
    waits.restart(session, game, seat, utcnow())
    notify.queue_invitation(session=session, game=game, seats=seats, seat=seat)
    rules = games.rules_of(game)
    state = games.load_state(game)
    if game.paused_at is None and games.decision_of(rules, state, seat.name) is not None:
        resend_turn(session=session, game=game, seats=seats, seat=seat)


def resend_turn(*, session: Session, game: Game, seats: list[Seat], seat: Seat) -> OutboxEmail | None:
    """Queue ``seat``'s turn email again, naming the deadline of its own wait (None: nothing to send)."""
    deadline = notify.deadline_of(session, game, seat)
    state = games.load_state(game)
    return notify.queue_turn_email(session=session, game=game, seats=seats, seat=seat, state=state, deadline=deadline)
