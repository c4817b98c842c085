"""What a seat's page shows: resolve a link, then the player's view, choices, settings, progress and log.

Everything comes from the game's protocol (``games.rules_of``); the game's own templates
(``templates/games/<key>/``) draw its board from the player view.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import has_request_context, url_for
from flask_babel import gettext as _
from sqlmodel import Session, col, select

from engine.errors import FormatError
from engine.protocol import Choice, ChoiceGroup, Result
from engine.protocol import Game as Rules

from . import games, i18n, links, talk, timing, waits
from .mail import compose
from .models import Game, OutboxEmail, Record, Seat, SeatRecord, utcnow

LOG_LINES = 40
COMMITMENT = re.compile(r"\b[0-9a-f]{64}\b")
"""A seed's commitment as emails write it: 64 lower-case hex digits."""


@dataclass
class Choices:
    """The open decision of the seat: what is asked, and the game's choices grouped for buttons (with what each
    does, and what is closed to the player and why)."""

    decision: str
    prompt: str
    groups: list[ChoiceGroup] = field(default_factory=list)


@dataclass
class SeatPage:
    """Everything the player's page renders, computed through the game's protocol."""

    game: Record
    seats: list[SeatRecord]
    seat: SeatRecord
    rules: Rules
    state: Any
    view: dict[str, Any]
    choices: Choices | None
    log: list[str]
    personal_token: str
    result: Result | None = None
    settings: list[ChoiceGroup] = field(default_factory=list)
    waiting_on: list[str] = field(default_factory=list)
    pending: dict[str, Any] | None = None
    pending_open: bool = False
    pending_label: str = ""
    pending_made: str = ""
    refresh_seconds: int = 60
    progress: list[str] = field(default_factory=list)
    headline: str = ""
    said: list[talk.Said] = field(default_factory=list)
    timing: timing.TimeInfo | None = None
    refinements: list[Choice] = field(default_factory=list)
    """The variants the confirm page of a pending move offers as its buttons (the game's ``refine``)."""

    def confirm_url(self, move: Mapping[str, Any]) -> str:
        """The confirm page of ``move`` at the seat's open decision (a move link): for a choice the game wants
        confirmed (``Choice.confirm``) rather than made at once."""
        decision = self.choices.decision if self.choices is not None else ""
        token = links.move_token(self.game.id or 0, self.seat.position, self.seat.nonce, decision, dict(move))
        return url_for("play.page", token=token)

    @property
    def key(self) -> str:
        """The game's key: its templates are under ``templates/games/<key>/``."""
        return str(self.game.game)

    @property
    def finished(self) -> bool:
        """True once the game has a result."""
        return self.result is not None

    @property
    def waiting(self) -> bool:
        """True while the game runs and this seat has nothing to decide: the page reloads itself to follow it."""
        running = self.game.paused_at is None and self.game.aborted_at is None and not self.finished
        return running and self.choices is None


def resolve(*, session: Session, token: str) -> tuple[links.Link, Game, list[Seat], Seat]:
    """Verify a token and find its game and seat; raise LinkInvalid, LinkExpired, GameNotFound, LinkRevoked. In a
    request, the rest of it speaks the seat's language, with times on the seat's clock."""
    link = links.read(token)
    game, seats, seat = games.find_seat(session=session, link=link)
    _speak(seat)
    return link, game, seats, seat


def _speak(seat: Seat | SeatRecord) -> None:
    """In a request, the rest of it speaks the seat's language, with times on the seat's clock."""
    if has_request_context():
        i18n.use(seat.language, seat.timezone)


def personal_token_of(*, session: Session, link: links.Link) -> str:
    """The personal token of the seat a (verified) link belongs to, read from the database."""
    seats = games.seats_of(session=session, game_id=link.game_id)
    return links.personal_token(link.game_id, link.seat, seats[link.seat].nonce)


def seat_page(*, session: Session, token: str, log_lines: int | None = LOG_LINES) -> SeatPage:
    """The page for a personal or move link (a GET: reads only); ``log_lines`` moves of the log, or all."""
    link = links.read(token)
    game, seats, seat = games.read_seat(session=session, link=link)
    _speak(seat)
    rules = games.rules_of(game)
    state = rules.from_json(game.state)
    events = games.log_events(session=session, game_id=game.id or 0, limit=log_lines)
    view = rules.player_view(state, seat.name, log=events)
    seen = list(view.get("log", ()))
    paused = game.paused_at is not None
    result = rules.result(state)
    page = SeatPage(
        game=game,
        seats=seats,
        seat=seat,
        rules=rules,
        state=state,
        view=view,
        choices=None if paused else choices_for(rules, state, seat.name),
        log=[rules.describe(e, seat.name) for e in reversed(seen)],
        personal_token=links.personal_token(game.id or 0, seat.position, seat.nonce),
        result=result,
        timing=timing.page_info(
            game=game,
            seats=seats,
            me=seat,
            now=utcnow(),
            wait=waits.deadline_of_seat(session, game.id or 0, seat.position),
        ),
    )
    if result is None:
        page.settings = rules.settings(state, seat.name)
        page.waiting_on = list(rules.waiting_for(state))
        page.progress = rules.progress(state, seat.name)
    page.said = talk.said(session=session, game_id=game.id or 0, names={s.position: s.name for s in seats})
    page.headline = rules.headline(state, seat.name, seen)
    if link.purpose == links.MOVE and link.move is not None and not paused:
        page.pending = link.move
        decision = games.decision_of(rules, state, seat.name)
        open_now = decision is not None and link.decision == decision.id
        page.pending_open = open_now and _legal(rules, state, seat.name, link.move)
        page.pending_label = choice_label(page.choices, link.move) if page.pending_open else ""
        page.pending_label = page.pending_label or rules.describe_move(link.move)
        if page.pending_open:
            page.refinements = rules.refine(state, seat.name, link.move)
        if not open_now:
            page.pending_made = already_played(session=session, link=link, decision=link.decision)
    return page


def already_played(*, session: Session, link: links.Link, decision: str | int | None) -> str:
    """What was played at the decision ``decision`` of the link's seat, by whom and when, as the seat may see it:
    'This choice was already made. ann played on Monday 23 November 2026, 11:05 (UTC): <the move's events>', or
    just the first sentence when the log has no such move."""
    plain = str(_("This choice was already made."))
    if decision is None:
        return plain
    record = games.decision_record(session=session, game_id=link.game_id, seat=link.seat, decision=str(decision))
    if record is None:
        return plain
    game = games.get_game(session=session, game_id=link.game_id)
    seats = games.seats_of(session=session, game_id=link.game_id)
    rules, me, who = games.rules_of(game), seats[link.seat], seats[record.seat].name
    said = [t for e in record.events if (t := rules.describe(e, me.name))]
    body = {k: v for k, v in record.move.items() if k != "player"}
    what = " ".join(said) or rules.describe_move(body) + "."
    at = timing.local_datetime(record.created_at, me.timezone)
    if record.source == "bot":
        played = _("A bot, for %(name)s, played on %(when)s: %(what)s", name=who, when=at, what=what)
    elif record.source == "timeout":
        played = _("At the deadline a bot, for %(name)s, played on %(when)s: %(what)s", name=who, when=at, what=what)
    elif record.source == "admin":
        played = _("The organiser, for %(name)s, played on %(when)s: %(what)s", name=who, when=at, what=what)
    else:
        played = _("%(name)s played on %(when)s: %(what)s", name=who, when=at, what=what)
    return f"{plain} {played}"


def _legal(rules: Rules, state: Any, player: str, move: Mapping[str, Any]) -> bool:
    """True when ``move`` (a body) is one of ``player``'s legal moves now."""
    try:
        wanted = games.move_body(rules.parse_move(player, dict(move)))
    except FormatError:
        return False
    return any(games.move_body(m) == wanted for m in rules.legal_moves(state, player))


def choices_for(rules: Rules, state: Any, player: str) -> Choices | None:
    """The open decision of ``player`` with the game's choices, or None when they have none."""
    decision = games.decision_of(rules, state, player)
    if decision is None:
        return None
    return Choices(decision.id, decision.prompt, rules.choices(state, player))


def choice_label(choices: Choices | None, move: Mapping[str, Any]) -> str:
    """The label the page's button for ``move`` shows ('' when it offers no such move)."""
    wanted = {k: str(v) for k, v in move.items() if k != "player"}
    for group in choices.groups if choices is not None else ():
        for choice in group.choices:
            if {k: str(v) for k, v in choice.move.items()} == wanted:
                return choice.label
    return ""


@dataclass
class SeedCheck:
    """The fair-play check of a seat's game: the commitment every player received in the invitation and, once
    the game is over, the seed and its SHA-256 computed now."""

    game: Game
    seat: Seat
    personal_token: str
    commitment: str
    over: bool
    from_invitation: bool = True
    seed: int | None = None
    digest: str | None = None

    @property
    def matches(self) -> bool:
        """True when the seed's SHA-256 is the commitment."""
        return self.digest == self.commitment


def seed_check(*, session: Session, token: str) -> SeedCheck:
    """The seed check for a personal link (a GET: reads only); the seed only once the game is over."""
    link, game, _seats, seat = resolve(session=session, token=token)
    if link.purpose != links.PERSONAL:
        raise links.LinkInvalid
    sent = invitation_commitment(session=session, seat=seat)
    check = SeedCheck(
        game=game,
        seat=seat,
        personal_token=token,
        commitment=sent or compose.commitment(game.seed),
        over=game.status == "finished",
        from_invitation=sent is not None,
    )
    if check.over:
        check.seed, check.digest = game.seed, seed_digest(str(game.seed))
    return check


def invitation_commitment(*, session: Session, seat: Seat) -> str | None:
    """The commitment the seat's invitation email said (as it was written then), or None if none is stored."""
    body = session.exec(
        select(OutboxEmail.text_body)
        .where(col(OutboxEmail.seat_id) == seat.id, col(OutboxEmail.kind) == "invitation")
        .order_by(col(OutboxEmail.id))
        .limit(1)
    ).first()
    found = COMMITMENT.search(body or "")
    return found.group(0) if found else None


def seed_digest(seed: str) -> str:
    """The SHA-256 of a seed as written (its decimal digits), in hex: what a commitment must equal."""
    return hashlib.sha256(seed.encode()).hexdigest()


def game_record(*, session: Session, token: str) -> tuple[str, str]:
    """The record of a finished game (its file name and JSON text) for a personal link; NotOverYet while the game
    runs (the record holds the seed)."""
    link, game, seats, _seat = resolve(session=session, token=token)
    if link.purpose != links.PERSONAL:
        raise links.LinkInvalid
    if game.status != "finished":
        raise NotOverYet("The record can be downloaded once the game is over.")
    logged = [(r.seat, r.move) for r in games.move_log(session=session, game_id=game.id or 0)]
    return f"{game.game}-{game.id}.json", compose.record_json(game, seats, logged)


class NotOverYet(games.ServiceError):
    """What only a finished game shows (its seed, its record) was asked for while it runs."""

    status = 409
