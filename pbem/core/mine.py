"""An address's own games ("my games", reached by a link signed for the address): what it plays here, the games
waiting on it first, its results, and time away from all its games at once.

Only seats a person plays with exactly that address (compared without case) and has not left count: nothing of any
other game is ever read for the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from .. import timing
from ..models import Game, Seat
from . import games, links
from . import seats as seat_rows
from .errors import ServiceError

MAX_GAMES = 200
"""The newest games of an address that its page lists."""
ORDER = {"yours": 0, "invited": 1, "others": 2, "paused": 3, "over": 4, "stopped": 5}
"""The order of the page: the games waiting on the address first, finished ones last."""


@dataclass
class MyGame:
    """One game the address plays: its seat there, where the game stands, and the address's result once over."""

    game: Game
    seat: Seat
    title: str
    token: str
    """The seat's personal token (its page in that game)."""
    stands: str
    """One of ORDER's keys: yours (waiting on this seat), invited, others, paused, over, stopped."""
    waiting_on: list[str] = field(default_factory=list)
    players: int = 0
    place: int | None = None
    """1 for the best, once over."""
    score: int | None = None
    won: bool = False

    @property
    def running(self) -> bool:
        """True while moves can still be made (time away means something)."""
        return self.stands in ("yours", "others", "paused")


@dataclass
class Away:
    """What "away from all my games" did in one game: ``refused`` says why not there (None: done)."""

    game: Game
    seat: Seat
    refused: ServiceError | None = None


def seats_of(*, session: Session, address: str) -> list[tuple[Game, Seat]]:
    """The games (newest first, at most MAX_GAMES) and seats a person plays with ``address`` and has not left."""
    rows = session.exec(
        select(Game, Seat)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(func.lower(col(Seat.email)) == address.strip().lower())
        .where(col(Seat.kind) == games.HUMAN, col(Seat.left_at).is_(None))
        .order_by(col(Game.id).desc())
        .limit(MAX_GAMES)
    )
    return [(game, seat) for game, seat in rows]


def games_of(*, session: Session, address: str) -> list[MyGame]:
    """Every game ``address`` plays here, those waiting on it first, then the others, then the finished ones."""
    found = [_entry(session, game, seat) for game, seat in seats_of(session=session, address=address)]
    found.sort(key=lambda g: (ORDER[g.stands], -(g.game.id or 0)))
    return found


def _entry(session: Session, game: Game, seat: Seat) -> MyGame:
    rules = games.rules_of(game)
    state = games.load_state(game)
    names = [s.name for s in seat_rows.seats_of(session=session, game_id=game.id or 0)]
    token = links.personal_token(game.id or 0, seat.position, seat.nonce)
    entry = MyGame(game, seat, rules.title, token, "others", players=len(names))
    result = rules.result(state)
    if game.aborted_at is not None:
        entry.stands = "stopped"
    elif result is not None:
        entry.stands = "over"
        entry.place = result.ranking.index(seat.name) + 1 if seat.name in result.ranking else None
        entry.score = result.scores.get(seat.name)
        entry.won = seat.name in result.winners
    elif game.status == "invited":
        entry.stands = "invited"
    else:
        waiting = rules.waiting_for(state)
        entry.waiting_on = [n for n in names if n in waiting]
        if game.paused_at is not None:
            entry.stands = "paused"
        elif seat.name in waiting:
            entry.stands = "yours"
    return entry


def set_away(*, session: Session, address: str, until: date, now: datetime) -> list[Away]:
    """Mark ``address`` away until ``until`` (inclusive, on each seat's clock) in every game it plays that is still
    running, through each seat's own time-away service (``seats.set_absence``, within each game's cap). A game that
    refuses (its cap, a date already past there) is named with its reason; the others are changed all the same."""
    done = []
    for game, seat in seats_of(session=session, address=address):
        if not _running(game):
            continue
        try:
            seat_rows.set_absence(session=session, game_id=game.id or 0, seat=seat.position, until=until, now=now)
        except ServiceError as exc:  # refused before anything of this seat changed
            done.append(Away(game, seat, exc))
            continue
        done.append(Away(game, seat))
    return done


def end_away(*, session: Session, address: str, now: datetime) -> int:
    """``address`` is back in every running game it is marked away in; how many seats that changed."""
    back = 0
    for game, seat in seats_of(session=session, address=address):
        today = timing.local_date(now, timing.zone(seat.timezone))
        if not _running(game) or seat.away_until is None or seat.away_until < today:
            continue
        seat_rows.end_absence(session=session, game_id=game.id or 0, seat=seat.position, now=now)
        back += 1
    return back


def _running(game: Game) -> bool:
    return game.aborted_at is None and game.status == "playing"
