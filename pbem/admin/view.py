"""One game as its organiser sees it: everything hidden (the game's ``summary``), the milestones so far, the log in
the game's words, the emails, and what a bot would do for each seat waited on."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from engine.errors import FormatError
from engine.protocol import Decision, Milestone, Result
from engine.protocol import Game as Rules

from .. import games, talk, timing
from ..models import AdminAction, Game, MoveRecord, OutboxEmail, Seat
from .common import RUNNING, now_or


@dataclass(frozen=True)
class LogLine:
    """One line of a game's log as the organiser sees it: a move (everything shown) or an organiser action."""

    at: datetime
    kind: str
    source: str
    who: str
    text: str
    seq: int | None = None


@dataclass(frozen=True)
class EmailRow:
    """One of the game's emails and how its delivery went."""

    id: int
    kind: str
    to_addr: str
    subject: str
    status: str
    attempts: int
    last_error: str | None
    created_at: datetime
    sent_at: datetime | None
    next_attempt_at: datetime


@dataclass(frozen=True)
class Waited:
    """A seat the game waits on: its open decision and, for a person, what the game's default bot would do."""

    seat: Seat
    decision: Decision
    bot_move: str | None = None


@dataclass(frozen=True)
class OptionShown:
    """One of the game's options as the page shows it: its label and its value in words."""

    label: str
    value: str


@dataclass
class GameView:
    """Everything the organiser's page of one game shows."""

    game: Game
    rules: Rules
    seats: list[Seat]
    state: Any
    summary: dict[str, Any]
    log: list[LogLine]
    emails: list[EmailRow]
    waited: list[Waited] = field(default_factory=list)
    milestones: list[Milestone] = field(default_factory=list)
    """The milestones reached so far (score sheets …), oldest first."""
    result: Result | None = None
    options: list[OptionShown] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    late: bool = False
    """The deadline of the current decision has passed."""
    said: list[talk.Said] = field(default_factory=list)
    """Table talk that players can see (hidden messages are left out)."""

    @property
    def current(self) -> Seat | None:
        """The first seat waited on (in seat order), or None once the game is over."""
        return self.waited[0].seat if self.waited else None

    @property
    def bot_move(self) -> str | None:
        """What the bot would do for the first seat waited on, in words."""
        return self.waited[0].bot_move if self.waited else None

    @property
    def running(self) -> bool:
        """The game is neither finished nor aborted."""
        return self.game.status in RUNNING and self.game.aborted_at is None

    @property
    def paused(self) -> bool:
        """The game is paused (an aborted game is also stopped, but not paused)."""
        return self.game.paused_at is not None and self.running

    @property
    def status(self) -> str:
        """The status the admin page shows: the stored one, or ``aborted``."""
        if self.game.aborted_at is not None:
            return "aborted"
        return "playing" if self.running else self.game.status


def move_text(rules: Rules, record: MoveRecord) -> str:
    """A logged move in the game's words, nothing hidden (the organiser sees everything)."""
    if not record.events:
        body = {k: v for k, v in record.move.items() if k != "player"} if isinstance(record.move, dict) else {}
        return rules.describe_move(body) + "."
    return " ".join(rules.describe(e, None) for e in record.events)


def _options(rules: Rules, options: dict[str, Any]) -> list[OptionShown]:
    shown = []
    for spec in rules.option_fields:
        if spec.name not in options:
            continue
        value = options[spec.name]
        if spec.kind == "bool":
            words = "yes" if value else "no"
        elif spec.choices:
            words = next((label for key, label in spec.choices if key == str(value)), str(value))
        elif isinstance(value, dict):
            words = "; ".join(f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in value.items())
        else:
            words = str(value)
        shown.append(OptionShown(spec.label, words))
    return shown


def _milestones(rules: Rules, game: Game, seats: list[Seat], state: Any) -> list[Milestone]:
    try:
        start = rules.new_game([s.name for s in seats], game.options, game.seed)
    except FormatError:
        return []
    return [m for m in rules.milestones(start, state) if m.kind != "game_over"]


def game_view(*, session: Session, game_id: int, now: datetime | None = None) -> GameView:
    """A game as its organiser sees it: everything hidden, the milestones, the whole log, its emails."""
    game = games.get_game(session=session, game_id=game_id)
    rules = games.rules_of(game)
    seats = games.seats_of(session=session, game_id=game_id)
    state = games.load_state(game)
    names = {s.position: s.name for s in seats}
    log = [
        LogLine(now_or(r.created_at), "move", r.source, names.get(r.seat, "?"), move_text(rules, r), r.seq)
        for r in games.move_log(session=session, game_id=game_id)
    ]
    actions = session.exec(select(AdminAction).where(AdminAction.game_id == game_id).order_by(col(AdminAction.id)))
    log += [LogLine(now_or(a.created_at), "admin", "admin", a.admin_name, a.detail) for a in actions]
    log.sort(key=lambda e: (e.at, 0 if e.kind == "move" else 1, e.seq or 0))
    email_columns = (
        col(OutboxEmail.id),
        col(OutboxEmail.kind),
        col(OutboxEmail.to_addr),
        col(OutboxEmail.subject),
        col(OutboxEmail.status),
        col(OutboxEmail.attempts),
        col(OutboxEmail.last_error),
        col(OutboxEmail.created_at),
        col(OutboxEmail.sent_at),
        col(OutboxEmail.next_attempt_at),
    )
    emails = [
        EmailRow(*row)
        for row in session.execute(
            sa.select(*email_columns).where(col(OutboxEmail.game_id) == game_id).order_by(col(OutboxEmail.id).desc())
        )
    ]
    view = GameView(
        game=game,
        rules=rules,
        seats=seats,
        state=state,
        summary=rules.summary(state),
        log=log,
        emails=emails,
        milestones=_milestones(rules, game, seats, state),
        result=rules.result(state),
        options=_options(rules, game.options),
        said=talk.said(session=session, game_id=game_id, names=names),
    )
    for email in emails:
        view.counts[email.status] = view.counts.get(email.status, 0) + 1
    waiting = {} if view.result is not None else rules.waiting_for(state)
    for seat in seats:
        decision = waiting.get(seat.name)
        if decision is None:
            continue
        bot = None
        if view.running:
            bot = rules.describe_move(games.move_body(games.bot_move(rules, state, seat.name)))
        view.waited.append(Waited(seat, decision, bot))
    if view.waited and view.running:
        deadline = timing.utc(game.deadline_at)
        view.late = deadline is not None and deadline < now_or(now)
    return view
