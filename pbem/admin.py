"""Admin services: organiser accounts, new games, the games list, a game's whole state, and repairs.

Every function takes the session as a keyword and leaves the commit to the caller's transaction
(``pbem.db.write_session``). Each repair writes an ``AdminAction`` row (who, what, when) in the same
transaction as the change it makes, so the game's log and the game never disagree.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy import and_, func, or_, update
from sqlmodel import Session, col, select
from werkzeug.security import check_password_hash, generate_password_hash

from engine import call_to_glory as glory
from engine.call_to_glory import Move, Options, State
from engine.call_to_glory.cards import DEFAULT_TASK_TABLE, TASK_DECKS, TYPES
from engine.call_to_glory.words import describe_event, describe_move

from . import audit, flows, games, sweeps, talk, timing, waits
from .audit import Actor as Actor
from .mail import notify, outbox
from .models import AdminAction, AdminSession, AdminUser, Game, MoveRecord, OutboxEmail, Seat, utcnow

USERNAME = re.compile(r"[A-Za-z0-9._@-]{1,64}")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,4})?")
MAX_SEATS = 4
STATUSES = ("playing", "revealing", "finished", "aborted")
"""A game's status as the admin page shows it: the engine's three, or ``aborted`` (stopped by an organiser)."""
RUNNING = ("playing", "revealing")
MAX_EXTEND_HOURS = 24 * 30
MAX_REASON = 150
POLICY_FIELDS = (
    "first_reminder_hours",
    "reminder_every_hours",
    "max_reminders",
    "deadline_hours",
    "timeout",
    "absence_cap_days",
)


class InputErrors(games.ServiceError):
    """Some fields of a form are not acceptable: ``errors`` maps each field's name to its message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


class NotNow(games.ServiceError):
    """The action does not fit the game as it is now (finished, paused, not paused, no deadline …)."""

    status = 409


# Accounts ---------------------------------------------------------------------------------------


def check_username(value: Any) -> str:
    """A login name: 1-64 letters, digits and ``. _ @ -``; compared without case."""
    if not isinstance(value, str) or not USERNAME.fullmatch(value):
        raise games.ServiceError("a login name is 1 to 64 letters, digits, dots, dashes, underscores or @")
    return value.lower()


def check_new_password(value: Any) -> str:
    """A password of MIN_PASSWORD to MAX_PASSWORD characters, with at least 4 different characters."""
    if not isinstance(value, str) or len(value) < MIN_PASSWORD:
        raise games.ServiceError(f"the password must be at least {MIN_PASSWORD} characters")
    if len(value) > MAX_PASSWORD:
        raise games.ServiceError(f"the password must be at most {MAX_PASSWORD} characters")
    if len(set(value)) < 4:
        raise games.ServiceError("the password is too simple: use at least 4 different characters")
    return value


def hash_password(password: str) -> str:
    """A scrypt hash of the password (werkzeug)."""
    return generate_password_hash(password, method="scrypt")


@cache
def _dummy_hash() -> str:
    return hash_password(secrets.token_hex(16))


def create_admin(
    *,
    session: Session,
    username: str,
    password: str,
    email: str | None = None,
    timezone: str | None = None,
    reset: bool = False,
) -> AdminUser:
    """Create an organiser account (time zone UTC unless given); with ``reset``, give an existing one a new
    password, which ends all their sessions (and a new email or time zone, if given)."""
    name = check_username(username)
    check_new_password(password)
    email = require_email(email, "the organiser") if email else None
    zone = check_timezone(timezone, "the organiser") if timezone is not None else None
    user = session.exec(select(AdminUser).where(AdminUser.username == name)).first()
    if user is None and reset:
        raise games.ServiceError(f"there is no admin {name!r} to reset")
    if user is not None and not reset:
        raise games.ServiceError(f"there is already an admin {name!r} (use --reset to give it a new password)")
    if user is None:
        user = AdminUser(username=name, password_hash=hash_password(password), email=email, timezone=zone or "UTC")
    else:
        user.password_hash = hash_password(password)
        user.email = email or user.email
        user.timezone = zone or user.timezone
    session.add(user)
    session.flush()
    if reset:
        end_all_sessions(session=session, admin_id=user.id or 0)
    return user


def authenticate(*, session: Session, username: Any, password: Any, now: datetime | None = None) -> AdminUser | None:
    """The admin with that login and password, or None; takes as long for an unknown login as for a known one."""
    if not isinstance(password, str) or len(password) > MAX_PASSWORD:
        return None
    user = None
    if isinstance(username, str) and USERNAME.fullmatch(username):
        user = session.exec(select(AdminUser).where(AdminUser.username == username.lower())).first()
    if user is None:
        check_password_hash(_dummy_hash(), password)
        return None
    if not check_password_hash(user.password_hash, password):
        return None
    user.last_login_at = now or utcnow()
    session.add(user)
    return user


SESSION_KEEP = timedelta(days=31)
"""Revoked or old session rows are deleted when their admin next logs in (ADMIN_SESSION_HOURS is at most 30 days)."""


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start_session(*, session: Session, user: AdminUser, now: datetime | None = None) -> str:
    """A new server-side login session for ``user``; returns what the login cookie stores (``<admin id>.<token>``).

    The token is random and only its hash is stored; rows this admin no longer needs are deleted on the way.
    """
    now = now or utcnow()
    assert user.id is not None
    session.execute(
        sa.delete(AdminSession).where(
            col(AdminSession.admin_id) == user.id,
            or_(col(AdminSession.revoked_at).is_not(None), col(AdminSession.created_at) < now - SESSION_KEEP),
        )
    )
    token = secrets.token_urlsafe(32)
    session.add(AdminSession(token_hash=_token_hash(token), admin_id=user.id, created_at=now))
    session.flush()
    return f"{user.id}.{token}"


def _parse_session(value: Any) -> tuple[int, str] | None:
    """The admin id and the token hash of a cookie's value, or None if it is malformed."""
    if not isinstance(value, str) or len(value) > 100:
        return None
    admin_id, _, token = value.partition(".")
    if not admin_id.isascii() or not admin_id.isdigit() or len(admin_id) > 12 or not token:
        return None
    return int(admin_id), _token_hash(token)


def _session_row(session: Session, value: Any) -> AdminSession | None:
    """The open session row a cookie's value names, or None (malformed, unknown, revoked or another admin's)."""
    parsed = _parse_session(value)
    if parsed is None:
        return None
    query = select(AdminSession).where(
        AdminSession.token_hash == parsed[1],
        AdminSession.admin_id == parsed[0],
        col(AdminSession.revoked_at).is_(None),
    )
    return session.exec(query).first()


def admin_for_session(*, session: Session, value: str) -> AdminUser | None:
    """The admin a login cookie names, or None when its session was revoked (logout, a new password) or is unknown.

    One query on every admin page: the open session joined with its admin.
    """
    parsed = _parse_session(value)
    if parsed is None:
        return None
    query = (
        select(AdminUser)
        .join(AdminSession, col(AdminSession.admin_id) == col(AdminUser.id))
        .where(
            AdminSession.token_hash == parsed[1],
            AdminSession.admin_id == parsed[0],
            col(AdminSession.revoked_at).is_(None),
        )
    )
    return session.exec(query).first()


def end_session(*, session: Session, value: str, now: datetime | None = None) -> bool:
    """Revoke the login session a cookie names (logging out): a copy of the cookie no longer works. True if open."""
    row = _session_row(session, value)
    if row is None:
        return False
    row.revoked_at = now or utcnow()
    session.add(row)
    return True


def end_all_sessions(*, session: Session, admin_id: int, now: datetime | None = None) -> int:
    """Revoke every open login session of an admin ("log out everywhere", a new password); how many were open."""
    result = session.execute(
        update(AdminSession)
        .where(col(AdminSession.admin_id) == admin_id, col(AdminSession.revoked_at).is_(None))
        .values(revoked_at=now or utcnow())
    )
    return int(getattr(result, "rowcount", 0) or 0)


def actor_of(user: AdminUser) -> Actor:
    """The organiser as the services record them."""
    return Actor(id=user.id or 0, name=user.username, email=user.email, timezone=user.timezone)


# Creating a game ---------------------------------------------------------------------------------


def task_table_text(table: dict[str, Sequence[str]] | None = None) -> str:
    """The task-card table as the form shows it: one line per deck, ``A: Emperor, Empress, Daimyo, Shogun``."""
    shown: dict[str, Sequence[str]] = dict(table or DEFAULT_TASK_TABLE)
    return "\n".join(f"{deck}: {', '.join(t.capitalize() for t in shown[deck])}" for deck in TASK_DECKS)


def parse_task_table(text: str) -> dict[str, list[str]]:
    """Read the form's task-card table: decks A, B and C, four card types each (RULES.md R1)."""
    table: dict[str, list[str]] = {}
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    if len(lines) > len(TASK_DECKS):
        raise games.ServiceError("the task-card table has three lines: A, B and C")
    for number, line in enumerate(lines, start=1):
        deck, sep, rest = line.partition(":")
        deck = deck.strip().upper()
        if not sep or deck not in TASK_DECKS:
            raise games.ServiceError(f"line {number} must start with A:, B: or C:")
        if deck in table:
            raise games.ServiceError(f"deck {deck} is listed twice")
        cards = [c.strip().lower() for c in rest.split(",") if c.strip()]
        for card in cards:
            if card not in TYPES:
                known = ", ".join(t.capitalize() for t in TYPES)
                raise games.ServiceError(f"deck {deck}: {card[:40]!r} is not a card type ({known})")
        if len(cards) != 4:
            raise games.ServiceError(f"deck {deck} must list 4 card types, not {len(cards)}")
        table[deck] = cards
    missing = [d for d in TASK_DECKS if d not in table]
    if missing:
        raise games.ServiceError(f"the task-card table has no line for deck {', '.join(missing)}")
    return table


@dataclass
class SeatInput:
    """One row of the new-game form: ``kind`` is "none" (no seat), "human", or a bot kind."""

    kind: str = "none"
    name: str = ""
    email: str = ""
    language: str = "en"
    timezone: str = "UTC"


@dataclass
class NewGame:
    """What the new-game form asks for; ``first_seat`` counts the form's rows from 0."""

    name: str
    seats: list[SeatInput]
    random_order: bool = False
    first_seat: int = 0
    rounds: int | None = None
    imperial_tasks: bool = False
    ninja_power: bool = False
    task_table: str = ""
    organiser_email: str = ""
    policy: dict[str, Any] = field(default_factory=dict)
    """Settings of ``timing.Policy`` by name (missing ones take its defaults)."""


def _checked(errors: dict[str, str], key: str, check: Any, *args: Any) -> Any:
    try:
        return check(*args)
    except games.ServiceError as exc:
        errors[key] = exc.message
        return None


def check_timezone(value: Any, who: str) -> str:
    """A time zone name of the tz database (Europe/Amsterdam, UTC …)."""
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise games.ServiceError(f"{who}'s time zone must be a name such as Europe/Amsterdam or UTC")
    return games.check_seat(games.SeatSpec(name=who, timezone=value.strip()), glory.GAME).timezone


def require_email(value: Any, who: str) -> str:
    """An email address (one line, one @, a dot in the domain)."""
    if not isinstance(value, str) or not value.strip():
        raise games.ServiceError(f"{who} needs an email address: it is how they play")
    return games.check_email(value.strip(), f"{who}'s email")


def check_language(value: Any) -> str:
    """A language code such as en, fr or pt-BR."""
    if not isinstance(value, str) or not LANGUAGE.fullmatch(value):
        raise games.ServiceError("a language is a code such as en, fr or pt-BR")
    return value


def _seat_specs(rows: Sequence[SeatInput], errors: dict[str, str]) -> dict[int, games.SeatSpec]:
    """The filled-in rows of the form as seats, keyed by row; each problem is put in ``errors`` under its field."""
    specs: dict[int, games.SeatSpec] = {}
    bots = 0
    for i, row in enumerate(rows):
        key = f"seats-{i}"
        if row.kind == "none":
            if row.name.strip() or row.email.strip():
                errors[f"{key}-kind"] = "choose a person or a bot for this seat, or clear its name and email"
            continue
        if row.kind not in games.seat_kinds(glory.GAME):
            errors[f"{key}-kind"] = f"a seat is a person or one of the bots ({', '.join(glory.GAME.bots)})"
            continue
        name = row.name.strip()
        if row.kind != "human":
            bots += 1
            name = name or f"Bot {bots}"
        name = _checked(errors, f"{key}-name", games.check_name, name, f"seat {i + 1}'s name", glory.state.MAX_NAME)
        who = name or f"seat {i + 1}"
        if row.kind != "human":
            if name:
                specs[i] = games.SeatSpec(name=name, kind=row.kind)
            continue
        email = _checked(errors, f"{key}-email", require_email, row.email, who)
        language = _checked(errors, f"{key}-language", check_language, row.language)
        zone = _checked(errors, f"{key}-timezone", check_timezone, row.timezone, who)
        if name and email and language and zone:
            specs[i] = games.check_seat(games.SeatSpec(name, email, language, zone, "human"), glory.GAME)
    seen: set[str] = set()
    for i, spec in specs.items():
        if spec.name in seen:
            errors[f"seats-{i}-name"] = f"two players are called {spec.name!r}: names must differ"
        seen.add(spec.name)
    return specs


@dataclass(frozen=True)
class NewGameChecked:
    """The new-game form, checked: what ``flows.create_game`` is called with."""

    name: str
    seats: list[games.SeatSpec]
    options: Options
    first_player: str | None
    organiser_email: str | None
    policy: timing.Policy


def check_new_game(new: NewGame) -> NewGameChecked:
    """Validate the new-game form; raise InputErrors naming each bad field with its message."""
    errors: dict[str, str] = {}
    name = _checked(errors, "name", games.check_name, new.name, "the game's name", games.MAX_GAME_NAME)
    if len(new.seats) > MAX_SEATS:
        errors["seats"] = f"a game has at most {MAX_SEATS} seats"
    rows = new.seats[:MAX_SEATS]
    specs = _seat_specs(rows, errors)
    if sum(1 for row in rows if row.kind != "none") < 2:
        errors["seats"] = "Call to Glory is for 2 to 4 players: fill in at least two seats"
    first: str | None = None
    if not 0 <= new.first_seat < len(rows) or rows[new.first_seat].kind == "none":
        errors["first_player"] = "the first player must be one of the filled-in seats"
    elif new.first_seat in specs:
        first = specs[new.first_seat].name
    top = 3 if new.imperial_tasks else 4
    if new.rounds is not None and not 1 <= new.rounds <= top:
        extra = " with Imperial Tasks" if new.imperial_tasks else ""
        errors["rounds"] = f"a game has 1 to {top} rounds{extra} (R2)"
    task_decks: dict[str, list[str]] | None = None
    if new.imperial_tasks and new.task_table.strip():
        task_decks = _checked(errors, "task_table", parse_task_table, new.task_table)
        if task_decks == {d: list(DEFAULT_TASK_TABLE[d]) for d in TASK_DECKS}:
            task_decks = None
    organiser = None
    if new.organiser_email.strip():
        organiser = _checked(errors, "organiser_email", require_email, new.organiser_email, "the organiser")
    policy = _policy(new.policy, errors)
    if errors:
        raise InputErrors(errors)
    options = Options(
        rounds=new.rounds, imperial_tasks=new.imperial_tasks, ninja_power=new.ninja_power, task_decks=task_decks
    )
    assert policy is not None
    return NewGameChecked(name, [specs[i] for i in sorted(specs)], options, first, organiser, policy)


def _policy(values: dict[str, Any], errors: dict[str, str]) -> timing.Policy | None:
    """The reminder/deadline policy; each bad setting is reported under its own name."""
    for key, value in values.items():
        if key not in POLICY_FIELDS:
            errors[key] = f"{key!r} is not a policy setting"
            continue
        try:
            timing.Policy(**{key: value})
        except timing.PolicyError as exc:
            errors[key] = str(exc)
    if errors.keys() & set(values):
        return None
    try:
        return timing.Policy(**values)
    except timing.PolicyError as exc:
        errors["policy"] = str(exc)
        return None


def create_game_from_form(*, session: Session, actor: Actor, new: NewGame, seed: int | None = None) -> Game:
    """Create a game from the new-game form (``flows.create_game`` queues the invitations); log who did it."""
    checked = check_new_game(new)
    try:
        game = flows.create_game(
            session=session,
            name=checked.name,
            seats=checked.seats,
            options={
                **checked.options.to_json(),
                **({"first_player": checked.first_player} if checked.first_player else {}),
            },
            random_order=new.random_order,
            seed=seed,
            organiser_email=checked.organiser_email,
            policy=checked.policy,
        )
    except games.ServiceError as exc:
        raise InputErrors({"": exc.message}) from None
    players = ", ".join(f"{s.name} ({'person' if s.kind == 'human' else s.kind + ' bot'})" for s in checked.seats)
    audit.log_action(session, game, actor, "create", f"created the game: {players}")
    return game


# The games list ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRow:
    """One line of the games list."""

    id: int
    name: str
    status: str
    round: int | None
    rounds: int | None
    turn: str | None
    turn_is_bot: bool
    waiting_since: datetime | None
    next_reminder_at: datetime | None
    deadline_at: datetime | None
    paused: bool
    paused_reason: str | None
    undelivered: int
    dead: int
    stuck_since: datetime | None = None
    """When the game's oldest email that keeps failing was queued (MAIL_STUCK_NOTICE_MINUTES or more ago)."""

    def attention(self, now: datetime) -> list[str]:
        """Why this game needs the organiser, in words (empty when it does not)."""
        reasons = []
        if self.paused:
            reasons.append("paused")
        if self.dead:
            reasons.append(f"{self.dead} email{'s' if self.dead > 1 else ''} could not be delivered")
        if self.stuck_since is not None:
            reasons.append("mail stuck")
        if self.deadline_at is not None and self.deadline_at < now and self.status in RUNNING:
            reasons.append("deadline passed")
        return reasons


@dataclass
class GameList:
    """A page of the games list, with the filters that made it."""

    rows: list[GameRow]
    total: int
    page: int
    per_page: int
    status: str | None
    attention: bool

    @property
    def pages(self) -> int:
        """How many pages the filtered list has (at least 1)."""
        return max(1, -(-self.total // self.per_page))


def list_games(
    *,
    session: Session,
    now: datetime,
    status: str | None = None,
    attention: bool = False,
    page: int = 1,
    per_page: int = 50,
    stuck_after: timedelta | None = None,
) -> GameList:
    """A page of games, newest first: one query for the count and one for the rows (aggregates, no snapshots).

    A game's mail is stuck when an email of it has waited ``stuck_after`` (default MAIL_STUCK_NOTICE_MINUTES)
    and keeps failing; that counts as needing attention."""
    if status is not None and status not in STATUSES:
        raise games.ServiceError(f"a game's status is one of {', '.join(STATUSES)}")
    if page < 1:
        raise games.ServiceError("pages are counted from 1")
    stuck = outbox.stuck(now, stuck_after if stuck_after is not None else outbox.stuck_after())
    filters: list[Any] = []
    if status == "aborted":
        filters.append(col(Game.aborted_at).is_not(None))
    elif status is not None:
        filters += [col(Game.status) == status, col(Game.aborted_at).is_(None)]
    if attention:
        dead_games = select(OutboxEmail.game_id).where(col(OutboxEmail.status) == "dead")
        stopped = and_(col(Game.paused_at).is_not(None), col(Game.aborted_at).is_(None))
        late = and_(col(Game.deadline_at) < now, col(Game.status).in_(RUNNING), col(Game.aborted_at).is_(None))
        stuck_games = select(OutboxEmail.game_id).where(stuck)
        filters.append(or_(stopped, col(Game.id).in_(dead_games), col(Game.id).in_(stuck_games), late))
    total = session.exec(select(func.count()).select_from(Game).where(*filters)).one()
    page_ids = (
        select(col(Game.id)).where(*filters).order_by(col(Game.id).desc()).limit(per_page).offset((page - 1) * per_page)
    )

    def outbox_count(match: Any) -> Any:
        return (
            select(func.count())
            .select_from(OutboxEmail)
            .where(col(OutboxEmail.game_id) == col(Game.id), match)
            .scalar_subquery()
        )

    # Undelivered: what failed (dead, or waiting for another try after a failure), not what is merely queued.
    failed = or_(
        col(OutboxEmail.status) == "dead",
        and_(col(OutboxEmail.status).in_(("queued", "sending")), col(OutboxEmail.last_error).is_not(None)),
    )
    query = (
        sa.select(
            col(Game.id),
            col(Game.name),
            col(Game.status),
            col(Game.state)["round"].as_integer(),
            col(Game.options)["rounds"].as_integer(),
            col(Seat.name),
            col(Seat.kind),
            col(Game.waiting_since),
            col(Game.next_reminder_at),
            col(Game.deadline_at),
            col(Game.paused_at),
            col(Game.paused_reason),
            col(Game.aborted_at),
            outbox_count(failed),
            outbox_count(col(OutboxEmail.status) == "dead"),
            select(func.min(OutboxEmail.created_at))
            .where(col(OutboxEmail.game_id) == col(Game.id), stuck)
            .scalar_subquery(),
        )
        .outerjoin(Seat, and_(col(Seat.game_id) == col(Game.id), col(Seat.position) == col(Game.current_seat)))
        .where(col(Game.id).in_(page_ids.scalar_subquery()))
        .order_by(col(Game.id).desc())
    )
    rows = []
    for r in session.execute(query):
        shown = "aborted" if r[12] is not None else r[2]
        rows.append(
            GameRow(
                id=r[0],
                name=r[1],
                status=shown,
                round=r[3],
                rounds=r[4],
                turn=r[5] if shown in RUNNING else None,
                turn_is_bot=r[6] is not None and r[6] != "human",
                waiting_since=timing.utc(r[7]),
                next_reminder_at=timing.utc(r[8]) if shown in RUNNING else None,
                deadline_at=timing.utc(r[9]) if shown in RUNNING else None,
                paused=r[10] is not None and shown in RUNNING,
                paused_reason=r[11],
                undelivered=r[13],
                dead=r[14],
                stuck_since=timing.utc(r[15]),
            )
        )
    return GameList(rows=rows, total=total, page=page, per_page=per_page, status=status, attention=attention)


# One game ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogLine:
    """One line of a game's log as the organiser sees it: a move (every card shown) or an organiser action."""

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


@dataclass
class GameView:
    """Everything the organiser's page of one game shows."""

    game: Game
    seats: list[Seat]
    state: State
    summary: dict[str, Any]
    rounds: list[dict[str, Any]]
    log: list[LogLine]
    emails: list[EmailRow]
    current: Seat | None
    bot_move: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    late: bool = False
    """The deadline of the current decision has passed."""
    said: list[talk.Said] = field(default_factory=list)
    """Table talk that players can see (hidden messages are left out)."""

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
        """The status the admin page shows: the engine's, or ``aborted``."""
        return "aborted" if self.game.aborted_at is not None else self.game.status


def _move_text(record: MoveRecord) -> str:
    if not record.events:
        return describe_move(record.move) + "."
    return " ".join(describe_event(e, None) for e in record.events)


def game_view(*, session: Session, game_id: int, now: datetime | None = None) -> GameView:
    """A game as its organiser sees it: every hand, the score sheets, the whole log, its emails."""
    game = games.get_game(session=session, game_id=game_id)
    seats = games.seats_of(session=session, game_id=game_id)
    state = games.load_state(game)
    names = {s.position: s.name for s in seats}
    log = [
        LogLine(_now(r.created_at), "move", r.source, names.get(r.seat, "?"), _move_text(r), r.seq)
        for r in games.move_log(session=session, game_id=game_id)
    ]
    actions = session.exec(select(AdminAction).where(AdminAction.game_id == game_id).order_by(col(AdminAction.id)))
    log += [LogLine(_now(a.created_at), "admin", "admin", a.admin_name, a.detail) for a in actions]
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
    current = None if state.is_finished else seats[state.current]
    view = GameView(
        game=game,
        seats=seats,
        state=state,
        summary=glory.state_summary(state),
        rounds=glory.round_details(state),
        log=log,
        emails=emails,
        current=current,
        said=talk.said(session=session, game_id=game_id, names=names),
    )
    for email in emails:
        view.counts[email.status] = view.counts.get(email.status, 0) + 1
    if current is not None and view.running:
        view.bot_move = describe_move(games.bot_move(glory.GAME, state, state.current_player).to_json())
        deadline = timing.utc(game.deadline_at)
        view.late = deadline is not None and deadline < _now(now)
    return view


# Repairs -----------------------------------------------------------------------------------------


def _running(session: Session, game_id: int, *, unpaused: bool = True) -> Game:
    """The game, locked, if it is still running (and, with ``unpaused``, not paused)."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    if game.aborted_at is not None:
        raise NotNow("this game was aborted")
    if game.status not in RUNNING:
        raise NotNow("this game is over")
    if unpaused and game.paused_at is not None:
        raise NotNow("this game is paused: resume it first")
    return game


def _seat(session: Session, game_id: int, position: int) -> tuple[list[Seat], Seat]:
    seats = games.seats_of(session=session, game_id=game_id)
    if not 0 <= position < len(seats):
        raise games.ServiceError(f"game {game_id} has no seat {position + 1}")
    return seats, seats[position]


def _play_bots(session: Session, game: Game) -> int:
    """If a bot seat must act (after a hand-over or a resume), let it play; the moves after it follow."""
    state = games.load_state(game)
    if state.is_finished or game.paused_at is not None:
        return 0
    seats = games.seats_of(session=session, game_id=game.id or 0)
    seat = seats[state.current]
    if not seat.is_bot:
        return 0
    move = {k: v for k, v in games.bot_move(glory.GAME, state, seat.name, seat.kind).to_json().items() if k != "player"}
    outcome = flows.apply_move(
        session=session, game_id=game.id or 0, seat=seat.position, move=move, decision=state.ply, source="bot"
    )
    return len(outcome.logged)


def _now(now: datetime | None) -> datetime:
    return timing.utc(now) or utcnow()


def _welcome(session: Session, game: Game, seats: list[Seat], seat: Seat) -> None:
    """Store the seat's new address or person, give them a wait of their own if they must act (reminders and
    deadline anew), then queue a fresh invitation and, if they must act now, their turn email (with that deadline)."""
    session.add(seat)
    session.flush()
    _restart_wait(session, game, seat)
    notify.queue_invitation(session=session, game=game, seats=seats, seat=seat)
    state = games.load_state(game)
    if game.paused_at is None and state.current_player == seat.name:
        notify.queue_turn_email(
            session=session, game=game, seats=seats, seat=seat, state=state, deadline=game.deadline_at
        )


def _rotate(seat: Seat) -> None:
    seat.nonce = secrets.token_urlsafe(24)


def _restart_wait(session: Session, game: Game, seat: Seat) -> None:
    """A new address or person at the seat that must act gets a wait of their own: reminders and deadline anew."""
    waits.restart(session, game, seat, utcnow())


def resend_turn_email(*, session: Session, game_id: int, actor: Actor) -> str:
    """Queue the current turn email again for the person who must act."""
    game = _running(session, game_id)
    state = games.load_state(game)
    seats = games.seats_of(session=session, game_id=game_id)
    seat = seats[state.current]
    if seat.is_bot:
        raise NotNow(f"{seat.name} is a bot: there is no one to email")
    if not seat.email:
        raise NotNow(f"{seat.name} has no email address")
    row = notify.queue_turn_email(
        session=session, game=game, seats=seats, seat=seat, state=state, deadline=game.deadline_at
    )
    if row is None:
        raise NotNow(f"no email can be sent to {seat.name} now")
    audit.log_action(
        session, game, actor, "resend_turn", f"resent the turn email to {seat.name} <{seat.email}>", seat=seat.position
    )
    return f"The turn email to {seat.name} is queued again."


def change_email(*, session: Session, game_id: int, seat: int, email: str, actor: Actor) -> str:
    """Give a person a new address: their old links stop working and the new address gets a fresh invitation."""
    game = _running(session, game_id, unpaused=False)
    seats, target = _seat(session, game_id, seat)
    if target.is_bot:
        raise NotNow(f"{target.name} is a bot: hand the seat to a person instead")
    new = require_email(email, target.name)
    if new == target.email:
        raise games.ServiceError(f"{new} is already {target.name}'s address")
    old = target.email
    target.email = new
    _rotate(target)
    _welcome(session, game, seats, target)
    audit.log_action(
        session,
        game,
        actor,
        "change_email",
        f"changed {target.name}'s email from {old or 'none'} to {new}; their old links no longer work",
        f"The organiser changed {target.name}'s email address.",
        target.position,
    )
    return f"{target.name}'s address is now {new}; an invitation with their new link is queued."


def hand_seat(
    *,
    session: Session,
    game_id: int,
    seat: int,
    kind: str,
    actor: Actor,
    email: str = "",
    language: str = "en",
    timezone: str = "UTC",
) -> str:
    """Give a seat to a new person (``kind`` "human", with their address) or to a bot; the old links stop working.

    The seat keeps its name: the game's state, score sheet and log know the player by it.
    """
    game = _running(session, game_id, unpaused=False)
    seats, target = _seat(session, game_id, seat)
    if kind not in games.seat_kinds(glory.GAME):
        raise games.ServiceError(f"a seat is a person or one of the bots ({', '.join(glory.GAME.bots)})")
    _rotate(target)
    if kind == "human":
        who = f"the new player of {target.name}'s seat"
        new, language, zone = require_email(email, who), check_language(language), check_timezone(timezone, who)
        old = f"{target.email}" if not target.is_bot else f"the {target.kind} bot"
        target.kind, target.email, target.language, target.timezone = "human", new, language, zone
        target.left_at, target.reminders = None, True
        _welcome(session, game, seats, target)
        audit.log_action(
            session,
            game,
            actor,
            "hand_to_person",
            f"gave {target.name}'s seat (was {old}) to a new person <{new}>; the old links no longer work",
            f"The organiser gave {target.name}'s seat to a new player.",
            target.position,
        )
        message = f"{target.name}'s seat now belongs to {new}; an invitation is queued."
    else:
        if target.kind == kind:
            raise games.ServiceError(f"{target.name} is already played by the {kind} bot")
        was = f"{target.email or 'a person'}" if not target.is_bot else f"the {target.kind} bot"
        target.kind = kind
        session.add(target)
        session.flush()
        audit.log_action(
            session,
            game,
            actor,
            "hand_to_bot",
            f"gave {target.name}'s seat (was {was}) to the {kind} bot",
            f"The organiser handed {target.name}'s seat to a bot.",
            target.position,
        )
        message = f"The {kind} bot now plays {target.name}'s seat."
        if _play_bots(session, game):
            message += " It has made its decision."
    return message


def pause_game(*, session: Session, game_id: int, actor: Actor, reason: str = "", now: datetime | None = None) -> str:
    """Pause a running game: moves are refused and no reminders or deadlines run until it is resumed."""
    game = _running(session, game_id)
    why = games.check_text(reason, "the reason", MAX_REASON) if reason.strip() else ""
    sweeps.pause_game(
        session=session, game_id=game_id, reason=f"The organiser paused it{': ' + why if why else ''}.", now=_now(now)
    )
    audit.log_action(
        session, game, actor, "pause", f"paused the game{': ' + why if why else ''}", "The organiser paused the game."
    )
    return "The game is paused."


def resume_game(*, session: Session, game_id: int, actor: Actor, now: datetime | None = None) -> str:
    """Resume a paused game: the player to act gets a fresh wait; a bot that must act plays at once."""
    game = _running(session, game_id, unpaused=False)
    if game.paused_at is None:
        raise NotNow("this game is not paused")
    since = f"{_now(game.paused_at):%Y-%m-%d %H:%M} UTC"
    why = f": {game.paused_reason}" if game.paused_reason else ""
    audit.log_action(
        session,
        game,
        actor,
        "resume",
        f"resumed the game (paused since {since}{why})",
        "The organiser resumed the game.",
    )
    sweeps.resume_game(session=session, game_id=game_id, now=_now(now))
    session.flush()
    played = _play_bots(session, game)
    return "The game is running again." + (" The bot to act has played." if played else "")


def extend_deadline(*, session: Session, game_id: int, hours: int, actor: Actor, now: datetime | None = None) -> str:
    """Move the current decision's deadline ``hours`` later (counted from now if it has already passed)."""
    if type(hours) is not int or not 1 <= hours <= MAX_EXTEND_HOURS:
        raise games.ServiceError(f"extend by 1 to {MAX_EXTEND_HOURS} hours")
    game = _running(session, game_id)
    seat = None if game.current_seat is None else games.seats_of(session=session, game_id=game_id)[game.current_seat]
    deadline = None if seat is None else waits.extend(session, game, seat, hours, _now(now))
    if seat is None or deadline is None:
        raise NotNow("this game has no deadline for the current decision")
    audit.log_action(
        session,
        game,
        actor,
        "extend_deadline",
        f"extended the deadline of {seat.name}'s decision by {hours} h, to {deadline:%Y-%m-%d %H:%M} UTC",
        f"The organiser gave {seat.name} {hours} more hours to play.",
        seat.position,
    )
    return f"The deadline is now {hours} hours later."


def bot_decision(*, session: Session, game_id: int, decision: int, actor: Actor) -> str:
    """Let the heuristic bot make the open decision (source "admin"); allowed while paused, to unstick a game."""
    game = _running(session, game_id, unpaused=False)
    state = games.load_state(game)
    if decision != state.ply:
        raise games.AlreadyPlayed
    seat = games.seats_of(session=session, game_id=game_id)[state.current]
    move = {k: v for k, v in games.bot_move(glory.GAME, state, state.current_player).to_json().items() if k != "player"}
    words = describe_move(move)
    audit.log_action(
        session,
        game,
        actor,
        "bot_decision",
        f"let the bot decide for {seat.name}: {words}",
        f"The organiser let a bot make a decision for {seat.name}: {words}.",
        seat.position,
    )
    flows.apply_move(session=session, game_id=game_id, seat=seat.position, move=move, decision=decision, source="admin")
    return f"The bot decided for {seat.name}: {words}."


def hide_message(*, session: Session, game_id: int, message_id: int, actor: Actor, now: datetime | None = None) -> str:
    """Hide a table-talk message from the players' pages and from emails not yet written; logged."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    message = talk.hide(session=session, game_id=game_id, message_id=message_id, now=_now(now))
    audit.log_action(session, game, actor, "hide_message", f"hid a message of seat {message.seat + 1}: {message.text}")
    return "The message is hidden."


def retry_dead_emails(*, session: Session, game_id: int, actor: Actor, now: datetime | None = None) -> str:
    """Send the game's undeliverable emails again: back to queued, attempts reset."""
    game = games.get_game(session=session, game_id=game_id, lock=True)
    result = session.execute(
        update(OutboxEmail)
        .where(col(OutboxEmail.game_id) == game_id, col(OutboxEmail.status) == "dead")
        .values(status="queued", attempts=0, next_attempt_at=_now(now), claimed_by=None, claimed_at=None)
    )
    count: int = result.rowcount  # type: ignore[attr-defined]
    if count == 0:
        raise NotNow("this game has no undeliverable emails")
    audit.log_action(
        session, game, actor, "retry_emails", f"queued {count} undeliverable email{'s' if count > 1 else ''} again"
    )
    return f"{count} email{'s are' if count > 1 else ' is'} queued again."


def abort_game(*, session: Session, game_id: int, actor: Actor, reason: str = "", now: datetime | None = None) -> str:
    """Stop a game for good: no more moves, reminders or deadlines; it stays readable."""
    game = _running(session, game_id, unpaused=False)
    why = games.check_text(reason, "the reason", MAX_REASON) if reason.strip() else ""
    game.aborted_at = _now(now)
    game.paused_at = game.paused_at or game.aborted_at
    game.paused_reason = f"The organiser ended the game early{': ' + why if why else ''}."
    waits.clear(session, game)
    audit.log_action(
        session,
        game,
        actor,
        "abort",
        f"aborted the game{': ' + why if why else ''}",
        "The organiser ended the game early: it will not be finished.",
    )
    return "The game is aborted."


@dataclass(frozen=True)
class Export:
    """A game record (GAME_RECORD.md) ready to download."""

    filename: str
    text: str


def game_record(*, session: Session, game_id: int) -> dict[str, Any]:
    """The game's record (``call-to-glory/1``): players, options, seed and every move, replayable by the engine."""
    game = games.get_game(session=session, game_id=game_id)
    seats = games.seats_of(session=session, game_id=game_id)
    start = glory.new_game([s.name for s in seats], Options.from_json(game.options), seed=game.seed)
    moves = [Move.from_json(r.move) for r in games.move_log(session=session, game_id=game_id)]
    return glory.record_of(start, moves).to_json()


def export_record(*, session: Session, game_id: int, actor: Actor) -> Export:
    """The game's record as a JSON download; logged, since it reveals every card."""
    record = game_record(session=session, game_id=game_id)
    game = games.get_game(session=session, game_id=game_id)
    audit.log_action(session, game, actor, "export", f"exported the game record ({len(record['moves'])} moves)")
    slug = re.sub(r"[^a-z0-9]+", "-", game.name.lower()).strip("-")[:40] or "game"
    return Export(f"call-to-glory-{game.id}-{slug}.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def verify(*, session: Session, game_id: int, actor: Actor) -> tuple[bool, str]:
    """Replay the move log from the seed and compare it with the stored snapshot; the result is logged."""
    game = games.get_game(session=session, game_id=game_id)
    moves = len(games.move_log(session=session, game_id=game_id))
    try:
        ok = games.verify_game(session=session, game_id=game_id)
        result = (
            f"replayed {moves} moves: the stored state matches"
            if ok
            else f"replayed {moves} moves: the stored state DIFFERS from the replay"
        )
    except (glory.IllegalMove, glory.FormatError) as exc:
        ok = False
        result = f"the move log does not replay: {getattr(exc, 'message', str(exc))}"
    audit.log_action(session, game, actor, "verify", f"verified the game: {result}")
    return ok, result[0].upper() + result[1:] + "."
