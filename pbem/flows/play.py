"""Playing: a move (by link, page, reply, bot, timeout or the organiser), leaving a seat, saying something.

Each runs its core service in the caller's transaction (``pbem.db.write_session``) and queues the emails its
outcome calls for (``mail.notify``), so a change and its emails are stored together or not at all.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from .. import timing
from ..core import games, seats, talk
from ..mail import notify
from ..models import Game, Message

MAX_BOT_MOVES = 40
"""A bound on the decisions a bot makes in a row for one seat (several decisions may share one wait)."""


def move(
    *,
    session: Session,
    game_id: int,
    seat: int,
    move: dict[str, Any],
    decision: str | int | None,
    source: str,
    nonce_tag: str | None = None,
    message: str = "",
    loaded: seats.Loaded | None = None,
) -> games.MoveOutcome:
    """Apply one move (``core.games.apply_move``), then queue what it calls for: score sheets, game over, a turn
    email. With ``message``, the seat says it to the table first (``core.talk.say``), in the same transaction: a
    message that is refused refuses the move too. ``loaded``: the game and seats the caller read, locked, in this
    transaction (read once per request)."""
    if message:
        talk.say(session=session, game_id=game_id, seat=seat, text=message, nonce_tag=nonce_tag, now=timing.now())
    outcome = games.apply_move(
        session=session,
        game_id=game_id,
        seat=seat,
        move=move,
        decision=decision,
        source=source,
        nonce_tag=nonce_tag,
        loaded=loaded,
    )
    notify.after_move(session=session, outcome=outcome, seats=outcome.seats, before=outcome.before)
    return outcome


def leave(*, session: Session, game_id: int, seat: int) -> games.MoveOutcome:
    """A person leaves (``core.games.leave_seat``): the organiser is told, and what the bot then did is emailed."""
    outcome = games.leave_seat(session=session, game_id=game_id, seat=seat)
    leaver = outcome.seats[seat]
    notify.after_leave(session=session, outcome=outcome, seats=outcome.seats, seat=leaver, before=outcome.before)
    return outcome


def say(*, session: Session, game_id: int, seat: int, text: str, nonce_tag: str | None) -> Message:
    """Say something to the table (``core.talk.say``): the others read it on their page and in their next email."""
    return talk.say(session=session, game_id=game_id, seat=seat, text=text, nonce_tag=nonce_tag, now=timing.now())


def bot_decides(*, session: Session, game: Game, seat: int, source: str, wait: str | None = None) -> int:
    """The seat's bot (the game's default bot for a person's seat) makes the seat's open decisions: while its wait
    is ``wait`` (a timeout: every decision of that wait), or just the one open now; the number of moves made."""
    made = 0
    for _ in range(MAX_BOT_MOVES):
        current = seats.get_game(session=session, game_id=game.id or 0)
        rules = games.rules_of(current)
        state = games.load_state(current)
        target = seats.seats_of(session=session, game_id=game.id or 0)[seat]
        decision = games.decision_of(rules, state, target.name)
        if decision is None or (wait is not None and decision.wait != wait) or (wait is None and made):
            break
        kind = target.kind if target.is_bot else None
        body = games.move_body(games.bot_move(rules, state, target.name, kind))
        outcome = move(session=session, game_id=game.id or 0, seat=seat, move=body, decision=decision.id, source=source)
        made += len(outcome.logged)
    return made


def play_bots(*, session: Session, game: Game) -> int:
    """If a bot seat is waited on (after a hand-over or a resume), it plays; the bots' moves after it follow."""
    rules = games.rules_of(game)
    state = games.load_state(game)
    if games.is_over(rules, state) or game.paused_at is not None:
        return 0
    waiting = rules.waiting_for(state)
    everyone = seats.seats_of(session=session, game_id=game.id or 0)
    bot = next((s for s in everyone if s.is_bot and s.name in waiting), None)
    if bot is None:
        return 0
    return bot_decides(session=session, game=game, seat=bot.position, source="bot")
