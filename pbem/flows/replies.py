"""A message that came in by mail: ONE transaction per message, whatever transport brought it.

``handle`` claims the message by its Message-ID (a second reading is a no-op), ignores robots, checks that it
was sent to a live seat's reply address from that seat's own address, then carries out its lines in order —
seat commands (``core.replies``), the game's commands (``Game.parse_command``) as far as they stay legal, and
the rest said to the table — and queues one answer in the seat's language (``mail.notify.queue_answer``), which
replaces the turn email it would duplicate. Unknown senders, dead tokens and forgeries get no answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session

from engine.errors import FormatError
from engine.protocol import command_words

from .. import i18n, timing
from ..core import games, links, replies, seats
from ..core.errors import AlreadyPlayed, ServiceError
from ..i18n import N_
from ..mail import compose, notify
from ..models import OutboxEmail
from . import invites, play

log = logging.getLogger(__name__)
TOO_BIG = N_("Your reply was too large to read. Write a short reply without attachments.")
NOT_TRIED = N_("%(command)s: not tried, as a command before it was not done.")
NUMBER_FIRST = N_("%(command)s: a number picks from the email's list for the first command only; write its words.")


@dataclass(frozen=True)
class Reply:
    """A message as the transports and the parser give it: its Message-ID, its ``sender`` (the From address,
    normalised by ``replies.normal_address``; empty if none or several), the addresses it was delivered to, its
    subject, its new text (quotes and signatures stripped), why it is a robot's ("" for a person's), why the
    receiving server found it forged ("" if it did not say so), whether it was too large to read, and for a
    bounce (a delivery report, or mail to a VERP return path) the addresses that failed for good and why."""

    message_id: str
    sender: str
    recipients: tuple[str, ...]
    subject: str = ""
    text: str = ""
    robot: str = ""
    forged: str = ""
    too_big: bool = False
    bounce: bool = False
    bounced: tuple[str, ...] = ()
    bounce_detail: str = ""


@dataclass
class Handled:
    """What was done with a message: ``outcome`` (duplicate, robot, unknown, dead, forged, answered, applied),
    the moves it made, and the answer queued (None: no answer)."""

    outcome: str
    moves: int = 0
    answer: OutboxEmail | None = None
    lines: list[str] = field(default_factory=list)


def handle(*, session: Session, reply: Reply, base: str, bounce_base: str = "", now: datetime | None = None) -> Handled:
    """Handle one message in the caller's transaction (see the module); ``base`` is MAIL_REPLY_ADDRESS and
    ``bounce_base`` MAIL_BOUNCE_ADDRESS (the VERP return path)."""
    now = now or timing.now()
    row = replies.claim(session=session, message_id=reply.message_id, now=now)
    if row is None:
        return Handled("duplicate")
    if reply.bounce:
        marked = _bounced(session, reply, bounce_base, now)
        log.info("mail in: %s is a bounce (%d seat(s) marked)", reply.message_id, marked)
        return _done(session, row, Handled("bounce"))
    if reply.robot:
        log.info("mail in: %s ignored (%s)", reply.message_id, reply.robot)
        return _done(session, row, Handled("robot"))
    token = next((t for a in reply.recipients if (t := links.read_reply_address(a, base)) is not None), None)
    if token is None:
        log.info("mail in: %s was not sent to a reply address", reply.message_id)
        return _done(session, row, Handled("unknown"))
    try:
        loaded = seats.load(session=session, game_id=token.game_id, seat=token.seat, lock=True)
    except ServiceError:
        loaded = None
    if loaded is None or not token.valid(loaded.seat.nonce) or not notify.reachable(loaded.seat):
        log.info("mail in: %s names no live seat (game %s)", reply.message_id, token.game_id)
        return _done(session, row, Handled("dead"), token)
    if replies.normal_address(loaded.seat.email or "") != reply.sender or reply.forged:
        why = reply.forged or "From is not the seat's address"
        log.warning("mail in: %s refused for game %s seat %s: %s", reply.message_id, token.game_id, token.seat, why)
        return _done(session, row, Handled("forged"), token)
    with i18n.in_language(loaded.seat.language):
        answer, moves = _carry_out(session, token, loaded.seat.language, reply, now)
        email = notify.queue_answer(session=session, game_id=token.game_id, seat=token.seat, answer=answer)
    handled = Handled("applied" if moves else "answered", moves, email, answer.done + answer.refused)
    return _done(session, row, handled, token)


def _bounced(session: Session, reply: Reply, bounce_base: str, now: datetime) -> int:
    """Mark the seats a bounce names as failing: the seat of a VERP return path (its token checked), else every
    seat of a running game whose address failed for good; the organiser is told once per seat and address."""
    found: list[tuple[int, int]] = []
    for address in reply.recipients if bounce_base else ():
        token = links.read_reply_address(address, bounce_base, links.BOUNCE)
        if token is None:
            continue
        try:
            loaded = seats.load(session=session, game_id=token.game_id, seat=token.seat)
        except ServiceError:
            continue
        if token.valid(loaded.seat.nonce):
            found.append((token.game_id, token.seat))
    if not found:
        found = replies.seats_with_addresses(session=session, addresses=reply.bounced)
    for game_id, position in found:
        seat = replies.mark_bounced(
            session=session, game_id=game_id, seat=position, detail=reply.bounce_detail, now=now
        )
        if seat is not None:
            notify.queue_bounce_notice(session=session, game_id=game_id, seat=seat)
    return len(found)


def _done(session: Session, row: int, handled: Handled, token: links.ReplyToken | None = None) -> Handled:
    replies.record(
        session=session,
        row_id=row,
        outcome=handled.outcome,
        game_id=token.game_id if token else None,
        seat=token.seat if token else None,
        moves=handled.moves,
    )
    return handled


def _carry_out(
    session: Session, token: links.ReplyToken, lang: str, reply: Reply, now: datetime
) -> tuple[compose.Answer, int]:
    """Carry out the reply's lines in order; what was done, in words of the seat's language, and the moves made."""
    answer = compose.Answer(message_id=reply.message_id, subject=reply.subject)
    if reply.too_big:
        answer.refused.append(i18n.text(TOO_BIG))
    lines = [line.strip() for line in reply.text.splitlines() if line.strip()]
    talk: list[str] = []
    moves = 0
    first, stopped = True, False
    for line in lines:
        command = replies.seat_command(line, lang)
        if command is not None:
            _seat_command(session, token, command, answer, now)
            continue
        game = seats.get_game(session=session, game_id=token.game_id)
        rules = games.rules_of(game)
        state = games.load_state(game)
        player = seats.seats_of(session=session, game_id=token.game_id)[token.seat].name
        words = command_words(line)
        if words.isdigit() and not first:
            answer.refused.append(i18n.text(NUMBER_FIRST, command=line))
            continue
        move = None
        if len(line) <= replies.LONGEST_LINE:
            move = rules.parse_command(state, player, line)
        if move is None:
            talk.append(line)
            continue
        if stopped:
            answer.refused.append(i18n.text(NOT_TRIED, command=line))
            continue
        try:
            standing = rules.is_standing(rules.parse_move(player, dict(move)))
        except FormatError:
            standing = False
        decision = games.decision_of(rules, state, player)
        asked = links.decision_digest(decision.id if decision else None)
        if not standing and first and token.decision not in ("0", asked):
            answer.refused.append(_why(line, AlreadyPlayed()))
            stopped = True
            continue
        try:
            with session.begin_nested():
                outcome = play.move(
                    session=session,
                    game_id=token.game_id,
                    seat=token.seat,
                    move=dict(move),
                    decision=None if standing or decision is None else decision.id,
                    source="email",
                )
        except ServiceError as exc:
            answer.refused.append(_why(line, exc))
            stopped = True
            continue
        answer.done.append(rules.describe_move(dict(move)))
        moves += sum(1 for entry in outcome.logged if entry.seat == token.seat)
        first = False
    if talk:
        said = " ".join(talk)
        try:
            with session.begin_nested():
                play.say(session=session, game_id=token.game_id, seat=token.seat, text=said, nonce_tag=None)
            answer.said = said
        except ServiceError as exc:
            answer.refused.append(exc.message)
    answer.nothing = not lines and not reply.too_big
    return answer, moves


def _why(line: str, exc: ServiceError) -> str:
    """'<the line>: <why not>' (with the game's rule when it names one)."""
    why = exc.message if not exc.rule else f"{exc.message} ({exc.rule})"
    return f"{line}: {why}"


def _seat_command(
    session: Session, token: links.ReplyToken, command: replies.SeatCommand, answer: compose.Answer, now: datetime
) -> None:
    """Carry out one seat command (away, back, reminders, help, status; accept or decline an invitation) and say
    what was done."""
    try:
        with session.begin_nested():
            if command.key == replies.AWAY:
                if command.until is None:
                    raise ServiceError(N_("That is not a date: write it as %(example)s."), example=replies.EXAMPLE_DATE)
                seats.set_absence(session=session, game_id=token.game_id, seat=token.seat, until=command.until, now=now)
                answer.done.append(i18n.text(N_("You are away until %(date)s."), date=command.until))
            elif command.key == replies.BACK:
                seats.end_absence(session=session, game_id=token.game_id, seat=token.seat, now=now)
                answer.done.append(i18n.text(N_("You are back.")))
            elif command.key in (replies.REMINDERS_ON, replies.REMINDERS_OFF):
                row = seats.load(session=session, game_id=token.game_id, seat=token.seat).seat
                seats.set_reminders(session=session, seat=row, on=command.key == replies.REMINDERS_ON)
                on = command.key == replies.REMINDERS_ON
                answer.done.append(i18n.text(N_("Reminders are on.") if on else N_("Reminders are off.")))
            elif command.key in replies.INVITATION_COMMANDS:
                row = seats.load(session=session, game_id=token.game_id, seat=token.seat).seat
                accept = command.key == replies.ACCEPT
                invites.answer_invitation(session=session, seat=row, accept=accept, now=now)
                answer.done.append(
                    i18n.text(N_("You accepted the invitation.") if accept else N_("You declined the invitation."))
                )
            elif command.key == replies.HELP:
                answer.help = True
                answer.done.append(i18n.text(N_("The commands and the rules are below.")))
            else:
                answer.done.append(i18n.text(N_("The game as it stands is below.")))
    except ServiceError as exc:
        answer.refused.append(exc.message)
