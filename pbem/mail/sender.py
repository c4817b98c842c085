"""The sender: claims due outbox rows and delivers them over SMTP, or to the development mailbox."""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import secrets
import smtplib
import socket
import ssl
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, formataddr, parseaddr
from pathlib import Path
from typing import Any, cast

import dkim  # type: ignore[import-untyped]
from flask import current_app
from flask_mail import Connection, Mail
from sqlalchemy import CursorResult, Engine, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col

from .. import db, timing
from ..core import games, links
from ..core.errors import ServiceError
from ..models import Game, OutboxEmail, Seat
from . import notify
from .outbox import HeaderInjection, as_utc, check_header, claim_due, message_domain

log = logging.getLogger(__name__)

mail = Mail()
"""Flask-Mail, holding the MAIL_* SMTP settings (``mail.init_app(app)`` in create_app)."""


class _Headers(HeaderRegistry):
    """The email package's header registry, but each header class made once: the standard one builds a new class
    with ``type()`` for every header it parses (some 25 per email), a quarter of the time an email takes to build."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        key = name.lower()
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = super().__getitem__(name)
        return found


# Extra headers we set from plain ASCII values are written as they are: the default folding would turn a
# long List-Unsubscribe URL into RFC 2047 encoded words, which mail clients do not read as a URL.
POLICY = SMTP.clone(refold_source="none", header_factory=_Headers())
LONGEST_LINE = 998
HEADER_NAME = re.compile(r"[!-9;-~]{1,76}")
MESSAGE_ID = re.compile(r"<[^<>@\s]+@[^<>@\s]+>")
MIME_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")
SET_BY_SENDER = frozenset(
    {"from", "to", "cc", "bcc", "subject", "date", "message-id", "mime-version", "sender", "return-path"}
)


class Undeliverable(Exception):
    """The row cannot become a valid message: a permanent failure, the row is dead."""


@dataclass(frozen=True)
class Outgoing:
    """What the sender needs of one claimed row (read inside the claim's transaction)."""

    id: int
    to: str
    subject: str
    text: str
    html: str
    headers: dict[str, str]
    attachments: list[dict[str, str]]
    message_id: str
    attempts: int
    created_at: datetime
    kind: str = ""
    game_id: int | None = None
    seat_id: int | None = None
    decision: str | None = None
    render: dict[str, Any] | None = None
    """What to show, for an email the sender renders (see ``notify.render_queued``); None: stored rendered."""
    rendered: bool = False
    """True once this pass rendered it: its subject, parts and attachments are stored with its result."""

    @classmethod
    def of(cls, row: OutboxEmail) -> Outgoing:
        """The row's fields, detached from its session."""
        return cls(
            id=row.id or 0,
            to=row.to_addr,
            subject=row.subject,
            text=row.text_body,
            html=row.html_body,
            headers=dict(row.headers or {}),
            attachments=list(row.attachments or []),
            message_id=row.message_id,
            attempts=row.attempts,
            created_at=as_utc(row.created_at),
            kind=row.kind,
            game_id=row.game_id,
            seat_id=row.seat_id,
            decision=row.decision,
            render=dict(row.render) if row.render is not None else None,
        )


@dataclass(frozen=True)
class Prepared:
    """A message ready for SMTP: its MIME form, its bytes, and its envelope."""

    message: EmailMessage
    data: bytes
    envelope_from: str
    recipient: str


@dataclass
class SendReport:
    """What one pass did: rows claimed, and of those sent, retried later, dead, released unsent, or dropped (a turn
    email whose decision was made before it went out); how many waiting emails were made due at once because the
    server answered again, and stuck notices queued."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0
    dead: int = 0
    released: int = 0
    dropped: int = 0
    resumed: int = 0
    stuck_notices: int = 0
    unreachable: bool = False
    """The server could not be reached or the connection was lost (or the claim ran late): no next batch now."""

    def add(self, other: SendReport) -> None:
        """Count ``other``'s figures in too."""
        for name in ("claimed", "sent", "retried", "dead", "released", "dropped", "resumed", "stuck_notices"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.unreachable = self.unreachable or other.unreachable

    def __str__(self) -> str:
        text = f"claimed {self.claimed}: sent {self.sent}, retried {self.retried}, dead {self.dead}"
        text += f", released {self.released}" if self.released else ""
        text += f", dropped {self.dropped}" if self.dropped else ""
        text += f", {self.resumed} waiting made due" if self.resumed else ""
        return text + (f", {self.stuck_notices} stuck notice(s)" if self.stuck_notices else "")


def retry_delay(attempts: int, *, base: int, cap: int) -> int:
    """Seconds to wait after the ``attempts``-th failed attempt: base, 2×base, 4×base, … at most ``cap``."""
    return int(min(cap, base * 2 ** min(max(attempts - 1, 0), 40)))


def _one_address(message: EmailMessage, name: str, value: str) -> str:
    """Set the address header ``name`` and return its address; Undeliverable unless it is exactly one."""
    message[name] = value
    header: Any = message[name]
    addresses: Any = getattr(header, "addresses", ())
    if len(addresses) != 1 or header.defects or not addresses[0].username or not addresses[0].domain:
        raise Undeliverable(f"{name} {value!r} is not one email address")
    address: str = addresses[0].addr_spec
    if not address.isascii():
        raise Undeliverable(f"{name} {value!r}: addresses with non-ASCII characters are not supported")
    return address


def _add_header(message: EmailMessage, name: str, value: str, seen: set[str]) -> None:
    if not HEADER_NAME.fullmatch(name):
        raise Undeliverable(f"{name!r} is not a header name")
    lower = name.lower()
    if lower in SET_BY_SENDER or lower.startswith("content-") or lower in seen:
        raise Undeliverable(f"the {name} header is set by the sender, or given twice")
    seen.add(lower)
    if value.isascii() and len(name) + 2 + len(value) <= LONGEST_LINE:
        message.set_raw(name, value)
    else:
        message[name] = value


def _attach(message: EmailMessage, item: Any) -> None:
    if not isinstance(item, dict) or not isinstance(item.get("content", ""), str):
        raise Undeliverable("an attachment is not {filename, content_type, content (text)}")
    filename = check_header(str(item.get("filename") or "attachment"), "an attachment's file name")
    content_type = str(item.get("content_type") or "").lower()
    if not MIME_TYPE.fullmatch(content_type) or content_type.split("/")[0] in ("multipart", "message"):
        content_type = "application/octet-stream"
    maintype, subtype = content_type.split("/")
    params = {"charset": "utf-8"} if maintype == "text" else {}
    content: str = item.get("content", "")
    message.add_attachment(content.encode(), maintype, subtype, filename=filename, params=params)


@dataclass(frozen=True)
class Signing:
    """What signs outgoing mail: the DKIM private key (PEM bytes), its selector and domain (``MAIL_DKIM_*``)."""

    key: bytes
    selector: str
    domain: str


DKIM_HEADERS = (
    b"from",
    b"to",
    b"subject",
    b"date",
    b"message-id",
    b"reply-to",
    b"in-reply-to",
    b"references",
    b"list-id",
    b"list-unsubscribe",
    b"list-unsubscribe-post",
    b"auto-submitted",
    b"mime-version",
    b"content-type",
)
"""The headers DKIM signs, listed explicitly (one-click unsubscribe included, RFC 8058)."""


def signing(cfg: Any) -> Signing | None:
    """The DKIM settings, or None when MAIL_DKIM_KEY is not set (a PEM text, or the path of a PEM file)."""
    key: str = cfg.get("MAIL_DKIM_KEY") or ""
    if not key:
        return None
    data = key.encode() if "-----BEGIN" in key else Path(key).read_bytes()
    return Signing(data, cfg["MAIL_DKIM_SELECTOR"], cfg["MAIL_DKIM_DOMAIN"])


def sender_for(sender: str, name: str) -> str:
    """MAIL_DEFAULT_SENDER's address with ``name`` as its display name (the game's or the site's)."""
    address = parseaddr(sender)[1]
    return formataddr((name, address)) if name and address else sender


def build_message(
    email: Outgoing,
    *,
    sender: str,
    date: datetime,
    return_path: str | None = None,
    list_id: str | None = None,
    dkim_signing: Signing | None = None,
) -> Prepared:
    """The message for ``email``: multipart/alternative (text, then HTML), inside multipart/mixed when there
    are attachments; non-ASCII subject and names as RFC 2047 UTF-8; the row's Message-ID and extra headers,
    ``List-Id`` (a game's), ``Auto-Submitted: auto-generated``, and a DKIM signature when ``dkim_signing`` is
    given. ``return_path``: the envelope sender (a VERP address), by default the From address.

    Every header value is checked again for line breaks. Raises Undeliverable if the row cannot be sent.
    """
    try:
        check_header(sender, "the sender")
        check_header(email.to, "the recipient")
        check_header(email.subject, "the subject")
        for name, value in email.headers.items():
            check_header(name, "a header name")
            check_header(value, f"the {name} header")
        if not MESSAGE_ID.fullmatch(check_header(email.message_id, "the Message-ID")):
            raise Undeliverable(f"{email.message_id!r} is not a Message-ID")
        message = EmailMessage(policy=POLICY)
        envelope_from = _one_address(message, "From", sender)
        recipient = _one_address(message, "To", email.to)
        message["Subject"] = email.subject
        message["Date"] = format_datetime(as_utc(date))
        message.set_raw("Message-ID", email.message_id)
        seen: set[str] = set()
        for name, value in email.headers.items():
            _add_header(message, name, value, seen)
        if list_id and "list-id" not in seen:
            message.set_raw("List-Id", check_header(list_id, "List-Id"))
        if "auto-submitted" not in seen:
            message.set_raw("Auto-Submitted", "auto-generated")
        message.set_content(email.text, cte="quoted-printable")
        message.add_alternative(email.html, subtype="html", cte="quoted-printable")
        for item in email.attachments:
            _attach(message, item)
        data = message.as_bytes()
        if dkim_signing is not None:
            signature = dkim.sign(
                data,
                dkim_signing.selector.encode(),
                dkim_signing.domain.encode(),
                dkim_signing.key,
                include_headers=[h for h in DKIM_HEADERS if message.get(h.decode()) is not None],
            )
            data = signature + data
    except Undeliverable:
        raise
    except HeaderInjection as exc:
        raise Undeliverable(str(exc)) from None
    except Exception as exc:  # the input is stored data: whatever the email library refuses, it refuses every time
        raise Undeliverable(f"the message could not be built: {type(exc).__name__}: {exc}") from None
    return Prepared(message, data, return_path or envelope_from, recipient)


class _Connection(Connection):
    """Flask-Mail's SMTP connection with a socket timeout on every operation and a fixed EHLO name
    (smtplib would otherwise ask socket.getfqdn(), which can take seconds)."""

    def __init__(self, state: Any, timeout: float, local_hostname: str) -> None:
        super().__init__(state)
        self.timeout = timeout
        self.local_hostname = local_hostname

    def configure_host(self) -> smtplib.SMTP:
        settings = self.mail
        context = ssl.create_default_context()
        host: smtplib.SMTP
        if settings.use_ssl:
            host = smtplib.SMTP_SSL(
                settings.server, settings.port, self.local_hostname, timeout=self.timeout, context=context
            )
        else:
            host = smtplib.SMTP(settings.server, settings.port, self.local_hostname, timeout=self.timeout)
        try:
            host.ehlo_or_helo_if_needed()
            if settings.use_tls:
                host.starttls(context=context)
                host.ehlo()
            if settings.username and settings.password:
                host.login(settings.username, settings.password)
        except BaseException:
            host.close()
            raise
        return host


def _ehlo_name() -> str:
    name = message_domain()
    try:
        ip = ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return name
    return f"[{ip}]" if ip.version == 4 else f"[IPv6:{ip}]"


def _reply(code: int, text: bytes | str) -> str:
    words = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return f"{code} {words}".strip()


CONNECTING = "connecting to "
"""The last error of emails that waited because the server did not answer at all (made due when it does)."""
MARK_SENT_PAUSE = (0.05, 2.0)
"""The first and the longest pause between tries to record "sent" (seconds, doubling)."""


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:1000]


class _Batch:
    """One claimed batch: delivers it and records each row's result in its own small transaction."""

    def __init__(self, engine: Engine, claimer: str, now: datetime | None, report: SendReport) -> None:
        cfg = current_app.config
        self.engine = engine
        self.claimer = claimer
        self.now = now
        self.report = report
        self.sender: str = cfg["MAIL_DEFAULT_SENDER"]
        self.site_name: str = cfg["SITE_NAME"] or parseaddr(self.sender)[0]
        self.bounce_base: str = cfg["MAIL_BOUNCE_ADDRESS"]
        self.signing = signing(cfg)
        self.retry_for = timedelta(hours=cfg["MAIL_RETRY_FOR_HOURS"])
        self.base: int = cfg["MAIL_RETRY_BASE_SECONDS"]
        self.cap: int = cfg["MAIL_RETRY_MAX_SECONDS"]
        self.stale: int = cfg["MAIL_STALE_CLAIM_SECONDS"]
        self.renewed = time.monotonic()
        """When the claim was last made or renewed (``_Renewal``): the deadlines count from it."""

    @property
    def deadline(self) -> float:
        """Past half the stale time since the claim was last renewed, start nothing new: another sender may take
        the claim over at the full time."""
        return self.renewed + self.stale / 2

    @property
    def record_deadline(self) -> float:
        """Recording "sent" is tried again until this, well before the claim could look stale."""
        return self.renewed + self.stale * 0.9

    def _stamp(self) -> datetime:
        return self.now if self.now is not None else timing.now()

    def _record(self, email: Outgoing, **values: Any) -> None:
        if email.rendered and values.get("status") != "dropped":  # what was (or would have been) sent
            values |= {
                "subject": email.subject,
                "text_body": email.text,
                "html_body": email.html,
                "attachments": email.attachments,
            }
        with db.write_session(self.engine) as session:
            result = session.execute(
                update(OutboxEmail)
                .where(
                    col(OutboxEmail.id) == email.id,
                    col(OutboxEmail.status) == "sending",
                    col(OutboxEmail.claimed_by) == self.claimer,
                )
                .values(**values)
            )
        if cast(CursorResult[Any], result).rowcount != 1:
            # Ids and the status only: the values hold the whole email (its links and the reader's hand).
            log.warning(
                "outbox %s: the claim was lost before its result (%s) was recorded", email.id, values.get("status")
            )

    def sent(self, email: Outgoing) -> None:
        """Record a delivered row; the server has it, so a database error (SQLite locked, PostgreSQL restarting)
        is tried again with short pauses until it is recorded, while the claim still holds: a row left in
        "sending" would be taken over and delivered twice."""
        values = {"status": "sent", "sent_at": self._stamp(), "attempts": email.attempts + 1, "last_error": None}
        pause, longest = MARK_SENT_PAUSE
        tries = 1
        while True:
            try:
                self._record(email, **values)
                break
            except SQLAlchemyError as exc:
                if time.monotonic() + pause > self.record_deadline:
                    log.error(
                        "outbox %s was delivered but could not be marked sent in %s tries; once its claim is stale "
                        "it may be sent again (a possible duplicate, same Message-ID %s)",
                        email.id,
                        tries,
                        email.message_id,
                    )
                    raise
                if tries == 1:
                    log.warning("outbox %s was delivered; marking it sent failed, trying again: %s", email.id, exc)
            time.sleep(pause)
            pause, tries = min(pause * 2, longest), tries + 1
        if tries > 1:
            log.info("outbox %s marked sent after %s tries", email.id, tries)
        self.report.sent += 1

    def failed(self, email: Outgoing, error: str, *, permanent: bool) -> None:
        """Record a failed try: dead if ``permanent`` or retried long enough, else due again after a backoff."""
        attempts = email.attempts + 1
        if permanent or self._stamp() >= email.created_at + self.retry_for:
            self._record(email, status="dead", attempts=attempts, last_error=error)
            self.report.dead += 1
            why = "" if permanent else f", still failing {self.retry_for} after it was queued"
            log.warning("outbox %s is dead after %s attempt(s)%s: %s", email.id, attempts, why, error)
            return
        due = self._stamp() + timedelta(seconds=retry_delay(attempts, base=self.base, cap=self.cap))
        self._record(email, status="queued", attempts=attempts, next_attempt_at=due, last_error=error)
        self.report.retried += 1

    def resume_waiting(self) -> None:
        """The server answers: emails waiting because it did not are due at once (the next pass sends them)."""
        now = self._stamp()
        with db.write_session(self.engine) as session:
            result = session.execute(
                update(OutboxEmail)
                .where(
                    col(OutboxEmail.status) == "queued",
                    col(OutboxEmail.next_attempt_at) > now,
                    col(OutboxEmail.last_error).startswith(CONNECTING, autoescape=True),
                )
                .values(next_attempt_at=now)
                .execution_options(synchronize_session=False)
            )
        self.report.resumed += cast(CursorResult[Any], result).rowcount

    def release(self, email: Outgoing) -> None:
        self._record(email, status="queued")
        self.report.released += 1

    def render(self, email: Outgoing) -> Outgoing | None:
        """The email with its subject and parts rendered from the game as it is now (as it is, if it was stored
        rendered); None if it was dropped or failed (recorded)."""
        if email.render is None:
            return email

        try:
            with Session(self.engine) as session:
                rendered = notify.render_queued(
                    session=session,
                    kind=email.kind,
                    game_id=email.game_id or 0,
                    seat_id=email.seat_id or 0,
                    to=email.to,
                    headers=email.headers,
                    decision=email.decision,
                    what=email.render,
                )
        except notify.Dropped as exc:
            self._record(email, status="dropped", last_error=f"dropped: {exc}")
            self.report.dropped += 1
            return None
        except SQLAlchemyError as exc:  # the database, not the email: tried again later
            log.warning("outbox %s could not be rendered: %s", email.id, exc)
            self.failed(email, f"rendering: {_describe(exc)}", permanent=False)
            return None
        except Exception as exc:  # the game cannot be shown (gone, or a bug): it fails the same way every time
            log.exception("outbox %s could not be rendered", email.id)
            self.failed(email, f"the email could not be rendered: {_describe(exc)}", permanent=True)
            return None
        return replace(
            email,
            subject=rendered.subject,
            text=rendered.text,
            html=rendered.html,
            attachments=rendered.attachments,
            rendered=True,
        )

    def prepare(self, batch: list[Outgoing]) -> list[tuple[Outgoing, Prepared]]:
        ready = []
        envelopes = self.envelopes(batch)
        for claimed in batch:
            email = self.render(claimed)
            if email is None:
                continue
            name, list_id, return_path = envelopes.get(claimed.id, (self.site_name, None, None))
            try:
                message = build_message(
                    email,
                    sender=sender_for(self.sender, name),
                    date=self._stamp(),
                    return_path=return_path,
                    list_id=list_id,
                    dkim_signing=self.signing,
                )
                ready.append((email, message))
            except Undeliverable as exc:
                self.failed(email, str(exc), permanent=True)
        return ready

    def envelopes(self, batch: list[Outgoing]) -> dict[int, tuple[str, str | None, str | None]]:
        """For each email about a game: the sender's name (the game's title), its List-Id, and for an email to a
        seat its VERP return path (when MAIL_BOUNCE_ADDRESS is set)."""
        game_ids = {e.game_id for e in batch if e.game_id}
        if not game_ids:
            return {}
        seat_ids = {e.seat_id for e in batch if e.seat_id}
        with Session(self.engine) as session:
            found = session.execute(select(col(Game.id), col(Game.game)).where(col(Game.id).in_(game_ids)))
            keys: dict[int, str] = {r[0]: r[1] for r in found}
            seats = {
                r[0]: (r[1], r[2], r[3])
                for r in session.execute(
                    select(col(Seat.id), col(Seat.game_id), col(Seat.position), col(Seat.nonce)).where(
                        col(Seat.id).in_(seat_ids)
                    )
                )
            }
        out: dict[int, tuple[str, str | None, str | None]] = {}
        domain = message_domain()
        for email in batch:
            if not email.game_id or email.game_id not in keys:
                continue
            key = keys[email.game_id]
            try:
                title = games.rules_of(key).title
            except ServiceError:
                title = self.site_name
            return_path = None
            if self.bounce_base and email.seat_id in seats:
                game_id, position, nonce = seats[email.seat_id]
                token = links.reply_token(game_id, position, nonce, None, purpose=links.BOUNCE)
                return_path = links.tagged_address(self.bounce_base, token)
            out[email.id] = (title, f"<game-{email.game_id}.{domain}>", return_path)
        return out

    def to_mailbox(self, batch: list[Outgoing]) -> None:
        for email, _prepared in self.prepare(batch):
            self.sent(email)

    def over_smtp(self, batch: list[Outgoing], courier: Courier) -> None:
        ready = self.prepare(batch)
        if not ready:
            return
        fresh = courier.host is None
        try:
            host = courier.connection()
        except Exception as exc:  # refused, timed out, TLS or login failed: nothing was sent, all is retried
            error = f"{CONNECTING}{courier.where}: {_describe(exc)}"
            for email, _prepared in ready:
                self.failed(email, error, permanent=False)
            self.report.unreachable = True
            return
        if fresh:
            try:
                self.resume_waiting()
            except SQLAlchemyError:  # they are still due at their own time
                log.exception("outbox: could not make the emails waiting on the server due")
        self._send_all(host, ready, courier)

    def _send_all(self, host: smtplib.SMTP, ready: list[tuple[Outgoing, Prepared]], courier: Courier) -> None:
        for index, (email, prepared) in enumerate(ready):
            if time.monotonic() > self.deadline:
                for rest, _prepared in ready[index:]:
                    self.release(rest)
                self.report.unreachable = True  # the database lags behind: no next batch in this pass
                return
            courier.pace()
            try:
                host.sendmail(prepared.envelope_from, [prepared.recipient], prepared.data)
            except smtplib.SMTPRecipientsRefused as exc:
                code, text = next(iter(exc.recipients.values()), (0, b"recipient refused"))
                self.failed(email, _reply(code, text), permanent=500 <= code < 600)
            except smtplib.SMTPSenderRefused as exc:  # our sender or login, not this email: fixable, never dead
                self.failed(email, _reply(exc.smtp_code, exc.smtp_error), permanent=False)
            except smtplib.SMTPDataError as exc:
                self.failed(email, _reply(exc.smtp_code, exc.smtp_error), permanent=500 <= exc.smtp_code < 600)
            except Exception as exc:  # the connection is gone (reset, timeout, disconnect): retry the rest later
                if not isinstance(exc, OSError):
                    log.exception("outbox %s: unexpected error while sending", email.id)
                error = f"connection lost: {_describe(exc)}"
                courier.drop()
                self.report.unreachable = True
                for rest, _prepared in ready[index:]:
                    self.failed(rest, error, permanent=False)
                return
            else:
                try:
                    self.sent(email)
                except SQLAlchemyError:  # delivered, but not recorded: the rest of the batch still goes out
                    log.exception("outbox %s was delivered but could not be marked sent", email.id)


def _claimer_id() -> str:
    return f"{socket.gethostname()[:24]}:{os.getpid()}:{secrets.token_hex(6)}"


class Courier:
    """Delivery over one SMTP connection, kept open from batch to batch while it stays healthy (checked with NOOP
    before it is used again), at most MAIL_RATE_PER_SECOND emails a second (0: as fast as the server takes them)."""

    def __init__(self) -> None:
        cfg = current_app.config
        self.state = current_app.extensions["mail"]
        self.timeout: float = cfg["MAIL_TIMEOUT"]
        self.rate: float = cfg["MAIL_RATE_PER_SECOND"]
        self.where = f"{self.state.server}:{self.state.port}"
        self.host: smtplib.SMTP | None = None
        self._next = 0.0

    def connection(self) -> smtplib.SMTP:
        """The open connection if it still answers, else a new one (raises what connecting raises)."""
        if self.host is not None:
            try:
                if self.host.noop()[0] == 250:
                    return self.host
            except Exception:  # gone (closed by the server, reset, timed out): connect again
                log.info("outbox: the SMTP connection to %s was closed; connecting again", self.where)
            self.drop()
        self.host = _Connection(self.state, self.timeout, _ehlo_name()).configure_host()
        return self.host

    def pace(self) -> None:
        """Wait, if needed, so that emails leave at most ``rate`` a second."""
        if self.rate <= 0:
            return
        now = time.monotonic()
        if self._next > now:
            time.sleep(self._next - now)
        self._next = max(now, self._next) + 1 / self.rate

    def drop(self) -> None:
        """Forget a connection that failed (closed without QUIT)."""
        if self.host is not None:
            try:
                self.host.close()
            finally:
                self.host = None

    def close(self) -> None:
        """End the connection politely (QUIT); a failing QUIT changes nothing: what the server accepted stays sent."""
        if self.host is not None:
            try:
                self.host.quit()
            except (OSError, smtplib.SMTPException):
                self.host.close()
            self.host = None


class _Renewal:
    """Keeps a batch's claim fresh while it is delivered: every quarter of MAIL_STALE_CLAIM_SECONDS its rows'
    ``claimed_at`` is set again, so another sender takes them over only when this one stopped (killed, machine
    gone): a dead sender's emails go out again within about a minute, a live one's never twice."""

    def __init__(self, engine: Engine, claimer: str, batch: _Batch) -> None:
        self.engine = engine
        self.claimer = claimer
        self.batch = batch
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="pbem-claim-renewal", daemon=True)

    def __enter__(self) -> _Renewal:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self.thread.join()

    def _run(self) -> None:
        while not self.stop.wait(self.batch.stale / 4):
            try:
                with db.write_session(self.engine) as session:
                    session.execute(
                        update(OutboxEmail)
                        .where(col(OutboxEmail.status) == "sending", col(OutboxEmail.claimed_by) == self.claimer)
                        .values(claimed_at=self.batch._stamp())
                        .execution_options(synchronize_session=False)
                    )
                self.batch.renewed = time.monotonic()
            except SQLAlchemyError as exc:  # the deadlines keep counting from the last renewal
                log.warning("outbox: the claim %s could not be renewed: %s", self.claimer, type(exc).__name__)


def send_due(
    *,
    engine: Engine | None = None,
    now: datetime | None = None,
    limit: int | None = None,
    courier: Courier | None = None,
) -> SendReport:
    """Send what is due: claim a batch (at most ``limit``, default MAIL_BATCH) in one short transaction, deliver
    it outside any transaction (over ``courier``'s SMTP connection, or one of its own, or to the mailbox), then
    record each result. While it delivers, the claim is renewed (``_Renewal``).

    A refused or lost connection, a timeout, a 4xx reply or a refused sender is retried with a capped
    backoff for MAIL_RETRY_FOR_HOURS after the email was queued; only a 5xx refusing the recipient or the
    message (or an unbuildable row) is dead at once. When the server answers, emails waiting because it did
    not are made due at once. After each pass, organisers of games whose mail is stuck are told (once per
    outage).

    Needs an app context; safe to call from any thread and from several processes at once. ``now`` (UTC)
    replaces the clock for the claim and the recorded times.
    """
    cfg = current_app.config
    engine = engine or db.get_engine()
    claimer = _claimer_id()
    with db.write_session(engine) as session:
        rows = claim_due(session=session, now=now or timing.now(), limit=limit or cfg["MAIL_BATCH"], claimer=claimer)
        batch = [Outgoing.of(row) for row in rows]
    report = SendReport(claimed=len(batch))
    if batch:
        delivery = _Batch(engine, claimer, now, report)
        with _Renewal(engine, claimer, delivery):
            if cfg["MAIL_BACKEND"] != "smtp":
                delivery.to_mailbox(batch)
            elif courier is not None:
                delivery.over_smtp(batch, courier)
            else:
                own = Courier()
                try:
                    delivery.over_smtp(batch, own)
                finally:
                    own.close()
    report.stuck_notices = _tell_organisers(engine, now or timing.now())
    return report


def send_while_full(
    *, engine: Engine | None = None, stop: threading.Event | None = None, after_batch: Any = None
) -> SendReport:
    """Send batch after batch over one SMTP connection while the batches come back full (a backlog after an
    outage goes out at the server's speed, or MAIL_RATE_PER_SECOND), until a batch is not full, the server cannot
    be reached, or ``stop`` is set; ``after_batch(report)`` is called after each batch. The scheduler's pass."""
    total = SendReport()
    limit: int = current_app.config["MAIL_BATCH"]
    courier = Courier()
    try:
        while True:
            report = send_due(engine=engine, courier=courier)
            total.add(report)
            if after_batch is not None:
                after_batch(report)
            if report.claimed < limit or report.unreachable or (stop is not None and stop.is_set()):
                return total
    finally:
        courier.close()


def _tell_organisers(engine: Engine, now: datetime) -> int:
    """After each pass: queue the "mail is stuck" notices that are due (see notify)."""

    try:
        with Session(engine) as session:  # a read first: nearly always there is nothing to tell
            if not notify.untold_stuck(session=session, now=now):
                return 0
        with db.write_session(engine) as session:
            told = notify.queue_stuck_notices(session=session, now=now)
    except SQLAlchemyError:  # the next pass checks again
        log.exception("outbox: could not check for stuck mail")
        return 0
    if told:
        log.warning("outbox: mail is stuck; %d organiser notice(s) queued", told)
    return told
