"""Game services: create games, apply moves in one transaction, run bots, replay the log.

Every function takes the session as a keyword and leaves commit to the caller's
transaction (``pbem.db.write_session``), so a move, its log entry and its new
snapshot are stored together or not at all.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import bindparam, func, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from engine import call_to_glory as glory
from engine.call_to_glory import IllegalMove, Move, Options, State

from . import links, timing, waits
from .models import Game, MoveRecord, Seat, utcnow

KINDS = ("human", *glory.GAME.bots)
MAX_GAME_NAME = 80
MAX_EMAIL = 254
PREFERENCE_CHANGES = 10
PREFERENCE_WINDOW = timedelta(minutes=10)
"""A person may change their discard preference at most PREFERENCE_CHANGES times per PREFERENCE_WINDOW."""


# Statements built once: building SQLAlchemy expressions costs more than running them on a small table.
_GAME = select(Game).where(col(Game.id) == bindparam("game_id"))
_GAME_FOR_UPDATE = _GAME.with_for_update()
_SEATS = select(Seat).where(col(Seat.game_id) == bindparam("game_id")).order_by(col(Seat.position))
_LAST_SEQ = select(func.max(MoveRecord.seq)).where(col(MoveRecord.game_id) == bindparam("game_id"))
_LOG_COLUMNS = ("game_id", "seq", "seat", "move", "events", "source", "created_at")
_RECENT_MOVES = (
    select(MoveRecord.move)
    .where(col(MoveRecord.game_id) == bindparam("game_id"))
    .where(col(MoveRecord.seat) == bindparam("seat"))
    .where(col(MoveRecord.created_at) >= bindparam("since"))
    .where(col(MoveRecord.source).in_(("page", "link")))
)
_INSERT_MOVES = insert(MoveRecord.__table__)  # type: ignore[attr-defined]
_EVENTS = (
    select(MoveRecord.events)
    .where(col(MoveRecord.game_id) == bindparam("game_id"))
    .order_by(col(MoveRecord.seq).desc())
    .limit(bindparam("limit"))
)


class ServiceError(Exception):
    """A request the services refuse; ``status`` is the HTTP status a page should answer with."""

    status = 400

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


class GameNotFound(ServiceError):
    """No game with that id."""

    status = 404


class LinkRevoked(ServiceError):
    """The seat's links were replaced (its nonce was rotated)."""

    status = 410


class GamePaused(ServiceError):
    """The game is paused (by its timeout policy or the organiser): no moves until it is resumed."""

    status = 409


class GameOver(ServiceError):
    """The game has ended: nothing about it can change any more."""

    status = 409


class TooManyChanges(ServiceError):
    """A seat changed its discard preference too often in a short time (PREFERENCE_CHANGES per PREFERENCE_WINDOW)."""

    status = 429
    retry_after = int(PREFERENCE_WINDOW.total_seconds())


class AlreadyPlayed(Exception):
    """The decision a move was made for is no longer open: someone (or a bot) already made it."""


@dataclass
class SeatSpec:
    """One seat of a new game: a person or a bot."""

    name: str
    email: str | None = None
    language: str = "en"
    timezone: str = "UTC"
    kind: str = "human"


@dataclass(frozen=True)
class Before:
    """What followed a change needs to know of the state before it (``Before.of(state)``, taken first)."""

    ply: int
    turn: int
    round: int
    status: str
    current: int
    rounds_scored: int

    @classmethod
    def of(cls, state: State) -> Before:
        """Capture ``state`` before it changes."""
        return cls(state.ply, state.turn, state.round, state.status, state.current, len(state.round_scores))

    @property
    def decision(self) -> tuple[int, int, str, int]:
        """Who must decide what; it changes with the seat to act, a new round or a reveal, never within a turn."""
        return (self.turn, self.round, self.status, self.current)


@dataclass
class MoveOutcome:
    """What a change did: the moves logged (the player's and the bots' after it), the new state, the seats, and
    the state before (None for a new game); ``pbem.flows`` hands it to ``mail.notify``."""

    game: Game
    state: State
    logged: list[MoveRecord] = field(default_factory=list)
    seats: list[Seat] = field(default_factory=list)
    before: Before | None = None


def check_text(value: Any, what: str, longest: int) -> str:
    """A single line of 1..longest printable characters (no CR, LF, NUL or other control characters)."""
    if not isinstance(value, str) or not value.strip():
        raise ServiceError(f"{what} must not be empty")
    if len(value) > longest:
        raise ServiceError(f"{what} must be at most {longest} characters")
    if any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in value):
        raise ServiceError(f"{what} may not contain line breaks or control characters")
    return value.strip()


def check_name(value: Any, what: str, longest: int) -> str:
    """A name: ``check_text``, and no invisible or direction-changing characters (Unicode category Cf:
    U+200B zero-width space, U+202E right-to-left override …), so that "Ann" and "Ann\u200b" cannot both
    sit at a game and no name can reverse the text of a page."""
    name = check_text(value, what, longest)
    if any(unicodedata.category(c) == "Cf" for c in name):
        raise ServiceError(f"{what} may not contain invisible or text-direction characters")
    return name


def check_seat(spec: SeatSpec) -> SeatSpec:
    """Validate one seat's fields, with a message naming the field."""
    name = check_name(spec.name, "a player's name", glory.state.MAX_NAME)
    if spec.kind not in KINDS:
        raise ServiceError(f"a seat is one of {', '.join(KINDS)}, not {spec.kind!r}")
    email = check_email(spec.email, f"{name}'s email") if spec.email else None
    try:
        ZoneInfo(spec.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ServiceError(f"{name}'s time zone {spec.timezone!r} is not known") from None
    language = check_text(spec.language, f"{name}'s language", 8)
    return SeatSpec(name, email, language, spec.timezone, spec.kind)


def check_email(value: Any, what: str) -> str:
    """One email address, checked by email-validator (syntax only: no DNS), in the form that is stored.

    No display name, no quotes, no domain literal (``[127.0.0.1]``), no comma or second address, a
    domain that can receive mail (not ``localhost`` or ``.test``); an internationalised domain is kept
    in its ASCII form (``xn--…``), which every mail server accepts.
    """
    email = check_text(value, what, MAX_EMAIL)
    try:
        checked = validate_email(email, check_deliverability=False, allow_smtputf8=False)
    except EmailNotValidError as exc:
        raise ServiceError(f"{what} {email!r} is not an email address: {exc}") from None
    address: str = checked.ascii_email or checked.normalized
    if len(address) > MAX_EMAIL:
        raise ServiceError(f"{what} must be at most {MAX_EMAIL} characters")
    return address


def create_game(
    *,
    session: Session,
    name: str,
    seats: Sequence[SeatSpec],
    options: Options | None = None,
    random_order: bool = False,
    first_player: str | None = None,
    seed: int | None = None,
    organiser_email: str | None = None,
    policy: timing.Policy | None = None,
) -> MoveOutcome:
    """Create a game with its seats and the engine's first state; bots to move play at once."""
    name = check_name(name, "the game's name", MAX_GAME_NAME)
    organiser = check_email(organiser_email, "the organiser's email") if organiser_email else None
    specs = [check_seat(s) for s in seats]
    if random_order:
        secrets.SystemRandom().shuffle(specs)
    options = options or Options()
    if first_player is not None:
        options = Options(
            rounds=options.rounds,
            imperial_tasks=options.imperial_tasks,
            ninja_power=options.ninja_power,
            first_player=first_player,
            task_decks=options.task_decks,
        )
    seed = secrets.randbits(63) if seed is None else seed
    try:
        state = glory.new_game([s.name for s in specs], options, seed=seed)
    except glory.FormatError as exc:
        raise ServiceError(str(exc)) from None
    game = Game(
        game=glory.GAME.key,
        name=name,
        options=options.to_json(),
        seed=seed,
        state=glory.to_json(state),
        status=state.status,
    )
    game.organiser_email = organiser
    game.policy = (policy or timing.Policy()).to_json()
    session.add(game)
    session.flush()
    assert game.id is not None
    for position, spec in enumerate(specs):
        session.add(
            Seat(
                game_id=game.id,
                position=position,
                name=spec.name,
                email=spec.email,
                language=spec.language,
                timezone=spec.timezone,
                kind=spec.kind,
                nonce=secrets.token_urlsafe(24),
            )
        )
    session.flush()
    outcome = MoveOutcome(game, state, seats=seats_of(session=session, game_id=game.id))
    _run_bots(session, outcome, outcome.seats, next_seq=1)
    _store(session, outcome, expected_version=0)
    return outcome


def get_game(*, session: Session, game_id: int, lock: bool = False) -> Game:
    """The game, locked for update when asked (PostgreSQL; SQLite's BEGIN IMMEDIATE already is)."""
    query = _GAME_FOR_UPDATE if lock else _GAME
    game = session.exec(query, params={"game_id": game_id}).first()
    if game is None:
        raise GameNotFound(f"there is no game {game_id}")
    return game


def seats_of(*, session: Session, game_id: int) -> list[Seat]:
    """The game's seats in seat order."""
    return list(session.exec(_SEATS, params={"game_id": game_id}))


def load_state(game: Game) -> State:
    """The engine state of a game's snapshot."""
    return glory.from_json(game.state)


def lock_seat(*, session: Session, game_id: int, seat: int, nonce_tag: str | None = None) -> tuple[Game, list[Seat]]:
    """The game (locked for the write) and its seats, for a change made by ``seat``.

    With ``nonce_tag`` (from a link), the seat's current nonce must match it, else LinkRevoked.
    """
    game = get_game(session=session, game_id=game_id, lock=True)
    seats = seats_of(session=session, game_id=game_id)
    if not 0 <= seat < len(seats):
        if nonce_tag is not None:
            raise ServiceError("This link is not valid: the game has no such seat.")
        raise ServiceError(f"game {game_id} has no seat {seat}")
    if nonce_tag is not None and nonce_tag != links.nonce_tag(seats[seat].nonce):
        raise LinkRevoked("This link was replaced by a newer one. Use the link in your latest email.")
    return game, seats


def apply_move(
    *,
    session: Session,
    game_id: int,
    seat: int,
    move: dict[str, Any],
    decision: int | None,
    source: str,
    nonce_tag: str | None = None,
) -> MoveOutcome:
    """Apply one move for one seat, if ``decision`` (the state's ``ply``) is still the open one.

    With ``nonce_tag`` (from a link), the seat's current nonce must match it, else LinkRevoked.
    Raises AlreadyPlayed when the decision was already made, ServiceError (with the
    rule) for a malformed or illegal move. Bots whose turn follows play at once.
    """
    game, seats = lock_seat(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag)
    preference = isinstance(move, dict) and move.get("do") == "preference"
    if game.aborted_at is not None:
        raise GamePaused("This game was stopped by its organiser: no more moves can be made.")
    if game.paused_at is not None and source != "admin" and not preference:
        raise GamePaused(f"This game is paused. {game.paused_reason or ''} Moves wait until the organiser resumes it.")
    if seats[seat].is_bot and source not in ("bot", "admin", "timeout"):
        raise ServiceError(f"{seats[seat].name} is played by a bot")
    state = load_state(game)
    before = Before.of(state)
    if not isinstance(move, dict):
        raise ServiceError("a move must be an object")
    if move.get("do") != "preference" and decision is not None and decision != state.ply:
        raise AlreadyPlayed
    try:
        parsed = Move.from_json({**move, "player": seats[seat].name})
    except glory.FormatError as exc:
        raise ServiceError(str(exc)) from None
    if parsed.do != "preference" and state.is_finished:
        raise AlreadyPlayed
    outcome = MoveOutcome(game, state, seats=seats, before=before)
    if parsed.do == "preference":
        if state.is_finished:
            raise GameOver("This game is over: its discard preferences can no longer change.")
        if glory.PREFERENCES[state.preferences[seat]] == parsed.discard_preference:
            return outcome  # the same value again: nothing changes, nothing is logged
        if source in ("page", "link"):
            _check_preference_rate(session, game_id, seat, utcnow())
    version = game.version
    next_seq = _next_seq(session, game_id)
    try:
        _apply_logged(session, outcome, seats[seat], parsed, source, next_seq)
    except IllegalMove as exc:
        raise ServiceError(exc.message, exc.rule) from None
    _run_bots(session, outcome, seats, next_seq + 1)
    _store(session, outcome, expected_version=version)
    return outcome


def leave_seat(*, session: Session, game_id: int, seat: int) -> MoveOutcome:
    """A person leaves for good: the heuristic bot takes the seat (and plays at once if it must act), the
    seat's nonce is rotated so its links stop working."""
    game = get_game(session=session, game_id=game_id, lock=True)
    seats = seats_of(session=session, game_id=game_id)
    if not 0 <= seat < len(seats) or seats[seat].is_bot:
        raise ServiceError("only a person playing a seat can leave it")
    state = load_state(game)
    if state.is_finished:
        raise ServiceError("the game is over: there is nothing to leave")
    before = Before.of(state)
    leaver = seats[seat]
    leaver.kind, leaver.left_at, leaver.nonce = "heuristic", utcnow(), secrets.token_urlsafe(24)
    session.add(leaver)
    outcome = MoveOutcome(game, state, seats=seats, before=before)
    if game.paused_at is None:
        _run_bots(session, outcome, seats, _next_seq(session, game_id))
    _store(session, outcome, expected_version=game.version)
    return outcome


def _check_preference_rate(session: Session, game_id: int, seat: int, now: datetime) -> None:
    """Refuse a person's preference change beyond PREFERENCE_CHANGES in the last PREFERENCE_WINDOW."""
    recent = session.execute(
        _RECENT_MOVES, {"game_id": game_id, "seat": seat, "since": now - PREFERENCE_WINDOW}
    ).scalars()
    changes = sum(1 for move in recent if isinstance(move, dict) and move.get("do") == "preference")
    if changes >= PREFERENCE_CHANGES:
        minutes = int(PREFERENCE_WINDOW.total_seconds() // 60)
        raise TooManyChanges(
            f"Your discard preference was changed {changes} times in the last {minutes} minutes. "
            "Wait a few minutes, then try again."
        )


def _next_seq(session: Session, game_id: int) -> int:
    last = session.execute(_LAST_SEQ, {"game_id": game_id}).scalar()
    return (last or 0) + 1


def _apply_logged(session: Session, outcome: MoveOutcome, seat: Seat, move: Move, source: str, seq: int) -> None:
    events: list[dict[str, Any]] = []
    glory.apply(outcome.state, move, events)
    record = MoveRecord(
        game_id=seat.game_id,
        seq=seq,
        seat=seat.position,
        move=move.to_json(),
        events=events,
        source=source,
        created_at=utcnow(),
    )
    outcome.logged.append(record)  # inserted by _store, all in one statement


def bot_move(state: State, kind: str) -> Move:
    """The move the bot ``kind`` makes for the player who must act (a random bot is seeded by the decision)."""
    player = state.current_player
    if player is None:
        raise ServiceError("the game is over: no bot has anything to decide")
    move: Move = glory.GAME.bots[kind](state.ply).choose(state, player)
    return move


def _run_bots(session: Session, outcome: MoveOutcome, seats: list[Seat], next_seq: int) -> None:
    """Let bot seats make their decisions, one after another, until a person must act."""
    state = outcome.state
    seq = next_seq
    while not state.is_finished and seats[state.current].is_bot:
        seat = seats[state.current]
        _apply_logged(session, outcome, seat, bot_move(state, seat.kind), "bot", seq)
        seq += 1


def _store(session: Session, outcome: MoveOutcome, expected_version: int) -> None:
    """Write the new snapshot with version + 1, only if nobody else wrote one first."""
    game, state = outcome.game, outcome.state
    session.flush()
    if outcome.logged:
        rows = [{c: getattr(r, c) for c in _LOG_COLUMNS} for r in outcome.logged]
        session.connection().execute(_INSERT_MOVES, rows)
    values = {
        "state": glory.to_json(state),
        "status": state.status,
        "current_seat": None if state.is_finished else state.current,
        "version": expected_version + 1,
        "updated_at": utcnow(),
        **waits.timing_fields(session=session, game=game, state=state, seats=outcome.seats, now=utcnow()),
    }
    params = {"b_id": game.id, "b_version": expected_version, **{f"v_{k}": v for k, v in values.items()}}
    if session.connection().execute(_update_game(tuple(values)), params).rowcount != 1:
        raise AlreadyPlayed
    for key, value in values.items():
        set_committed_value(game, key, value)  # stored already: not dirty, so no second UPDATE at commit


_UPDATES: dict[tuple[str, ...], Any] = {}


def _update_game(keys: tuple[str, ...]) -> Any:
    """UPDATE game SET <keys> WHERE id = :b_id AND version = :b_version, built once per set of columns."""
    if keys not in _UPDATES:
        table = Game.__table__  # type: ignore[attr-defined]
        _UPDATES[keys] = (
            update(table)
            .where(table.c.id == bindparam("b_id"), table.c.version == bindparam("b_version"))
            .values({k: bindparam(f"v_{k}", type_=table.c[k].type) for k in keys})
        )
    return _UPDATES[keys]


def move_log(*, session: Session, game_id: int, limit: int | None = None) -> list[MoveRecord]:
    """The game's move log in order; with ``limit``, only the latest entries."""
    query = select(MoveRecord).where(MoveRecord.game_id == game_id)
    if limit is None:
        return list(session.exec(query.order_by(col(MoveRecord.seq))))
    latest = list(session.exec(query.order_by(col(MoveRecord.seq).desc()).limit(limit)))
    return latest[::-1]


def log_events(*, session: Session, game_id: int, limit: int | None = None) -> list[dict[str, Any]]:
    """The engine events of the game's log in order (of the latest ``limit`` moves only, if given).

    Reads the ``events`` column alone: a page shows the log, and this keeps its cost low on move 500.
    """
    params: dict[str, int | None] = {"game_id": game_id, "limit": -1 if limit is None else limit}
    if limit is None and session.get_bind().dialect.name != "sqlite":
        params["limit"] = None  # PostgreSQL: LIMIT NULL is no limit (SQLite: LIMIT -1)
    rows = session.execute(_EVENTS, params).scalars().all()
    return [event for events in reversed(rows) for event in events]


def replay_game(*, session: Session, game_id: int) -> State:
    """Replay the game's log from its seed and options: the state its snapshot must equal."""
    game = get_game(session=session, game_id=game_id)
    seats = seats_of(session=session, game_id=game_id)
    state = glory.new_game([s.name for s in seats], Options.from_json(game.options), seed=game.seed)
    for record in move_log(session=session, game_id=game_id):
        glory.apply(state, Move.from_json(record.move))
    return state


def verify_game(*, session: Session, game_id: int) -> bool:
    """True if replaying the log gives exactly the stored snapshot."""
    game = get_game(session=session, game_id=game_id)
    return glory.to_json(replay_game(session=session, game_id=game_id)) == game.state


def find_seat(*, session: Session, link: links.Link) -> tuple[Game, list[Seat], Seat]:
    """The game, its seats and the seat of a verified link; raise LinkInvalid, GameNotFound, LinkRevoked."""
    game = get_game(session=session, game_id=link.game_id)
    seats = seats_of(session=session, game_id=link.game_id)
    if not 0 <= link.seat < len(seats):
        raise links.LinkInvalid
    seat = seats[link.seat]
    if link.nonce_tag != links.nonce_tag(seat.nonce):
        raise LinkRevoked("This link was replaced by a newer one. Use the link in your latest email.")
    return game, seats, seat


def move_links(*, game: Game, seat: Seat, state: State) -> list[tuple[dict[str, Any], str]]:
    """A signed link for each legal first decision of ``seat`` (for emails and the CLI)."""
    if state.current_player != seat.name:
        return []
    out = []
    for move in glory.legal_moves(state):
        body = {k: v for k, v in move.to_json().items() if k != "player"}
        out.append((body, links.move_token(game.id or 0, seat.position, seat.nonce, state.ply, body)))
    return out
