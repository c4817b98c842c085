"""One game as its organiser sees it: everything hidden (the game's ``summary``), the milestones so far, the log in
the game's words, the emails, and what a bot would do for each seat waited on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from flask_babel import gettext as _
from sqlmodel import Session, col, select

from engine.errors import FormatError
from engine.protocol import Decision, Milestone, Result
from engine.protocol import Game as Rules

from .. import timing
from ..core import audit, games, talk
from ..core import seats as seat_rows
from ..models import AdminAction, Game, MoveRecord, OutboxEmail, Seat
from .common import RUNNING, Actor, now_or
from .playing import Playing, playing


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
    """The game's ``organiser_view``: everything of the state, hidden parts included, in the organiser's words."""
    log: list[LogLine]
    emails: list[EmailRow]
    texts: Mapping[str, Any] = field(default_factory=dict)
    """The texts the game's board makes from ``summary``, built once (the game's ``page_texts``)."""
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
    playing: Playing | None = None
    """The organiser's own seat, while the game runs and they play in it."""
    seen: dict[str, Any] | None = None
    """What the organiser's seat may see, instead of ``summary``, while everything hidden is kept from them."""

    @property
    def hidden(self) -> bool:
        """The organiser plays in this game and has not chosen to see everything: the page shows only their seat's
        view (no other hand, no hidden card, no seed)."""
        return self.playing is not None and self.playing.hidden

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
    def pause_reason(self) -> str:
        """Why the game is paused or was stopped, in the language spoken now ('' if no reason was given)."""
        return games.pause_words(self.game)

    @property
    def status(self) -> str:
        """The status the admin page shows: the stored one, or ``aborted``."""
        if self.game.aborted_at is not None:
            return "aborted"
        return "playing" if self.running else self.game.status


def move_text(rules: Rules, record: MoveRecord, viewer: Seat | None = None, events: list[Any] | None = None) -> str:
    """A logged move in the game's words, nothing hidden; or, for ``viewer`` (an organiser who plays), its
    ``events`` as that seat may see them (the game's ``player_view`` masks them)."""
    if viewer is not None and (events is None or (not events and record.seat != viewer.position)):
        return _("A move.") if record.seat != viewer.position else rules.describe_move(_body(record)) + "."
    shown = record.events if viewer is None else events or []
    if not shown:
        return rules.describe_move(_body(record)) + "."
    return " ".join(rules.describe(e, None if viewer is None else viewer.name) for e in shown)


def _body(record: MoveRecord) -> dict[str, Any]:
    return {k: v for k, v in record.move.items() if k != "player"} if isinstance(record.move, dict) else {}


def _as_seen(rules: Rules, state: Any, viewer: Seat, records: list[MoveRecord]) -> tuple[dict[str, Any], list[Any]]:
    """What ``viewer`` may see, and each logged move's events as they may see them (None where unknown)."""
    flat = [e for r in records for e in r.events]
    seen = dict(rules.player_view(state, viewer.name, log=flat))
    masked = list(seen.pop("log", ()))
    if len(masked) != len(flat):
        return seen, [None] * len(records)
    out: list[Any] = []
    for r in records:
        out.append(masked[: len(r.events)])
        del masked[: len(r.events)]
    return seen, out


def _options(rules: Rules, options: dict[str, Any]) -> list[OptionShown]:
    shown = []
    for spec in rules.option_fields:
        if spec.name not in options:
            continue
        words = games.option_words(spec, options[spec.name])
        shown.append(OptionShown(spec.label, words))
    return shown


def _milestones(rules: Rules, game: Game, seats: list[Seat], state: Any) -> list[Milestone]:
    try:
        start = rules.new_game([s.name for s in seats], game.options, game.seed)
    except FormatError:
        return []
    return [m for m in rules.milestones(start, state) if m.kind != "game_over"]


def game_view(*, session: Session, game_id: int, now: datetime | None = None, actor: Actor | None = None) -> GameView:
    """A game as its organiser sees it: everything hidden, the milestones, the whole log, its emails.

    For an organiser (``actor``) who plays in the running game and has not chosen to see everything, only what
    their own seat may see: their seat's view instead of the summary, the log as they may read it, and no bot's
    move for another seat (it would tell that seat's cards).
    """
    game = seat_rows.get_game(session=session, game_id=game_id)
    rules = games.rules_of(game)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    state = games.load_state(game)
    mine = playing(session=session, game=game, seats=seats, actor=actor)
    viewer = mine.seat if mine is not None and mine.hidden else None
    names = {s.position: s.name for s in seats}
    records = games.move_log(session=session, game_id=game_id)
    seen: dict[str, Any] | None = None
    masked: list[Any] = [None] * len(records)
    if viewer is not None:
        seen, masked = _as_seen(rules, state, viewer, records)
    log = [
        LogLine(now_or(r.created_at), "move", r.source, names.get(r.seat, "?"), move_text(rules, r, viewer, m), r.seq)
        for r, m in zip(records, masked, strict=True)
    ]
    actions = session.exec(select(AdminAction).where(AdminAction.game_id == game_id).order_by(col(AdminAction.id)))
    log += [LogLine(now_or(a.created_at), "admin", "admin", a.admin_name, audit.log_words(a)) for a in actions]
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
    summary = rules.organiser_view(state) if viewer is None else {}
    view = GameView(
        game=game,
        rules=rules,
        seats=seats,
        state=state,
        summary=summary,
        texts=rules.page_texts(summary, "") if summary else {},
        log=log,
        emails=emails,
        milestones=_milestones(rules, game, seats, state),
        result=rules.result(state),
        options=_options(rules, game.options),
        said=talk.said_to_organiser(session=session, game_id=game_id, names=names),
        playing=mine,
        seen=seen,
    )
    for email in emails:
        view.counts[email.status] = view.counts.get(email.status, 0) + 1
    waiting = {} if view.result is not None else rules.waiting_for(state)
    for seat in seats:
        decision = waiting.get(seat.name)
        if decision is None:
            continue
        bot = None
        if view.running and (viewer is None or seat.position == viewer.position):
            bot = rules.describe_move(games.move_body(games.bot_move(rules, state, seat.name)))
        view.waited.append(Waited(seat, decision, bot))
    if view.waited and view.running:
        deadline = timing.utc(game.deadline_at)
        view.late = deadline is not None and deadline < now_or(now)
    return view
