"""Game services: create games, apply moves in one transaction, run bots, replay the log.

Every function takes the session as a keyword and leaves commit to the caller's
transaction (``pbem.db.write_session``), so a move, its log entry and its new
snapshot are stored together or not at all.
"""

from __future__ import annotations

import os
import re
import secrets
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy import select as core_select
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

import engine
from engine.errors import FormatError, IllegalMove, OptionsError
from engine.protocol import Decision, OptionField
from engine.protocol import Game as Rules

from .. import db, i18n, timing
from ..i18n import N_, Np_
from ..models import Game, MoveRecord, Record, Seat
from . import seats as seat_rows
from . import waits
from .checks import MAX_GAME_NAME, MAX_PLAYER_NAME, check_email, check_name, check_text, check_timezone, same_name
from .errors import (
    AlreadyPlayed,
    GameOver,
    InputErrors,
    MoveRefused,
    NotFound,
    NotNow,
    Paused,
    ServiceError,
    TooMany,
)

HUMAN = "human"
INVITED = "invited"
"""The status of a game that waits for its players to accept their invitations (``core.invites``)."""
DEFAULT_GAME = "call-to-glory"
STANDING_CHANGES = 10
STANDING_WINDOW = timedelta(minutes=10)
"""A person may change a standing setting (a move outside their decisions, such as Call to Glory's discard
preference) at most STANDING_CHANGES times per STANDING_WINDOW."""


# Statements built once: building SQLAlchemy expressions costs more than running them on a small table.
_LAST_SEQ = select(func.max(MoveRecord.seq)).where(col(MoveRecord.game_id) == bindparam("game_id"))
_LOG_COLUMNS = ("game_id", "seq", "seat", "move", "events", "source", "created_at")
_RECENT_MOVES = (
    select(MoveRecord.move)
    .where(col(MoveRecord.game_id) == bindparam("game_id"))
    .where(col(MoveRecord.seat) == bindparam("seat"))
    .where(col(MoveRecord.created_at) >= bindparam("since"))
    .where(col(MoveRecord.source).in_(("page", "link", "email")))
)
_INSERT_MOVES = insert(MoveRecord.__table__)  # type: ignore[attr-defined]
_EVENTS = (
    select(MoveRecord.events)
    .where(col(MoveRecord.game_id) == bindparam("game_id"))
    .order_by(col(MoveRecord.seq).desc())
    .limit(bindparam("limit"))
)

_LATEST = (
    core_select(
        col(MoveRecord.seq),
        col(MoveRecord.seat),
        col(MoveRecord.source),
        col(MoveRecord.move),
        col(MoveRecord.events),
        col(MoveRecord.created_at),
    )
    .where(col(MoveRecord.game_id) == bindparam("game_id"))
    .order_by(col(MoveRecord.seq).desc())
    .limit(bindparam("limit"))
)


@dataclass(frozen=True)
class Latest:
    """The game's latest moves as rows (seq, seat, source, move, events, created_at), newest first, read once for
    everything a page tells of them; ``complete`` when they are the whole log."""

    rows: list[Any]
    complete: bool

    @property
    def events(self) -> list[dict[str, Any]]:
        """Their engine events in order."""
        return [event for row in reversed(self.rows) for event in row.events]


def latest_moves(*, session: Session, game_id: int, limit: int) -> Latest:
    """The game's latest ``limit`` moves, newest first."""
    rows = db.rows(session, _LATEST, {"game_id": game_id, "limit": limit}).all()
    return Latest(list(rows), len(rows) < limit)


@dataclass
class SeatSpec:
    """One seat of a new game: a person or a bot."""

    name: str
    email: str | None = None
    language: str = "en"
    timezone: str = "UTC"
    kind: str = HUMAN


@dataclass
class Before:
    """The game before a change, and who was waited on for what then: ``Before.of`` takes it first, the emails
    compare it with the state after (new decisions, milestones). No copy of the state is made: the game's stored
    snapshot (the JSON the change replaces, which it never touches) is decoded when ``state`` is first asked for."""

    rules: Rules
    snapshot: Any
    waiting: dict[str, Decision]

    @classmethod
    def of(cls, rules: Rules, game: Game, state: Any) -> Before:
        """Capture the game before ``state`` (the game's snapshot, decoded) changes."""
        return cls(rules, game.state, rules.waiting_for(state))

    @cached_property
    def state(self) -> Any:
        """The state before the change."""
        return self.rules.from_json(self.snapshot)


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
        raise NotFound(N_("This server does not know the game %(key)r."), key=key) from None
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
        if place.is_symlink():  # a link could lead anywhere the server can read: never followed
            return []
        found = [p.name for p in place.iterdir() if _plain_file(p) and p.name.endswith(spec.files)]
    except OSError:
        return []
    return sorted(n for n in found if _FILE_NAME.fullmatch(n))


def _plain_file(path: Path) -> bool:
    """A regular file itself, not a symbolic link to one."""
    return not path.is_symlink() and path.is_file()


def read_game_file(folder: Path | None, rules: Rules, spec: OptionField, name: str) -> dict[str, str]:
    """The option value ``{"source": name, "text": …}`` of a file of the game's folder; ValueError with a
    message for a name that is not one of ``game_files`` or a file that cannot be read as UTF-8 text."""
    if name not in game_files(folder, rules, spec) or folder is None:
        raise ValueError(
            i18n.text(N_("%(option)s: there is no file %(name)r for this game"), option=spec.label, name=name)
        )
    path = folder / rules.key / name
    try:
        # O_NOFOLLOW: a file swapped for a symbolic link since it was listed is refused, not followed.
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), encoding="utf-8") as file:
            if os.fstat(file.fileno()).st_size > MAX_GAME_FILE:
                raise ValueError(
                    i18n.text(N_("%(option)s: the file %(name)s is larger than 1 MB"), option=spec.label, name=name)
                )
            text = file.read()
    except (OSError, UnicodeDecodeError):
        raise ValueError(
            i18n.text(N_("%(option)s: the file %(name)s cannot be read as UTF-8 text"), option=spec.label, name=name)
        ) from None
    return {"source": name, "text": text}


def option_values(rules: Rules, raw: Mapping[str, Any], folder: Path | None = None) -> dict[str, Any]:
    """A form's or a command line's option texts as the game's options.

    Each of ``rules.option_fields`` by its kind (``bool``, ``int``, ``choice``, ``text``, ``player``); a field
    with ``choices`` takes only those; an empty text leaves the game's default. A field with ``files`` also
    takes ``file:NAME``, a file of ``folder`` (``config.game_files``) for this game, read here. A value of the
    wrong kind raises InputErrors naming the option; names the game does not know are left for the game to refuse.
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
        raise InputErrors(errors)
    return out


def is_over(rules: Rules, state: Any) -> bool:
    """True once the game has a result."""
    return rules.result(state) is not None


def move_body(move: Any) -> dict[str, Any]:
    """A move as a link or a form carries it: its record entry without the player."""
    return {k: v for k, v in move.to_json().items() if k != "player"}


def check_seat(spec: SeatSpec, rules: Rules | None = None) -> SeatSpec:
    """Validate one seat's fields (its kind among those of ``rules``, by default DEFAULT_GAME's), with a
    message naming the field."""
    rules = rules or rules_of(DEFAULT_GAME)
    name = check_name(spec.name, i18n.text(N_("a player's name")), MAX_PLAYER_NAME)
    kinds = seat_kinds(rules)
    if spec.kind not in kinds:
        raise ServiceError(N_("a seat is one of %(kinds)s, not %(kind)r"), kinds=", ".join(kinds), kind=spec.kind)
    email = check_email(spec.email, i18n.text(N_("%(name)s's email"), name=name)) if spec.email else None
    zone = check_timezone(spec.timezone, name)
    language = check_text(spec.language, i18n.text(N_("%(name)s's language"), name=name), 8)
    return SeatSpec(name, email, language, zone, spec.kind)


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
    invited: bool = False,
) -> MoveOutcome:
    """Create a game of ``game`` (a key of ``engine.GAMES``) with its seats and the engine's first state; bots
    with a decision make it at once. ``options`` are the game's, as a form or a record gives them: checked by
    the game (``OptionsError`` names each bad one). An ``invited`` game (``core.invites``) waits for its players'
    answers: stored with status INVITED, no bot moves and nobody waited on until ``begin`` starts it."""
    rules = rules_of(game)
    name = check_name(name, i18n.text(N_("the game's name")), MAX_GAME_NAME)
    organiser = check_email(organiser_email, i18n.text(N_("the organiser's email"))) if organiser_email else None
    specs = [check_seat(s, rules) for s in seats]
    if not rules.min_players <= len(specs) <= rules.max_players:
        raise ServiceError(
            N_("%(game)s is for %(players)s, not %(num)d"), game=rules.title, players=_players(rules), num=len(specs)
        )
    names = [s.name for s in specs]
    if len({same_name(n) for n in names}) != len(names):
        raise ServiceError(N_("Players need different names (capitals and look-alike letters count as the same)."))
    if random_order:
        secrets.SystemRandom().shuffle(specs)
        names = [s.name for s in specs]
    try:
        checked = rules.parse_options(dict(options or {}), names)
    except OptionsError as exc:
        raise InputErrors(exc.errors) from None
    seed = secrets.randbits(63) if seed is None else seed
    try:
        state = rules.new_game(names, checked, seed)
    except FormatError as exc:
        raise ServiceError("%(why)s", why=str(exc)) from None
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
    outcome = MoveOutcome(row, state, seats=seat_rows.seats_of(session=session, game_id=row.id))
    if invited:
        row.status = INVITED
        session.add(row)
        session.flush()
        return outcome
    _run_bots(session, outcome, outcome.seats, next_seq=1)
    _store(session, outcome, expected_version=0)
    return outcome


def restate(game: Game, seats: Sequence[Seat]) -> Any:
    """The engine's first state of a game that has not started (INVITED), for its seats as they are now (a seat
    filled anew, or dropped): its options checked again for these players, its seed kept; stored on ``game``."""
    rules = rules_of(game)
    names = [s.name for s in seats]
    try:
        checked = rules.parse_options(dict(game.options), names)
        state = rules.new_game(names, checked, game.seed)
    except OptionsError as exc:
        raise InputErrors(exc.errors) from None
    except FormatError as exc:
        raise ServiceError("%(why)s", why=str(exc)) from None
    game.options, game.state = checked, rules.to_json(state)
    return state


def begin(*, session: Session, game: Game, seats: list[Seat]) -> MoveOutcome:
    """Start an INVITED game with ``seats`` as they are now: its first state, bots with a decision make it at once,
    and the seats it waits on get their waits (reminders and deadlines from now)."""
    state = restate(game, seats)
    outcome = MoveOutcome(game, state, seats=seats)
    session.add(game)
    session.flush()
    _run_bots(session, outcome, seats, next_seq=_next_seq(session, game.id or 0))
    _store(session, outcome, expected_version=game.version)
    return outcome


def _players(rules: Rules) -> str:
    low, high = rules.min_players, rules.max_players
    if low == high:
        return i18n.text(Np_("%(num)d player", "%(num)d players"), num=low)
    return i18n.text(N_("%(low)d to %(high)d players"), low=low, high=high)


def _status(rules: Rules, state: Any) -> str:
    return "finished" if is_over(rules, state) else "playing"


def load_state(game: Game) -> Any:
    """The engine state of a game's snapshot."""
    return rules_of(game).from_json(game.state)


def option_words(spec: OptionField, value: Any) -> str:
    """An option's value in the words of the game (``rules_of``: the language spoken now): a choice's label, a
    yes/no option's own words for its value (``OptionField.values``; else "on" or "off"), a file's name, a
    table as "key: values; …"."""
    if spec.kind == "bool":
        if spec.values:
            return spec.values[1] if value else spec.values[0]
        return i18n.text(N_("on")) if value else i18n.text(N_("off"))
    if spec.files and isinstance(value, dict) and "source" in value:
        return i18n.text(N_("the file %(name)s"), name=value["source"])
    if isinstance(value, dict):
        return "; ".join(f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in value.items())
    wanted = "" if value is None else str(value)
    found = next((label for choice, label in spec.choices if choice == wanted), None)
    return found if found is not None else wanted or i18n.text(N_("none"))


def pause_words(game: Any) -> str:
    """Why ``game`` (a ``Game`` or a record of one) is paused or was stopped, in the language spoken now: its
    reason stored as a code, or as the sentence stored before texts were codes; '' if none was given."""
    why = getattr(game, "paused_why", None)
    return i18n.words(why) if why else (getattr(game, "paused_reason", None) or "")


def apply_move(
    *,
    session: Session,
    game_id: int,
    seat: int,
    move: dict[str, Any],
    decision: str | int | None,
    source: str,
    nonce_tag: str | None = None,
    loaded: seat_rows.Loaded | None = None,
) -> MoveOutcome:
    """Apply one move for one seat, if ``decision`` (the id of the seat's open decision) is still open.

    A standing move (``rules.is_standing``: a setting a player may change at any time) needs no decision, is
    allowed while the game is paused, and is rate-limited for people; the same value again logs nothing.
    With ``nonce_tag`` (from a link), the seat's current nonce must match it, else LinkRevoked.
    Raises AlreadyPlayed when the decision was already made, ServiceError (with the rule) for a malformed or
    illegal move. Bots with a decision after it make theirs at once. ``loaded``: the game and seats as the
    caller already read them in this transaction, locked, its link checked (else they are read here).
    """
    if loaded is None or loaded.game.id != game_id or loaded.seat.position != seat:
        loaded = seat_rows.load(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag, lock=True)
    game, seats = loaded.game, loaded.seats
    rules = rules_of(game)
    if not isinstance(move, dict):
        raise MoveRefused(i18n.text(N_("a move must be an object")))
    player = seats[seat].name
    try:
        parsed = rules.parse_move(player, move)
    except FormatError as exc:
        raise MoveRefused(str(exc)) from None
    standing = rules.is_standing(parsed)
    if game.aborted_at is not None:
        raise Paused(N_("This game was stopped by its organiser: no more moves can be made."))
    if game.status == INVITED:
        raise NotNow(N_("This game has not started yet: it waits for every player to accept the invitation."))
    if game.paused_at is not None and source != "admin" and not standing:
        raise Paused(
            N_("This game is paused. %(reason)s Moves wait until the organiser resumes it."),
            reason=game.paused_why or game.paused_reason or "",
        )
    if seats[seat].is_bot and source not in ("bot", "admin", "timeout"):
        raise ServiceError(N_("%(name)s is played by a bot"), name=player)
    state = rules.from_json(game.state)
    over = is_over(rules, state)
    if standing and over:
        raise GameOver(N_("This game is over: its settings can no longer change."))
    if not standing:
        waiting = {} if over else rules.waiting_for(state)
        current = {d.id for d in waiting.values()}
        mine = waiting.get(player)
        stale = over or (decision is not None and str(decision) != (mine.id if mine else None))
        # a decision still open, of someone else, goes on: the game refuses the move (not your turn)
        if stale and (mine is not None or str(decision) not in current):
            raise AlreadyPlayed
    before = Before.of(rules, game, state)
    outcome = MoveOutcome(game, state, seats=seats, before=before)
    if standing and source in ("page", "link", "email"):
        _check_standing_rate(session, rules, game_id, seat, timing.now())
    version = game.version
    next_seq = _next_seq(session, game_id)
    try:
        _apply_logged(session, outcome, seats[seat], parsed, source, next_seq)
    except IllegalMove as exc:
        raise MoveRefused(rules.explain(exc), exc.rule) from None
    if standing and rules.to_json(state) == rules.to_json(before.state):  # as written now, whatever the stored form
        outcome.logged.clear()
        return outcome  # the same value again: nothing changes, nothing is logged
    _run_bots(session, outcome, seats, next_seq + 1)
    _store(session, outcome, expected_version=version)
    return outcome


def leave_seat(*, session: Session, game_id: int, seat: int) -> MoveOutcome:
    """A person leaves for good: the game's default bot takes the seat (and decides at once if it must), the
    seat's nonce is rotated so its links stop working."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    rules = rules_of(game)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    if not 0 <= seat < len(seats) or seats[seat].is_bot:
        raise ServiceError(N_("only a person playing a seat can leave it"))
    if game.status == INVITED:
        raise NotNow(N_("This game has not started yet: decline the invitation on your page instead."))
    state = rules.from_json(game.state)
    if is_over(rules, state):
        raise ServiceError(N_("the game is over: there is nothing to leave"))
    before = Before.of(rules, game, state)
    leaver = seats[seat]
    leaver.kind, leaver.left_at, leaver.nonce = default_bot(rules), timing.now(), secrets.token_urlsafe(24)
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
        raise TooMany(
            N_(
                "Your settings were changed %(num)d times in the last %(minutes)d minutes. "
                "Wait a few minutes, then try again."
            ),
            retry_after=int(STANDING_WINDOW.total_seconds()),
            num=changes,
            minutes=minutes,
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
        created_at=timing.now(),
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
        raise ServiceError(N_("%(name)s has nothing to decide: no bot can decide for them"), name=player)
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
        "updated_at": timing.now(),
        **waits.store_fields(
            session=session,
            game=game,
            rules=outcome.rules,
            state=state,
            seats=outcome.seats,
            now=timing.now(),
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
    game = seat_rows.get_game(session=session, game_id=game_id)
    rules = rules_of(game)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    names = [s.name for s in seats]
    state = rules.new_game(names, game.options, game.seed)
    for record in move_log(session=session, game_id=game_id):
        rules.apply(state, rules.parse_move(names[record.seat], record.move))
    return state


def decision_record(*, session: Session, game_id: int, seat: int, decision: str) -> MoveRecord | None:
    """The logged move that made ``seat``'s decision ``decision`` (the latest, if its id came up again), found
    by replaying the log from the seed; None if that seat never had that decision open."""
    game = seat_rows.get_game(session=session, game_id=game_id)
    rules = rules_of(game)
    names = [s.name for s in seat_rows.seats_of(session=session, game_id=game_id)]
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
    """True if replaying the log gives exactly the stored snapshot (both as the game writes a state now: a snapshot
    stored before may hold what is now referred to, such as a card set's text)."""
    game = seat_rows.get_game(session=session, game_id=game_id)
    rules = rules_of(game)
    return rules.to_json(replay_game(session=session, game_id=game_id)) == rules.to_json(rules.from_json(game.state))
