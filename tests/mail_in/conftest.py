"""Mail-in fixtures: an app that reads replies (MAIL_REPLY_ADDRESS set) on SQLite and PostgreSQL, a game of three
people, what each player last received, and ``pbem mail-in -`` run on a message.

``reply_app``
    The app on the test database with MAIL_REPLY_ADDRESS ``play@club.example`` (mailbox backend).
``glory``
    A Call to Glory game of ann, bob and cy (seed 1) on ``reply_app``, its invitations and first turn email sent.
``last_email(app, address)``
    The latest email sent to ``address``, as a ``clients.Original`` a player answers (sends what is due first).
``mail_in(app, raw)``
    Runs ``pbem mail-in -`` with ``raw`` on standard input (the app's own CLI runner: the same command a mail
    server's pipe transport runs); returns the click Result (``exit_code``, ``output``).
"""

from __future__ import annotations

import asyncio
import smtplib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from click.testing import Result
from flask import Flask
from sqlmodel import col, select

from pbem import create_app, db
from pbem.core import games
from pbem.models import InboundMail, OutboxEmail
from tests.apps import Table, free_port, new_table
from tests.mail.conftest import deliver, smtp_server  # noqa: F401  (the SMTP server fixture, for this package too)

from .clients import Original
from .dovecot import Dovecot
from .dovecot import start as start_dovecot

REPLY = "play@club.example"
SENDER = "Call to Glory <glory@club.example>"


@pytest.fixture
def make_reply_app(database_url: str) -> Iterator[Callable[..., Flask]]:
    """``make_reply_app(**config)``: an app on the test database that reads replies, with more settings."""
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        settings = {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "test-key-" + "x" * 32,
            "MAIL_REPLY_ADDRESS": REPLY,
            "MAIL_DEFAULT_SENDER": SENDER,
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
def reply_app(make_reply_app: Callable[..., Flask]) -> Flask:
    return make_reply_app()


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    """A real Dovecot IMAP server for the test (see ``tests.mail_in.dovecot``)."""
    yield from start_dovecot()


class Relay:
    """The players' outgoing mail server: SMTP on 127.0.0.1, delivering each message into Dovecot."""

    def __init__(self, server: Dovecot) -> None:
        self.server = server
        self.port = free_port()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.get_running_loop().run_in_executor(None, self.server.deliver, envelope.original_content)
        return "250 OK"

    def send(self, raw: bytes, to: str) -> None:
        """Send a player's message through this relay (SMTP), as their mail client does."""
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as smtp:
            smtp.sendmail("player@example.com", [to], raw)


@pytest.fixture
def relay(dovecot: Dovecot) -> Iterator[Relay]:
    state = Relay(dovecot)
    controller = Controller(state, hostname="127.0.0.1", port=state.port, server_hostname="localhost")
    controller.start()
    yield state
    controller.stop()


PEOPLE = (("ann", "ann@example.com", "en"), ("bob", "Bob@Example.COM", "nl"), ("cy", "cy@example.com", "fr"))


@pytest.fixture
def glory(reply_app: Flask) -> Table:
    specs = [games.SeatSpec(n, email=e, language=lang) for n, e, lang in PEOPLE]
    table = new_table(reply_app, specs, seed=1)
    deliver(reply_app)
    return table


def sent_to(app: Flask, address: str) -> list[OutboxEmail]:
    """Every email sent to ``address`` (case-insensitive), oldest first."""
    deliver(app)
    with app.app_context():
        rows = db.get_session().exec(
            select(OutboxEmail).where(col(OutboxEmail.status) == "sent").order_by(col(OutboxEmail.id))
        )
        return [r for r in rows if address.lower() in r.to_addr.lower()]


def last_email(app: Flask, address: str) -> Original:
    row = sent_to(app, address)[-1]
    return Original(
        sender=SENDER,
        reply_to=row.headers.get("Reply-To", ""),
        subject=row.subject,
        message_id=row.message_id,
        text=row.text_body,
        to=row.to_addr,
    )


def mail_in(app: Flask, raw: bytes, *args: str) -> Result:
    return app.test_cli_runner().invoke(args=["mail-in", "-", *args], input=raw)


def inbound(app: Flask) -> list[dict[str, Any]]:
    """The inbound_mail rows: message_id, outcome, game, seat, moves."""
    with app.app_context():
        rows = db.get_session().exec(select(InboundMail).order_by(col(InboundMail.id))).all()
        return [{"message_id": r.message_id, "outcome": r.outcome, "moves": r.moves} for r in rows]
