"""The outbox: emails are queued in the transaction of the change that causes them, and sent later."""

from __future__ import annotations

import logging
import math
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app
from sqlalchemy import and_, func, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from .. import timing
from ..models import OutboxEmail

FORBIDDEN_IN_HEADERS = ("\r", "\n", "\0")
STUCK_KEY = "stuck:"
"""The dedupe keys of the organiser's "mail is stuck" notices start with this (``stuck:{game}:{since}``)."""

log = logging.getLogger(__name__)


class HeaderInjection(ValueError):
    """A value meant for an email header holds CR, LF or NUL (input validation should have refused it)."""


def check_header(value: str, what: str) -> str:
    """``value`` unchanged, or HeaderInjection if it could break out of its header line."""
    if any(c in value for c in FORBIDDEN_IN_HEADERS):
        raise HeaderInjection(f"{what} may not contain line breaks or NUL")
    return value


def message_domain() -> str:
    """The domain part of our Message-IDs: the configured SERVER_NAME without its port."""
    host: str = current_app.config["SERVER_NAME"]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def new_message_id() -> str:
    """A fresh, globally unique Message-ID (set by us: Flask-Mail's default calls getfqdn())."""
    return f"<{secrets.token_hex(16)}@{message_domain()}>"


def queue(
    *,
    session: Session,
    kind: str,
    to: str,
    subject: str,
    text: str,
    html: str,
    game_id: int | None = None,
    seat_id: int | None = None,
    headers: dict[str, str] | None = None,
    attachments: list[dict[str, str]] | None = None,
    message_id: str | None = None,
    dedupe_key: str | None = None,
    decision: str | None = None,
    render: dict[str, Any] | None = None,
    due: datetime | None = None,
    now: datetime | None = None,
) -> OutboxEmail | None:
    """Add one email to the outbox in the caller's transaction.

    ``attachments`` are dicts with ``filename``, ``content_type`` and ``content`` (text). With ``render`` (what to
    show), the sender renders subject and parts when it sends the email (see ``notify.render_queued``), and
    ``decision`` names the decision a turn email asks for. ``now`` replaces
    the clock for the time it is queued (and due, unless ``due`` says otherwise).
    With a ``dedupe_key`` that is already queued or sent, nothing is added and None is
    returned, also when another transaction added it at the same moment; otherwise the row as stored (with a
    ``dedupe_key``, a copy not attached to the session).
    """
    check_header(to, "a recipient")
    check_header(subject, "a subject")
    for name, value in (headers or {}).items():
        check_header(name, "a header name")
        check_header(value, f"the {name} header")
    now = now or timing.now()
    values: dict[str, Any] = {
        "kind": kind,
        "to_addr": to,
        "subject": subject,
        "text_body": text,
        "html_body": html,
        "game_id": game_id,
        "seat_id": seat_id,
        "headers": dict(headers or {}),
        "attachments": list(attachments or []),
        "message_id": message_id or new_message_id(),
        "dedupe_key": dedupe_key,
        "decision": decision,
        "render": render,
        "status": "queued",
        "attempts": 0,
        "next_attempt_at": due or now,
        "created_at": now,
    }
    if dedupe_key is None:
        row = OutboxEmail(**values)
        session.add(row)
        session.flush()
        return row
    new_id = session.execute(_insert_once(session.get_bind().dialect.name), values).scalar()
    if new_id is None:
        return None
    return OutboxEmail(id=new_id, **values)  # as stored; not attached to the session


_INSERT_ONCE: dict[str, Any] = {}


def _insert_once(dialect: str) -> Any:
    """INSERT … ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, built once per dialect."""
    if dialect not in _INSERT_ONCE:
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        table = OutboxEmail.__table__  # type: ignore[attr-defined]
        _INSERT_ONCE[dialect] = (
            insert(table).on_conflict_do_nothing(index_elements=["dedupe_key"]).returning(table.c.id)
        )
    return _INSERT_ONCE[dialect]


def as_utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime (SQLite gives naive UTC back, PostgreSQL the session's zone)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _due(now: datetime, stale_before: datetime) -> Any:
    queued = and_(col(OutboxEmail.status) == "queued", col(OutboxEmail.next_attempt_at) <= now)
    abandoned = and_(col(OutboxEmail.status) == "sending", col(OutboxEmail.claimed_at) <= stale_before)
    return or_(queued, abandoned)


def claim_due(
    *, session: Session, now: datetime, limit: int, claimer: str, stale_seconds: int | None = None
) -> list[OutboxEmail]:
    """Claim up to ``limit`` rows for ``claimer`` (status "sending") in the caller's write transaction.

    Due rows are queued ones whose ``next_attempt_at`` has come, oldest first, and rows left in
    "sending" by a sender that stopped more than ``stale_seconds`` ago (default
    MAIL_STALE_CLAIM_SECONDS). Two senders never get the same row: on PostgreSQL the candidates
    are locked with ``FOR UPDATE SKIP LOCKED``; on SQLite the write transaction (BEGIN IMMEDIATE)
    serialises claims; on both the update is conditional and only what this claimer got is returned.
    """
    if limit < 1:
        return []
    now = as_utc(now)
    stale = current_app.config["MAIL_STALE_CLAIM_SECONDS"] if stale_seconds is None else stale_seconds
    due = _due(now, now - timedelta(seconds=stale))
    order = (col(OutboxEmail.next_attempt_at), col(OutboxEmail.id))
    found = session.exec(
        select(OutboxEmail.id, OutboxEmail.status, OutboxEmail.claimed_by, OutboxEmail.message_id)
        .where(due)
        .order_by(*order)
        .limit(limit)
        .with_for_update(skip_locked=True)
    ).all()
    if not found:
        return []
    candidates = [row[0] for row in found]
    for email_id, status, previous, message_id in found:
        if status == "sending":
            log.warning(
                "outbox %s: taking over the stale claim of %s; it may have been delivered already, so this is a "
                "possible duplicate (sent again with the same Message-ID %s)",
                email_id,
                previous,
                message_id,
            )
    session.execute(
        update(OutboxEmail)
        .where(col(OutboxEmail.id).in_(candidates), due)
        .values(status="sending", claimed_by=claimer, claimed_at=now)
        .execution_options(synchronize_session=False)
    )
    claimed = select(OutboxEmail).where(
        col(OutboxEmail.id).in_(candidates),
        col(OutboxEmail.status) == "sending",
        col(OutboxEmail.claimed_by) == claimer,
    )
    return list(session.exec(claimed.order_by(*order).execution_options(populate_existing=True)).all())


def stuck_after() -> timedelta:
    """How long a failing email waits before its game counts as "mail stuck" (MAIL_STUCK_NOTICE_MINUTES)."""
    return timedelta(minutes=current_app.config["MAIL_STUCK_NOTICE_MINUTES"])


def stuck(now: datetime, after: timedelta) -> Any:
    """The condition for a stuck email at ``now``: still queued, queued more than ``after`` ago, and its last
    attempt failed (a stuck notice itself does not count)."""
    return and_(
        col(OutboxEmail.status) == "queued",
        col(OutboxEmail.attempts) > 0,
        col(OutboxEmail.last_error).is_not(None),
        col(OutboxEmail.created_at) <= as_utc(now) - after,
        or_(col(OutboxEmail.dedupe_key).is_(None), col(OutboxEmail.dedupe_key).not_like(f"{STUCK_KEY}%")),
    )


def stuck_games(*, session: Session, now: datetime, after: timedelta) -> list[tuple[int, datetime]]:
    """Each game with stuck email at ``now`` and since when: the oldest stuck email's time of queueing."""
    query = (
        select(OutboxEmail.game_id, func.min(OutboxEmail.created_at))
        .where(stuck(now, after), col(OutboxEmail.game_id).is_not(None))
        .group_by(col(OutboxEmail.game_id))
        .order_by(col(OutboxEmail.game_id))
    )
    return [(game_id, as_utc(since)) for game_id, since in session.exec(query).all() if game_id is not None]


@dataclass(frozen=True)
class MailboxPage:
    """One page of the development mailbox: the emails (newest first) and where the page is."""

    emails: list[OutboxEmail]
    page: int
    pages: int
    total: int
    to: str | None


def mailbox_page(*, session: Session, to: str | None = None, page: int = 1, per_page: int = 25) -> MailboxPage:
    """The outbox, newest first, every status; only emails to ``to`` (any case) when given: the recipient as
    written (``Ann <ann@example.com>``) or the bare address."""
    query = select(OutboxEmail)
    counting = select(func.count()).select_from(OutboxEmail)
    if to:
        bare = to.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        recipient = func.lower(col(OutboxEmail.to_addr))
        wanted = or_(recipient == to.lower(), recipient.like(f"%<{bare}>", escape="\\"))
        query, counting = query.where(wanted), counting.where(wanted)
    total = int(session.exec(counting).one())
    pages = max(1, math.ceil(total / per_page))
    rows = session.exec(query.order_by(col(OutboxEmail.id).desc()).offset((page - 1) * per_page).limit(per_page))
    return MailboxPage(list(rows.all()), page, pages, total, to)


def recipients(*, session: Session, limit: int = 100) -> list[tuple[str, int]]:
    """The addresses in the outbox with how many emails each has, most recent first."""
    query = (
        select(OutboxEmail.to_addr, func.count(), func.max(OutboxEmail.id))
        .group_by(col(OutboxEmail.to_addr))
        .order_by(func.max(OutboxEmail.id).desc())
        .limit(limit)
    )
    return [(addr, int(count)) for addr, count, _last in session.exec(query).all()]


def get_email(*, session: Session, email_id: int) -> OutboxEmail | None:
    """One outbox row, or None (also for ids no row can have)."""
    if not 1 <= email_id <= 2**31 - 1:
        return None
    return session.get(OutboxEmail, email_id)
