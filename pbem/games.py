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
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import func, update
from sqlmodel import Session, col, select

import engine
from engine import IllegalMove, Move, Options, State
from engine.bots import BOTS

from .models import Game, MoveRecord, Seat, utcnow

KINDS = ("human", *BOTS)
MAX_GAME_NAME = 80
MAX_EMAIL = 254


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


@dataclass
class MoveOutcome:
    """What applying a move did: the moves logged (the player's and the bots' after it) and the new state."""

    game: Game
    state: State
    logged: list[MoveRecord] = field(default_factory=list)


def check_text(value: Any, what: str, longest: int) -> str:
    """A single line of 1..longest printable characters (no CR, LF, NUL or other control characters)."""
    if not isinstance(value, str) or not value.strip():
        raise ServiceError(f"{what} must not be empty")
    if len(value) > longest:
        raise ServiceError(f"{what} must be at most {longest} characters")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in value):
        raise ServiceError(f"{what} may not contain line breaks or control characters")
    return value.strip()


def check_seat(spec: SeatSpec) -> SeatSpec:
    """Validate one seat's fields, with a message naming the field."""
    name = check_text(spec.name, "a player's name", engine.state.MAX_NAME)
    if spec.kind not in KINDS:
        raise ServiceError(f"a seat is one of {', '.join(KINDS)}, not {spec.kind!r}")
    email = None
    if spec.email:
        email = check_text(spec.email, f"{name}'s email", MAX_EMAIL)
        local, _, domain = email.rpartition("@")
        if not local or "." not in domain or " " in email:
            raise ServiceError(f"{name}'s email {email!r} is not an email address")
    try:
        ZoneInfo(spec.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ServiceError(f"{name}'s time zone {spec.timezone!r} is not known") from None
    language = check_text(spec.language, f"{name}'s language", 8)
    return SeatSpec(name, email, language, spec.timezone, spec.kind)


def create_game(
    *,
    session: Session,
    name: str,
    seats: Sequence[SeatSpec],
    options: Options | None = None,
    random_order: bool = False,
    first_player: str | None = None,
    seed: int | None = None,
) -> Game:
    """Create a game with its seats and the engine's first state; bots to move play at once."""
    name = check_text(name, "the game's name", MAX_GAME_NAME)
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
        state = engine.new_game([s.name for s in specs], options, seed=seed)
    except engine.FormatError as exc:
        raise ServiceError(str(exc)) from None
    game = Game(name=name, options=options.to_json(), seed=seed, state=engine.to_json(state), status=state.status)
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
    outcome = MoveOutcome(game, state)
    _run_bots(session, outcome, seats_of(session=session, game_id=game.id), next_seq=1)
    _store(session, outcome, expected_version=0)
    return game


def get_game(*, session: Session, game_id: int, lock: bool = False) -> Game:
    """The game, locked for update when asked (PostgreSQL; SQLite's BEGIN IMMEDIATE already is)."""
    query = select(Game).where(Game.id == game_id)
    if lock:
        query = query.with_for_update()
    game = session.exec(query).first()
    if game is None:
        raise GameNotFound(f"there is no game {game_id}")
    return game


def seats_of(*, session: Session, game_id: int) -> list[Seat]:
    """The game's seats in seat order."""
    return list(session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.position))))


def load_state(game: Game) -> State:
    """The engine state of a game's snapshot."""
    return engine.from_json(game.state)


def apply_move(
    *,
    session: Session,
    game_id: int,
    seat: int,
    move: dict[str, Any],
    decision: int | None,
    source: str,
) -> MoveOutcome:
    """Apply one move for one seat, if ``decision`` (the state's ``ply``) is still the open one.

    Raises AlreadyPlayed when the decision was already made, ServiceError (with the
    rule) for a malformed or illegal move. Bots whose turn follows play at once.
    """
    game = get_game(session=session, game_id=game_id, lock=True)
    seats = seats_of(session=session, game_id=game_id)
    if not 0 <= seat < len(seats):
        raise ServiceError(f"game {game_id} has no seat {seat}")
    if seats[seat].is_bot and source not in ("bot", "admin", "timeout"):
        raise ServiceError(f"{seats[seat].name} is played by a bot")
    state = load_state(game)
    if not isinstance(move, dict):
        raise ServiceError("a move must be an object")
    if move.get("do") != "preference" and decision is not None and decision != state.ply:
        raise AlreadyPlayed
    try:
        parsed = Move.from_json({**move, "player": seats[seat].name})
    except engine.FormatError as exc:
        raise ServiceError(str(exc)) from None
    if parsed.do != "preference" and state.is_finished:
        raise AlreadyPlayed
    outcome = MoveOutcome(game, state)
    version = game.version
    next_seq = _next_seq(session, game_id)
    try:
        _apply_logged(session, outcome, seats[seat], parsed, source, next_seq)
    except IllegalMove as exc:
        raise ServiceError(exc.message, exc.rule) from None
    if parsed.do == "preference":
        seats[seat].discard_preference = parsed.discard_preference or "smaller"
        session.add(seats[seat])
    _run_bots(session, outcome, seats, next_seq + 1)
    _store(session, outcome, expected_version=version)
    return outcome


def set_preference(*, session: Session, game_id: int, seat: int, preference: str, source: str) -> MoveOutcome:
    """Change a seat's standing discard preference (R7); allowed at any time before the end."""
    return apply_move(
        session=session,
        game_id=game_id,
        seat=seat,
        move={"do": "preference", "discard_preference": preference},
        decision=None,
        source=source,
    )


def _next_seq(session: Session, game_id: int) -> int:
    last = session.exec(select(func.max(MoveRecord.seq)).where(MoveRecord.game_id == game_id)).one()
    return (last or 0) + 1


def _apply_logged(session: Session, outcome: MoveOutcome, seat: Seat, move: Move, source: str, seq: int) -> None:
    events: list[dict[str, Any]] = []
    engine.apply(outcome.state, move, events)
    record = MoveRecord(
        game_id=seat.game_id, seq=seq, seat=seat.position, move=move.to_json(), events=events, source=source
    )
    session.add(record)
    outcome.logged.append(record)


def _run_bots(session: Session, outcome: MoveOutcome, seats: list[Seat], next_seq: int) -> None:
    """Let bot seats make their decisions, one after another, until a person must act."""
    state = outcome.state
    seq = next_seq
    while not state.is_finished and seats[state.current].is_bot:
        seat = seats[state.current]
        bot = BOTS[seat.kind](state.ply) if seat.kind == "random" else BOTS[seat.kind]()
        _apply_logged(session, outcome, seat, bot.choose(state), "bot", seq)
        seq += 1


def _store(session: Session, outcome: MoveOutcome, expected_version: int) -> None:
    """Write the new snapshot with version + 1, only if nobody else wrote one first."""
    game, state = outcome.game, outcome.state
    session.flush()
    values = {
        "state": engine.to_json(state),
        "status": state.status,
        "current_seat": None if state.is_finished else state.current,
        "version": expected_version + 1,
        "updated_at": utcnow(),
    }
    result = session.execute(
        update(Game).where(col(Game.id) == game.id, col(Game.version) == expected_version).values(**values)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise AlreadyPlayed
    for key, value in values.items():
        setattr(game, key, value)


def move_log(*, session: Session, game_id: int, limit: int | None = None) -> list[MoveRecord]:
    """The game's move log in order; with ``limit``, only the latest entries."""
    query = select(MoveRecord).where(MoveRecord.game_id == game_id)
    if limit is None:
        return list(session.exec(query.order_by(col(MoveRecord.seq))))
    latest = list(session.exec(query.order_by(col(MoveRecord.seq).desc()).limit(limit)))
    return latest[::-1]


def replay_game(*, session: Session, game_id: int) -> State:
    """Replay the game's log from its seed and options: the state its snapshot must equal."""
    game = get_game(session=session, game_id=game_id)
    seats = seats_of(session=session, game_id=game_id)
    state = engine.new_game([s.name for s in seats], Options.from_json(game.options), seed=game.seed)
    for record in move_log(session=session, game_id=game_id):
        engine.apply(state, Move.from_json(record.move))
    return state


def verify_game(*, session: Session, game_id: int) -> bool:
    """True if replaying the log gives exactly the stored snapshot."""
    game = get_game(session=session, game_id=game_id)
    return engine.to_json(replay_game(session=session, game_id=game_id)) == game.state
