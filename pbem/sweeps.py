"""The scheduler's work on the database: reminder and deadline sweeps, absences, quiet hours, pauses.

The database is the scheduler's memory: each seat a game waits on has a ``Wait`` row (since when, for
which decision), with when its next reminder is due (``next_reminder_at``) and its deadline
(``deadline_at``), both indexed; ``pbem.waits`` keeps them up to date at every stored move.
A sweep reads the waits that are due, then claims and handles each one (with its game) in its own short
write transaction (``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL; BEGIN IMMEDIATE and a re-check on
SQLite), so two schedulers can sweep at once; a reminder's outbox ``dedupe_key`` makes it unique.
The digest sweep does the same with the seats whose daily digest is due (``Seat.next_digest_at``), with one
``dedupe_key`` per seat and local day.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from flask_babel import gettext, ngettext
from sqlalchemy import Engine, or_
from sqlmodel import Session, col, select

from . import db, flows, games, i18n, timing, waits
from .mail import notify
from .models import Game, Seat, Wait
from .timing import utc

log = logging.getLogger(__name__)

BATCH = 200
FINISHED = "finished"
"""The status of a game that is over (``games.is_over``)."""
MAX_TIMEOUT_MOVES = 40
"""A bound on the decisions the bot makes for one timed-out wait (several decisions may share one wait)."""

# ---------------------------------------------------------------------------------------------- sweeps


def reminder_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Send the reminders that are due at ``now`` (each once, however late); the number queued."""
    return _sweep(engine, col(Wait.next_reminder_at), now, _remind)


def deadline_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Apply the timeout policy to every wait whose deadline passed, oldest deadline first; the number applied."""
    return _sweep(engine, col(Wait.deadline_at), now, _time_out)


Handler = Callable[[Session, Game, Wait, datetime], int]


def _sweep(engine: Engine | None, column: Any, now: datetime, handle: Handler) -> int:
    """Visit each due wait once, in order of ``column``, handling each in its own write transaction."""
    engine = engine or db.get_engine()
    now = now.astimezone(UTC)
    done = 0
    after: tuple[datetime, int] | None = None
    while True:
        with Session(engine) as session:
            query = select(column, col(Wait.id)).where(column <= now)
            if after is not None:
                # `column >= t` bounds the index range; the rest skips the waits of this run with that same time.
                query = query.where(column >= after[0], or_(column > after[0], col(Wait.id) > after[1]))
            due = list(session.exec(query.order_by(column, col(Wait.id)).limit(BATCH)))
        for _moment, wait_id in due:
            done += _handle_one(engine, column, int(wait_id or 0), now, handle)
        if len(due) < BATCH:
            return done
        after = (due[-1][0], int(due[-1][1] or 0))


def _handle_one(engine: Engine, column: Any, wait_id: int, now: datetime, handle: Handler) -> int:
    game_id: int | None = None
    try:
        with db.write_session(engine) as session:
            claimed = _claim(session, column, wait_id, now)
            if claimed is None:
                return 0
            game, wait = claimed
            game_id = game.id
            return handle(session, game, wait, now)
    except (games.ServiceError, games.AlreadyPlayed) as exc:
        log.warning("game %s: %s", game_id, getattr(exc, "message", type(exc).__name__))
    except Exception:  # one broken game must not stop the sweep; the next sweep tries it again
        log.exception("game %s (wait %s) could not be handled", game_id, wait_id)
    return 0


def _claim(session: Session, column: Any, wait_id: int, now: datetime) -> tuple[Game, Wait] | None:
    """The wait and its game if it is still due and nobody else holds them (SKIP LOCKED), locked for this
    transaction; a paused game has nothing due."""
    query = (
        select(Game, Wait)
        .join(Wait, col(Wait.game_id) == col(Game.id))
        .where(col(Wait.id) == wait_id, column <= now, col(Game.paused_at).is_(None))
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    row = session.exec(query).first()
    return None if row is None else (row[0], row[1])


def remindable(seat: Seat) -> bool:
    """True if reminders may go to this seat: a person with an email, still playing, with reminders on."""
    return not seat.is_bot and bool(seat.email) and seat.reminders and seat.left_at is None


def _current(session: Session, game: Game, wait: Wait, now: datetime) -> tuple[Any, Seat] | None:
    """The game's state and the wait's seat if the game still waits on that seat for that; else the game's waits
    are synced with its state first (a row left behind does nothing) and None."""
    rules = games.rules_of(game)
    state = games.load_state(game)
    seats = games.seats_of(session=session, game_id=game.id or 0)
    seat = seats[wait.seat]
    decision = games.decision_of(rules, state, seat.name)
    if decision is not None and decision.wait == wait.wait:
        return state, seat
    for name, value in waits.store_fields(session=session, game=game, rules=rules, state=state, now=now).items():
        setattr(game, name, value)
    session.add(game)
    return None


def digest_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Queue the daily digests that are due at ``now`` (each seat's once per local day); the number queued."""
    engine = engine or db.get_engine()
    now = now.astimezone(UTC)
    due_at = col(Seat.next_digest_at)
    done = 0
    after: tuple[datetime, int] | None = None
    while True:
        with Session(engine) as session:
            query = select(due_at, col(Seat.id)).where(due_at <= now)
            if after is not None:
                query = query.where(due_at >= after[0], or_(due_at > after[0], col(Seat.id) > after[1]))
            due = list(session.exec(query.order_by(due_at, col(Seat.id)).limit(BATCH)))
        for _moment, seat_id in due:
            done += _digest_one(engine, int(seat_id or 0), now)
        if len(due) < BATCH:
            return done
        after = (utc(due[-1][0]) or now, int(due[-1][1] or 0))


def _digest_one(engine: Engine, seat_id: int, now: datetime) -> int:
    try:
        with db.write_session(engine) as session:
            query = select(Seat).where(col(Seat.id) == seat_id, col(Seat.next_digest_at) <= now)
            if session.get_bind().dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True)
            seat = session.exec(query).first()
            if seat is None:
                return 0
            return _digest(session, seat, now)
    except Exception:  # one broken game must not stop the sweep; the next sweep tries it again
        log.exception("the digest of seat %s could not be handled", seat_id)
    return 0


def _digest(session: Session, seat: Seat, now: datetime) -> int:
    """Queue the seat's digest for today, unless it is its turn, it is away or nothing happened; then plan the
    next one (tomorrow's), or none for a seat that cannot be reached or a game that is over."""
    game = games.get_game(session=session, game_id=seat.game_id)
    if seat.digest != "daily" or not notify.reachable(seat) or game.status == FINISHED or game.aborted_at:
        seat.next_digest_at = None
        session.add(seat)
        return 0
    clock = waits.seat_clock(seat)
    if timing.in_quiet(now, clock.quiet, clock.tz):
        seat.next_digest_at = timing.end_of_quiet(now, clock.quiet, clock.tz)
        session.add(seat)
        return 0
    seat.next_digest_at = notify.next_digest_at(seat, now)
    session.add(seat)
    if clock.away is not None and clock.away.start <= now < clock.away.end:
        return 0
    rules = games.rules_of(game)
    if games.decision_of(rules, games.load_state(game), seat.name) is not None:
        return 0  # its turn email says what happened
    row = notify.queue_digest(
        session=session,
        game=game,
        seats=games.seats_of(session=session, game_id=game.id or 0),
        seat=seat,
        day=timing.local_date(now, clock.tz),
        now=now,
    )
    return 0 if row is None else 1


def _remind(session: Session, game: Game, wait: Wait, now: datetime) -> int:
    current = _current(session, game, wait, now)
    if current is None:
        return 0
    state, seat = current
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
                seats=games.seats_of(session=session, game_id=game.id or 0),
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


def _time_out(session: Session, game: Game, wait: Wait, now: datetime) -> int:
    current = _current(session, game, wait, now)
    if current is None:
        return 0
    state, seat = current
    policy = waits.policy_of(game)
    if policy.timeout == "pause":
        hours = policy.deadline_hours or 0
        reason = gettext("%(name)s did not play within %(time)s.", name=seat.name, time=_hours(hours))
        _pause(session, game, reason, now)
        with i18n.in_language(notify.organiser_language(session, game)):
            subject = f"{game.name} · " + gettext("Paused: %(name)s did not play in time", name=seat.name)
            body = gettext(
                "The game “%(game)s” waited for %(name)s since %(since)s and the deadline passed. "
                "Its timeout policy is to pause, so it is paused now: nobody can move until you resume it "
                "on the admin page (or hand the seat to someone else or to a bot).",
                game=game.name,
                name=seat.name,
                since=timing.local_datetime(utc(wait.waiting_since) or now, UTC),
            )
        notify.queue_organiser_notice(session=session, game=game, subject=subject, body=body)
        return 1
    _bot_decides(session, game, state, seat, wait.wait)
    return 1


def _hours(hours: int) -> str:
    if hours % 24 == 0:
        days = hours // 24
        return str(ngettext("%(num)d day", "%(num)d days", days))
    return str(ngettext("%(num)d hour", "%(num)d hours", hours))


def _bot_decides(session: Session, game: Game, state: Any, seat: Seat, wait: str) -> None:
    """The game's default bot makes the seat's decisions while its wait is ``wait``; the log says "timeout"."""
    rules = games.rules_of(game)
    for _ in range(MAX_TIMEOUT_MOVES):
        decision = games.decision_of(rules, state, seat.name)
        if decision is None or decision.wait != wait:
            return
        move = games.move_body(games.bot_move(rules, state, seat.name))
        outcome = flows.apply_move(
            session=session, game_id=game.id or 0, seat=seat.position, move=move, decision=decision.id, source="timeout"
        )
        state = outcome.state


def _pause(session: Session, game: Game, reason: str, now: datetime) -> None:
    game.paused_at = now
    game.paused_reason = reason[:200]
    waits.pause(session, game)


# ---------------------------------------------------------------------------------------------- pause


def pause_game(*, session: Session, game_id: int, reason: str, now: datetime) -> Game:
    """Pause a game (no moves, reminders or deadlines until it is resumed); nothing changes if it already is."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    if game.status == FINISHED:
        raise games.ServiceError("The game is over: there is nothing to pause.")
    if game.paused_at is None:
        _pause(session, game, games.check_text(reason, "the reason for the pause", 200), now)
    return game


def resume_game(*, session: Session, game_id: int, now: datetime) -> Game:
    """Resume a paused game: each seat waited on gets a fresh wait (reminders and deadline counted from now)."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    if game.paused_at is None:
        return game
    game.paused_at = None
    game.paused_reason = None
    waits.resume(session=session, game=game, rules=games.rules_of(game), state=games.load_state(game), now=now)
    return game


# ---------------------------------------------------------------------------------------------- absences


def _seat_for_change(session: Session, game_id: int, seat: int, nonce_tag: str | None) -> tuple[Game, Seat]:
    game, seats = games.lock_seat(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag)
    if game.status == FINISHED:
        raise games.ServiceError("The game is over.")
    if seats[seat].is_bot:
        raise games.ServiceError(f"{seats[seat].name} is played by a bot.")
    return game, seats[seat]


def set_absence(
    *, session: Session, game_id: int, seat: int, until: date, now: datetime, nonce_tag: str | None = None
) -> Seat:
    """Mark a player away until a date (in their time zone, inclusive), within the game's cap of days.

    Their deadlines move by the time away and no reminders reach them meanwhile; a current absence is
    replaced (its days still ahead are given back first). ServiceError with a plain message otherwise.
    With ``nonce_tag`` (from a link), the seat's links must not have been replaced meanwhile.
    """
    game, me = _seat_for_change(session, game_id, seat, nonce_tag)
    tz = timing.zone(me.timezone)
    today = timing.local_date(now, tz)
    old = waits.seat_clock(me).away
    current = me.away_until if me.away_until is not None and me.away_until >= today else None
    try:
        used = timing.plan_absence(
            today=today,
            until=until,
            used=me.away_days_used,
            current_until=current,
            cap=waits.policy_of(game).absence_cap_days,
        )
    except timing.AbsenceError as exc:
        raise games.ServiceError(str(exc)) from None
    me.away_from = utc(me.away_from) if current is not None and me.away_from is not None else now
    me.away_until = until
    me.away_days_used = used
    waits.replan(session, game, me, old, now)
    session.add_all([me, game])
    return me


def end_absence(*, session: Session, game_id: int, seat: int, now: datetime, nonce_tag: str | None = None) -> Seat:
    """The player is back now: the days still ahead are given back; the time already away still counts."""
    game, me = _seat_for_change(session, game_id, seat, nonce_tag)
    today = timing.local_date(now, timing.zone(me.timezone))
    if me.away_until is None or me.away_until < today:
        return me
    old = waits.seat_clock(me).away
    me.away_days_used = timing.end_absence_days(today=today, used=me.away_days_used, current_until=me.away_until)
    me.away_from = None
    me.away_until = None
    waits.replan(session, game, me, old, now)
    session.add_all([me, game])
    return me


def set_quiet_hours(
    *,
    session: Session,
    game_id: int,
    seat: int,
    start: str | None,
    end: str | None,
    now: datetime,
    nonce_tag: str | None = None,
) -> Seat:
    """Set a player's own quiet hours (``"HH:MM"`` each), or both None for the configured default."""
    game, me = _seat_for_change(session, game_id, seat, nonce_tag)
    if start is None and end is None:
        me.quiet_start = me.quiet_end = None
    else:
        try:
            quiet = timing.QuietHours.of(start, end)
        except timing.PolicyError as exc:
            raise games.ServiceError(str(exc)) from None
        me.quiet_start, me.quiet_end = f"{quiet.start:%H:%M}", f"{quiet.end:%H:%M}"
    waits.replan(session, game, me, waits.seat_clock(me).away, now)
    session.add_all([me, game])
    return me
