"""Mail test fixtures: a real SMTP server on 127.0.0.1 and an app that sends to it.

``smtp_server``
    An aiosmtpd server in a thread on ``free_port()``. Attributes:

    - ``host``, ``port``: where it listens.
    - ``messages``: a snapshot (a new list on each read, safe across threads) of what it
      received, in order. Each item is a ``Received``: an ``email.message.EmailMessage``
      parsed with ``email.policy.default`` (CRLF line ends read as LF, as a mail client
      stores them) that also has ``envelope_from`` (str), ``envelope_to`` (list of str) and
      ``message`` (itself, so ``received.message["Subject"]`` works too).
    - ``fail_with``: a dict {recipient address (case-insensitive): SMTP reply}, e.g.
      ``{"bob@example.com": "451 4.3.0 Try again later"}`` or ``"550 5.1.1 No such user"``;
      that recipient is refused at RCPT TO with that reply. ``reply_for(rcpt)`` returns the
      reply the server gives a recipient (None: accepted); override it for other rules.
    - ``data_reply``: None (accept) or an SMTP reply given to DATA instead of 250.
    - ``clear()``: forget the received messages and the failure rules.

``smtp_app``
    The ``app`` fixture's database (same ``database_url``, so ``app``/``client`` in the same
    test see the same rows), built the same way, with MAIL_BACKEND "smtp" pointed at
    ``smtp_server`` (no TLS, no login, MAIL_TIMEOUT 5).

``make_mail_app``
    ``make_mail_app(**config)``: another app on that database with MAIL_BACKEND "smtp" and
    the given settings (e.g. MAIL_PORT of a port nothing listens on); disposed afterwards.

``put_email``
    ``put_email(app, **queue_kwargs) -> id``: queue one email with ``outbox.queue`` in its own
    write transaction (defaults: kind "test", to ann@example.com, a subject, both parts).

``deliver(app)``
    Send everything due through the app's backend (the ``app`` fixture's is the mailbox): emails about the
    game (turn, milestone, game over) are rendered then, from the game as it is; read rows after it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from flask import Flask

from pbem import create_app, db
from pbem.mail import outbox, sender
from tests.apps import free_port


class Received(EmailMessage):
    """A message the test server received, with its SMTP envelope."""

    envelope_from: str = ""
    envelope_to: list[str] = []  # noqa: RUF012 - set per instance on the top-level message

    @property
    def message(self) -> Received:
        return self


class SMTPServer:
    """The state shared between the test and the server thread."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.fail_with: dict[str, str] = {}
        self.data_reply: str | None = None
        self._received: list[Received] = []
        self._lock = threading.Lock()

    @property
    def messages(self) -> list[Received]:
        with self._lock:
            return list(self._received)

    def reply_for(self, rcpt: str) -> str | None:
        """The reply refusing ``rcpt`` at RCPT TO, or None to accept it."""
        wanted = rcpt.lower()
        return next((reply for addr, reply in self.fail_with.items() if addr.lower() == wanted), None)

    def clear(self) -> None:
        with self._lock:
            self._received.clear()
        self.fail_with.clear()
        self.data_reply = None

    # aiosmtpd handler hooks (called in the server's thread)

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any) -> str:
        reply = self.reply_for(address)
        if reply is not None:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.data_reply is not None:
            return self.data_reply
        content = envelope.original_content.replace(b"\r\n", b"\n")  # line ends as a mail client stores them
        message = BytesParser(_class=Received, policy=default).parsebytes(content)
        assert isinstance(message, Received)
        message.envelope_from = envelope.mail_from
        message.envelope_to = list(envelope.rcpt_tos)
        with self._lock:
            self._received.append(message)
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp_server() -> Iterator[SMTPServer]:
    """An SMTP server on 127.0.0.1 that records what it receives (see the module docstring)."""
    state = SMTPServer("127.0.0.1", free_port())
    controller = Controller(state, hostname=state.host, port=state.port, server_hostname="localhost")
    controller.start()
    yield state
    controller.stop()


MailAppFactory = Callable[..., Flask]


@pytest.fixture
def make_mail_app(database_url: str) -> Iterator[MailAppFactory]:
    """Apps on the test database that send by SMTP with the given settings (see the module docstring)."""
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        settings = {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "test-key-" + "x" * 32,
            "MAIL_BACKEND": "smtp",
            "MAIL_SERVER": "127.0.0.1",
            "MAIL_USE_TLS": False,
            "MAIL_USE_SSL": False,
            "MAIL_USERNAME": None,
            "MAIL_PASSWORD": None,
            "MAIL_TIMEOUT": 5,
            **config,
        }
        app = create_app(settings)
        made.append(app)
        with app.app_context():
            db.upgrade(db.get_engine())
        return app

    yield make
    for app in made:
        app.extensions["pbem_engine"].dispose()


@pytest.fixture
def smtp_app(make_mail_app: MailAppFactory, smtp_server: SMTPServer) -> Flask:
    """The app on the test database, sending by SMTP to ``smtp_server``."""
    return make_mail_app(MAIL_SERVER=smtp_server.host, MAIL_PORT=smtp_server.port)


@pytest.fixture
def put_email() -> Callable[..., int]:
    """Queue one email in an app's outbox; returns its id (see the module docstring)."""

    def put(app: Flask, **kw: Any) -> int:
        fields: dict[str, Any] = {
            "kind": "test",
            "to": "ann@example.com",
            "subject": "Friday game · Round 1 · Your turn",
            "text": "Your turn.\n\nhttp://127.0.0.1:5000/play/abc\n",
            "html": '<p style="color: #8a1c1c">Your turn.</p>',
            **kw,
        }
        with app.app_context(), db.write_session() as session:
            row = outbox.queue(session=session, **fields)
            assert row is not None, "put_email: the dedupe_key was already used"
            return row.id or 0

    return put


def deliver(app: Flask) -> None:
    """Send what is due now (see the module docstring)."""
    with app.app_context():
        while sender.send_due(limit=500).claimed:
            pass
