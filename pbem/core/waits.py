"""The waits of a game: one ``Wait`` row per seat waited on, with its reminders and its deadline.

``store_fields`` syncs the rows with ``rules.waiting_for(state)`` at every stored snapshot: a seat whose
decision's ``wait`` is unchanged keeps its row, a new wait gets a new row (policy, quiet hours and time
away of that seat), the rows of seats no longer waited on go. The game's ``waiting_since``,
``next_reminder_at`` and ``deadline_at`` sum the rows up (the earliest of each) for the admin pages.
``replan``, ``restart``, ``extend``, ``pause``, ``resume`` and ``clear`` change the rows for the sweeps,
the absences and the organiser; the sweeps (``pbem.sweeps``) read them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy import bindparam
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from engine.protocol import Decision
from engine.protocol import Game as Rules

from .. import db, timing
from ..models import Game, Seat, Wait
from ..timing import utc

SUMMARY = ("waiting_since", "next_reminder_at", "deadline_at")
"""The game's columns that sum up its waits (the earliest of each)."""


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


def of_game(session: Session, game_id: int) -> list[Wait]:
    """The game's waits, in seat order."""
    return list(session.exec(select(Wait).where(col(Wait.game_id) == game_id).order_by(col(Wait.seat))))


_OF_SEAT = select(Wait).where(col(Wait.game_id) == bindparam("game_id"), col(Wait.seat) == bindparam("seat"))


def of_seat(session: Session, game_id: int, seat: int) -> Wait | None:
    """The seat's wait, or None if the game does not wait on it."""
    return session.exec(_OF_SEAT, params={"game_id": game_id, "seat": seat}).first()


_WAITS = Wait.__table__  # type: ignore[attr-defined]
_DEADLINE_OF_SEAT = core_select(_WAITS.c.seat, _WAITS.c.deadline_at).where(
    _WAITS.c.game_id == bindparam("game_id"), _WAITS.c.seat == bindparam("seat")
)


def deadline_of_seat(session: Session, game_id: int, seat: int) -> Any:
    """The seat's wait as a page shows it (``seat`` and ``deadline_at``, read only), or None."""
    return db.rows(session, _DEADLINE_OF_SEAT, {"game_id": game_id, "seat": seat}).first()


def summary(rows: Sequence[Wait]) -> dict[str, Any]:
    """The game's summary columns for these waits: the earliest start, reminder and deadline (None if none)."""
    out: dict[str, Any] = {}
    for name in SUMMARY:
        moments = [m for m in (utc(getattr(r, name)) for r in rows) if m is not None]
        out[name] = min(moments) if moments else None
    return out


def _start(row: Wait, game: Game, seat: Seat, now: datetime) -> None:
    """``row`` becomes a wait that begins ``now`` (no reminder or deadline due while the game is paused)."""
    policy = policy_of(game)
    clock = seat_clock(seat)
    paused = game.paused_at is not None
    deadline = None if paused else timing.deadline_for(policy, now, clock.away)
    row.waiting_since = now
    row.reminders_sent = 0
    row.last_reminder_at = None
    row.deadline_at = deadline
    row.next_reminder_at = None if paused else timing.first_reminder(policy, now, clock, deadline)


def _synced(
    session: Session,
    game: Game,
    waiting: Mapping[str, Decision],
    seats: Sequence[Seat],
    now: datetime,
    fresh: bool = False,
) -> list[Wait]:
    """Make the game's rows those of ``waiting`` (``fresh``: every wait begins anew); the rows kept or added."""
    game_id = game.id or 0
    if not seats:
        query = select(Seat).where(col(Seat.game_id) == game_id).order_by(col(Seat.position))
        seats = list(session.exec(query))
    by_name = {s.name: s for s in seats}
    old = {r.seat: r for r in of_game(session, game_id)} if game_id else {}
    rows = []
    for player, decision in waiting.items():
        seat = by_name[player]
        row = old.pop(seat.position, None)
        if row is not None and row.wait == decision.wait and not fresh:
            rows.append(row)
            continue
        if row is None:
            row = Wait(game_id=game_id, seat=seat.position, decision=decision.id, wait=decision.wait)
        row.decision, row.wait = decision.id, decision.wait
        _start(row, game, seat, now)
        session.add(row)
        rows.append(row)
    for gone in old.values():
        session.delete(gone)
    return sorted(rows, key=lambda r: r.seat)


def store_fields(
    *,
    session: Session,
    game: Game,
    rules: Rules,
    state: Any,
    now: datetime,
    seats: Sequence[Seat] = (),
    before: Mapping[str, Decision] | None = None,
) -> dict[str, Any]:
    """Sync the game's waits with ``rules.waiting_for(state)``; the summary columns to store with the snapshot.

    ``seats`` saves a query when they are loaded. ``before`` (who was waited on for what before the change, when
    the game's rows and summary match it) saves the sync when the same seats are still waited on for the same
    waits, as within a turn: nothing changes then. A finished game waits on nobody.
    """
    waiting = rules.waiting_for(state)
    if before is not None and _same_waits(before, waiting):
        return {name: getattr(game, name) for name in SUMMARY}
    return summary(_synced(session, game, waiting, seats, now))


def _same_waits(before: Mapping[str, Decision], after: Mapping[str, Decision]) -> bool:
    return before.keys() == after.keys() and all(before[p].wait == after[p].wait for p in after)


def refresh(session: Session, game: Game, rows: Sequence[Wait] | None = None) -> None:
    """Set the game's summary columns from its waits (``rows``, or those stored)."""
    for name, value in summary(of_game(session, game.id or 0) if rows is None else rows).items():
        setattr(game, name, value)
    session.add(game)


def resume(*, session: Session, game: Game, rules: Rules, state: Any, now: datetime) -> None:
    """After a pause: every seat waited on gets a fresh wait (reminders and deadline counted from ``now``)."""
    refresh(session, game, _synced(session, game, rules.waiting_for(state), (), now, fresh=True))


def pause(session: Session, game: Game) -> None:
    """No reminder or deadline is due while the game is paused (the waits keep when they began)."""
    rows = of_game(session, game.id or 0)
    for row in rows:
        row.next_reminder_at = row.deadline_at = None
        session.add(row)
    refresh(session, game, rows)


def clear(session: Session, game: Game) -> None:
    """The game waits on nobody any more (it was stopped)."""
    for row in of_game(session, game.id or 0):
        session.delete(row)
    refresh(session, game, [])


def restart(session: Session, game: Game, seat: Seat, now: datetime) -> None:
    """A new person or address at a seat waited on: its wait begins anew (reminders and deadline from ``now``)."""
    row = of_seat(session, game.id or 0, seat.position)
    if row is None or game.paused_at is not None:
        return
    _start(row, game, seat, now)
    session.add(row)
    refresh(session, game)


def _replan_reminder(row: Wait, game: Game, seat: Seat, now: datetime) -> None:
    row.next_reminder_at = timing.planned_reminder(
        policy_of(game),
        since=utc(row.waiting_since) or now,
        sent=row.reminders_sent,
        last_sent=utc(row.last_reminder_at),
        clock=seat_clock(seat),
        deadline=utc(row.deadline_at),
        now=now,
    )


def extend(session: Session, game: Game, seat: Seat, hours: int, now: datetime) -> datetime | None:
    """Move the seat's deadline ``hours`` later (from now if it has passed): the new deadline, None if it has none."""
    row = of_seat(session, game.id or 0, seat.position)
    deadline = None if row is None else utc(row.deadline_at)
    if row is None or deadline is None:
        return None
    row.deadline_at = deadline = max(deadline, now) + timedelta(hours=hours)
    _replan_reminder(row, game, seat, now)
    session.add(row)
    refresh(session, game)
    return deadline


def replan(session: Session, game: Game, seat: Seat, old: timing.Absence | None, now: datetime) -> None:
    """After ``seat`` changed its absence or quiet hours: move its deadline and next reminder if it is waited on."""
    row = of_seat(session, game.id or 0, seat.position)
    if row is None or game.paused_at is not None:
        return
    deadline = utc(row.deadline_at)
    if deadline is not None:
        since = utc(row.waiting_since) or now
        row.deadline_at = timing.moved_deadline(deadline, since=since, now=now, old=old, new=seat_clock(seat).away)
    _replan_reminder(row, game, seat, now)
    session.add(row)
    refresh(session, game)
