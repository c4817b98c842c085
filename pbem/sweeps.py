"""The scheduler's work on the database: reminder and deadline sweeps, absences, quiet hours, pauses.

The database is the scheduler's memory: each game keeps its current wait (``waiting_since``,
``wait_ply``), when its next reminder is due (``next_reminder_at``) and its deadline
(``deadline_at``), both indexed; ``pbem.waits`` keeps them up to date at every stored move.
A sweep reads the games that are due, then claims and handles each one in its own short write
transaction (``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL; BEGIN IMMEDIATE and a re-check on
SQLite), so two schedulers can sweep at once; a reminder's outbox ``dedupe_key`` makes it unique.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Engine, or_
from sqlmodel import Session, col, select

from engine import call_to_glory as glory
from engine.call_to_glory import State
from engine.call_to_glory.state import FINISHED

from . import db, flows, games, timing, waits
from .mail import notify
from .models import Game, Seat
from .timing import utc

log = logging.getLogger(__name__)

BATCH = 200
MAX_TIMEOUT_MOVES = 40
"""A bound on the decisions the bot makes for one timed-out turn (draws, Ninjas, a lay or discard)."""

# ---------------------------------------------------------------------------------------------- sweeps


def reminder_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Send the reminders that are due at ``now`` (each once, however late); the number queued."""
    return _sweep(engine, col(Game.next_reminder_at), now, _remind)


def deadline_sweep(*, engine: Engine | None = None, now: datetime) -> int:
    """Apply the timeout policy of every game whose deadline passed, oldest deadline first; the number applied."""
    return _sweep(engine, col(Game.deadline_at), now, _time_out)


Handler = Callable[[Session, Game, datetime], int]


def _sweep(engine: Engine | None, column: Any, now: datetime, handle: Handler) -> int:
    """Visit each due game once, in order of ``column``, handling each in its own write transaction."""
    engine = engine or db.get_engine()
    now = now.astimezone(UTC)
    done = 0
    after: tuple[datetime, int] | None = None
    while True:
        with Session(engine) as session:
            query = select(column, col(Game.id)).where(column <= now)
            if after is not None:
                # `column >= t` bounds the index range; the rest skips the games of this run with that same time.
                query = query.where(column >= after[0], or_(column > after[0], col(Game.id) > after[1]))
            due = list(session.exec(query.order_by(column, col(Game.id)).limit(BATCH)))
        for _moment, game_id in due:
            done += _handle_one(engine, column, int(game_id or 0), now, handle)
        if len(due) < BATCH:
            return done
        after = (due[-1][0], int(due[-1][1] or 0))


def _handle_one(engine: Engine, column: Any, game_id: int, now: datetime, handle: Handler) -> int:
    try:
        with db.write_session(engine) as session:
            game = _claim(session, column, game_id, now)
            return 0 if game is None else handle(session, game, now)
    except (games.ServiceError, games.AlreadyPlayed) as exc:
        log.warning("game %s: %s", game_id, getattr(exc, "message", type(exc).__name__))
    except Exception:  # one broken game must not stop the sweep; the next sweep tries it again
        log.exception("game %s could not be handled", game_id)
    return 0


def _claim(session: Session, column: Any, game_id: int, now: datetime) -> Game | None:
    """The game if it is still due and nobody else holds it (SKIP LOCKED), locked for this transaction."""
    query = select(Game).where(col(Game.id) == game_id, column <= now, col(Game.paused_at).is_(None))
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    return session.exec(query).first()


def remindable(seat: Seat) -> bool:
    """True if reminders may go to this seat: a person with an email, still playing, with reminders on."""
    return not seat.is_bot and bool(seat.email) and seat.reminders and seat.left_at is None


def _remind(session: Session, game: Game, now: datetime) -> int:
    since = utc(game.waiting_since)
    if game.current_seat is None or since is None:
        game.next_reminder_at = None
        session.add(game)
        return 0
    seats = games.seats_of(session=session, game_id=game.id or 0)
    seat = seats[game.current_seat]
    deadline = utc(game.deadline_at)
    step = timing.reminder_step(
        waits.policy_of(game), now=now, sent=game.reminders_sent, clock=waits.seat_clock(seat), deadline=deadline
    )
    queued = 0
    if step.send:
        game.reminders_sent = step.number
        game.last_reminder_at = now
        if remindable(seat):
            row = notify.queue_turn_email(
                session=session,
                game=game,
                seats=seats,
                seat=seat,
                state=games.load_state(game),
                reminder=step.number,
                last_reminder=step.last,
                waited=now - since,
                deadline=deadline if step.last else None,
                dedupe_key=f"reminder:{game.id}:{game.wait_ply}:{int(since.timestamp())}:{step.number}",
            )
            queued = 0 if row is None else 1
    game.next_reminder_at = step.next_at
    session.add(game)
    return queued


def _time_out(session: Session, game: Game, now: datetime) -> int:
    state = games.load_state(game)
    if state.is_finished or game.current_seat is None:
        for key, value in waits.CLEARED.items():
            setattr(game, key, value)
        session.add(game)
        return 0
    seat = games.seats_of(session=session, game_id=game.id or 0)[state.current]
    policy = waits.policy_of(game)
    if policy.timeout == "pause":
        hours = policy.deadline_hours or 0
        reason = f"{seat.name} did not play within {_hours(hours)}."
        _pause(game, reason, now)
        session.add(game)
        notify.queue_organiser_notice(
            session=session,
            game=game,
            subject=f"{game.name} · Paused: {seat.name} did not play in time",
            body=(
                f"The game “{game.name}” waited for {seat.name} since "
                f"{timing.local_datetime(utc(game.waiting_since) or now, UTC)} and the deadline passed. "
                "Its timeout policy is to pause, so it is paused now: nobody can move until you resume it "
                "on the admin page (or hand the seat to someone else or to a bot)."
            ),
        )
        return 1
    _bot_turn(session, game, state, seat)
    return 1


def _hours(hours: int) -> str:
    if hours % 24 == 0:
        days = hours // 24
        return f"{days} day{'s' if days != 1 else ''}"
    return f"{hours} hour{'s' if hours != 1 else ''}"


def _bot_turn(session: Session, game: Game, state: State, seat: Seat) -> None:
    """The heuristic bot plays the rest of the waiting player's turn; the log says source "timeout"."""
    key = timing.wait_key(state.status, state.round, state.turn, state.current_player)
    for _ in range(MAX_TIMEOUT_MOVES):
        move = games.move_body(games.bot_move(glory.GAME, state, seat.name))
        outcome = flows.apply_move(
            session=session, game_id=game.id or 0, seat=seat.position, move=move, decision=state.ply, source="timeout"
        )
        state = outcome.state
        if state.is_finished or timing.wait_key(state.status, state.round, state.turn, state.current_player) != key:
            return


def _pause(game: Game, reason: str, now: datetime) -> None:
    game.paused_at = now
    game.paused_reason = reason[:200]
    game.next_reminder_at = None
    game.deadline_at = None


# ---------------------------------------------------------------------------------------------- pause


def pause_game(*, session: Session, game_id: int, reason: str, now: datetime) -> Game:
    """Pause a game (no moves, reminders or deadline until it is resumed); nothing changes if it already is."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    if game.status == FINISHED:
        raise games.ServiceError("The game is over: there is nothing to pause.")
    if game.paused_at is None:
        _pause(game, games.check_text(reason, "the reason for the pause", 200), now)
        session.add(game)
    return game


def resume_game(*, session: Session, game_id: int, now: datetime) -> Game:
    """Resume a paused game: the player to act gets a fresh wait (reminders and deadline counted from now)."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    if game.paused_at is None:
        return game
    game.paused_at = None
    game.paused_reason = None
    if game.current_seat is not None and game.status != FINISHED:
        seat = games.seats_of(session=session, game_id=game_id)[game.current_seat]
        for key, value in waits.new_wait(game=game, seat=seat, ply=int(game.state.get("ply", 0)), now=now).items():
            setattr(game, key, value)
    session.add(game)
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
    waits.replan(game, me, old, now)
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
    waits.replan(game, me, old, now)
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
    waits.replan(game, me, waits.seat_clock(me).away, now)
    session.add_all([me, game])
    return me
