"""When email is queued: always in the transaction of the change that causes it.

``after_create`` and ``after_move`` are called by pbem.games and decide what follows a
change (invitations, a turn email when the seat to act changes, milestone sheets, the
game-over email); the scheduler and the admin page call ``queue_turn_email``,
``queue_organiser_notice``, ``queue_invitation`` and ``queue_digest``; the settings page calls
``settings_seat``, ``set_email_choices``, ``set_reminders`` and ``request_fresh_link``. Bots, seats
without an email address and seats that left get nothing.

A seat that folds its score sheets gets no milestone email: the sheet waits on the seat
(``Seat.pending_sheets``) and the next turn or game-over email queued for it carries it (a turn email
that is no longer needed when it is sent goes out as the sheet alone), so each sheet arrives once.

Emails about the game as it stands (turn, milestone, game over) are queued as what must be sent (kind, game,
seat, decision, what to show), not rendered: the sender calls ``render_queued`` when it sends them, which
renders them from the game as it is then, or drops a turn email whose decision was made meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any

import sqlalchemy as sa
from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import bindparam, func
from sqlmodel import Session, col, select

from engine.protocol import LogEntry, Milestone, Note

from .. import audit, games, i18n, links, talk, timing, waits
from ..models import AdminUser, Game, MoveRecord, OutboxEmail, Seat, utcnow
from . import compose, outbox

STORY_MOVES = 200
"""The narrative of a turn email reads at most this many of the latest moves."""
STORY_FIRST_LOOK = 24
OWN_SOURCES = ("link", "page")
_RECENT = (
    sa.select(
        col(MoveRecord.seq),
        col(MoveRecord.seat),
        col(MoveRecord.source),
        col(MoveRecord.move),
        col(MoveRecord.created_at),
    )
    .where(col(MoveRecord.game_id) == bindparam("game_id"))
    .order_by(col(MoveRecord.seq).desc())
    .limit(bindparam("limit"))
)
_SINCE = (
    sa.select(
        col(MoveRecord.seq),
        col(MoveRecord.seat),
        col(MoveRecord.source),
        col(MoveRecord.events),
        col(MoveRecord.created_at),
    )
    .where(col(MoveRecord.game_id) == bindparam("game_id"), col(MoveRecord.seq) > bindparam("after"))
    .order_by(col(MoveRecord.seq))
)
FRESH_LINK_LIMITS = ((timedelta(minutes=10), 1), (timedelta(days=1), 5))
LOST_LINKS_LIMITS = ((timedelta(minutes=10), 1), (timedelta(days=1), 3))
"""At most 1 "your links" email per address in 10 minutes and 3 in a day."""
LOST_LINKS_GAMES = 20
"""At most 1 fresh-link email per seat in 10 minutes and 5 in a day."""
SCORE_SHEETS = ("separate", "folded")
"""A seat's score sheets: each as its own email, or folded into its next turn (or game-over) email."""
DIGESTS = ("none", "daily")
"""A seat's digest: none, or a daily email of what happened while it was not its turn."""
DIGEST_AT = time(8, 0)
"""The local time of day a daily digest is due (moved past the seat's quiet hours)."""


class Refused(Exception):
    """A settings or fresh-link request refused; ``status`` is the HTTP status its page answers with."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SeatGone(Refused):
    """The settings link's seat has new links now (its nonce was rotated, or the player left)."""

    status = 410


class TooManyRequests(Refused):
    """A fresh link was asked for too often."""

    status = 429


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


def queue_invitation(*, session: Session, game: Game, seats: Sequence[Seat], seat: Seat) -> OutboxEmail | None:
    """Invite ``seat`` (the game, the players, the options, the personal link, the seed's commitment).

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
    with i18n.in_language(seat.language):
        email = compose.invitation(game=game, seats=seats, seat=seat, state=state, root=known is None)
    return _queue(session, game, seat, email, None)


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
        headers=compose.seat_headers(game, seat, root=False),
        dedupe_key=dedupe_key,
        decision=decision,
        render=what,
    )


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
    game = games.get_game(session=session, game_id=game_id)
    seats = games.seats_of(session=session, game_id=game_id)
    seat = next((s for s in seats if s.id == seat_id), None)
    if seat is None or not seat.email or seat.is_bot or compose.recipient(seat) != to:
        raise Dropped("the seat has another address or no person now")
    if headers.get("In-Reply-To") != compose.thread_root(game, seat):
        raise Dropped("the seat has new links")
    with i18n.in_language(seat.language):  # the sender runs in an app context, outside any request
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
    game_id = game.id or 0
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
            story=story(session=session, game=game, seats=seats, seat=seat),
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
        logged = [(r.seat, r.move) for r in games.move_log(session=session, game_id=game_id)]
        record = compose.record_json(game, seats, logged)
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
    return _queue(session, game, None, email, dedupe_key, now=now)


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
                "Emails of this game have been waiting since %(since)s UTC: the mail server keeps "
                "failing (last error: %(error)s).\n\n"
                "Nothing is lost. They are tried again every few minutes, for up to %(hours)s hours after each was "
                "queued, and go out as soon as the mail server answers. This notice goes the same way: if it reaches "
                "you late, the server is back and the waiting emails have gone out with it.",
                since=f"{since:%Y-%m-%d %H:%M}",
                error=error,
                hours=hours,
            )
            title = _("Email is not going out")
        key = f"{outbox.STUCK_KEY}{game_id}:{since:%Y%m%dT%H%M%S}"
        notice = queue_organiser_notice(session=session, game=game, subject=title, body=body, dedupe_key=key, now=now)
        queued += notice is not None
    return queued


def story(*, session: Session, game: Game, seats: Sequence[Seat], seat: Seat) -> list[str]:
    """What happened since ``seat``'s last own move (not a standing one), in plain words as that seat may read it,
    with the server's notes (who left, the organiser's actions, table talk) in their place by time."""
    after, since, truncated = _last_own_move(session, game, seat)
    _last, entries, notes = _happened(session, game, seats, seat, after, since)
    lines = games.rules_of(game).narrate(entries, seat.name, notes)
    if truncated:
        lines.insert(0, _("Earlier moves are in the log on your page."))
    return lines


def _last_own_move(session: Session, game: Game, seat: Seat) -> tuple[int, datetime, bool]:
    """The sequence number and time of ``seat``'s last own move (0 and the game's start if none), and whether it
    lies before the moves read (only the latest STORY_MOVES are)."""
    rules = games.rules_of(game)
    for limit in (min(STORY_FIRST_LOOK, STORY_MOVES), STORY_MOVES):  # its last move is nearly always near
        recent = session.execute(_RECENT, {"game_id": game.id, "limit": limit}).all()
        after, since = (recent[-1].seq - 1 if recent else 0), outbox.as_utc(game.created_at)
        truncated = after > 0  # the seat made no move of its own in the window, which does not reach the start
        for row in recent:
            own = row.seat == seat.position and row.source in OWN_SOURCES
            if own and not rules.is_standing(rules.parse_move(seat.name, row.move)):
                after, since, truncated = row.seq, outbox.as_utc(row.created_at), False
                break
        if not truncated or len(recent) < limit:
            break
    return after, since, truncated


def _happened(
    session: Session, game: Game, seats: Sequence[Seat], seat: Seat, after: int, since: datetime
) -> tuple[int, list[LogEntry], list[Note]]:
    """The moves logged after move ``after`` and the notes since ``since`` that ``seat`` may read, with the
    sequence number of the last move read (``after`` if none)."""
    names = {s.position: s.name for s in seats}
    last, entries = after, []
    for r in session.execute(_SINCE, {"game_id": game.id, "after": after}):
        last = r.seq
        entries.append(LogEntry(names[r.seat], r.source, r.events, outbox.as_utc(r.created_at)))
    notes: list[Note] = [
        (outbox.as_utc(s.left_at), _("%(name)s left the game; a bot plays for them from now on.", name=s.name))
        for s in seats
        if s.left_at is not None and s.id != seat.id and outbox.as_utc(s.left_at) > since
    ]
    notices = audit.actions_since(session=session, game_id=game.id or 0, since=since)
    notes += [(outbox.as_utc(n.at), n.text) for n in notices if n.seat in (None, seat.position)]
    notes += [
        (m.at, _("%(name)s said: “%(text)s”", name=m.name, text=m.text))
        for m in talk.said(session=session, game_id=game.id or 0, names=names, since=since)
        if m.name != seat.name
    ]
    return last, entries, notes


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


def queue_digest(
    *, session: Session, game: Game, seats: Sequence[Seat], seat: Seat, day: date, now: datetime
) -> OutboxEmail | None:
    """Queue ``seat``'s daily digest for its local ``day``: what happened since its last digest or its own last
    move, whichever is later. None when nothing happened, or the day's digest was queued before."""
    after, since, truncated = _last_own_move(session, game, seat)
    digest_at = timing.utc(seat.digest_at)
    if seat.digest_seq > after and digest_at is not None:
        after, since, truncated = seat.digest_seq, max(since, digest_at), False
    last, entries, notes = _happened(session, game, seats, seat, after, since)
    if not entries and not notes:
        return None
    with i18n.in_language(seat.language):
        lines = games.rules_of(game).narrate(entries, seat.name, notes)
        if truncated:
            lines.insert(0, _("Earlier moves are in the log on your page."))
        email = compose.digest(game=game, seats=seats, seat=seat, lines=lines, day=day)
    row = _queue(session, game, seat, email, f"digest:{game.id}:{seat.position}:{day.isoformat()}")
    if row is not None:
        seat.digest_seq, seat.digest_at = last, now
        session.add(seat)
    return row


def _queue(
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


def settings_seat(*, session: Session, token: str) -> tuple[Game, list[Seat], Seat]:
    """The game and seat of a settings token; raise LinkInvalid, LinkExpired, GameNotFound or SeatGone."""
    link = links.read_settings(token)
    try:
        return games.find_seat(session=session, link=link)
    except games.LinkRevoked:
        raise SeatGone(
            _("This settings link no longer works: the seat has newer links, or its player left the game.")
        ) from None


def set_reminders(*, session: Session, token: str, on: bool) -> Seat:
    """Turn the settings token's seat's reminders on or off."""
    _game, _seats, seat = settings_seat(session=session, token=token)
    seat.reminders = on
    session.add(seat)
    session.flush()
    return seat


def set_email_choices(
    *, session: Session, token: str, reminders: bool, score_sheets: str, digest: str, now: datetime
) -> Seat:
    """Store the settings token's seat's email choices (Refused for a value not offered); a daily digest is
    first due at the next DIGEST_AT on the seat's clock."""
    if score_sheets not in SCORE_SHEETS or digest not in DIGESTS:
        raise Refused(_("The form offered choices that are not known here. Reload the page and choose again."))
    _game, _seats, seat = settings_seat(session=session, token=token)
    seat.reminders = reminders
    seat.score_sheets = score_sheets
    if digest != seat.digest:
        seat.digest = digest
        seat.next_digest_at = next_digest_at(seat, now) if digest == "daily" else None
    session.add(seat)
    session.flush()
    return seat


def set_language(*, session: Session, seat: Seat, language: str) -> Seat:
    """Store the language the seat's pages and emails speak from now on (Refused for one not offered); the next
    email to the seat is rendered in it, also one queued before (the sender renders it when it sends it)."""
    if language not in i18n.SUPPORTED:
        raise Refused(_("Choose one of the languages offered: %(choices)s.", choices=", ".join(i18n.SUPPORTED)))
    seat.language = language
    session.add(seat)
    session.flush()
    return seat


def request_fresh_link(*, session: Session, token: str, now: datetime | None = None) -> OutboxEmail | None:
    """Mail a seat its current personal link, to the address it has on file, for a genuine but expired token.

    The token's signature is checked, not its age; a forged or revoked token raises LinkInvalid.
    Returns None (nothing sent) for a seat without an email address; raises TooManyRequests past
    FRESH_LINK_LIMITS, counted from the seat's fresh-link emails in the outbox.
    """
    now = now or utcnow()
    link = links.read_any_age(token)
    seat = session.exec(
        select(Seat).where(Seat.game_id == link.game_id, Seat.position == link.seat).with_for_update()
    ).first()
    if seat is None or link.nonce_tag != links.nonce_tag(seat.nonce):
        raise links.LinkInvalid
    if not reachable(seat):
        return None
    if _sent_too_often(
        session, FRESH_LINK_LIMITS, now, OutboxEmail.kind == "fresh_link", OutboxEmail.seat_id == seat.id
    ):
        raise TooManyRequests("A fresh link was sent to this seat a short while ago. Please try again later.")
    game = games.get_game(session=session, game_id=link.game_id)
    seats = games.seats_of(session=session, game_id=link.game_id)
    with i18n.in_language(seat.language):
        email = compose.fresh_link(game=game, seats=seats, seat=seat)
    row = _queue(session, game, seat, email, None)
    if row is not None:
        row.created_at = now
        session.add(row)
        session.flush()
    return row


def send_lost_links(*, session: Session, address: str, now: datetime | None = None) -> OutboxEmail | None:
    """Email ``address`` the current links of every game it plays (the newest LOST_LINKS_GAMES), if it plays any.

    ``address`` is checked (ServiceError if it is not one). Nothing is queued for an address that plays in no
    game, nor past LOST_LINKS_LIMITS: the caller answers the same either way, so nobody learns who plays here.
    """
    now = now or utcnow()
    address = games.check_email(address, "the address")
    seats = list(
        session.exec(
            select(Seat)
            .join(Game, col(Game.id) == col(Seat.game_id))
            .where(func.lower(col(Seat.email)) == address.lower(), col(Seat.left_at).is_(None))
            .where(col(Seat.kind) == "human")
            .order_by(col(Game.id).desc())
            .limit(LOST_LINKS_GAMES)
        )
    )
    if not seats:
        return None
    to_address = func.lower(col(OutboxEmail.to_addr)) == address.lower()
    if _sent_too_often(session, LOST_LINKS_LIMITS, now, OutboxEmail.kind == "lost_links", to_address):
        return None
    entries = [(games.get_game(session=session, game_id=seat.game_id), seat) for seat in seats]
    return _queue(session, None, None, compose.lost_links(to=address, entries=entries), None, now=now)


def _sent_too_often(session: Session, limits: Sequence[tuple[timedelta, int]], now: datetime, *which: Any) -> bool:
    """True if the outbox holds ``most`` emails matching ``which`` in the last ``window``, for any of ``limits``."""
    for window, most in limits:
        recent = select(func.count()).select_from(OutboxEmail).where(*which, col(OutboxEmail.created_at) > now - window)
        if session.exec(recent).one() >= most:
            return True
    return False
