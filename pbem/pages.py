"""What a seat's page shows: resolve a link, then the player's view, choices, scores and log."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from engine import call_to_glory as glory
from engine.call_to_glory import Move, State, present
from engine.call_to_glory.words import describe_event, describe_move
from engine.protocol import ChoiceGroup

from . import games, links, talk, timing
from .models import Game, Seat, utcnow

LOG_LINES = 40


@dataclass
class Choices:
    """The open decision of the seat: what is asked, and the game's choices grouped for buttons (with what each
    does, and what is closed to the player and why)."""

    decision: int
    prompt: str
    groups: list[ChoiceGroup] = field(default_factory=list)


@dataclass
class SeatPage:
    """Everything the player's page renders, computed from the engine's player view."""

    game: Game
    seats: list[Seat]
    seat: Seat
    state: State
    view: dict[str, Any]
    choices: Choices | None
    log: list[str]
    rounds: list[dict[str, Any]]
    personal_token: str
    pending: dict[str, Any] | None = None
    pending_open: bool = False
    pending_label: str = ""
    refresh_seconds: int = 60
    progress: list[str] = field(default_factory=list)
    round_over: str = ""
    said: list[talk.Said] = field(default_factory=list)

    @property
    def waiting(self) -> bool:
        """True while the game runs and this seat has nothing to decide: the page reloads itself to follow it."""
        running = self.game.paused_at is None and self.game.aborted_at is None and not self.state.is_finished
        return running and self.choices is None

    timing: timing.TimeInfo | None = None


def resolve(*, session: Session, token: str) -> tuple[links.Link, Game, list[Seat], Seat]:
    """Verify a token and find its game and seat; raise LinkInvalid, LinkExpired, GameNotFound, LinkRevoked."""
    link = links.read(token)
    return (link, *games.find_seat(session=session, link=link))


def personal_token_of(*, session: Session, link: links.Link) -> str:
    """The personal token of the seat a (verified) link belongs to, read from the database."""
    seats = games.seats_of(session=session, game_id=link.game_id)
    return links.personal_token(link.game_id, link.seat, seats[link.seat].nonce)


def seat_page(*, session: Session, token: str, log_lines: int | None = LOG_LINES) -> SeatPage:
    """The page for a personal or move link (a GET: reads only); ``log_lines`` moves of the log, or all."""
    link, game, seats, seat = resolve(session=session, token=token)
    state = games.load_state(game)
    events = games.log_events(session=session, game_id=game.id or 0, limit=log_lines)
    view = glory.player_view(state, seat.name, log=events)
    page = SeatPage(
        game=game,
        seats=seats,
        seat=seat,
        state=state,
        view=view,
        choices=None if game.paused_at is not None else choices_for(state, seat.name),
        log=[describe_event(e, seat.name) for e in reversed(view["log"])],
        rounds=glory.round_details(state),
        personal_token=links.personal_token(game.id or 0, seat.position, seat.nonce),
        timing=timing.page_info(game=game, seats=seats, me=seat, now=utcnow()),
    )
    page.progress = glory.GAME.progress(state, seat.name)
    page.said = talk.said(session=session, game_id=game.id or 0, names={s.position: s.name for s in seats})
    page.round_over = present.round_over(state, view["log"])
    if link.purpose == links.MOVE and link.move is not None and game.paused_at is None:
        page.pending = link.move
        page.pending_open = link.decision == str(state.ply) and _legal(state, seat.name, link.move)
        page.pending_label = choice_label(page.choices, link.move) if page.pending_open else ""
        page.pending_label = page.pending_label or describe_move(link.move)
    return page


def _legal(state: State, player: str, move: dict[str, Any]) -> bool:
    try:
        return glory.can_apply(state, Move.from_json({**move, "player": player}))
    except glory.FormatError:
        return False


def choices_for(state: State, player: str) -> Choices | None:
    """The open decision of ``player`` with the game's choices, or None when they have none."""
    decision = glory.GAME.waiting_for(state).get(player)
    if decision is None:
        return None
    return Choices(state.ply, decision.prompt, glory.GAME.choices(state, player))


def choice_label(choices: Choices | None, move: dict[str, Any]) -> str:
    """The label the page's button for ``move`` shows ('' when it offers no such move)."""
    wanted = {k: str(v) for k, v in move.items() if k != "player"}
    for group in choices.groups if choices is not None else ():
        for choice in group.choices:
            if {k: str(v) for k, v in choice.move.items()} == wanted:
                return choice.label
    return ""
