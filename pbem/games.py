"""Game services: create games, apply moves in one transaction, run bots, replay the log.

Every function takes the session as a keyword and leaves commit to the caller's
transaction (``pbem.db.write_session``), so a move, its log entry and its new
snapshot are stored together or not at all.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from email_validator import EmailNotValidError, validate_email
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import bindparam, func, insert, update
from sqlalchemy import select as core_select
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

import engine
from engine.errors import FormatError, IllegalMove, OptionsError
from engine.protocol import Decision, OptionField
from engine.protocol import Game as Rules

from . import db, i18n, links, timing, waits
from .models import Game, MoveRecord, Record, Seat, SeatRecord, utcnow

HUMAN = "human"
MAX_GAME_NAME = 80
MAX_PLAYER_NAME = 40
MAX_EMAIL = 254
DEFAULT_GAME = "call-to-glory"
STANDING_CHANGES = 10
STANDING_WINDOW = timedelta(minutes=10)
"""A person may change a standing setting (a move outside their decisions, such as Call to Glory's discard
preference) at most STANDING_CHANGES times per STANDING_WINDOW."""


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


class BadOptions(ServiceError):
    """Options the game refused: ``errors`` maps each option's name to its message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" if k else v for k, v in errors.items()))
        self.errors = errors


class TooManyChanges(ServiceError):
    """A seat changed a standing setting too often in a short time (STANDING_CHANGES per STANDING_WINDOW)."""

    status = 429
    retry_after = int(STANDING_WINDOW.total_seconds())


class AlreadyPlayed(Exception):
    """The decision a move was made for is no longer open: someone (or a bot) already made it."""


@dataclass
class SeatSpec:
    """One seat of a new game: a person or a bot."""

    name: str
    email: str | None = None
    language: str = "en"
    timezone: str = "UTC"
    kind: str = HUMAN


@dataclass(frozen=True)
class Before:
    """The state before a change (a copy), and who was waited on for what then: ``Before.of`` takes it first,
    the emails compare it with the state after (new decisions, milestones)."""

    state: Any
    waiting: dict[str, Decision]

    @classmethod
    def of(cls, rules: Rules, state: Any) -> Before:
        """Capture ``state`` before it changes."""
        return cls(rules.clone(state), rules.waiting_for(state))


@dataclass
class MoveOutcome:
    """What a change did: the moves logged (the player's and the bots' after it), the new state, the seats, and
    the state before (None for a new game); ``pbem.flows`` hands it to ``mail.notify``."""

    game: Game
    state: Any
    logged: list[MoveRecord] = field(default_factory=list)
    seats: list[Seat] = field(default_factory=list)
    before: Before | None = None

    @property
    def rules(self) -> Rules:
        """The game's rules (its entry in ``engine.GAMES``)."""
        return rules_of(self.game)


def rules_of(game: Game | Record | str) -> Rules:
    """The rules of a stored game (or of a game key), from ``engine.GAMES``, speaking the current language
    (``i18n.current()``: a seat's language in its views and emails): every text of the game, such as its events,
    choices and options, is in that language, and a stored game's own words (the cards of its own card set) come
    from its options. Every text of a game that a page or an email shows comes from here."""
    key = game if isinstance(game, str) else game.game
    try:
        found = engine.GAMES[key]
    except KeyError:
        raise GameNotFound(_("this server does not know the game %(key)r", key=key)) from None
    speaking = found.speaking(i18n.current())
    return speaking if isinstance(game, str) else speaking.for_options(game.options)


def seat_kinds(rules: Rules) -> tuple[str, ...]:
    """What may sit at a seat of this game: a person, or one of its bots."""
    return (HUMAN, *rules.bots)


def default_bot(rules: Rules) -> str:
    """The bot that stands in for a person (timeouts, a seat left): the game's ``heuristic`` bot, or its first."""
    return "heuristic" if "heuristic" in rules.bots else next(iter(rules.bots))


def decision_of(rules: Rules, state: Any, player: str) -> Decision | None:
    """The open decision of ``player``, or None."""
    return rules.waiting_for(state).get(player)


TRUE = ("1", "true", "yes", "on", "y")
FALSE = ("", "0", "false", "no", "off", "n")


FILE_PREFIX = "file:"
"""How a form or a command line names a file of the game's folder as an option's value: ``file:mine.toml``."""
MAX_GAME_FILE = 1_000_000
"""The largest file an option may name, in bytes."""
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def game_files(folder: Path | None, rules: Rules, spec: OptionField) -> list[str]:
    """The files an option of kind ``files`` may name: those of ``<folder>/<game key>/`` with its ending, by
    name (none when the folder is missing)."""
    if folder is None or not spec.files:
        return []
    place = folder / rules.key
    try:
        found = [p.name for p in place.iterdir() if p.is_file() and p.name.endswith(spec.files)]
    except OSError:
        return []
    return sorted(n for n in found if _FILE_NAME.fullmatch(n))


def read_game_file(folder: Path | None, rules: Rules, spec: OptionField, name: str) -> dict[str, str]:
    """The option value ``{"source": name, "text": …}`` of a file of the game's folder; ValueError with a
    message for a name that is not one of ``game_files`` or a file that cannot be read as UTF-8 text."""
    if name not in game_files(folder, rules, spec) or folder is None:
        raise ValueError(_("%(option)s: there is no file %(name)r for this game", option=spec.label, name=name))
    path = folder / rules.key / name
    try:
        if path.stat().st_size > MAX_GAME_FILE:
            raise ValueError(_("%(option)s: the file %(name)s is larger than 1 MB", option=spec.label, name=name))
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise ValueError(
            _("%(option)s: the file %(name)s cannot be read as UTF-8 text", option=spec.label, name=name)
        ) from None
    return {"source": name, "text": text}


def option_values(rules: Rules, raw: Mapping[str, Any], folder: Path | None = None) -> dict[str, Any]:
    """A form's or a command line's option texts as the game's options.

    Each of ``rules.option_fields`` by its kind (``bool``, ``int``, ``choice``, ``text``, ``player``); a field
    with ``choices`` takes only those; an empty text leaves the game's default. A field with ``files`` also
    takes ``file:NAME``, a file of ``folder`` (``config.game_files``) for this game, read here. A value of the
    wrong kind raises BadOptions naming the option; names the game does not know are left for the game to refuse.
    """
    fields = {f.name: f for f in rules.option_fields}
    out: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, value in raw.items():
        spec = fields.get(name)
        if spec is None or not isinstance(value, str):
            out[name] = value
            continue
        text = value.strip()
        if spec.files and text.startswith(FILE_PREFIX):
            try:
                out[name] = read_game_file(folder, rules, spec, text.removeprefix(FILE_PREFIX))
            except ValueError as exc:
                errors[name] = str(exc)
            continue
        if spec.kind == "bool":
            if text.lower() not in TRUE + FALSE:
                errors[name] = f"{spec.label}: say yes or no, not {value!r}"
            out[name] = text.lower() in TRUE
            continue
        if not text:
            continue
        if spec.kind == "int":
            try:
                out[name] = int(text)
            except ValueError:
                errors[name] = f"{spec.label}: {value!r} is not a whole number"
        if spec.choices and text not in {c for c, _ in spec.choices}:
            errors[name] = f"{spec.label}: {value!r} is not one of {', '.join(c for c, _ in spec.choices if c)}"
        elif spec.kind != "int":
            out[name] = text
    if errors:
        raise BadOptions(errors)
    return out


def is_over(rules: Rules, state: Any) -> bool:
    """True once the game has a result."""
    return rules.result(state) is not None


def move_body(move: Any) -> dict[str, Any]:
    """A move as a link or a form carries it: its record entry without the player."""
    return {k: v for k, v in move.to_json().items() if k != "player"}


def check_text(value: Any, what: str, longest: int) -> str:
    """A single line of 1..longest printable characters (no CR, LF, NUL or other control characters)."""
    if not isinstance(value, str) or not value.strip():
        raise ServiceError(_("%(what)s must not be empty", what=what))
    if len(value) > longest:
        raise ServiceError(_("%(what)s must be at most %(num)d characters", what=what, num=longest))
    if any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in value):
        raise ServiceError(_("%(what)s may not contain line breaks or control characters", what=what))
    return value.strip()


def check_name(value: Any, what: str, longest: int) -> str:
    """A name: ``check_text``, and no invisible or direction-changing characters (Unicode category Cf:
    U+200B zero-width space, U+202E right-to-left override …), so that "Ann" and "Ann\u200b" cannot both
    sit at a game and no name can reverse the text of a page."""
    name = check_text(value, what, longest)
    if any(unicodedata.category(c) == "Cf" for c in name):
        raise ServiceError(_("%(what)s may not contain invisible or text-direction characters", what=what))
    return name


def check_seat(spec: SeatSpec, rules: Rules | None = None) -> SeatSpec:
    """Validate one seat's fields (its kind among those of ``rules``, by default DEFAULT_GAME's), with a
    message naming the field."""
    rules = rules or rules_of(DEFAULT_GAME)
    name = check_name(spec.name, _("a player's name"), MAX_PLAYER_NAME)
    kinds = seat_kinds(rules)
    if spec.kind not in kinds:
        raise ServiceError(_("a seat is one of %(kinds)s, not %(kind)r", kinds=", ".join(kinds), kind=spec.kind))
    email = check_email(spec.email, _("%(name)s's email", name=name)) if spec.email else None
    try:
        ZoneInfo(spec.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ServiceError(_("%(name)s's time zone %(zone)r is not known", name=name, zone=spec.timezone)) from None
    language = check_text(spec.language, _("%(name)s's language", name=name), 8)
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
        raise ServiceError(
            _("%(what)s %(email)r is not an email address: %(why)s", what=what, email=email, why=exc)
        ) from None
    address: str = checked.ascii_email or checked.normalized
    if len(address) > MAX_EMAIL:
        raise ServiceError(_("%(what)s must be at most %(num)d characters", what=what, num=MAX_EMAIL))
    return address


def create_game(
    *,
    session: Session,
    name: str,
    seats: Sequence[SeatSpec],
    game: str = DEFAULT_GAME,
    options: Mapping[str, Any] | None = None,
    random_order: bool = False,
    seed: int | None = None,
    organiser_email: str | None = None,
    policy: timing.Policy | None = None,
) -> MoveOutcome:
    """Create a game of ``game`` (a key of ``engine.GAMES``) with its seats and the engine's first state; bots
    with a decision make it at once. ``options`` are the game's, as a form or a record gives them: checked by
    the game (``OptionsError`` names each bad one)."""
    rules = rules_of(game)
    name = check_name(name, _("the game's name"), MAX_GAME_NAME)
    organiser = check_email(organiser_email, _("the organiser's email")) if organiser_email else None
    specs = [check_seat(s, rules) for s in seats]
    if not rules.min_players <= len(specs) <= rules.max_players:
        raise ServiceError(
            _("%(game)s is for %(players)s, not %(num)d", game=rules.title, players=_players(rules), num=len(specs))
        )
    if random_order:
        secrets.SystemRandom().shuffle(specs)
    names = [s.name for s in specs]
    try:
        checked = rules.parse_options(dict(options or {}), names)
    except OptionsError as exc:
        raise BadOptions(exc.errors) from None
    seed = secrets.randbits(63) if seed is None else seed
    try:
        state = rules.new_game(names, checked, seed)
    except FormatError as exc:
        raise ServiceError(str(exc)) from None
    row = Game(
        game=rules.key,
        name=name,
        options=checked,
        seed=seed,
        state=rules.to_json(state),
        status=_status(rules, state),
    )
    row.organiser_email = organiser
    row.policy = (policy or timing.Policy()).to_json()
    session.add(row)
    session.flush()
    assert row.id is not None
    for position, spec in enumerate(specs):
        session.add(
            Seat(
                game_id=row.id,
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
    outcome = MoveOutcome(row, state, seats=seats_of(session=session, game_id=row.id))
    _run_bots(session, outcome, outcome.seats, next_seq=1)
    _store(session, outcome, expected_version=0)
    return outcome


def _players(rules: Rules) -> str:
    low, high = rules.min_players, rules.max_players
    if low == high:
        return str(ngettext("%(num)d player", "%(num)d players", low))
    return str(_("%(low)d to %(high)d players", low=low, high=high))


def _status(rules: Rules, state: Any) -> str:
    return "finished" if is_over(rules, state) else "playing"


def get_game(*, session: Session, game_id: int, lock: bool = False) -> Game:
    """The game, locked for update when asked (PostgreSQL; SQLite's BEGIN IMMEDIATE already is)."""
    query = _GAME_FOR_UPDATE if lock else _GAME
    game = session.exec(query, params={"game_id": game_id}).first()
    if game is None:
        raise GameNotFound(_("there is no game %(id)s", id=game_id))
    return game


def seats_of(*, session: Session, game_id: int) -> list[Seat]:
    """The game's seats in seat order."""
    return list(session.exec(_SEATS, params={"game_id": game_id}))


def load_state(game: Game) -> Any:
    """The engine state of a game's snapshot."""
    return rules_of(game).from_json(game.state)


def lock_seat(*, session: Session, game_id: int, seat: int, nonce_tag: str | None = None) -> tuple[Game, list[Seat]]:
    """The game (locked for the write) and its seats, for a change made by ``seat``.

    With ``nonce_tag`` (from a link), the seat's current nonce must match it, else LinkRevoked.
    """
    game = get_game(session=session, game_id=game_id, lock=True)
    seats = seats_of(session=session, game_id=game_id)
    if not 0 <= seat < len(seats):
        if nonce_tag is not None:
            raise ServiceError(_("This link is not valid: the game has no such seat."))
        raise ServiceError(_("game %(id)s has no seat %(number)s", id=game_id, number=seat))
    if nonce_tag is not None and nonce_tag != links.nonce_tag(seats[seat].nonce):
        raise LinkRevoked(_("This link was replaced by a newer one. Use the link in your latest email."))
    return game, seats


def apply_move(
    *,
    session: Session,
    game_id: int,
    seat: int,
    move: dict[str, Any],
    decision: str | int | None,
    source: str,
    nonce_tag: str | None = None,
) -> MoveOutcome:
    """Apply one move for one seat, if ``decision`` (the id of the seat's open decision) is still open.

    A standing move (``rules.is_standing``: a setting a player may change at any time) needs no decision, is
    allowed while the game is paused, and is rate-limited for people; the same value again logs nothing.
    With ``nonce_tag`` (from a link), the seat's current nonce must match it, else LinkRevoked.
    Raises AlreadyPlayed when the decision was already made, ServiceError (with the rule) for a malformed or
    illegal move. Bots with a decision after it make theirs at once.
    """
    game, seats = lock_seat(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag)
    rules = rules_of(game)
    if not isinstance(move, dict):
        raise ServiceError(_("a move must be an object"))
    player = seats[seat].name
    try:
        parsed = rules.parse_move(player, move)
    except FormatError as exc:
        raise ServiceError(str(exc)) from None
    standing = rules.is_standing(parsed)
    if game.aborted_at is not None:
        raise GamePaused(_("This game was stopped by its organiser: no more moves can be made."))
    if game.paused_at is not None and source != "admin" and not standing:
        raise GamePaused(
            _(
                "This game is paused. %(reason)s Moves wait until the organiser resumes it.",
                reason=game.paused_reason or "",
            )
        )
    if seats[seat].is_bot and source not in ("bot", "admin", "timeout"):
        raise ServiceError(_("%(name)s is played by a bot", name=player))
    state = rules.from_json(game.state)
    over = is_over(rules, state)
    if standing and over:
        raise GameOver(_("This game is over: its settings can no longer change."))
    if not standing:
        waiting = {} if over else rules.waiting_for(state)
        current = {d.id for d in waiting.values()}
        mine = waiting.get(player)
        stale = over or (decision is not None and str(decision) != (mine.id if mine else None))
        # a decision still open, of someone else, goes on: the game refuses the move (not your turn)
        if stale and (mine is not None or str(decision) not in current):
            raise AlreadyPlayed
    before = Before.of(rules, state)
    outcome = MoveOutcome(game, state, seats=seats, before=before)
    if standing and source in ("page", "link"):
        _check_standing_rate(session, rules, game_id, seat, utcnow())
    version = game.version
    next_seq = _next_seq(session, game_id)
    try:
        _apply_logged(session, outcome, seats[seat], parsed, source, next_seq)
    except IllegalMove as exc:
        raise ServiceError(exc.message, exc.rule) from None
    if standing and rules.to_json(state) == game.state:
        outcome.logged.clear()
        return outcome  # the same value again: nothing changes, nothing is logged
    _run_bots(session, outcome, seats, next_seq + 1)
    _store(session, outcome, expected_version=version)
    return outcome


def leave_seat(*, session: Session, game_id: int, seat: int) -> MoveOutcome:
    """A person leaves for good: the game's default bot takes the seat (and decides at once if it must), the
    seat's nonce is rotated so its links stop working."""
    game = get_game(session=session, game_id=game_id, lock=True)
    rules = rules_of(game)
    seats = seats_of(session=session, game_id=game_id)
    if not 0 <= seat < len(seats) or seats[seat].is_bot:
        raise ServiceError(_("only a person playing a seat can leave it"))
    state = rules.from_json(game.state)
    if is_over(rules, state):
        raise ServiceError(_("the game is over: there is nothing to leave"))
    before = Before.of(rules, state)
    leaver = seats[seat]
    leaver.kind, leaver.left_at, leaver.nonce = default_bot(rules), utcnow(), secrets.token_urlsafe(24)
    session.add(leaver)
    outcome = MoveOutcome(game, state, seats=seats, before=before)
    if game.paused_at is None:
        _run_bots(session, outcome, seats, _next_seq(session, game_id))
    _store(session, outcome, expected_version=game.version)
    return outcome


def _check_standing_rate(session: Session, rules: Rules, game_id: int, seat: int, now: datetime) -> None:
    """Refuse a person's standing change beyond STANDING_CHANGES in the last STANDING_WINDOW."""
    recent = session.execute(
        _RECENT_MOVES, {"game_id": game_id, "seat": seat, "since": now - STANDING_WINDOW}
    ).scalars()
    changes = sum(1 for move in recent if isinstance(move, dict) and _standing_entry(rules, move))
    if changes >= STANDING_CHANGES:
        minutes = int(STANDING_WINDOW.total_seconds() // 60)
        raise TooManyChanges(
            _(
                "Your settings were changed %(num)d times in the last %(minutes)d minutes. "
                "Wait a few minutes, then try again.",
                num=changes,
                minutes=minutes,
            )
        )


def _standing_entry(rules: Rules, entry: dict[str, Any]) -> bool:
    try:
        return rules.is_standing(rules.parse_move(str(entry.get("player", "")), entry))
    except FormatError:
        return False


def _next_seq(session: Session, game_id: int) -> int:
    last = session.execute(_LAST_SEQ, {"game_id": game_id}).scalar()
    return (last or 0) + 1


def _apply_logged(session: Session, outcome: MoveOutcome, seat: Seat, move: Any, source: str, seq: int) -> None:
    events: list[dict[str, Any]] = []
    outcome.rules.apply(outcome.state, move, events)
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


def bot_seed(decision: Decision) -> int:
    """The seed of a bot's choice: the decision's id as a number (a stable hash of it if it is not one)."""
    return int(decision.id) if decision.id.isdecimal() else zlib.crc32(decision.id.encode())


def bot_move(rules: Rules, state: Any, player: str, kind: str | None = None) -> Any:
    """The move the bot ``kind`` (the game's default bot if None) makes for ``player``'s open decision (a random
    bot is seeded by the decision)."""
    decision = decision_of(rules, state, player)
    if decision is None:
        raise ServiceError(_("%(name)s has nothing to decide: no bot can decide for them", name=player))
    return rules.bots[kind or default_bot(rules)](bot_seed(decision)).choose(state, player)


def _run_bots(session: Session, outcome: MoveOutcome, seats: list[Seat], next_seq: int) -> None:
    """Let bot seats make their decisions, in seat order, until only people are waited on."""
    rules, state = outcome.rules, outcome.state
    by_name = {s.name: s for s in seats}
    seq = next_seq
    while True:
        bots = [by_name[p] for p in rules.waiting_for(state) if by_name[p].is_bot]
        if not bots:
            return
        seat = min(bots, key=lambda s: s.position)
        _apply_logged(session, outcome, seat, bot_move(rules, state, seat.name, seat.kind), "bot", seq)
        seq += 1


def _store(session: Session, outcome: MoveOutcome, expected_version: int) -> None:
    """Write the new snapshot with version + 1, only if nobody else wrote one first."""
    game, state = outcome.game, outcome.state
    session.flush()
    if outcome.logged:
        rows = [{c: getattr(r, c) for c in _LOG_COLUMNS} for r in outcome.logged]
        session.connection().execute(_INSERT_MOVES, rows)
    values = {
        "state": outcome.rules.to_json(state),
        "status": _status(outcome.rules, state),
        "current_seat": _first_waited(outcome.rules, state, outcome.seats),
        "version": expected_version + 1,
        "updated_at": utcnow(),
        **waits.store_fields(
            session=session,
            game=game,
            rules=outcome.rules,
            state=state,
            seats=outcome.seats,
            now=utcnow(),
            before=outcome.before.waiting if outcome.before is not None and game.paused_at is None else None,
        ),
    }
    params = {"b_id": game.id, "b_version": expected_version, **{f"v_{k}": v for k, v in values.items()}}
    if session.connection().execute(_update_game(tuple(values)), params).rowcount != 1:
        raise AlreadyPlayed
    for key, value in values.items():
        set_committed_value(game, key, value)  # stored already: not dirty, so no second UPDATE at commit


def _first_waited(rules: Rules, state: Any, seats: Sequence[Seat]) -> int | None:
    waiting = rules.waiting_for(state)
    return next((s.position for s in seats if s.name in waiting), None)


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
    found = db.rows(session, _EVENTS, params).scalars().all()
    return [event for events in reversed(found) for event in events]


def replay_game(*, session: Session, game_id: int) -> Any:
    """Replay the game's log from its seed and options: the state its snapshot must equal."""
    game = get_game(session=session, game_id=game_id)
    rules = rules_of(game)
    seats = seats_of(session=session, game_id=game_id)
    names = [s.name for s in seats]
    state = rules.new_game(names, game.options, game.seed)
    for record in move_log(session=session, game_id=game_id):
        rules.apply(state, rules.parse_move(names[record.seat], record.move))
    return state


def decision_record(*, session: Session, game_id: int, seat: int, decision: str) -> MoveRecord | None:
    """The logged move that made ``seat``'s decision ``decision`` (the latest, if its id came up again), found
    by replaying the log from the seed; None if that seat never had that decision open."""
    game = get_game(session=session, game_id=game_id)
    rules = rules_of(game)
    names = [s.name for s in seats_of(session=session, game_id=game_id)]
    if not 0 <= seat < len(names):
        return None
    state = rules.new_game(names, game.options, game.seed)
    found = None
    for record in move_log(session=session, game_id=game_id):
        if record.seat == seat:
            mine = rules.waiting_for(state).get(names[seat])
            if mine is not None and mine.id == decision:
                found = record
        rules.apply(state, rules.parse_move(names[record.seat], record.move))
    return found


def verify_game(*, session: Session, game_id: int) -> bool:
    """True if replaying the log gives exactly the stored snapshot."""
    game = get_game(session=session, game_id=game_id)
    return rules_of(game).to_json(replay_game(session=session, game_id=game_id)) == game.state


class LinkSeat(NamedTuple):
    """What a move form needs of a link's seat before the write: the game's key, the seat's name, language and
    time zone."""

    game: str
    name: str
    language: str
    timezone: str


_GAMES, _SEAT_ROWS = Game.__table__, Seat.__table__  # type: ignore[attr-defined]
_LINK_SEAT = (
    core_select(_GAMES.c.game, _SEAT_ROWS.c.name, _SEAT_ROWS.c.nonce, _SEAT_ROWS.c.language, _SEAT_ROWS.c.timezone)
    .join(_SEAT_ROWS, _SEAT_ROWS.c.game_id == _GAMES.c.id)
    .where(_GAMES.c.id == bindparam("game_id"), _SEAT_ROWS.c.position == bindparam("seat"))
)
_GAME_EXISTS = core_select(_GAMES.c.id).where(_GAMES.c.id == bindparam("game_id"))


def link_seat(*, session: Session, link: links.Link) -> LinkSeat:
    """The game key and seat name of a verified link, in one light read (no snapshot): raise GameNotFound,
    LinkInvalid, LinkRevoked as ``find_seat`` does."""
    row = session.execute(_LINK_SEAT, {"game_id": link.game_id, "seat": link.seat}).first()
    if row is None:
        if session.execute(_GAME_EXISTS, {"game_id": link.game_id}).first() is None:
            raise GameNotFound(f"there is no game {link.game_id}")
        raise links.LinkInvalid
    if link.nonce_tag != links.nonce_tag(row.nonce):
        raise LinkRevoked("This link was replaced by a newer one. Use the link in your latest email.")
    return LinkSeat(row.game, row.name, row.language, row.timezone)


_GAME_RECORD = core_select(_GAMES).where(_GAMES.c.id == bindparam("game_id"))
_SEAT_RECORDS = (
    core_select(_SEAT_ROWS).where(_SEAT_ROWS.c.game_id == bindparam("game_id")).order_by(_SEAT_ROWS.c.position)
)


def read_seat(*, session: Session, link: links.Link) -> tuple[Record, list[SeatRecord], SeatRecord]:
    """``find_seat`` for a page, which only shows them: the rows as records, without the ORM's work per row."""
    found = db.rows(session, _GAME_RECORD, {"game_id": link.game_id}).first()
    if found is None:
        raise GameNotFound(_("there is no game %(id)s", id=link.game_id))
    seats = [SeatRecord(**row._mapping) for row in db.rows(session, _SEAT_RECORDS, {"game_id": link.game_id})]
    return Record(**found._mapping), seats, _seat_of(link, seats)


def find_seat(*, session: Session, link: links.Link) -> tuple[Game, list[Seat], Seat]:
    """The game, its seats and the seat of a verified link; raise LinkInvalid, GameNotFound, LinkRevoked."""
    game = get_game(session=session, game_id=link.game_id)
    seats = seats_of(session=session, game_id=link.game_id)
    return game, seats, _seat_of(link, seats)


def _seat_of(link: links.Link, seats: Sequence[Any]) -> Any:
    """The link's seat among the game's seats: raise LinkInvalid (no such seat) or LinkRevoked (an old nonce)."""
    if not 0 <= link.seat < len(seats):
        raise links.LinkInvalid
    seat = seats[link.seat]
    if link.nonce_tag != links.nonce_tag(seat.nonce):
        raise LinkRevoked(_("This link was replaced by a newer one. Use the link in your latest email."))
    return seat
