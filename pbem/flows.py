"""Use cases: each runs one service of ``pbem.games`` and queues the emails its outcome calls for.

Both happen in the caller's transaction (``pbem.db.write_session``), so a change and its emails are
stored together or not at all. Views, the scheduler's sweeps, the admin services and the command line
call these; ``pbem.games`` itself never sends anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session

from . import games, talk, timing
from .mail import notify
from .models import Game, utcnow


def create_game(
    *,
    session: Session,
    name: str,
    seats: Sequence[games.SeatSpec],
    game: str = games.DEFAULT_GAME,
    options: Mapping[str, Any] | None = None,
    random_order: bool = False,
    seed: int | None = None,
    organiser_email: str | None = None,
    policy: timing.Policy | None = None,
) -> Game:
    """Create a game (``games.create_game``), then invite its players and queue the first turn email."""
    outcome = games.create_game(
        session=session,
        name=name,
        seats=seats,
        game=game,
        options=options,
        random_order=random_order,
        seed=seed,
        organiser_email=organiser_email,
        policy=policy,
    )
    notify.after_create(session=session, game=outcome.game, seats=outcome.seats, outcome=outcome)
    return outcome.game


def apply_move(
    *,
    session: Session,
    game_id: int,
    seat: int,
    move: dict[str, Any],
    decision: str | int | None,
    source: str,
    nonce_tag: str | None = None,
    message: str = "",
) -> games.MoveOutcome:
    """Apply one move (``games.apply_move``), then queue what it calls for: score sheets, game over, a turn email.

    With ``message``, the seat says it to the table first (``talk.say``), in the same transaction: a message that
    is refused (``talk.BadMessage``, ``talk.TooChatty``) refuses the move too.
    """
    if message:
        talk.say(session=session, game_id=game_id, seat=seat, text=message, nonce_tag=nonce_tag, now=utcnow())
    outcome = games.apply_move(
        session=session,
        game_id=game_id,
        seat=seat,
        move=move,
        decision=decision,
        source=source,
        nonce_tag=nonce_tag,
    )
    notify.after_move(session=session, outcome=outcome, seats=outcome.seats, before=outcome.before)
    return outcome


def leave_seat(*, session: Session, game_id: int, seat: int) -> games.MoveOutcome:
    """A person leaves (``games.leave_seat``): the organiser is told, and what the bot then did is emailed."""
    outcome = games.leave_seat(session=session, game_id=game_id, seat=seat)
    leaver = outcome.seats[seat]
    notify.after_leave(session=session, outcome=outcome, seats=outcome.seats, seat=leaver, before=outcome.before)
    return outcome
