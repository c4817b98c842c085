"""Seats: the one way from a link (or a game id and position) to a seat, and the settings a seat's player changes.

``load`` finds a game and one of its seats and checks a link's nonce once: every view that takes a token, the
settings and time-away services, the admin and the sweeps go through it. The settings services (reminders, email
choices, language, time away, quiet hours) change the seat and return it; they queue no mail.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from sqlalchemy import bindparam
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from .. import db, i18n, timing
from ..i18n import N_
from ..models import Game, Record, Seat, SeatRecord
from . import links, waits
from .errors import GameOver, LinkInvalid, LinkRevoked, NotFound, ServiceError

SCORE_SHEETS = ("separate", "folded")
"""A seat's score sheets: each as its own email, or folded into its next turn (or game-over) email."""
DIGESTS = ("none", "daily")
"""A seat's digest: none, or a daily email of what happened while it was not its turn."""
DIGEST_AT = time(8, 0)
"""The local time of day a daily digest is due (moved past the seat's quiet hours)."""


_GAME = select(Game).where(col(Game.id) == bindparam("game_id"))
_GAME_FOR_UPDATE = _GAME.with_for_update()
_SEATS = select(Seat).where(col(Seat.game_id) == bindparam("game_id")).order_by(col(Seat.position))


def get_game(*, session: Session, game_id: int, lock: bool = False) -> Game:
    """The game, locked for update when asked (PostgreSQL; SQLite's BEGIN IMMEDIATE already is); NotFound."""
    query = _GAME_FOR_UPDATE if lock else _GAME
    game = session.exec(query, params={"game_id": game_id}).first()
    if game is None:
        raise NotFound(N_("There is no game %(id)s."), id=game_id)
    return game


def seats_of(*, session: Session, game_id: int) -> list[Seat]:
    """The game's seats in seat order."""
    return list(session.exec(_SEATS, params={"game_id": game_id}))


DEMO_EMAIL = "you@example.com"
"""The address of the person's seat in a demo game (``pbem demo``): the built-in mailbox shows its emails."""
DEMO_GAMES = 10


def demo_seats(*, session: Session) -> list[tuple[Game, Seat]]:
    """The demo games still running (the newest DEMO_GAMES) and the seat of the person in each, newest first."""
    query = (
        select(Game, Seat)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(col(Seat.email) == DEMO_EMAIL, col(Game.status) == "playing", col(Game.aborted_at).is_(None))
        .order_by(col(Game.id).desc())
        .limit(DEMO_GAMES)
    )
    return [(game, seat) for game, seat in session.exec(query)]


@dataclass
class Loaded:
    """A game, its seats in seat order, and the seat asked for."""

    game: Game
    seats: list[Seat]
    seat: Seat


def load(*, session: Session, game_id: int, seat: int, nonce_tag: str | None = None, lock: bool = False) -> Loaded:
    """The game (locked for a write when asked), its seats and the seat at ``seat`` (counted from 0).

    With ``nonce_tag`` (from a link) the seat's current nonce must match it: LinkInvalid for a seat the game does
    not have, LinkRevoked for an old link; NotFound for a game that is not there (any more).
    """
    game = get_game(session=session, game_id=game_id, lock=lock)
    seats = seats_of(session=session, game_id=game_id)
    if not 0 <= seat < len(seats):
        if nonce_tag is not None:
            raise LinkInvalid
        raise NotFound(N_("Game %(id)s has no seat %(number)d."), id=game_id, number=seat + 1)
    check_nonce(seats[seat], nonce_tag)
    return Loaded(game, seats, seats[seat])


def of_link(*, session: Session, link: links.Link, lock: bool = False) -> Loaded:
    """``load`` for a verified link: its game, its seats and its seat, its nonce checked."""
    return load(session=session, game_id=link.game_id, seat=link.seat, nonce_tag=link.nonce_tag, lock=lock)


def check_nonce(seat: Seat | SeatRecord, nonce_tag: str | None) -> None:
    """LinkRevoked when a link's ``nonce_tag`` is not the seat's current one (None: no link to check)."""
    if nonce_tag is not None and nonce_tag != links.nonce_tag(seat.nonce):
        raise LinkRevoked


def for_change(*, session: Session, game_id: int, seat: int, nonce_tag: str | None = None) -> Loaded:
    """``load`` with the game locked, for a change a person makes to their own seat: not in a finished game, not
    to a seat a bot plays."""
    found = load(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag, lock=True)
    if found.game.status == "finished":
        raise GameOver(N_("The game is over."))
    if found.seat.is_bot:
        raise ServiceError(N_("%(name)s is played by a bot."), name=found.seat.name)
    return found


_GAMES, _SEAT_ROWS = Game.__table__, Seat.__table__  # type: ignore[attr-defined]
_GAME_RECORD = core_select(_GAMES).where(_GAMES.c.id == bindparam("game_id"))
_SEAT_RECORDS = (
    core_select(_SEAT_ROWS).where(_SEAT_ROWS.c.game_id == bindparam("game_id")).order_by(_SEAT_ROWS.c.position)
)


def read(*, session: Session, link: links.Link) -> tuple[Record, list[SeatRecord], SeatRecord]:
    """``of_link`` for a page, which only shows them: the rows as records, without the ORM's work per row."""
    found = db.rows(session, _GAME_RECORD, {"game_id": link.game_id}).first()
    if found is None:
        raise NotFound(N_("There is no game %(id)s."), id=link.game_id)
    seats = [SeatRecord(**row._mapping) for row in db.rows(session, _SEAT_RECORDS, {"game_id": link.game_id})]
    if not 0 <= link.seat < len(seats):
        raise LinkInvalid
    check_nonce(seats[link.seat], link.nonce_tag)
    return Record(**found._mapping), seats, seats[link.seat]


# ------------------------------------------------------------------------------------------------ email choices


def set_reminders(*, session: Session, seat: Seat, on: bool) -> Seat:
    """Turn the seat's reminders on or off."""
    seat.reminders = on
    session.add(seat)
    session.flush()
    return seat


def next_digest_at(seat: Seat, after: datetime) -> datetime:
    """When the seat's next daily digest is due: the first DIGEST_AT on its local clock after ``after``, moved
    past its quiet hours."""
    clock = waits.seat_clock(seat)
    day = timing.local_date(after, clock.tz)
    for offset in range(3):
        for at in timing.instants_at(day + timedelta(days=offset), DIGEST_AT, clock.tz):
            if at > after:
                return timing.end_of_quiet(at, clock.quiet, clock.tz)
    raise AssertionError("a local time of day comes again within three days")


def set_email_choices(
    *, session: Session, seat: Seat, reminders: bool, score_sheets: str, digest: str, now: datetime
) -> Seat:
    """Store the seat's email choices (ServiceError for a value not offered); a daily digest is first due at the
    next DIGEST_AT on the seat's clock."""
    if score_sheets not in SCORE_SHEETS or digest not in DIGESTS:
        raise ServiceError(N_("The form offered choices that are not known here. Reload the page and choose again."))
    seat.reminders = reminders
    seat.score_sheets = score_sheets
    if digest != seat.digest:
        seat.digest = digest
        seat.next_digest_at = next_digest_at(seat, now) if digest == "daily" else None
    session.add(seat)
    session.flush()
    return seat


def set_language(*, session: Session, seat: Seat, language: str) -> Seat:
    """Store the language the seat's pages and emails speak from now on (ServiceError for one not offered); the
    next email to the seat is rendered in it, also one queued before (the sender renders it when it sends it)."""
    if language not in i18n.SUPPORTED:
        raise ServiceError(N_("Choose one of the languages offered: %(choices)s."), choices=", ".join(i18n.SUPPORTED))
    seat.language = language
    session.add(seat)
    session.flush()
    return seat


# ------------------------------------------------------------------------------------------------ time away


def timing_refused(exc: timing.TimingError) -> ServiceError:
    """A refusal of the time rules (``timing``), as a service error in the reader's words."""
    return ServiceError(exc.key, **exc.params)


def set_absence(
    *, session: Session, game_id: int, seat: int, until: date, now: datetime, nonce_tag: str | None = None
) -> Seat:
    """Mark a player away until a date (in their time zone, inclusive), within the game's cap of days.

    Their deadlines move by the time away and no reminders reach them meanwhile; a current absence is
    replaced (its days still ahead are given back first). ServiceError with a plain message otherwise.
    With ``nonce_tag`` (from a link), the seat's links must not have been replaced meanwhile.
    """
    found = for_change(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag)
    game, me = found.game, found.seat
    tz = timing.zone(me.timezone)
    today = timing.local_date(now, tz)
    old = waits.seat_clock(me).away
    current = me.away_until if me.away_until is not None and me.away_until >= today else None
    try:
        used = timing.plan_absence(
            today=today,
            until=until,
            used=me.away_days_used,
            current_until=current,
            cap=waits.policy_of(game).absence_cap_days,
        )
    except timing.AbsenceError as exc:
        raise timing_refused(exc) from None
    me.away_from = timing.utc(me.away_from) if current is not None and me.away_from is not None else now
    me.away_until = until
    me.away_days_used = used
    waits.replan(session, game, me, old, now)
    session.add_all([me, game])
    return me


def end_absence(*, session: Session, game_id: int, seat: int, now: datetime, nonce_tag: str | None = None) -> Seat:
    """The player is back now: the days still ahead are given back; the time already away still counts."""
    found = for_change(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag)
    game, me = found.game, found.seat
    today = timing.local_date(now, timing.zone(me.timezone))
    if me.away_until is None or me.away_until < today:
        return me
    old = waits.seat_clock(me).away
    me.away_days_used = timing.end_absence_days(today=today, used=me.away_days_used, current_until=me.away_until)
    me.away_from = None
    me.away_until = None
    waits.replan(session, game, me, old, now)
    session.add_all([me, game])
    return me


def set_quiet_hours(
    *,
    session: Session,
    game_id: int,
    seat: int,
    start: str | None,
    end: str | None,
    now: datetime,
    nonce_tag: str | None = None,
) -> Seat:
    """Set a player's own quiet hours (``"HH:MM"`` each), or both None for the configured default."""
    found = for_change(session=session, game_id=game_id, seat=seat, nonce_tag=nonce_tag)
    game, me = found.game, found.seat
    if start is None and end is None:
        me.quiet_start = me.quiet_end = None
    else:
        try:
            quiet = timing.QuietHours.of(start, end)
        except timing.PolicyError as exc:
            raise timing_refused(exc) from None
        me.quiet_start, me.quiet_end = f"{quiet.start:%H:%M}", f"{quiet.end:%H:%M}"
    waits.replan(session, game, me, waits.seat_clock(me).away, now)
    session.add_all([me, game])
    return me
