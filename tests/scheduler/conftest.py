"""Scheduler test fixtures: an injected clock, the mail fixtures, and helpers for games that wait.

``clock``
    A ``Clock`` whose ``now`` (aware UTC) replaces the clock of the services that store moves and
    absences (``pbem.core.games``, ``pbem.web.pages``, ``pbem.web.away``, the outbox), so that waits, reminders
    and deadlines can be tested at any instant without sleeping. ``clock.at(...)`` sets it,
    ``clock.advance(hours=...)`` moves it. Sweeps get ``now=clock.now`` explicitly.

``mail``
    Records what the services ask ``pbem.mail.notify`` to queue instead of composing it (for games whose
    emails the mail layer cannot compose yet).

``smtp_server``, ``make_mail_app``, ``smtp_app``
    From tests/mail/conftest.py (a real aiosmtpd server and an app that sends to it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parseaddr
from typing import Any

import pytest
from flask import Flask
from sqlmodel import col, select

from pbem import db, flows, timing
from pbem.core import games, waits
from pbem.core import seats as seat_rows
from pbem.mail import notify
from pbem.models import Game, MoveRecord, OutboxEmail, Seat, Wait
from tests.apps import Table, new_table
from tests.mail.conftest import make_mail_app, smtp_app, smtp_server  # noqa: F401  (fixtures shared with tests/mail)

T0 = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
"""A Monday, 10:00 UTC: outside the default quiet hours in UTC, Amsterdam and New York."""


@dataclass
class Clock:
    """The injected time."""

    now: datetime = T0

    def at(self, moment: datetime) -> datetime:
        self.now = moment.astimezone(UTC)
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now = self.now + timedelta(**delta)
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    """The clock of the stored changes, set to ``T0`` (see the module docstring)."""
    c = Clock()
    with timing.use_clock(lambda: c.now):
        yield c


@dataclass
class People:
    """Seat specs for a game of people, with per-seat overrides."""

    names: tuple[str, ...] = ("ann", "bob", "cy")
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)

    def specs(self) -> list[games.SeatSpec]:
        out = []
        for name in self.names:
            kw: dict[str, Any] = {"email": f"{name}@example.com", **self.overrides.get(name, {})}
            out.append(games.SeatSpec(name, **kw))
        return out


@dataclass
class Mail:
    """What the services asked ``pbem.mail.notify`` to queue: the reminders (seat, number, key) and the moves."""

    reminders: list[tuple[int, int, str]] = field(default_factory=list)
    moves: int = 0


@pytest.fixture
def mail(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mail]:
    """The scheduler's calls into ``pbem.mail.notify``, recorded instead of composed (the emails of Pick a Number
    are the mail layer's business and its tests'; the Call to Glory tests check real reminder emails)."""
    seen = Mail()

    def queue_turn_email(*, seat: Any, reminder: int | None = None, dedupe_key: str | None = None, **_: Any) -> Any:
        if reminder is None:
            return None
        seen.reminders.append((seat.position, reminder, dedupe_key or ""))
        return object()

    def after_move(**_: Any) -> None:
        seen.moves += 1

    monkeypatch.setattr(notify, "queue_turn_email", queue_turn_email)
    monkeypatch.setattr(notify, "after_move", after_move)
    monkeypatch.setattr(notify, "after_create", lambda **_: None)
    yield seen


def make_game(app: Flask, *, policy: timing.Policy | None = None, seed: int = 1, **kw: Any) -> Table:
    """A game of people (ann, bob, cy unless ``names`` is given), created now (the clock's now)."""
    people = People(kw.pop("names", ("ann", "bob", "cy")), kw.pop("overrides", {}))
    return new_table(app, people.specs(), seed=seed, policy=policy, **kw)


def game_row(app: Flask, game_id: int) -> Game:
    """The game's row, read fresh."""
    with app.app_context():
        return seat_rows.get_game(session=db.get_session(), game_id=game_id)


def wait_rows(app: Flask, game_id: int) -> list[Wait]:
    """The game's waits (one per seat waited on), in seat order, read fresh."""
    with app.app_context():
        return waits.of_game(db.get_session(), game_id)


def wait_row(app: Flask, game_id: int, seat: int | None = None) -> Wait:
    """The wait of ``seat``, or the game's only wait."""
    rows = wait_rows(app, game_id)
    if seat is None:
        (row,) = rows
        return row
    (row,) = [r for r in rows if r.seat == seat]
    return row


def seat_row(app: Flask, game_id: int, position: int) -> Seat:
    with app.app_context():
        return seat_rows.seats_of(session=db.get_session(), game_id=game_id)[position]


def reminders(app: Flask, game_id: int | None = None) -> list[OutboxEmail]:
    """The reminder emails in the outbox (their dedupe keys start with "reminder:"), oldest first."""
    with app.app_context():
        query = select(OutboxEmail).where(col(OutboxEmail.dedupe_key).startswith("reminder:"))
        if game_id is not None:
            query = query.where(OutboxEmail.game_id == game_id)
        return list(db.get_session().exec(query.order_by(col(OutboxEmail.id))))


def address(row: OutboxEmail) -> str:
    """The bare address an outbox row is for (its ``to_addr`` may carry a display name)."""
    return parseaddr(row.to_addr)[1]


def outbox_to(app: Flask, to: str) -> list[OutboxEmail]:
    """The outbox rows for one address, oldest first."""
    with app.app_context():
        rows = db.get_session().exec(select(OutboxEmail).order_by(col(OutboxEmail.id)))
        return [row for row in rows if address(row) == to]


def timeout_moves(app: Flask, game_id: int | None = None) -> list[MoveRecord]:
    """Moves logged with source "timeout", in the order they were stored."""
    with app.app_context():
        query = select(MoveRecord).where(MoveRecord.source == "timeout")
        if game_id is not None:
            query = query.where(MoveRecord.game_id == game_id)
        return list(db.get_session().exec(query.order_by(col(MoveRecord.id))))


def utc(moment: datetime | None) -> datetime | None:
    return timing.utc(moment)


def play_turn(app: Flask, table: Table) -> None:
    """The seat to act plays its whole turn (as a person would, through the service), choosing like the bot."""
    from engine.call_to_glory.bots import BOTS

    state = table.state()
    player, turn = state.current_player, state.turn
    while not state.is_finished and state.current_player == player and state.turn == turn:
        move = {k: v for k, v in BOTS["heuristic"]().choose(state).to_json().items() if k != "player"}
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=state.current, move=move, decision=state.ply, source="page"
            )
        state = table.state()
