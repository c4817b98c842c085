"""What a seat's page shows: resolve a link, then the player's view, choices, settings, progress and log.

Everything comes from the game's protocol (``games.rules_of``); the game's own templates
(``templates/games/<key>/``) draw its board from the player view.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from flask import g, url_for
from flask_babel import gettext as _
from sqlmodel import Session, col, select

from engine.errors import FormatError
from engine.protocol import Choice, ChoiceGroup, Result
from engine.protocol import Game as Rules

from .. import i18n, timing
from ..core import games, links, records, talk, waits
from ..core import seats as seat_rows
from ..core.errors import LinkInvalid, NotNow
from ..i18n import N_
from ..mail import narrative
from ..models import Game, OutboxEmail, Record, Seat, SeatRecord
from . import tokens

LOG_LINES = 40
PAGE_TAG_VERSION = f"{time.time_ns()}"
"""In every page's ETag: a page rendered by an earlier start of the server (other templates, other code) is
never taken for a current one."""
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
    recent: list[narrative.Line] = field(default_factory=list)
    """What the page tells first: the seat's latest turn and what the others did around it."""
    timing: TimeInfo | None = None
    refinements: list[Choice] = field(default_factory=list)
    """The variants the confirm page of a pending move offers as its buttons (the game's ``refine``)."""
    texts: Mapping[str, Any] = field(default_factory=dict)
    """The texts the game's board shows made from the view, built once (the game's ``page_texts``)."""

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
    def pause_reason(self) -> str:
        """Why the game is paused or was stopped, in the reader's language ('' if no reason was given)."""
        return games.pause_words(self.game)

    @property
    def waiting(self) -> bool:
        """True while the game runs and this seat has nothing to decide: the page reloads itself to follow it."""
        running = self.game.paused_at is None and self.game.aborted_at is None and not self.finished
        return running and self.choices is None


def said_at(*, session: Session) -> list[talk.Said]:
    """What was said at the request's game, as its page shows it (read once per request)."""
    found: list[talk.Said] | None = g.get("pbem_said")
    if found is None:
        game, seats, _seat = tokens.seat_rows()
        names = {s.position: s.name for s in seats}
        found = g.pbem_said = talk.said(session=session, game_id=game.id or 0, names=names)
    return found


def wait_of_seat(*, session: Session) -> Any:
    """The request's seat's wait as its page shows it (``waits.deadline_of_seat``; read once per request)."""
    if "pbem_wait" not in g:
        game, _seats, seat = tokens.seat_rows()
        g.pbem_wait = waits.deadline_of_seat(session, game.id or 0, seat.position)
    return g.pbem_wait


def page_tag(*, session: Session, extra: str = "") -> str:
    """The ETag of the request's seat page: a hash of everything the page is made from except the game's state,
    which the game's version stands for (the game's and seats' rows: version, pause, deadlines, every seat's
    settings and absences), the seat's own wait, what was said, the language, the seat's local date, the link
    and the session's form secret (``extra``). Two requests with the same tag get the same page; the tag is
    read from the database without rendering anything, so a repeat GET answers 304 cheaply. A seat's tag never
    matches another seat's (its position and nonce are in it)."""
    stored: str | None = g.get("pbem_page_tag")
    if stored is None:
        game, seats, seat = tokens.seat_rows()
        wait = wait_of_seat(session=session)
        said = said_at(session=session)
        today = timing.local_date(timing.now(), timing.zone(seat.timezone))
        stored = g.pbem_page_tag = "\x1f".join(
            (
                PAGE_TAG_VERSION,
                repr(sorted((k, v) for k, v in vars(game).items() if k != "state")),
                repr([sorted(vars(s).items()) for s in seats]),
                repr(tuple(wait) if wait is not None else None),
                repr([(m.id, m.text) for m in said]),
                i18n.current(),
                today.isoformat(),
                tokens.token(),
            )
        )
    return hashlib.sha256(f"{stored}\x1f{extra}".encode()).hexdigest()[:32]


def seat_page(*, session: Session, link: links.Link, log_lines: int | None = LOG_LINES) -> SeatPage:
    """The page for a personal or move link (a GET: reads only); ``log_lines`` moves of the log, or all."""
    game, seats, seat = tokens.seat_rows()
    rules = games.rules_of(game)
    state = rules.from_json(game.state)
    latest = None if log_lines is None else games.latest_moves(session=session, game_id=game.id or 0, limit=log_lines)
    events = latest.events if latest is not None else games.log_events(session=session, game_id=game.id or 0)
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
        texts=rules.page_texts(view, seat.name),
        personal_token=links.personal_token(game.id or 0, seat.position, seat.nonce),
        result=result,
        timing=page_info(
            game=game,
            seats=seats,
            me=seat,
            now=timing.now(),
            wait=wait_of_seat(session=session),
        ),
    )
    if result is None:
        page.settings = rules.settings(state, seat.name)
        page.waiting_on = list(rules.waiting_for(state))
        page.progress = rules.progress(state, seat.name)
    page.said = said_at(session=session)
    page.headline = rules.headline(state, seat.name, seen)
    page.recent = narrative.recent(session=session, game=game, seats=seats, seat=seat, latest=latest, said=page.said)
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
    game = seat_rows.get_game(session=session, game_id=link.game_id)
    seats = seat_rows.seats_of(session=session, game_id=link.game_id)
    rules, me, who = games.rules_of(game), seats[link.seat], seats[record.seat].name
    said = [t for e in record.events if (t := rules.describe(e, me.name))]
    body = {k: v for k, v in record.move.items() if k != "player"}
    what = " ".join(said) or rules.describe_move(body) + "."
    at = i18n.when(record.created_at, me.timezone)
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


def seed_check(*, session: Session, link: links.Link) -> SeedCheck:
    """The seed check for a personal link (a GET: reads only); the seed only once the game is over."""
    if link.purpose != links.PERSONAL:
        raise LinkInvalid
    found = tokens.seat()
    game, seat = found.game, found.seat
    sent = invitation_commitment(session=session, seat=seat)
    check = SeedCheck(
        game=game,
        seat=seat,
        personal_token=tokens.token(),
        commitment=sent or records.commitment(game.seed),
        over=game.status == "finished",
        from_invitation=sent is not None,
    )
    if check.over:
        check.seed, check.digest = game.seed, records.commitment(game.seed)
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


def game_record(*, session: Session, link: links.Link) -> tuple[str, str]:
    """The record of a finished game (its file name and JSON text) for a personal link; NotNow while the game
    runs (the record holds the seed)."""
    if link.purpose != links.PERSONAL:
        raise LinkInvalid
    found = tokens.seat()
    if found.game.status != "finished":
        raise NotNow(N_("The record can be downloaded once the game is over."))
    record = records.of_game(session=session, game=found.game, seat_rows=found.seats)
    return f"{found.game.game}-{found.game.id}.json", records.as_json(record)


# ---------------------------------------------------------------------------------------------- time


@dataclass
class TimeInfo:
    """What the player's page shows about time: pause, deadline, absences, quiet hours."""

    paused: bool = False
    paused_reason: str | None = None
    deadline: str | None = None
    timeout: str = "bot"
    reminders_on: bool = True
    away_until: str | None = None
    others_away: list[tuple[str, str]] = field(default_factory=list)
    can_be_away: bool = False
    days_left: int = 0
    today: str = ""
    latest: str = ""
    latest_words: str = ""
    quiet: str | None = None
    finished: bool = False


def page_info(*, game: Any, seats: list[Any], me: Any, now: datetime, wait: Any = None) -> TimeInfo:
    """The time facts for one seat's page, from the Game and Seat rows (read only).

    ``wait`` is the seat's ``Wait`` row, if the caller read it: its own deadline. Without it, the game's
    (earliest) deadline is shown to the first seat waited on.
    """
    tz = timing.zone(me.timezone)
    today = timing.local_date(now, tz)
    finished = game.status == "finished"
    info = TimeInfo(
        paused=game.paused_at is not None,
        paused_reason=games.pause_words(game),
        finished=finished,
        reminders_on=bool(me.reminders),
    )
    policy = timing.Policy.from_json(game.policy)
    info.timeout = policy.timeout
    if wait is not None:
        deadline = timing.utc(wait.deadline_at) if wait.seat == me.position else None
    else:
        deadline = timing.utc(game.deadline_at) if game.current_seat == me.position else None
    if deadline is not None and not finished:
        info.deadline = i18n.when(deadline, tz)
    current = me.away_until if me.away_until is not None and me.away_until >= today else None
    if current is not None:
        info.away_until = i18n.day(current)
    for seat in seats:
        if seat.position == me.position or seat.away_until is None:
            continue
        if seat.away_until >= timing.local_date(now, timing.zone(seat.timezone)):
            info.others_away.append((seat.name, i18n.day(seat.away_until)))
    kept = me.away_days_used - (timing.absence_days(today, current) if current is not None else 0)
    info.days_left = max(0, policy.absence_cap_days - kept)
    info.can_be_away = not finished and info.days_left > 0
    info.today = today.isoformat()
    latest = today + timedelta(days=max(0, info.days_left - 1))
    info.latest, info.latest_words = latest.isoformat(), i18n.day(latest)
    if me.quiet_start is not None and me.quiet_end is not None:
        info.quiet = f"{me.quiet_start}-{me.quiet_end}"
    return info
