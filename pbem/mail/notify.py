"""When email is queued: always in the transaction of the change that causes it.

The flows (``pbem.flows``) call it with the outcome of a change: ``after_create``, ``after_move`` and
``after_leave`` decide what follows (invitations, a turn email when the seat to act changes, milestone sheets,
the game-over email); ``queue_turn_email``, ``queue_invitation``, ``queue_organiser_notice``, ``queue_digest``
and ``queue_email`` queue one email each. Bots, seats without an email address and seats that left get nothing.

A seat that folds its score sheets gets no milestone email: the sheet waits on the seat
(``Seat.pending_sheets``) and the next turn or game-over email queued for it carries it (a turn email
that is no longer needed when it is sent goes out as the sheet alone), so each sheet arrives once.

Emails about the game as it stands (turn, milestone, game over) are queued as what must be sent (kind, game,
seat, decision, what to show), not rendered: the sender calls ``render_queued`` when it sends them, which
renders them from the game as it is then, or drops a turn email whose decision was made meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import func, update
from sqlmodel import Session, col, select

from engine.protocol import Milestone

from .. import i18n, timing
from ..core import games, records, waits
from ..core import seats as seat_rows
from ..models import AdminUser, Game, OutboxEmail, Seat
from . import compose, narrative, outbox


def reachable(seat: Seat) -> bool:
    """True for a person who still plays the seat and has an email address."""
    return bool(seat.email) and not seat.is_bot and seat.left_at is None


def after_create(*, session: Session, game: Game, seats: Sequence[Seat], outcome: games.MoveOutcome) -> None:
    """Invite every person with an email address, then queue what the first state calls for (a turn email)."""
    for seat in seats:
        queue_invitation(session=session, game=game, seats=seats, seat=seat)
    _follow_up(session, game, seats, outcome.state, None, None)


def after_move(
    *,
    session: Session,
    outcome: games.MoveOutcome,
    seats: Sequence[Seat],
    before: games.Before | None,
    deadline: datetime | None = None,
) -> None:
    """Queue what a stored move calls for: a sheet for each milestone it reached, the game-over email, or a
    turn email when the seat to act changed; nothing within a turn or for a standing move.

    The turn email names ``deadline``, by default the game's current one.
    """
    _follow_up(session, outcome.game, seats, outcome.state, before, deadline)


def after_leave(
    *, session: Session, outcome: games.MoveOutcome, seats: Sequence[Seat], seat: Seat, before: games.Before | None
) -> None:
    """A player left: tell the organiser, then queue what the bot's moves (if it had to act) call for."""
    with i18n.in_language(organiser_language(session, outcome.game)):
        body = _(
            "%(name)s left the game from their settings page. "
            "The heuristic bot plays their seat from now on, and their links no longer work.",
            name=seat.name,
        )
        if outcome.logged:
            body += " " + _("The bot has already played their part of the current turn.")
        subject = _("%(name)s left the game", name=seat.name)
    queue_organiser_notice(session=session, game=outcome.game, subject=subject, body=body)
    after_move(session=session, outcome=outcome, seats=seats, before=before)


def _follow_up(
    session: Session,
    game: Game,
    seats: Sequence[Seat],
    state: Any,
    before: games.Before | None,
    deadline: datetime | None,
) -> None:
    rules = games.rules_of(game)
    # Most moves reach no milestone: ask once, then again in each reader's language only when some were reached.
    if before is not None and rules.milestones(before.state, state):
        in_words: dict[str, list[Milestone]] = {}  # the milestones in each reader's language (titles are words)
        for seat in seats:
            if not reachable(seat):
                continue
            lang = i18n.language(seat.language)
            if lang not in in_words:
                in_words[lang] = rules.speaking(lang).milestones(before.state, state)
            for milestone in in_words[lang]:
                if milestone.kind == "game_over" or milestone.number is None:
                    continue
                sheet = {
                    "kind": milestone.kind,
                    "title": milestone.title,
                    "number": milestone.number,
                    "data": dict(milestone.data),
                }
                if seat.score_sheets == "folded":
                    _hold_sheet(session, seat, sheet)
                    continue
                key = f"scores:{game.id}:{milestone.number}:{seat.position}"
                _queue_unrendered(session, game, seat, "scores", milestone.title, {"milestone": sheet}, key)
    if games.is_over(rules, state):
        if before is None or not games.is_over(rules, before.state):
            for seat in seats:
                if reachable(seat):
                    key = f"over:{game.id}:{seat.position}"
                    _queue_with_sheets(session, game, seat, "game_over", "Game over", {}, key)
        return
    old = before.waiting if before is not None else {}
    by_name = {s.name: s for s in seats}
    for player, decision in rules.waiting_for(state).items():
        if player in old and old[player].wait == decision.wait:
            continue
        seat = by_name[player]
        queue_turn_email(
            session=session,
            game=game,
            seats=seats,
            seat=seat,
            state=state,
            deadline=deadline if deadline is not None else deadline_of(session, game, seat),
            dedupe_key=f"turn:{game.id}:{seat.position}:{decision.id}",
        )


def deadline_of(session: Session, game: Game, seat: Seat) -> datetime | None:
    """The deadline of ``seat``'s own wait (several seats may be waited on, each with its own)."""
    row = waits.of_seat(session, game.id or 0, seat.position)
    return row.deadline_at if row is not None else game.deadline_at


def queue_invitation(
    *,
    session: Session,
    game: Game,
    seats: Sequence[Seat],
    seat: Seat,
    person: str | None = None,
    starting: bool = False,
) -> OutboxEmail | None:
    """Invite ``seat`` (the game, the players, the options, the personal link, the seed's commitment); with
    ``person``, the name of someone who takes the seat over in a game under way, greeted by it; a game that
    waits for answers asks the player to accept or decline on their page; ``starting``: the game that waited for
    answers starts now (the final table).

    The first invitation under the seat's current nonce is the root of its thread; a later one (the
    admin page resends it) replies to that root, so no two emails share a Message-ID.
    """
    if not reachable(seat):
        return None
    root = compose.thread_root(game, seat)
    known = session.exec(
        select(OutboxEmail.id).where(OutboxEmail.seat_id == seat.id, OutboxEmail.message_id == root)
    ).first()
    state = games.load_state(game)
    with i18n.in_language(seat.language, seat.timezone):
        email = compose.invitation(
            game=game, seats=seats, seat=seat, state=state, root=known is None, person=person, starting=starting
        )
    return queue_email(session, game, seat, email, None)


def queue_aborted(*, session: Session, game: Game, seats: Sequence[Seat]) -> int:
    """Tell every player of a game the organiser stopped for good, why (the stored reason, in each player's
    language), and that their page stays readable; the number of emails queued."""
    queued = 0
    for seat in seats:
        if not reachable(seat):
            continue
        with i18n.in_language(seat.language, seat.timezone):
            email = compose.notice(
                game=game,
                to=compose.recipient(seat),
                name=seat.name,
                title=_("The game was ended early"),
                paragraphs=[
                    games.pause_words(game) or _("The organiser ended the game early."),
                    _("It will not be finished: nobody can move any more. Your page stays readable."),
                ],
                page_url=compose.personal_url(game, seat),
            )
        queued += queue_email(session, game, seat, email, f"aborted:{game.id}:{seat.position}") is not None
    return queued


def queue_replaced(
    *, session: Session, game: Game, seat: Seat, email: str, language: str, timezone: str
) -> OutboxEmail | None:
    """Tell the person who played ``seat`` (at ``email``, in their language) that the organiser gave it to
    someone else and that their links to the game no longer work."""
    with i18n.in_language(language, timezone):
        notice = compose.notice(
            game=game,
            to=email,
            name=seat.name,
            title=_("Your seat was given to someone else"),
            paragraphs=[
                _(
                    "The organiser gave your seat in %(game)s (%(seat)s) to someone else: your links to this "
                    "game no longer work.",
                    game=game.name,
                    seat=seat.name,
                ),
                _("Thank you for playing."),
            ],
        )
    return queue_email(session, game, None, notice, None)


def queue_turn_email(
    *,
    session: Session,
    game: Game,
    seats: Sequence[Seat],
    seat: Seat,
    state: Any,
    reminder: int | None = None,
    last_reminder: bool = False,
    waited: timedelta | None = None,
    deadline: datetime | None = None,
    dedupe_key: str | None = None,
) -> OutboxEmail | None:
    """Queue the 'your turn' email (or reminder number ``reminder``) for ``seat``, if it must act now.

    None when nothing was queued: the seat is not to act, cannot be reached, has reminders
    off (for a reminder), or ``dedupe_key`` was queued before. The email is rendered when it is sent, from the
    game as it is then, and dropped if the seat has made this decision by then. It names ``deadline``, if given
    (``deadline_of`` gives the seat's own).
    """
    decision = games.decision_of(games.rules_of(game), state, seat.name)
    if not reachable(seat) or decision is None:
        return None
    if reminder is not None and not seat.reminders:
        return None
    what = {
        "reminder": reminder,
        "last_reminder": last_reminder,
        "waited": waited.total_seconds() if waited is not None else None,
        "deadline": outbox.as_utc(deadline).isoformat() if deadline is not None else None,
    }
    title = " · ".join([f"Reminder {reminder}"] * bool(reminder) + ["Your turn"])
    return _queue_with_sheets(session, game, seat, "turn", title, what, dedupe_key, decision=decision.id)


def _hold_sheet(session: Session, seat: Seat, sheet: dict[str, Any]) -> None:
    """Keep a milestone's sheet for the seat's next turn (or game-over) email: the seat folds its score sheets."""
    held = list(seat.pending_sheets or [])
    if all(s["number"] != sheet["number"] or s["kind"] != sheet["kind"] for s in held):
        held.append(sheet)
    seat.pending_sheets = held
    session.add(seat)


def _queue_with_sheets(
    session: Session,
    game: Game,
    seat: Seat,
    kind: str,
    title: str,
    what: dict[str, Any],
    dedupe_key: str | None,
    *,
    decision: str | None = None,
) -> OutboxEmail | None:
    """Queue a turn or game-over email that also carries the sheets held for the seat; they leave the seat only
    if the email was queued (not when ``dedupe_key`` was queued before), so each is carried exactly once."""
    held = list(seat.pending_sheets or [])
    row = _queue_unrendered(
        session, game, seat, kind, title, what | {"sheets": held} if held else what, dedupe_key, decision=decision
    )
    if row is not None and held:
        seat.pending_sheets = None
        session.add(seat)
    return row


def _queue_unrendered(
    session: Session,
    game: Game,
    seat: Seat,
    kind: str,
    title: str,
    what: dict[str, Any],
    dedupe_key: str | None,
    *,
    decision: str | None = None,
) -> OutboxEmail | None:
    """Queue what the sender must render for ``seat`` (``what``: the details ``render_queued`` needs); until then
    the row's subject is ``title`` after the game's name and its parts are empty."""
    return outbox.queue(
        session=session,
        kind=kind,
        to=compose.recipient(seat),
        subject=compose.subject(game, title),
        text="",
        html="",
        game_id=game.id,
        seat_id=seat.id,
        headers=compose.seat_headers(game, seat, root=False, decision=decision),
        dedupe_key=dedupe_key,
        decision=decision,
        render=what,
    )


def queue_answer(*, session: Session, game_id: int, seat: int, answer: compose.Answer) -> OutboxEmail | None:
    """Queue the answer to a reply of ``seat`` (what was done with it, then the game as it stands now with the
    seat's choices and commands), in the language spoken now (the seat's); the seat's queued turn emails are
    dropped, as the answer says what they would. None when the seat cannot be reached."""
    game = seat_rows.get_game(session=session, game_id=game_id)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    me = seats[seat]
    if not reachable(me):
        return None
    session.execute(
        update(OutboxEmail)
        .where(
            col(OutboxEmail.seat_id) == me.id,
            col(OutboxEmail.kind) == "turn",
            col(OutboxEmail.status) == "queued",
        )
        .values(status="dropped", last_error="dropped: the answer to a reply says it")
        .execution_options(synchronize_session=False)
    )
    state = games.load_state(game)
    email = compose.turn(
        game=game,
        seats=seats,
        seat=me,
        state=state,
        story=narrative.story(session=session, game=game, seats=seats, seat=me),
        deadline=deadline_of(session, game, me),
        answer=answer,
    )
    return queue_email(session, game, me, email, None)


def queue_bounce_notice(*, session: Session, game_id: int, seat: Seat) -> OutboxEmail | None:
    """Tell the game's organiser, once per seat and address, that emails to the seat's address bounce."""
    game = seat_rows.get_game(session=session, game_id=game_id)
    with i18n.in_language(organiser_language(session, game)):
        body = _(
            "Emails to %(name)s (%(address)s) come back undelivered: %(detail)s\n\n"
            "Their turns wait until the deadline as usual, then the game's timeout policy applies. "
            "Give them a working address on the game's admin page; they also see the problem on their page.",
            name=seat.name,
            address=seat.email or "",
            detail=seat.bounce_detail or _("the mail server gave no reason"),
        )
        subject = _("Emails to %(name)s bounce", name=seat.name)
    key = f"bounce:{game_id}:{seat.position}:{(seat.email or '').lower()[:60]}"
    return queue_organiser_notice(session=session, game=game, subject=subject, body=body, dedupe_key=key)


class Dropped(Exception):
    """A queued email that must not be sent any more: its decision was made, or its seat has new links."""


def render_queued(
    *,
    session: Session,
    kind: str,
    game_id: int,
    seat_id: int,
    to: str,
    headers: dict[str, str],
    decision: str | None,
    what: dict[str, Any],
) -> compose.Email:
    """Render an email queued by ``_queue_unrendered`` from the game as it is now; ``Dropped`` for a turn email whose
    decision is no longer open, or for a seat whose address or links changed since (its new address gets its own)."""
    game = seat_rows.get_game(session=session, game_id=game_id)
    seats = seat_rows.seats_of(session=session, game_id=game_id)
    seat = next((s for s in seats if s.id == seat_id), None)
    if seat is None or not seat.email or seat.is_bot or compose.recipient(seat) != to:
        raise Dropped("the seat has another address or no person now")
    if headers.get("In-Reply-To") != compose.thread_root(game, seat):
        raise Dropped("the seat has new links")
    with i18n.in_language(seat.language, seat.timezone):  # the sender runs in an app context, outside any request
        return _render_for(session, kind, game, seats, seat, decision, what)


def _render_for(
    session: Session,
    kind: str,
    game: Game,
    seats: Sequence[Seat],
    seat: Seat,
    decision: str | None,
    what: dict[str, Any],
) -> compose.Email:
    """``render_queued``'s email, in the language spoken now (the seat's)."""
    rules = games.rules_of(game)
    state = games.load_state(game)
    sheets = [_milestone(m) for m in what.get("sheets") or []]
    if kind == "turn":
        open_now = games.decision_of(rules, state, seat.name)
        if open_now is None or open_now.id != decision or seat.left_at is not None:
            if sheets and seat.left_at is None:  # the turn is gone, but the sheets it carried must still arrive
                return compose.milestone_sheet(game=game, seats=seats, seat=seat, state=state, milestones=sheets)
            raise Dropped(f"decision {decision} was made")
        waited, deadline = what.get("waited"), what.get("deadline")
        return compose.turn(
            game=game,
            seats=seats,
            seat=seat,
            state=state,
            story=narrative.story(session=session, game=game, seats=seats, seat=seat),
            reminder=what.get("reminder"),
            last_reminder=bool(what.get("last_reminder")),
            waited=timedelta(seconds=waited) if waited is not None else None,
            deadline=datetime.fromisoformat(deadline) if deadline is not None else None,
            sheets=sheets,
        )
    if kind == "scores":
        milestone = _milestone(what["milestone"])
        return compose.milestone_sheet(game=game, seats=seats, seat=seat, state=state, milestones=[milestone])
    if kind == "game_over":
        record = records.as_json(records.of_game(session=session, game=game, seat_rows=list(seats)))
        return compose.game_over(game=game, seats=seats, seat=seat, state=state, record=record, sheets=sheets)
    raise ValueError(f"no email of kind {kind!r} is rendered when it is sent")


def _milestone(m: dict[str, Any]) -> Milestone:
    return Milestone(m["kind"], m["title"], m["number"], m["data"])


def organiser_language(session: Session, game: Game) -> str:
    """The language emails to the game's organiser speak: that of the admin account with the organiser's address
    (the first made, if several have it), else English."""
    if not game.organiser_email:
        return i18n.DEFAULT
    found = session.exec(
        select(AdminUser.language)
        .where(func.lower(col(AdminUser.email)) == game.organiser_email.lower())
        .order_by(col(AdminUser.id))
    ).first()
    return i18n.language(found)


def queue_organiser_notice(
    *,
    session: Session,
    game: Game,
    subject: str,
    body: str,
    dedupe_key: str | None = None,
    now: datetime | None = None,
) -> OutboxEmail | None:
    """Email the game's organiser (None when the game has none, or ``dedupe_key`` was queued before);
    ``body`` is plain text, paragraphs apart."""
    if not game.organiser_email:
        return None
    with i18n.in_language(organiser_language(session, game)):
        email = compose.organiser(game=game, to=game.organiser_email, title=subject, body=body)
    return queue_email(session, game, None, email, dedupe_key, now=now)


def untold_stuck(*, session: Session, now: datetime) -> list[tuple[Game, datetime]]:
    """The games with stuck email whose organiser has an address and was not told of this outage yet, each
    with the start of its outage (a read; ``queue_stuck_notices`` queues their notices)."""
    untold = []
    for game_id, since in outbox.stuck_games(session=session, now=now, after=outbox.stuck_after()):
        told = session.exec(
            select(OutboxEmail.id).where(
                col(OutboxEmail.game_id) == game_id,
                col(OutboxEmail.dedupe_key).like(f"{outbox.STUCK_KEY}{game_id}:%"),
                col(OutboxEmail.created_at) >= since,
            )
        ).first()
        game = session.get(Game, game_id) if told is None else None
        if game is not None and game.organiser_email:
            untold.append((game, since))
    return untold


def queue_stuck_notices(*, session: Session, now: datetime) -> int:
    """Tell each organiser whose game has stuck email (see ``outbox.stuck``) once per outage; returns how many
    notices were queued.

    An outage of a game starts with its oldest stuck email; a notice queued since then covers it, and the
    dedupe key ``stuck:{game}:{start}`` keeps two senders checking at once from queueing it twice. The notice
    goes through the same mail server, so it arrives when the server is back; games without an organiser
    address get none (the admin games list shows "mail stuck" either way).
    """
    queued = 0
    for game, since in untold_stuck(session=session, now=now):
        game_id = game.id or 0
        error = session.exec(
            select(OutboxEmail.last_error)
            .where(col(OutboxEmail.game_id) == game_id, outbox.stuck(now, outbox.stuck_after()))
            .order_by(col(OutboxEmail.created_at), col(OutboxEmail.id))
        ).first()
        hours = current_app.config["MAIL_RETRY_FOR_HOURS"]
        with i18n.in_language(organiser_language(session, game)):
            body = _(
                "Emails of this game have been waiting since %(since)s: the mail server keeps "
                "failing (last error: %(error)s).\n\n"
                "Nothing is lost. They are tried again every few minutes, for up to %(time)s after each was "
                "queued, and go out as soon as the mail server answers. This notice goes the same way: if it reaches "
                "you late, the server is back and the waiting emails have gone out with it.",
                since=i18n.when(since, "UTC"),
                error=error,
                time=i18n.duration(timedelta(hours=hours)),
            )
            title = _("Email is not going out")
        key = f"{outbox.STUCK_KEY}{game_id}:{since:%Y%m%dT%H%M%S}"
        notice = queue_organiser_notice(session=session, game=game, subject=title, body=body, dedupe_key=key, now=now)
        queued += notice is not None
    return queued


def queue_digest(
    *, session: Session, game: Game, seats: Sequence[Seat], seat: Seat, day: date, now: datetime
) -> OutboxEmail | None:
    """Queue ``seat``'s daily digest for its local ``day``: what happened since its last digest or its own last
    move, whichever is later. None when nothing happened, or the day's digest was queued before."""
    after, since, truncated = narrative.last_own_move(session, game, seat)
    digest_at = timing.utc(seat.digest_at)
    if seat.digest_seq > after and digest_at is not None:
        after, since, truncated = seat.digest_seq, max(since, digest_at), False
    last, entries, notes = narrative.happened(session, game, seats, seat, after, since)
    if not entries and not notes:
        return None
    with i18n.in_language(seat.language, seat.timezone):
        lines = games.rules_of(game).narrate(entries, seat.name, notes)
        if truncated:
            lines.insert(0, _("Earlier moves are in the log on your page."))
        email = compose.digest(game=game, seats=seats, seat=seat, lines=lines, day=day)
    row = queue_email(session, game, seat, email, f"digest:{game.id}:{seat.position}:{day.isoformat()}")
    if row is not None:
        seat.digest_seq, seat.digest_at = last, now
        session.add(seat)
    return row


def queue_email(
    session: Session,
    game: Game | None,
    seat: Seat | None,
    email: compose.Email,
    dedupe_key: str | None,
    *,
    now: datetime | None = None,
) -> OutboxEmail | None:
    return outbox.queue(
        session=session,
        kind=email.kind,
        to=email.to,
        subject=email.subject,
        text=email.text,
        html=email.html,
        game_id=game.id if game is not None else None,
        seat_id=seat.id if seat is not None else None,
        headers=email.headers,
        attachments=email.attachments,
        message_id=email.message_id,
        dedupe_key=dedupe_key,
        now=now,
    )
