"""What the clock makes happen, for one claimed row each: a reminder, a deadline passed, a daily digest.

The scheduler's sweeps (``pbem.scheduler.sweeps``) claim the rows that are due and call these in the claim's
transaction; each returns how many emails or moves it made.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session

from .. import i18n, timing
from ..core import games, seats, waits
from ..i18n import N_
from ..mail import notify
from ..models import Game, Seat, Wait
from ..timing import utc
from . import play


def remindable(seat: Seat) -> bool:
    """True if reminders may go to this seat: a person with an email, still playing, with reminders on."""
    return not seat.is_bot and bool(seat.email) and seat.reminders and seat.left_at is None


def current(session: Session, game: Game, wait: Wait, now: datetime) -> tuple[Any, Seat] | None:
    """The game's state and the wait's seat if the game still waits on that seat for that; else the game's waits
    are synced with its state first (a row left behind does nothing) and None."""
    rules = games.rules_of(game)
    state = games.load_state(game)
    seat = seats.seats_of(session=session, game_id=game.id or 0)[wait.seat]
    decision = games.decision_of(rules, state, seat.name)
    if decision is not None and decision.wait == wait.wait:
        return state, seat
    for name, value in waits.store_fields(session=session, game=game, rules=rules, state=state, now=now).items():
        setattr(game, name, value)
    session.add(game)
    return None


def remind(session: Session, game: Game, wait: Wait, now: datetime) -> int:
    """The wait's next reminder (if its seat takes reminders), and when the one after is due."""
    found = current(session, game, wait, now)
    if found is None:
        return 0
    state, seat = found
    since = utc(wait.waiting_since) or now
    deadline = utc(wait.deadline_at)
    step = timing.reminder_step(
        waits.policy_of(game), now=now, sent=wait.reminders_sent, clock=waits.seat_clock(seat), deadline=deadline
    )
    queued = 0
    if step.send:
        wait.reminders_sent = step.number
        wait.last_reminder_at = now
        if remindable(seat):
            row = notify.queue_turn_email(
                session=session,
                game=game,
                seats=seats.seats_of(session=session, game_id=game.id or 0),
                seat=seat,
                state=state,
                reminder=step.number,
                last_reminder=step.last,
                waited=now - since,
                deadline=deadline if step.last else None,
                dedupe_key=f"reminder:{game.id}:{seat.position}:{wait.decision}:{int(since.timestamp())}:{step.number}",
            )
            queued = 0 if row is None else 1
    wait.next_reminder_at = step.next_at
    session.add(wait)
    waits.refresh(session, game)
    return queued


def time_out(session: Session, game: Game, wait: Wait, now: datetime) -> int:
    """The wait's deadline passed: the game's timeout policy pauses the game (the organiser is told) or the
    default bot decides for the seat."""
    found = current(session, game, wait, now)
    if found is None:
        return 0
    _state, seat = found
    policy = waits.policy_of(game)
    if policy.timeout == "pause":
        hours = timedelta(hours=policy.deadline_hours or 0)
        game.paused_at = now
        game.paused_reason = None
        game.paused_why = i18n.stored(N_("%(name)s did not play within %(time)s."), name=seat.name, time=hours)
        waits.pause(session, game)
        with i18n.in_language(notify.organiser_language(session, game)):
            subject = f"{game.name} · " + i18n.text(N_("Paused: %(name)s did not play in time"), name=seat.name)
            body = i18n.text(
                N_(
                    "The game “%(game)s” waited for %(name)s since %(since)s and the deadline passed. "
                    "Its timeout policy is to pause, so it is paused now: nobody can move until you resume it "
                    "on the admin page (or hand the seat to someone else or to a bot)."
                ),
                game=game.name,
                name=seat.name,
                since=i18n.when(utc(wait.waiting_since) or now, UTC),
            )
        notify.queue_organiser_notice(session=session, game=game, subject=subject, body=body)
        return 1
    play.bot_decides(session=session, game=game, seat=seat.position, source="timeout", wait=wait.wait)
    return 1


def digest(session: Session, seat: Seat, now: datetime) -> int:
    """Queue the seat's digest for today, unless it is its turn, it is away or nothing happened; then plan the
    next one (tomorrow's), or none for a seat that cannot be reached or a game that is over."""
    game = seats.get_game(session=session, game_id=seat.game_id)
    if seat.digest != "daily" or not notify.reachable(seat) or game.status == "finished" or game.aborted_at:
        seat.next_digest_at = None
        session.add(seat)
        return 0
    clock = waits.seat_clock(seat)
    if timing.in_quiet(now, clock.quiet, clock.tz):
        seat.next_digest_at = timing.end_of_quiet(now, clock.quiet, clock.tz)
        session.add(seat)
        return 0
    seat.next_digest_at = seats.next_digest_at(seat, now)
    session.add(seat)
    if clock.away is not None and clock.away.start <= now < clock.away.end:
        return 0
    rules = games.rules_of(game)
    if games.decision_of(rules, games.load_state(game), seat.name) is not None:
        return 0  # its turn email says what happened
    row = notify.queue_digest(
        session=session,
        game=game,
        seats=seats.seats_of(session=session, game_id=game.id or 0),
        seat=seat,
        day=timing.local_date(now, clock.tz),
        now=now,
    )
    return 0 if row is None else 1
