"""Repairs of a running game: a seat's address or player, pause and resume, the deadline, a bot's decision,
table talk, undeliverable emails, aborting. Each writes an ``AdminAction`` in the transaction of its change."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from flask_babel import gettext
from flask_babel import ngettext as _ngettext
from sqlalchemy import update
from sqlmodel import Session, col

from .. import i18n
from ..core import audit, games, talk, waits
from ..core import seats as seat_rows
from ..core.checks import MAX_PLAYER_NAME, check_language, check_name, check_text, check_timezone, require_email
from ..core.errors import AlreadyPlayed, NotNow, ServiceError
from ..flows import games as game_flows
from ..flows import play
from ..flows import seats as seat_flows
from ..i18n import N_, Np_, StoredText
from ..i18n import stored as said
from ..models import OutboxEmail
from .common import MAX_REASON, Actor, now_or, running, seat_at

_: Callable[..., str] = gettext
"""gettext, typed: a text in the reader's language."""
ngettext: Callable[..., str] = _ngettext

MAX_EXTEND_HOURS = 24 * 30


def resend_turn_email(*, session: Session, game_id: int, actor: Actor, seat: int | None = None) -> str:
    """Queue the turn email again for a person with an open decision: the seat at ``seat`` (counted from 0), or
    the seat to act when the game waits on one seat only."""
    game = running(session, game_id)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    rules = games.rules_of(game)
    waited = rules.waiting_for(games.load_state(game))
    if seat is None:
        if game.current_seat is None:
            raise NotNow(N_("nobody has a decision to make"))
        seat = game.current_seat
    if not 0 <= seat < len(seats):
        raise ServiceError(N_("game %(id)s has no seat %(number)d"), id=game_id, number=seat + 1)
    seat_row = seats[seat]
    if seat_row.name not in waited:
        raise NotNow(N_("%(name)s has no decision to make now"), name=seat_row.name)
    if seat_row.is_bot:
        raise NotNow(N_("%(name)s is a bot: there is no one to email"), name=seat_row.name)
    if not seat_row.email:
        raise NotNow(N_("%(name)s has no email address"), name=seat_row.name)
    row = seat_flows.resend_turn(session=session, game=game, seats=seats, seat=seat_row)
    if row is None:
        raise NotNow(N_("no email can be sent to %(name)s now"), name=seat_row.name)
    audit.log_action(
        session,
        game,
        actor,
        "resend_turn",
        said(N_("resent the turn email to %(name)s <%(email)s>"), name=seat_row.name, email=seat_row.email),
        seat=seat_row.position,
    )
    return _("The turn email to %(name)s is queued again.", name=seat_row.name)


def change_email(*, session: Session, game_id: int, seat: int, email: str, actor: Actor) -> str:
    """Give a person a new address: their old links stop working and the new address gets a fresh invitation."""
    game = running(session, game_id, unpaused=False)
    seats, target = seat_at(session, game_id, seat)
    if target.is_bot:
        raise NotNow(N_("%(name)s is a bot: hand the seat to a person instead"), name=target.name)
    new = require_email(email, target.name)
    if new == target.email:
        raise ServiceError(N_("%(email)s is already %(name)s's address"), email=new, name=target.name)
    old = target.email
    target.email = new
    seat_flows.rotate(target)
    seat_flows.welcome(session=session, game=game, seats=seats, seat=target)
    audit.log_action(
        session,
        game,
        actor,
        "change_email",
        said(
            N_("changed %(name)s's email from %(old)s to %(email)s; their old links no longer work"),
            name=target.name,
            old=old or said(N_("none")),
            email=new,
        ),
        said(N_("The organiser changed %(name)s's email address."), name=target.name),
        target.position,
    )
    return _(
        "%(name)s's address is now %(email)s; an invitation with their new link is queued.", name=target.name, email=new
    )


def hand_seat(
    *,
    session: Session,
    game_id: int,
    seat: int,
    kind: str,
    actor: Actor,
    email: str = "",
    language: str = "en",
    timezone: str = "UTC",
    person: str = "",
) -> str:
    """Give a seat to a new person (``kind`` "human", with their address and, in ``person``, their name) or to a
    bot; the old links stop working. The new person's invitation greets them by their name and says whose seat
    they take over in a game under way; the person who played the seat is told it is no longer theirs.

    The seat keeps its name: the game's state, score sheet and log know the player by it.
    """
    game = running(session, game_id, unpaused=False)
    seats, target = seat_at(session, game_id, seat)
    rules = games.rules_of(game)
    if kind not in games.seat_kinds(rules):
        raise ServiceError(N_("a seat is a person or one of the bots (%(bots)s)"), bots=", ".join(rules.bots))
    former = seat_flows.Former.of(target)
    seat_flows.rotate(target)
    if kind == "human":
        who = i18n.text(N_("the new player of %(name)s's seat"), name=target.name)
        new, language, zone = require_email(email, who), check_language(language), check_timezone(timezone, who)
        name = check_name(person, i18n.text(N_("the new player's name")), MAX_PLAYER_NAME) if person.strip() else ""
        old = target.email or "" if not target.is_bot else said(N_("the %(kind)s bot"), kind=target.kind)
        target.kind, target.email, target.language, target.timezone = "human", new, language, zone
        target.left_at, target.reminders = None, True
        seat_flows.welcome(
            session=session, game=game, seats=seats, seat=target, person=name or target.name, former=former
        )
        audit.log_action(
            session,
            game,
            actor,
            "hand_to_person",
            said(
                N_(
                    "gave %(name)s's seat (was %(old)s) to a new person, %(person)s <%(email)s>; the old links no "
                    "longer work"
                ),
                name=target.name,
                old=old,
                person=name or target.name,
                email=new,
            ),
            said(N_("The organiser gave %(name)s's seat to a new player."), name=target.name),
            target.position,
        )
        message = _("%(name)s's seat now belongs to %(email)s; an invitation is queued.", name=target.name, email=new)
    else:
        if target.kind == kind:
            raise ServiceError(N_("%(name)s is already played by the %(kind)s bot"), name=target.name, kind=kind)
        was = (
            (target.email or said(N_("a person")))
            if not target.is_bot
            else said(N_("the %(kind)s bot"), kind=target.kind)
        )
        target.kind = kind
        session.add(target)
        session.flush()
        audit.log_action(
            session,
            game,
            actor,
            "hand_to_bot",
            said(N_("gave %(name)s's seat (was %(old)s) to the %(kind)s bot"), name=target.name, old=was, kind=kind),
            said(N_("The organiser handed %(name)s's seat to a bot."), name=target.name),
            target.position,
        )
        if play.play_bots(session=session, game=game):
            message = _(
                "The %(kind)s bot now plays %(name)s's seat. It has made its decision.", kind=kind, name=target.name
            )
        else:
            message = _("The %(kind)s bot now plays %(name)s's seat.", kind=kind, name=target.name)
    return message


def _reason(reason: str) -> str:
    """The organiser's reason as typed ('' for none), checked like any text they give."""
    return check_text(reason, i18n.text(N_("the reason")), MAX_REASON) if reason.strip() else ""


def _with_reason(why: str, plain: str, with_why: str) -> StoredText:
    """The words ``with_why`` (its ``%(reason)s`` filled in) for a reason given, else ``plain``: stored as codes."""
    return said(with_why, reason=why) if why else said(plain)


def pause_game(*, session: Session, game_id: int, actor: Actor, reason: str = "", now: datetime | None = None) -> str:
    """Pause a running game: moves are refused and no reminders or deadlines run until it is resumed."""
    game = running(session, game_id)
    why = _reason(reason)
    told = _with_reason(why, N_("The organiser paused it."), N_("The organiser paused it: %(reason)s."))
    game_flows.pause(session=session, game_id=game_id, reason=told, now=now_or(now))
    logged = _with_reason(why, N_("paused the game"), N_("paused the game: %(reason)s"))
    notice = _with_reason(why, N_("The organiser paused the game."), N_("The organiser paused the game: %(reason)s."))
    audit.log_action(session, game, actor, "pause", logged, notice)
    return _("The game is paused.")


def resume_game(*, session: Session, game_id: int, actor: Actor, now: datetime | None = None) -> str:
    """Resume a paused game: the player to act gets a fresh wait; a bot that must act plays at once."""
    game = running(session, game_id, unpaused=False)
    if game.paused_at is None:
        raise NotNow(N_("this game is not paused"))
    since = now_or(game.paused_at)
    why: Any = game.paused_why or game.paused_reason
    logged = (
        said(N_("resumed the game (paused since %(since)s: %(reason)s)"), since=since, reason=why)
        if why
        else said(N_("resumed the game (paused since %(since)s)"), since=since)
    )
    audit.log_action(session, game, actor, "resume", logged, said(N_("The organiser resumed the game.")))
    if game_flows.resume(session=session, game_id=game_id, now=now_or(now)):
        return _("The game is running again. The bot to act has played.")
    return _("The game is running again.")


def extend_deadline(*, session: Session, game_id: int, hours: int, actor: Actor, now: datetime | None = None) -> str:
    """Move the current decision's deadline ``hours`` later (counted from now if it has already passed)."""
    if type(hours) is not int or not 1 <= hours <= MAX_EXTEND_HOURS:
        raise ServiceError(N_("extend by 1 to %(num)d hours"), num=MAX_EXTEND_HOURS)
    game = running(session, game_id)
    seat = (
        None if game.current_seat is None else seat_rows.seats_of(session=session, game_id=game_id)[game.current_seat]
    )
    deadline = None if seat is None else waits.extend(session, game, seat, hours, now_or(now))
    if seat is None or deadline is None:
        raise NotNow(N_("this game has no deadline for the current decision"))
    audit.log_action(
        session,
        game,
        actor,
        "extend_deadline",
        said(
            N_("extended the deadline of %(name)s's decision by %(time)s, to %(deadline)s"),
            name=seat.name,
            time=timedelta(hours=hours),
            deadline=deadline,
        ),
        said(N_("The organiser gave %(name)s %(time)s more to play."), name=seat.name, time=timedelta(hours=hours)),
        seat.position,
    )
    return ngettext("The deadline is now %(num)d hour later.", "The deadline is now %(num)d hours later.", hours)


def bot_decision(*, session: Session, game_id: int, decision: str | int, actor: Actor, seat: int | None = None) -> str:
    """Let the game's default bot make an open decision (source "admin"); allowed while paused, to unstick a game.

    ``seat`` (counted from 0) says whose decision it is; without it, the one seat waited on for ``decision``.
    """
    game = running(session, game_id, unpaused=False)
    rules = games.rules_of(game)
    state = games.load_state(game)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    waiting = rules.waiting_for(state)
    if seat is not None:
        if not 0 <= seat < len(seats):
            raise ServiceError(N_("game %(id)s has no seat %(number)d"), id=game_id, number=seat + 1)
        open_now = waiting.get(seats[seat].name)
        candidates = [seats[seat]] if open_now is not None and open_now.id == str(decision) else []
    else:
        candidates = [s for s in seats if s.name in waiting and waiting[s.name].id == str(decision)]
    if not candidates:
        raise AlreadyPlayed
    if len(candidates) > 1:
        raise ServiceError(N_("several seats are waited on for this decision: say for which seat"))
    target = candidates[0]
    move = games.move_body(games.bot_move(rules, state, target.name))
    words = rules.describe_move(move)
    each = i18n.EachLanguage.of(lambda lang: rules.speaking(lang).describe_move(move))
    audit.log_action(
        session,
        game,
        actor,
        "bot_decision",
        said(N_("let the bot decide for %(name)s: %(move)s"), name=target.name, move=each),
        said(N_("The organiser let a bot make a decision for %(name)s: %(move)s."), name=target.name, move=each),
        target.position,
    )
    play.move(session=session, game_id=game_id, seat=target.position, move=move, decision=str(decision), source="admin")
    return _("The bot decided for %(name)s: %(move)s.", name=target.name, move=words)


def hide_message(*, session: Session, game_id: int, message_id: int, actor: Actor, now: datetime | None = None) -> str:
    """Hide a table-talk message from the players' pages and from emails not yet written; logged."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    message = talk.hide(session=session, game_id=game_id, message_id=message_id, now=now_or(now))
    audit.log_action(
        session,
        game,
        actor,
        "hide_message",
        said(N_("hid a message of seat %(number)d: %(text)s"), number=message.seat + 1, text=message.text),
    )
    return _("The message is hidden.")


def show_message(*, session: Session, game_id: int, message_id: int, actor: Actor) -> str:
    """Show a hidden table-talk message to the players again; logged."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    message = talk.show(session=session, game_id=game_id, message_id=message_id)
    audit.log_action(
        session,
        game,
        actor,
        "show_message",
        said(N_("showed a message of seat %(number)d again"), number=message.seat + 1),
    )
    return _("The message is shown again.")


def retry_dead_emails(*, session: Session, game_id: int, actor: Actor, now: datetime | None = None) -> str:
    """Send the game's undeliverable emails again: back to queued, attempts reset."""
    game = seat_rows.get_game(session=session, game_id=game_id, lock=True)
    result = session.execute(
        update(OutboxEmail)
        .where(col(OutboxEmail.game_id) == game_id, col(OutboxEmail.status) == "dead")
        .values(status="queued", attempts=0, next_attempt_at=now_or(now), claimed_by=None, claimed_at=None)
    )
    count: int = result.rowcount  # type: ignore[attr-defined]
    if count == 0:
        raise NotNow(N_("this game has no undeliverable emails"))
    audit.log_action(
        session,
        game,
        actor,
        "retry_emails",
        said(Np_("queued %(num)d undeliverable email again", "queued %(num)d undeliverable emails again"), num=count),
    )
    return ngettext("%(num)d email is queued again.", "%(num)d emails are queued again.", count)


def abort_game(*, session: Session, game_id: int, actor: Actor, reason: str = "", now: datetime | None = None) -> str:
    """Stop a game for good: no more moves, reminders or deadlines; it stays readable."""
    game = running(session, game_id, unpaused=False)
    why = _reason(reason)
    told = _with_reason(
        why, N_("The organiser ended the game early."), N_("The organiser ended the game early: %(reason)s.")
    )
    game_flows.abort(session=session, game=game, reason=told, now=now_or(now))
    logged = _with_reason(why, N_("aborted the game"), N_("aborted the game: %(reason)s"))
    notice = _with_reason(
        why,
        N_("The organiser ended the game early: it will not be finished."),
        N_("The organiser ended the game early: it will not be finished (%(reason)s)."),
    )
    audit.log_action(session, game, actor, "abort", logged, notice)
    return _("The game is aborted.")
