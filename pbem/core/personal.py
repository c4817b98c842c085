"""Personal data: erasing a person from the finished games they played, and a player's request for it.

A person is an address. Erasing them from a game gives their seat another name ("Player 2", or the organiser's
choice) everywhere the game keeps it (the snapshot, every logged move and event, the options that name a player),
by replaying the log from the seed under the new name, so the game's record still replays; it removes the seat's
address, time zone, quiet hours, time away and table talk, and every email to that address; and it replaces the
address wherever else it was written (the organiser's log, other emails) with ``ERASED``. Only games that are over
(finished or aborted) are erased: a person who still plays somewhere is refused until those games end.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Text, cast, func, or_
from sqlmodel import Session, col, select

from engine.errors import FormatError, IllegalMove

from .. import i18n
from ..i18n import N_
from ..models import AdminAction, ErasureRequest, Game, Message, OutboxEmail, Seat
from . import games
from . import seats as seat_rows
from .checks import MAX_PLAYER_NAME, check_email, check_name, same_name
from .errors import NotFound, NotNow, ServiceError

ERASED = "[erased]"
"""What an erased address is replaced with where it was written in a text."""
RUNNING = ("playing", "revealing")


@dataclass
class Erased:
    """What an erasure changed: each game's id with the seat's position and the name it has now."""

    seats: list[tuple[int, int, str]] = field(default_factory=list)
    emails_deleted: int = 0


def default_name(position: int) -> str:
    """The name an erased seat gets unless the organiser chooses one: "Player 2" for the second seat."""
    return f"Player {position + 1}"


def is_over(game: Game) -> bool:
    """A game whose people may be erased: finished, or aborted by its organiser."""
    return game.aborted_at is not None or game.status not in RUNNING


def seats_of_address(*, session: Session, address: str) -> list[tuple[Game, Seat]]:
    """Every seat (not yet erased) that ``address`` plays, with its game, newest game first."""
    query = (
        select(Game, Seat)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(func.lower(col(Seat.email)) == address.lower(), col(Seat.erased_at).is_(None))
        .order_by(col(Game.id).desc(), col(Seat.position))
    )
    return [(game, seat) for game, seat in session.exec(query)]


def erase(
    *, session: Session, address: str, name: str = "", now: datetime, only: Sequence[tuple[int, int]] | None = None
) -> Erased:
    """Erase ``address`` from every game it played (``only``: from those (game id, seat) pairs); each seat is
    renamed ``name``, or ``default_name`` when empty. NotNow if the address still plays in a running game (nothing
    is changed), NotFound if it plays nowhere here."""
    address = check_email(address, i18n.text(N_("the address")))
    chosen = check_name(name, i18n.text(N_("the new name")), MAX_PLAYER_NAME) if name.strip() else ""
    found = seats_of_address(session=session, address=address)
    if only is not None:
        found = [(g, s) for g, s in found if (g.id, s.position) in set(only)]
    if not found:
        raise NotFound(N_("No game here has a player with that address."))
    running = [g.name for g, _s in found if not is_over(g)]
    if running:
        raise NotNow(
            N_("%(address)s still plays in %(games)s: erase them once it is over, or give their seat to someone else."),
            address=address,
            games=", ".join(running),
        )
    out = Erased()
    renamed: dict[int, tuple[str, str]] = {}
    for game, seat in found:
        new = chosen or default_name(seat.position)
        old = seat.name
        _rename(session, game, seat, new)
        renamed[game.id or 0] = (old, new)
        _forget(session, seat, now)
        out.seats.append((game.id or 0, seat.position, new))
    out.emails_deleted = _scrub(session, address, renamed)
    for game in {g.id: g for g, _s in found}.values():
        if game.organiser_email and game.organiser_email.lower() == address.lower():
            game.organiser_email = None
            session.add(game)
    session.flush()
    return out


def _rename(session: Session, game: Game, seat: Seat, new: str) -> None:
    """Give ``seat`` the name ``new`` in the game: its options, every logged move and event, and the snapshot,
    by replaying the log from the seed under the new names (the game's own record, so it replays as before)."""
    rules = games.rules_of(game.game)
    everyone = seat_rows.seats_of(session=session, game_id=game.id or 0)
    old = seat.name
    if any(same_name(s.name) == same_name(new) for s in everyone if s.position != seat.position):
        raise ServiceError(N_("%(name)s is already the name of another seat of %(game)s"), name=new, game=game.name)
    names = [s.name for s in everyone]
    new_names = [new if s.position == seat.position else s.name for s in everyone]
    options = dict(game.options)
    for spec in rules.option_fields:
        if spec.kind == "player" and options.get(spec.name) == old:
            options[spec.name] = new
    logged = games.move_log(session=session, game_id=game.id or 0)
    try:
        before = rules.new_game(names, game.options, game.seed)
        after = rules.new_game(new_names, options, game.seed)
        for record in logged:
            rules.apply(before, rules.parse_move(names[record.seat], record.move))
            move = rules.parse_move(new_names[record.seat], _with_name(record.move, old, new))
            events: list[dict[str, Any]] = []
            rules.apply(after, move, events)
            record.move = move.to_json()
            record.events = events
            session.add(record)
    except (IllegalMove, FormatError) as exc:
        raise NotNow(N_("The move log of %(game)s does not replay: %(why)s"), game=game.name, why=str(exc)) from None
    if rules.to_json(before) != game.state or not _same_result(rules, before, after, old, new):
        raise NotNow(N_("The move log of %(game)s does not replay to the stored game."), game=game.name)
    game.options = options
    game.state = rules.to_json(after)
    if game.paused_reason:
        game.paused_reason = _renamed(game.paused_reason, old, new)
    session.add(game)
    seat.name = new


def _with_name(value: Any, old: str, new: str) -> Any:
    """A move's JSON with every value that is the name ``old`` (its player, a player it targets) made ``new``."""
    if isinstance(value, dict):
        return {k: _with_name(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_name(v, old, new) for v in value]
    return new if value == old else value


def _same_result(rules: Any, before: Any, after: Any, old: str, new: str) -> bool:
    """The replay under the new name ends as the stored game did: the same scores, seat by seat."""
    was, now = rules.result(before), rules.result(after)
    if was is None or now is None:
        return was is None and now is None
    return {(new if k == old else k): v for k, v in was.scores.items()} == dict(now.scores)


def _forget(session: Session, seat: Seat, now: datetime) -> None:
    """Remove the seat's address, time zone and settings and its table talk; its old links stop working."""
    seat.email = None
    seat.timezone = "UTC"
    seat.quiet_start = seat.quiet_end = None
    seat.away_from = None
    seat.away_until = None
    seat.reminders = False
    seat.digest = "none"
    seat.next_digest_at = None
    seat.pending_sheets = None
    seat.bounced_at = None
    seat.bounce_detail = None
    seat.nonce = secrets.token_urlsafe(24)
    seat.erased_at = now
    session.add(seat)
    for message in session.exec(
        select(Message).where(col(Message.game_id) == seat.game_id, col(Message.seat) == seat.position)
    ):
        session.delete(message)
    for request in session.exec(
        select(ErasureRequest).where(
            col(ErasureRequest.game_id) == seat.game_id,
            col(ErasureRequest.seat) == seat.position,
            col(ErasureRequest.done_at).is_(None),
        )
    ):
        request.done_at = now
        session.add(request)


def _scrub(session: Session, address: str, renamed: Mapping[int, tuple[str, str]]) -> int:
    """Delete every email to ``address``; in every other email and organiser's log entry, replace the address
    with ERASED, and in those of an erased game, the old name with the new one. The number of emails deleted."""
    pattern = f"%{address.lower()}%"
    to_them = select(OutboxEmail).where(func.lower(col(OutboxEmail.to_addr)).like(pattern))
    deleted = 0
    for email in session.exec(to_them):
        session.delete(email)
        deleted += 1
    session.flush()
    mentions = or_(
        func.lower(col(OutboxEmail.subject)).like(pattern),
        func.lower(col(OutboxEmail.text_body)).like(pattern),
        func.lower(col(OutboxEmail.html_body)).like(pattern),
        col(OutboxEmail.game_id).in_(list(renamed)),
    )
    for email in session.exec(select(OutboxEmail).where(mentions)):
        names = renamed.get(email.game_id or -1)
        email.subject = _clean(email.subject, address, names)
        email.text_body = _clean(email.text_body, address, names)
        email.html_body = _clean(email.html_body, address, names)
        email.headers = _clean_json(email.headers, address, names)
        email.attachments = _clean_json(email.attachments, address, names)
        email.render = _clean_json(email.render, address, names)
        email.last_error = _clean(email.last_error, address, names) if email.last_error else email.last_error
        session.add(email)
    logged = or_(
        func.lower(col(AdminAction.detail)).like(pattern),
        func.lower(col(AdminAction.notice)).like(pattern),
        func.lower(cast(col(AdminAction.params), Text)).like(pattern),
        col(AdminAction.game_id).in_(list(renamed)),
    )
    for action in session.exec(select(AdminAction).where(logged)):
        names = renamed.get(action.game_id)
        action.detail = _clean(action.detail, address, names)
        action.notice = _clean(action.notice, address, names) if action.notice else action.notice
        action.params = _clean_json(action.params, address, names)
        session.add(action)
    return deleted


def _renamed(text: str, old: str, new: str) -> str:
    """``text`` with the whole word ``old`` replaced by ``new``."""
    return re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, text)


def _clean(text: str, address: str, names: tuple[str, str] | None) -> str:
    text = re.sub(re.escape(address), ERASED, text, flags=re.IGNORECASE)
    return _renamed(text, *names) if names else text


def _clean_json(value: Any, address: str, names: tuple[str, str] | None) -> Any:
    if value is None:
        return None
    return json.loads(_clean(json.dumps(value, ensure_ascii=False), address, names))


# A player's request ----------------------------------------------------------------------------------------------


def request_erasure(*, session: Session, game_id: int, seat: int, now: datetime) -> ErasureRequest:
    """Store a player's request that the organiser erase their data from a game that is over (once: asking again
    keeps the first request). NotNow while the game runs; the organiser confirms it on the admin page."""
    game = seat_rows.get_game(session=session, game_id=game_id)
    found = seat_rows.load(session=session, game_id=game_id, seat=seat).seat
    if not is_over(game):
        raise NotNow(N_("You can ask for your data to be erased once the game is over."))
    if found.erased_at is not None:
        raise NotNow(N_("Your data was already erased from this game."))
    pending = session.exec(
        select(ErasureRequest).where(
            col(ErasureRequest.game_id) == game_id,
            col(ErasureRequest.seat) == seat,
            col(ErasureRequest.done_at).is_(None),
        )
    ).first()
    if pending is not None:
        return pending
    request = ErasureRequest(game_id=game_id, seat=seat, requested_at=now)
    session.add(request)
    session.flush()
    return request


def request_erasure_of_address(*, session: Session, address: str, now: datetime) -> list[ErasureRequest]:
    """A request for each game that is over and that ``address`` played (the "my games" page asks this way)."""
    return [
        request_erasure(session=session, game_id=game.id or 0, seat=seat.position, now=now)
        for game, seat in seats_of_address(session=session, address=address)
        if is_over(game)
    ]


@dataclass(frozen=True)
class Pending:
    """An open request to be erased, as the organiser's page lists it."""

    id: int
    game: Game
    seat: Seat
    requested_at: datetime


def pending_requests(*, session: Session) -> list[Pending]:
    """Every request not yet carried out, oldest first."""
    query = (
        select(ErasureRequest, Game, Seat)
        .join(Game, col(Game.id) == col(ErasureRequest.game_id))
        .join(
            Seat, (col(Seat.game_id) == col(ErasureRequest.game_id)) & (col(Seat.position) == col(ErasureRequest.seat))
        )
        .where(col(ErasureRequest.done_at).is_(None))
        .order_by(col(ErasureRequest.id))
    )
    return [Pending(r.id or 0, g, s, r.requested_at) for r, g, s in session.exec(query)]
