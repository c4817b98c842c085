"""Invitations that are accepted: a game created with status ``INVITED`` waits until every person at it has
accepted, or until its start date, then starts with bots in the seats nobody accepted, or without those seats.

A person answers from their page (or, once replies are read, by email): ``answer``. The organiser fills a seat
that was declined (a person or a bot): ``fill_seat``. ``start`` starts the game (``games.begin``). None of these
queue mail: ``flows.invites`` does.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from .. import i18n
from ..i18n import N_
from ..models import Game, OutboxEmail, Seat
from . import games
from . import seats as seat_rows
from .checks import MAX_PLAYER_NAME, check_language, check_name, check_timezone, require_email, same_name
from .errors import NotNow, ServiceError

ACCEPTED, DECLINED = "accepted", "declined"
UNANSWERED = ("bot", "drop")
"""What a start does with the seats nobody accepted: a bot plays each, or the game starts without them."""


def is_invited(game: Game) -> bool:
    """True while the game waits for answers to its invitations (not stopped by its organiser)."""
    return game.status == games.INVITED and game.aborted_at is None


def accepted(seat: Seat) -> bool:
    """True for a seat that will play when the game starts: a bot, or a person who accepted."""
    return seat.is_bot or seat.answer == ACCEPTED


def invited(session: Session, game_id: int) -> tuple[Game, list[Seat]]:
    """The game (locked) and its seats, if it still waits for answers; NotNow otherwise."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    if game.aborted_at is not None:
        raise NotNow(N_("This game was stopped by its organiser."))
    if game.status != games.INVITED:
        raise NotNow(N_("This game has already started: the invitations are closed."))
    return game, seat_rows.seats_of(session=session, game_id=game_id)


@dataclass
class Answered:
    """An answer stored: the game, its seats, the seat that answered, and whether everyone has now accepted."""

    game: Game
    seats: list[Seat]
    seat: Seat
    everyone: bool
    changed: bool
    """False when the seat gave the same answer before."""


def answer(
    *, session: Session, game_id: int, seat: int, accept: bool, now: datetime, nonce_tag: str | None = None
) -> Answered:
    """Store a person's answer to their invitation (they may change it until the game starts); with
    ``nonce_tag`` (from a link) the seat's links must be current."""
    game, seats = invited(session, game_id)
    if not 0 <= seat < len(seats):
        raise ServiceError(N_("Game %(id)s has no seat %(number)d."), id=game_id, number=seat + 1)
    me = seats[seat]
    seat_rows.check_nonce(me, nonce_tag)
    if me.is_bot:
        raise ServiceError(N_("%(name)s is played by a bot."), name=me.name)
    value = ACCEPTED if accept else DECLINED
    changed = me.answer != value
    if changed:
        me.answer, me.answered_at = value, now
        session.add(me)
        session.flush()
    return Answered(game, seats, me, all(accepted(s) for s in seats), changed)


def fill_seat(
    *,
    session: Session,
    game_id: int,
    seat: int,
    kind: str,
    name: str,
    email: str = "",
    language: str = "en",
    timezone: str = "UTC",
) -> tuple[Game, list[Seat], Seat]:
    """Give a seat of a game waiting for answers to a new person (``kind`` "human": they get their own invitation)
    or to one of the game's bots; the seat's old links stop working. Its new name must differ from the others'."""
    game, seats = invited(session, game_id)
    if not 0 <= seat < len(seats):
        raise ServiceError(N_("Game %(id)s has no seat %(number)d."), id=game_id, number=seat + 1)
    rules = games.rules_of(game)
    if kind not in games.seat_kinds(rules):
        raise ServiceError(N_("a seat is one of %(kinds)s, not %(kind)r"), kinds=", ".join(rules.bots), kind=kind)
    target = seats[seat]
    new_name = check_name(name or target.name, i18n.text(N_("a player's name")), MAX_PLAYER_NAME)
    if any(same_name(s.name) == same_name(new_name) for s in seats if s is not target):
        raise ServiceError(N_("Players need different names (capitals and look-alike letters count as the same)."))
    target.nonce = secrets.token_urlsafe(24)
    target.name, target.kind, target.left_at = new_name, kind, None
    target.answer = target.answered_at = target.again_at = None
    if kind == games.HUMAN:
        target.email = require_email(email, new_name)
        target.language, target.timezone = check_language(language), check_timezone(timezone, new_name)
    else:
        target.email = None
    session.add(target)
    games.restate(game, seats)
    session.add(game)
    session.flush()
    return game, seats, target


@dataclass
class Started:
    """A game started: the move outcome of its first state, the seats that play, and what became of the others:
    ``bots`` (names now played by a bot) or ``dropped`` (names no longer at the table)."""

    outcome: games.MoveOutcome
    bots: list[str]
    dropped: list[str]


def start(*, session: Session, game_id: int) -> Started:
    """Start a game that waits for answers, now: every seat nobody accepted gets a bot (``unanswered`` "bot", the
    default) or is left out ("drop"; NotNow if too few players would remain). Left-out seats go, the others
    move up; each seat a person no longer plays gets a new nonce, so its links stop working."""
    game, seats = invited(session, game_id)
    rules = games.rules_of(game)
    missing = [s for s in seats if not accepted(s)]
    bots: list[str] = []
    dropped: list[str] = []
    if missing and game.unanswered == "drop":
        if len(seats) - len(missing) < rules.min_players:
            raise NotNow(
                N_("Too few players accepted to start: %(game)s needs at least %(num)d."),
                game=rules.title,
                num=rules.min_players,
            )
        seats = _drop(session, seats, missing)
        dropped = [s.name for s in missing]
    else:
        for seat in missing:
            seat.kind, seat.nonce = games.default_bot(rules), secrets.token_urlsafe(24)
            session.add(seat)
            bots.append(seat.name)
    game.start_at = None
    session.flush()
    return Started(games.begin(session=session, game=game, seats=seats), bots, dropped)


def _drop(session: Session, seats: Sequence[Seat], missing: Sequence[Seat]) -> list[Seat]:
    """Take ``missing`` away from the table (the emails they were sent stay, without their seat) and number the
    others again from 0, in their order."""
    gone = {s.id for s in missing}
    for row in session.exec(select(OutboxEmail).where(col(OutboxEmail.seat_id).in_(gone))):
        row.seat_id = None
        session.add(row)
    session.flush()
    for seat in missing:
        session.delete(seat)
    session.flush()  # the deletes first: the positions below are unique per game
    kept = [s for s in seats if s.id not in gone]
    for position, seat in enumerate(kept):
        if seat.position != position:
            seat.position = position
            session.add(seat)
            session.flush()
    return kept


def due(*, session: Session, now: datetime) -> list[int]:
    """The games waiting for answers whose start date has come (ids, oldest date first)."""
    found = session.exec(
        select(col(Game.id))
        .where(col(Game.status) == games.INVITED, col(Game.aborted_at).is_(None))
        .where(col(Game.start_at).is_not(None), col(Game.start_at) <= now)
        .order_by(col(Game.start_at))
    )
    return [game_id for game_id in found if game_id is not None]
