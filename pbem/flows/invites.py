"""Invitations that are accepted (``core.invites``): create such a game, answer an invitation, fill a declined
seat, start the game (when everyone has accepted, at its start date, or when the organiser says so).

Each runs in the caller's transaction and queues the emails its change calls for: the invitations (with Accept /
Decline on the player's page), the organiser's notices of each answer, and at the start every player's "the game
starts" email (their links, the final table) and the first turn email.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask_babel import gettext as _
from sqlmodel import Session

from .. import i18n, timing
from ..core import games, invites
from ..core import seats as seat_rows
from ..core.errors import NotNow, ServiceError
from ..mail import notify
from ..models import Game, Seat


def create(
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
    start_at: datetime | None = None,
    unanswered: str = "bot",
    rematch_of: int | None = None,
) -> Game:
    """Create a game that starts when every person at it has accepted (or at ``start_at``, with bots in the seats
    nobody accepted, or without those seats: ``unanswered`` "bot" or "drop"), and invite each person."""
    if unanswered not in invites.UNANSWERED:
        raise ServiceError("%(why)s", why=f"unanswered is one of {', '.join(invites.UNANSWERED)}")
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
        invited=True,
    )
    row = outcome.game
    row.start_at, row.unanswered, row.rematch_of = timing.utc(start_at), unanswered, rematch_of
    session.add(row)
    session.flush()
    for seat in outcome.seats:
        notify.queue_invitation(session=session, game=row, seats=outcome.seats, seat=seat)
    return row


@dataclass
class Answer:
    """What an answer did: the seat (its answer stored), and whether the game started with it."""

    seat: Seat
    started: bool


def answer_invitation(*, session: Session, seat: Seat, accept: bool, now: datetime | None = None) -> Answer:
    """Store ``seat``'s answer to its invitation (True: accept, False: decline) from its page or a reply (the caller
    has checked the seat's link or reply address); the organiser is told, and the game starts at once when this was
    the last acceptance it waited for. NotNow when the game no longer waits for answers."""
    now = now or timing.now()
    done = invites.answer(session=session, game_id=seat.game_id, seat=seat.position, accept=accept, now=now)
    if done.changed:
        waiting = [s.name for s in done.seats if not invites.accepted(s)]
        with i18n.in_language(notify.organiser_language(session, done.game)):
            if accept:
                subject = _("%(name)s accepted the invitation", name=done.seat.name)
            else:
                subject = _("%(name)s declined the invitation", name=done.seat.name)
            body = subject + "."
            if not accept:
                body += " " + _("You can give the seat to someone else, or to a bot, on the game's admin page.")
            if waiting:
                body += "\n\n" + _("Still waiting for: %(names)s.", names=", ".join(waiting))
        notify.queue_organiser_notice(session=session, game=done.game, subject=subject, body=body)
    if done.everyone:
        start(session=session, game_id=done.game.id or 0)
        return Answer(done.seat, True)
    return Answer(done.seat, False)


def fill_seat(
    *,
    session: Session,
    game_id: int,
    seat: int,
    kind: str,
    name: str,
    email: str = "",
    language: str = "en",
    timezone: str = "UTC",
) -> Seat:
    """Give a seat of a game waiting for answers to a new person (invited at once) or to a bot (which accepts at
    once: the game starts if everyone else has accepted)."""
    game, seats, target = invites.fill_seat(
        session=session,
        game_id=game_id,
        seat=seat,
        kind=kind,
        name=name,
        email=email,
        language=language,
        timezone=timezone,
    )
    notify.queue_invitation(session=session, game=game, seats=seats, seat=target)
    if all(invites.accepted(s) for s in seats):
        start(session=session, game_id=game_id)
    return target


def start(*, session: Session, game_id: int) -> invites.Started:
    """Start a game that waits for answers (``core.invites.start``): every player gets the email that says it
    starts (the final table, their links), whoever must act first their turn email, and the organiser a notice."""
    started = invites.start(session=session, game_id=game_id)
    outcome = started.outcome
    seats = outcome.seats
    for seat in seats:
        notify.queue_invitation(session=session, game=outcome.game, seats=seats, seat=seat, starting=True)
    notify.after_move(session=session, outcome=outcome, seats=seats, before=None)
    with i18n.in_language(notify.organiser_language(session, outcome.game)):
        body = _("The game has started: %(names)s.", names=", ".join(s.name for s in seats))
        if started.bots:
            body += "\n\n" + _("A bot plays for %(names)s, who did not accept.", names=", ".join(started.bots))
        if started.dropped:
            body += "\n\n" + _("It started without %(names)s, who did not accept.", names=", ".join(started.dropped))
        subject = _("The game has started")
    notify.queue_organiser_notice(session=session, game=outcome.game, subject=subject, body=body)
    return started


def start_due(*, session: Session, game_id: int, now: datetime) -> bool:
    """The start date of a game waiting for answers has come: start it as the organiser chose. If too few accepted
    for a game without the missing seats, the organiser is told and the date is cleared (the game waits on)."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    start_at = timing.utc(game.start_at)
    if not invites.is_invited(game) or start_at is None or start_at > now:
        return False
    try:
        start(session=session, game_id=game_id)  # refused before it changes anything
    except NotNow as exc:
        game.start_at = None
        session.add(game)
        with i18n.in_language(notify.organiser_language(session, game)):
            subject = _("The game could not start")
            body = (
                exc.message
                + "\n\n"
                + _("It waits for answers again, without a start date: fill the seats, or start it on its admin page.")
            )
        notify.queue_organiser_notice(session=session, game=game, subject=subject, body=body)
        return False
    return True
