"""Inbound mail: transports (standard input or a file, IMAP, an LMTP listener, the development mailbox's Reply
form) feed one parser (``parsing``) and one flow per message (``pbem.flows.replies``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from flask import current_app
from sqlalchemy import Engine

from .. import db
from ..flows import replies
from . import parsing

log = logging.getLogger(__name__)

EX_OK = 0
EX_TEMPFAIL = 75
"""sysexits.h: a temporary failure; the mail server keeps the message and tries again later."""


def receive(raw: bytes, *, envelope_to: Sequence[str] = (), engine: Engine | None = None) -> replies.Handled:
    """Handle one RFC 5322 message in one transaction (needs an app context). A database error propagates (the
    transaction is rolled back and nothing was done: the message may be handed in again)."""
    reply = parsing.parse(raw, max_bytes=current_app.config["MAIL_IN_MAX_BYTES"], envelope_to=envelope_to)
    return handle(reply, engine=engine)


def handle(reply: replies.Reply, *, engine: Engine | None = None) -> replies.Handled:
    """Run the flow for one parsed message in its own write transaction."""
    with db.write_session(engine) as session:
        handled = replies.handle(
            session=session,
            reply=reply,
            base=current_app.config["MAIL_REPLY_ADDRESS"],
            bounce_base=current_app.config["MAIL_BOUNCE_ADDRESS"],
        )
    log.info("mail in: %s %s (%d move(s))", reply.message_id, handled.outcome, handled.moves)
    return handled
