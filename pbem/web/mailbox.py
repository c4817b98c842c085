"""The development mailbox: every outbox email as its recipient would get it (registered in development only)."""

from __future__ import annotations

import re
from datetime import datetime
from email.message import EmailMessage
from typing import Any

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup, escape
from werkzeug.datastructures import Headers

from .. import db, i18n, mail_in
from ..i18n import N_
from ..mail import outbox
from ..mail.sender import Outgoing, Undeliverable, build_message
from ..models import OutboxEmail
from .errors import error_page

bp = Blueprint("mailbox", __name__, url_prefix="/mailbox")
PER_PAGE = 25
PAGE = re.compile(r"[1-9][0-9]{0,5}")
URL = re.compile(r"https?://[^\s<>\"']+")
TRAILING = ".,;:!?)]}"
MIME_HEADERS = ("mime-version", "content-type", "content-transfer-encoding")
# An email's HTML part styles itself inline; it may not run scripts, load anything, or be framed.
EMAIL_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"


class EmailPage(Response):
    """A response whose Content-Security-Policy is EMAIL_CSP, whatever the app's after-request hooks set."""

    def get_wsgi_headers(self, environ: Any) -> Headers:
        headers = super().get_wsgi_headers(environ)
        headers["Content-Security-Policy"] = EMAIL_CSP
        return headers


def linkify(text: str) -> Markup:
    """``text`` escaped, with its http(s) links made clickable."""
    parts: list[Markup] = []
    done = 0
    for match in URL.finditer(text):
        url = match.group(0).rstrip(TRAILING)
        parts.append(escape(text[done : match.start()]))
        parts.append(Markup('<a href="{0}" rel="noreferrer">{0}</a>').format(url))
        done = match.start() + len(url)
    parts.append(escape(text[done:]))
    return Markup("").join(parts)


def when(moment: datetime | None) -> str:
    """A stored time in words, in UTC: 'Thursday 12 March 2026, 14:05 (UTC)' (empty for none)."""
    return i18n.when(moment, "UTC") if moment else ""


def _bad_request() -> tuple[str, int, list[tuple[str, str]]]:
    return error_page(400, _("The page number or the recipient in this address is not valid."))


@bp.get("")
def index() -> Any:
    """The emails, newest first, one page at a time; ``?to=`` keeps one recipient's."""
    to = request.args.get("to", "").strip()
    page = request.args.get("page", "1")
    if not PAGE.fullmatch(page) or len(to) > 254 or not to.isprintable():
        return _bad_request()
    session = db.get_session()
    box = outbox.mailbox_page(session=session, to=to or None, page=int(page), per_page=PER_PAGE)
    replied = REPLIED.get(request.args.get("replied", ""))
    return render_template(
        "mailbox/index.html",
        replied=i18n.text(replied) if replied else None,
        box=box,
        recipients=outbox.recipients(session=session),
        backend=current_app.config["MAIL_BACKEND"],
        when=when,
    )


def _email(email_id: int) -> OutboxEmail | None:
    return outbox.get_email(session=db.get_session(), email_id=email_id)


def _not_found() -> tuple[str, int, list[tuple[str, str]]]:
    return error_page(404, _("There is no email with this number in the mailbox."))


@bp.get("/<id:email_id>")
def show(email_id: int) -> Any:
    """One email: its headers as they are sent, the text part with clickable links, the HTML part."""
    email = _email(email_id)
    if email is None:
        return _not_found()
    headers: list[tuple[str, str]] = []
    problem = None
    try:
        prepared = build_message(
            Outgoing.of(email),
            sender=current_app.config["MAIL_DEFAULT_SENDER"],
            date=outbox.as_utc(email.sent_at or email.created_at),
        )
        headers = [(name, str(value)) for name, value in prepared.message.items() if name.lower() not in MIME_HEADERS]
        headers.append(("MIME parts", ", ".join(part.get_content_type() for part in prepared.message.walk())))
    except Undeliverable as exc:
        problem = str(exc)
    return render_template(
        "mailbox/show.html", email=email, headers=headers, problem=problem, linkify=linkify, when=when
    )


@bp.get("/<id:email_id>/html")
def html_part(email_id: int) -> Any:
    """The email's HTML part as a page of its own, with inline styles allowed and scripts not."""
    email = _email(email_id)
    if email is None:
        return _not_found()
    return EmailPage(email.html_body, mimetype="text/html")


LONGEST_REPLY = 20_000
REPLIED = {
    "applied": N_("Your reply made its moves; the answer arrives here once it is sent."),
    "answered": N_("Your reply was read; the answer arrives here once it is sent."),
    "duplicate": N_("This reply was handled before."),
}


@bp.post("/<id:email_id>/reply")
def reply(email_id: int) -> Any:
    """The Reply form: its text goes, as a reply from the email's recipient to its Reply-To address, through the
    parser and the flow that replies by mail go through (``pbem.mail_in``); the answer lands in this mailbox."""
    email = _email(email_id)
    if email is None:
        return _not_found()
    reply_to = (email.headers or {}).get("Reply-To")
    text = request.form.get("text", "")
    if not reply_to or len(text) > LONGEST_REPLY:
        return error_page(400, _("This email cannot be answered here, or the reply is too long."))
    message = EmailMessage()
    message["From"] = email.to_addr
    message["To"] = reply_to
    message["Subject"] = f"Re: {email.subject}"
    message["Message-ID"] = outbox.new_message_id()
    message["In-Reply-To"] = email.message_id
    message.set_content(text or "\n")
    handled = mail_in.receive(message.as_bytes())
    return redirect(url_for("mailbox.index", to=email.to_addr, replied=handled.outcome), code=303)
