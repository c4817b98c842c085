"""A game's current wait, in its scheduling columns: who is waited on since when, the next reminder, the deadline.

``timing_fields`` gives the columns to store with every new snapshot (a new wait when the player to act,
the turn, the round or the phase changes); ``new_wait`` starts one; ``replan`` moves the deadline and the
next reminder after a player changed their time away or quiet hours. The sweeps (``pbem.sweeps``) read them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flask import current_app, has_app_context
from sqlmodel import Session, col, select

from engine.protocol import Decision
from engine.protocol import Game as Rules

from . import timing
from .models import Game, Seat
from .timing import utc

CLEARED: dict[str, Any] = {
    "waiting_since": None,
    "wait_ply": None,
    "reminders_sent": 0,
    "last_reminder_at": None,
    "next_reminder_at": None,
    "deadline_at": None,
}


def policy_of(game: Game) -> timing.Policy:
    """The game's policy (games stored before policies existed have the defaults)."""
    return timing.Policy.from_json(game.policy)


def default_quiet() -> timing.QuietHours:
    """The configured quiet hours (QUIET_HOURS), for seats that did not choose their own."""
    text = current_app.config.get("QUIET_HOURS", timing.DEFAULT_QUIET) if has_app_context() else timing.DEFAULT_QUIET
    return timing.QuietHours.parse(text)


def seat_clock(seat: Seat) -> timing.SeatClock:
    """The seat's time zone, quiet hours (its own or the configured default) and absence."""
    tz = timing.zone(seat.timezone)
    if seat.quiet_start is not None and seat.quiet_end is not None:
        quiet = timing.QuietHours.of(seat.quiet_start, seat.quiet_end)
    else:
        quiet = default_quiet()
    return timing.SeatClock(tz, quiet, timing.absence_of(utc(seat.away_from), seat.away_until, tz))


def timing_fields(
    *,
    session: Session,
    game: Game,
    rules: Rules,
    state: Any,
    now: datetime,
    seats: Sequence[Seat] = (),
    before: Mapping[str, Decision] | None = None,
) -> dict[str, Any]:
    """The scheduling columns to store with a new snapshot (``games._store``): a new wait when it changed.

    ``before`` is who was waited on for what before the change (None for a new game); ``seats`` saves a query
    when they are loaded. A wait changes when a decision's ``wait`` changes; several decisions of one turn
    keep it. Finished games have none.
    """
    waiting = rules.waiting_for(state)
    if not waiting:
        return dict(CLEARED)
    old = {p: d.wait for p, d in (before or {}).items()}
    if game.waiting_since is not None and before is not None and old == {p: d.wait for p, d in waiting.items()}:
        return {}
    player, decision = next(iter(waiting.items()))
    seat = next((s for s in seats if s.name == player), None)
    if seat is None:
        query = select(Seat).where(col(Seat.game_id) == game.id, col(Seat.name) == player)
        seat = session.exec(query).one()
    return new_wait(game=game, seat=seat, ply=_number(decision.id), now=now)


def _number(decision: str) -> int | None:
    return int(decision) if decision.isdecimal() else None


def new_wait(*, game: Game, seat: Seat, ply: int | None, now: datetime) -> dict[str, Any]:
    """The columns of a wait for ``seat`` that begins ``now`` at decision ``ply`` (none due while paused)."""
    policy = policy_of(game)
    clock = seat_clock(seat)
    paused = game.paused_at is not None
    deadline = None if paused else timing.deadline_for(policy, now, clock.away)
    reminder = None if paused else timing.first_reminder(policy, now, clock, deadline)
    return {
        "waiting_since": now,
        "wait_ply": ply,
        "reminders_sent": 0,
        "last_reminder_at": None,
        "next_reminder_at": reminder,
        "deadline_at": deadline,
    }


def replan(game: Game, seat: Seat, old: timing.Absence | None, now: datetime) -> None:
    """After ``seat`` changed its absence or quiet hours: move its deadline and next reminder if it is waited on."""
    since = utc(game.waiting_since)
    if game.current_seat != seat.position or since is None or game.paused_at is not None:
        return
    policy = policy_of(game)
    clock = seat_clock(seat)
    deadline = utc(game.deadline_at)
    if deadline is not None:
        deadline = timing.moved_deadline(deadline, since=since, now=now, old=old, new=clock.away)
        game.deadline_at = deadline
    game.next_reminder_at = timing.planned_reminder(
        policy,
        since=since,
        sent=game.reminders_sent,
        last_sent=utc(game.last_reminder_at),
        clock=clock,
        deadline=deadline,
        now=now,
    )
