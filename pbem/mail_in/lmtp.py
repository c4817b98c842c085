"""The LMTP transport: a listener (aiosmtpd) a mail server delivers to (Postfix ``lmtp:inet:127.0.0.1:8024``).

Each message is handed to the flow in its own transaction before the listener answers: 250 when it was handled
(applied, answered or ignored), 451 (try again later) when the database could not take it, so the mail server
keeps it and delivers it again. LMTP answers once per recipient after DATA.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from flask import Flask
from sqlalchemy.exc import SQLAlchemyError

from . import receive

log = logging.getLogger(__name__)
OK = "250 2.0.0 handled"
LATER = "451 4.3.0 the game server cannot take mail now: try again later"


class Handler:
    """aiosmtpd's handler: every recipient is accepted; the message is handled in a worker thread."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any) -> str:
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw: bytes = envelope.original_content or envelope.content or b""
        recipients = list(envelope.rcpt_tos)
        status = await asyncio.get_running_loop().run_in_executor(None, self._receive, raw, recipients)
        return "\r\n".join([status] * max(1, len(recipients)))

    def _receive(self, raw: bytes, recipients: list[str]) -> str:
        with self.app.app_context():
            try:
                receive(raw, envelope_to=recipients)
            except SQLAlchemyError as exc:
                log.warning("mail in (LMTP): the database is unavailable (%s)", type(exc).__name__)
                return LATER
            except Exception:  # a bug: the mail server keeps the message and tries again
                log.exception("mail in (LMTP): the message could not be handled")
                return LATER
        return OK


class LMTPController(Controller):
    """aiosmtpd's threaded controller speaking LMTP."""

    def factory(self) -> LMTP:
        return LMTP(self.handler, **self.SMTP_kwargs)

    def __init__(self, app: Flask, host: str, port: int) -> None:
        limit = (
            int(app.config["MAIL_IN_MAX_BYTES"]) * 3
        )  # larger ones are refused; smaller ones over the limit answered
        super().__init__(Handler(app), hostname=host, port=port, server_hostname=host, data_size_limit=limit)


def listen(app: Flask, host: str, port: int) -> LMTPController:
    """Start the listener in a thread on ``host:port`` (returns it: ``stop()`` ends it)."""
    controller = LMTPController(app, host, port)
    controller.start()
    return controller
