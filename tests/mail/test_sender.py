"""The sender against a real SMTP server: what arrives, retries, dead letters, timeouts, two senders, the CLI."""

from __future__ import annotations

import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.exc import OperationalError
from sqlmodel import select

from pbem import create_app, db, timing
from pbem.config import ConfigError
from pbem.mail import outbox, sender
from pbem.mail.sender import SendReport, retry_delay, send_due
from pbem.models import OutboxEmail
from tests.apps import free_port

from .conftest import MailAppFactory, SMTPServer

Put = Callable[..., int]
PBEM = Path(sys.executable).with_name("pbem")
RTL = "שלום עליכם"


def _send(app: Flask, *, at: datetime | None = None, limit: int | None = None) -> SendReport:
    with app.app_context():
        return send_due(now=at, limit=limit)


def _row(app: Flask, email_id: int) -> OutboxEmail:
    with app.app_context():
        row = db.get_session().get(OutboxEmail, email_id)
        assert row is not None
        return row


def _statuses(app: Flask) -> Counter[str]:
    with app.app_context():
        return Counter(row.status for row in db.get_session().exec(select(OutboxEmail)).all())


def _aware(moment: datetime | None) -> datetime:
    assert moment is not None
    return outbox.as_utc(moment)


# What arrives


def test_a_plain_email_arrives_as_multipart_alternative(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put
) -> None:
    email = put_email(smtp_app, text="Draw a card:\nhttp://127.0.0.1:5000/play/abc\n", html="<p>Draw a card</p>")
    report = _send(smtp_app)
    assert (report.claimed, report.sent, report.retried, report.dead) == (1, 1, 0, 0)
    [received] = smtp_server.messages
    message = received.message
    assert message.get_content_type() == "multipart/alternative"
    text, html = message.iter_parts()
    assert (text.get_content_type(), html.get_content_type()) == ("text/plain", "text/html")
    assert isinstance(text, EmailMessage) and isinstance(html, EmailMessage)
    assert text.get_content() == "Draw a card:\nhttp://127.0.0.1:5000/play/abc\n"
    assert html.get_content().strip() == "<p>Draw a card</p>"
    assert received.envelope_from == "glory@localhost"
    assert received.envelope_to == ["ann@example.com"]
    assert message["From"] == "Call to Glory <glory@localhost>"
    assert message["To"] == "ann@example.com"
    assert message["Message-ID"] == _row(smtp_app, email).message_id
    assert message["Date"].datetime.tzinfo is not None
    row = _row(smtp_app, email)
    assert row.status == "sent" and row.sent_at is not None and row.last_error is None


def test_names_subjects_attachments_and_threading_headers_survive(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put
) -> None:
    record = '{"players": ["Zoë", "' + RTL + '"], "moves": []}'
    headers = {
        "In-Reply-To": "<invite-1@127.0.0.1>",
        "References": "<invite-1@127.0.0.1> <turn-1-4@127.0.0.1> <turn-1-9@127.0.0.1>",
        "List-Unsubscribe": "<http://127.0.0.1:5000/unsubscribe/" + "x" * 120 + ">",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
    put_email(
        smtp_app,
        to=f"Zoë 🃏 {RTL} <zoe@example.com>",
        subject=f"Vendredi à l'été · Round 2 · Your turn 🎴 {RTL}",
        text=f"Bonjour Zoë 👋 {RTL}\n",
        html=f"<p>Bonjour Zoë 👋 <span dir=rtl>{RTL}</span></p>",
        headers=headers,
        message_id="<turn-1-12@127.0.0.1>",
        attachments=[
            {"filename": "call-to-glory-1.json", "content_type": "application/json", "content": record},
            {"filename": "notes d'été.txt", "content_type": "text/plain", "content": "Été 🎉\n"},
        ],
    )
    assert _send(smtp_app).sent == 1
    [received] = smtp_server.messages
    message = received.message
    raw = message.as_bytes()
    assert raw.isascii(), "headers are RFC 2047 encoded and bodies transfer-encoded: 7-bit clean"
    assert message["Subject"] == f"Vendredi à l'été · Round 2 · Your turn 🎴 {RTL}"
    assert message["To"].addresses[0].display_name == f"Zoë 🃏 {RTL}"
    assert received.envelope_to == ["zoe@example.com"]
    assert message["Message-ID"] == "<turn-1-12@127.0.0.1>"
    for name, value in headers.items():
        assert message[name] == value
    assert message.get_content_type() == "multipart/mixed"
    alternative, json_part, notes = message.iter_parts()
    assert alternative.get_content_type() == "multipart/alternative"
    text, html = alternative.iter_parts()
    assert isinstance(text, EmailMessage) and isinstance(html, EmailMessage)
    assert text.get_content() == f"Bonjour Zoë 👋 {RTL}\n"
    assert RTL in html.get_content()
    assert isinstance(json_part, EmailMessage) and isinstance(notes, EmailMessage)
    assert json_part.get_filename() == "call-to-glory-1.json"
    assert json_part.get_content_type() == "application/json"
    assert json_part.get_content().decode() == record
    assert notes.get_filename() == "notes d'été.txt"
    assert notes.get_content() == "Été 🎉\n"
    assert [part.get_content_disposition() for part in (json_part, notes)] == ["attachment", "attachment"]


def test_a_row_with_a_line_break_in_a_header_is_never_sent(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put
) -> None:
    """queue() refuses it; a row written some other way is refused again by the sender (defence in depth)."""
    bad = put_email(smtp_app)
    good = put_email(smtp_app, to="bob@example.com")
    with smtp_app.app_context(), db.write_session() as session:
        row = session.get(OutboxEmail, bad)
        assert row is not None
        row.headers = {"In-Reply-To": "<a@b>\r\nBcc: eve@example.com"}
    report = _send(smtp_app)
    assert (report.sent, report.dead) == (1, 1)
    assert [r.envelope_to for r in smtp_server.messages] == [["bob@example.com"]]
    assert _row(smtp_app, bad).status == "dead"
    assert "line breaks" in (_row(smtp_app, bad).last_error or "")
    assert _row(smtp_app, good).status == "sent"


# Failures: retry with backoff, or dead


def test_451_is_retried_with_backoff_then_sent(smtp_app: Flask, smtp_server: SMTPServer, put_email: Put) -> None:
    email = put_email(smtp_app)
    smtp_server.fail_with["ann@example.com"] = "451 4.3.0 Mailbox busy, try again later"
    t0 = timing.now()
    report = _send(smtp_app, at=t0)
    assert (report.claimed, report.sent, report.retried, report.dead) == (1, 0, 1, 0)
    row = _row(smtp_app, email)
    assert (row.status, row.attempts) == ("queued", 1)
    assert "451" in (row.last_error or "") and "try again" in (row.last_error or "")
    assert _aware(row.next_attempt_at) == t0 + timedelta(seconds=60)

    assert _send(smtp_app, at=t0 + timedelta(seconds=59)).claimed == 0, "not due before the backoff ends"
    t1 = t0 + timedelta(seconds=61)
    assert _send(smtp_app, at=t1).retried == 1
    row = _row(smtp_app, email)
    assert row.attempts == 2 and _aware(row.next_attempt_at) == t1 + timedelta(seconds=120)

    smtp_server.clear()
    assert _send(smtp_app, at=t1 + timedelta(seconds=121)).sent == 1
    row = _row(smtp_app, email)
    assert (row.status, row.attempts, row.last_error) == ("sent", 3, None)
    assert len(smtp_server.messages) == 1


def test_a_refused_connection_retries_the_whole_batch(
    make_mail_app: MailAppFactory, smtp_server: SMTPServer, put_email: Put
) -> None:
    app = make_mail_app(MAIL_PORT=free_port())  # nothing listens there
    ids = [put_email(app, to=f"p{n}@example.com") for n in range(3)]
    t0 = timing.now()
    report = _send(app, at=t0)
    assert (report.claimed, report.sent, report.retried, report.dead) == (3, 0, 3, 0)
    for email in ids:
        row = _row(app, email)
        assert (row.status, row.attempts) == ("queued", 1)
        assert "refused" in (row.last_error or "").lower()
        assert _aware(row.next_attempt_at) == t0 + timedelta(seconds=60)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts connections and never says a word; yields its port."""
    port = free_port()
    listener = socket.create_server(("127.0.0.1", port))
    listener.settimeout(0.05)
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    stop.set()
    thread.join(5)
    for conn in held:
        conn.close()
    listener.close()


def test_a_server_that_never_answers_times_out_and_the_row_is_retried(
    make_mail_app: MailAppFactory, silent_server: int, put_email: Put
) -> None:
    app = make_mail_app(MAIL_PORT=silent_server, MAIL_TIMEOUT=0.5)
    email = put_email(app)
    started = time.monotonic()
    report = _send(app)
    elapsed = time.monotonic() - started
    assert elapsed < 0.5 + 2, f"the send took {elapsed:.1f} s with MAIL_TIMEOUT 0.5"
    assert (report.sent, report.retried, report.dead) == (0, 1, 0)
    row = _row(app, email)
    assert (row.status, row.attempts) == ("queued", 1)
    assert "timed out" in (row.last_error or "")


def test_550_is_dead_at_once_and_others_still_go(smtp_app: Flask, smtp_server: SMTPServer, put_email: Put) -> None:
    gone = put_email(smtp_app, to="gone@example.com")
    fine = put_email(smtp_app, to="bob@example.com")
    smtp_server.fail_with["gone@example.com"] = "550 5.1.1 No such user here"
    report = _send(smtp_app)
    assert (report.sent, report.retried, report.dead) == (1, 0, 1)
    row = _row(smtp_app, gone)
    assert (row.status, row.attempts) == ("dead", 1)
    assert row.last_error == "550 5.1.1 No such user here"
    assert _row(smtp_app, fine).status == "sent"
    assert [r.envelope_to for r in smtp_server.messages] == [["bob@example.com"]]
    assert _send(smtp_app, at=timing.now() + timedelta(days=30)).claimed == 0, "a dead row stays dead"


def test_a_5xx_refusing_our_sender_is_retried_not_dead(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put
) -> None:
    """A 5xx at MAIL FROM (login required, sender not allowed) is about the server's settings, the same for every
    email: they wait for it to be fixed instead of all dying."""
    email = put_email(smtp_app)

    async def refuse_sender(server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        return "530 5.7.0 Authentication required"

    smtp_server.handle_MAIL = refuse_sender  # type: ignore[attr-defined]
    report = _send(smtp_app)
    assert (report.retried, report.dead) == (1, 0)
    row = _row(smtp_app, email)
    assert (row.status, row.last_error) == ("queued", "530 5.7.0 Authentication required")


def test_a_5xx_reply_to_data_is_dead(smtp_app: Flask, smtp_server: SMTPServer, put_email: Put) -> None:
    email = put_email(smtp_app)
    smtp_server.data_reply = "554 5.6.0 Message refused"
    assert _send(smtp_app).dead == 1
    assert _row(smtp_app, email).last_error == "554 5.6.0 Message refused"


def test_a_4xx_is_retried_with_a_capped_backoff_until_mail_retry_for_hours_runs_out(
    make_mail_app: MailAppFactory, smtp_server: SMTPServer, put_email: Put
) -> None:
    app = make_mail_app(MAIL_PORT=smtp_server.port, MAIL_RETRY_MAX_SECONDS=100, MAIL_RETRY_FOR_HOURS=1)
    email = put_email(app)
    created = _aware(_row(app, email).created_at)
    smtp_server.fail_with["ann@example.com"] = "452 4.2.2 Mailbox full"
    moment = created
    waits = []
    while moment < created + timedelta(hours=1):
        assert _send(app, at=moment).retried == 1
        row = _row(app, email)
        waits.append(_aware(row.next_attempt_at) - moment)
        moment = _aware(row.next_attempt_at)
    assert waits[:3] == [timedelta(seconds=60), timedelta(seconds=100), timedelta(seconds=100)], "capped at 100 s"
    assert len(waits) == 37, "60 s, then every 100 s for the hour: no limit on the number of attempts"
    assert _send(app, at=moment).dead == 1
    row = _row(app, email)
    assert (row.status, row.attempts, row.last_error) == ("dead", 38, "452 4.2.2 Mailbox full")
    assert smtp_server.messages == []


def test_a_connection_lost_mid_batch_retries_the_rest_without_killing_them(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put
) -> None:
    """A 421 reply closes the connection: that email and the ones after it are retried, none is dead."""
    ids = [put_email(smtp_app, to=f"p{n}@example.com") for n in range(3)]
    smtp_server.data_reply = "421 4.3.2 Shutting down"
    report = _send(smtp_app)
    assert (report.claimed, report.sent, report.retried, report.dead) == (3, 0, 3, 0)
    assert [(_row(smtp_app, i).status, _row(smtp_app, i).attempts) for i in ids] == [("queued", 1)] * 3
    assert "421" in (_row(smtp_app, ids[0]).last_error or "")
    assert "connection lost" in (_row(smtp_app, ids[2]).last_error or "")


def test_a_failing_quit_after_data_still_counts_as_sent(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_quit(self: smtplib.SMTP) -> Any:
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")

    monkeypatch.setattr(smtplib.SMTP, "quit", broken_quit)
    email = put_email(smtp_app)
    assert _send(smtp_app).sent == 1
    assert _row(smtp_app, email).status == "sent"
    assert len(smtp_server.messages) == 1
    assert _send(smtp_app, at=timing.now() + timedelta(days=1)).claimed == 0, "it is not sent again"


def test_a_row_that_cannot_be_marked_sent_does_not_stop_the_batch(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = put_email(smtp_app, to="ann@example.com"), put_email(smtp_app, to="bob@example.com")
    real = sender._Batch.sent
    calls: list[int] = []

    def flaky(self: Any, email: Any) -> None:
        calls.append(email.id)
        if len(calls) == 1:
            raise OperationalError("UPDATE outbox", {}, Exception("database is locked"))
        real(self, email)

    monkeypatch.setattr(sender._Batch, "sent", flaky)
    _send(smtp_app)
    assert sorted(r.envelope_to[0] for r in smtp_server.messages) == ["ann@example.com", "bob@example.com"]
    assert calls == [first, second]
    assert _row(smtp_app, second).status == "sent"
    assert _row(smtp_app, first).status == "sending", "delivered; taken over only after the stale time"


@pytest.mark.parametrize(
    ("attempts", "seconds"), [(1, 60), (2, 120), (3, 240), (8, 7680), (9, 15360), (10, 21600), (500, 21600)]
)
def test_retry_delay_doubles_up_to_the_cap(attempts: int, seconds: int) -> None:
    assert retry_delay(attempts, base=60, cap=21600) == seconds


# Two senders, crashed senders


def test_two_senders_at_once_send_every_email_exactly_once(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put
) -> None:
    ids = [put_email(smtp_app, to=f"p{n}@example.com") for n in range(24)]
    start = threading.Barrier(2)
    reports: list[SendReport] = []

    def sender() -> None:
        start.wait(10)
        while True:
            report = _send(smtp_app, limit=4)
            reports.append(report)
            if not report.claimed:
                return

    threads = [threading.Thread(target=sender) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    with smtp_app.app_context():
        wanted = {row.message_id for row in db.get_session().exec(select(OutboxEmail)).all()}
    received = Counter(r.message["Message-ID"] for r in smtp_server.messages)
    assert set(received) == wanted and set(received.values()) == {1}, "every email once, none twice"
    assert sum(r.sent for r in reports) == len(ids)
    assert _statuses(smtp_app) == {"sent": len(ids)}


def test_a_crashed_senders_claim_is_taken_over(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put, caplog: pytest.LogCaptureFixture
) -> None:
    """A row left "sending" may have been delivered before the crash: it is sent again with its own Message-ID,
    and the log says it may be a duplicate."""
    email = put_email(smtp_app)
    t0 = timing.now()
    with smtp_app.app_context(), db.write_session() as session:
        assert outbox.claim_due(session=session, now=t0, limit=10, claimer="crashed:1:dead")
    assert _send(smtp_app, at=t0 + timedelta(seconds=59)).claimed == 0, "a live claim is left alone"
    with caplog.at_level("WARNING", logger="pbem.mail.outbox"):
        assert _send(smtp_app, at=t0 + timedelta(seconds=61)).sent == 1, "a minute without renewal: taken over"
    row = _row(smtp_app, email)
    assert row.status == "sent"
    [received] = smtp_server.messages
    assert received["Message-ID"] == row.message_id
    [warning] = [r.getMessage() for r in caplog.records if "stale claim" in r.getMessage()]
    assert "crashed:1:dead" in warning and "possible duplicate" in warning and row.message_id in warning


def test_a_slow_batch_stops_before_its_claim_could_look_stale(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past half of MAIL_STALE_CLAIM_SECONDS a sender starts nothing new and releases the rest unsent,
    so another sender taking over a stale claim can never send an email this one is still sending."""
    ids = [put_email(smtp_app, to=f"p{n}@example.com") for n in range(3)]
    ticks = iter(range(0, 10_000, 20))  # the batch starts at 0 (deadline 30 s), each check is 20 s later
    monkeypatch.setattr("pbem.mail.sender.time", SimpleNamespace(monotonic=lambda: next(ticks)))
    report = _send(smtp_app)
    assert (report.claimed, report.sent, report.released, report.retried) == (3, 1, 2, 0)
    assert [r.envelope_to for r in smtp_server.messages] == [["p0@example.com"]]
    assert [(_row(smtp_app, i).status, _row(smtp_app, i).attempts) for i in ids[1:]] == [("queued", 0)] * 2
    monkeypatch.undo()
    assert _send(smtp_app).sent == 2, "released emails are due again at once"


# The mailbox backend and the configuration


def test_the_mailbox_backend_marks_rows_sent_without_any_network(
    app: Flask, put_email: Put, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(*args: Any, **kw: Any) -> None:
        raise AssertionError("the mailbox backend opened a connection")

    monkeypatch.setattr(smtplib.SMTP, "connect", no_network)
    assert app.config["MAIL_BACKEND"] == "mailbox"
    email = put_email(app)
    report = _send(app)
    assert (report.claimed, report.sent) == (1, 1)
    row = _row(app, email)
    assert row.status == "sent" and row.sent_at is not None


def _make(database_url: str, **config: Any) -> Flask:
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "k" * 40, **config})
    app.extensions["pbem_engine"].dispose()
    return app


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"MAIL_BACKEND": "pigeon"}, "MAIL_BACKEND"),
        ({"MAIL_BACKEND": "smtp", "MAIL_SERVER": " "}, "MAIL_SERVER"),
        ({"MAIL_PORT": 0}, "MAIL_PORT"),
        ({"MAIL_PORT": "25"}, "MAIL_PORT"),
        ({"MAIL_USE_TLS": "yes"}, "MAIL_USE_TLS"),
        ({"MAIL_USE_TLS": True, "MAIL_USE_SSL": True}, "exclude each other"),
        ({"MAIL_PASSWORD": "secret", "MAIL_USERNAME": ""}, "MAIL_USERNAME"),
        ({"MAIL_DEFAULT_SENDER": "not an address"}, "MAIL_DEFAULT_SENDER"),
        ({"MAIL_DEFAULT_SENDER": "Glory <glory@example.org>\r\nBcc: eve@example.com"}, "MAIL_DEFAULT_SENDER"),
        ({"MAIL_DEFAULT_SENDER": "a@example.org, b@example.org"}, "MAIL_DEFAULT_SENDER"),
        ({"MAIL_TIMEOUT": 0}, "MAIL_TIMEOUT"),
        ({"MAIL_TIMEOUT": True}, "MAIL_TIMEOUT"),
        ({"MAIL_BATCH": 0}, "MAIL_BATCH"),
        ({"MAIL_MAX_ATTEMPTS": 8}, "MAIL_MAX_ATTEMPTS is no longer used"),
        ({"MAIL_RETRY_MAX_SECONDS": 10}, "MAIL_RETRY_MAX_SECONDS"),
        ({"MAIL_RETRY_MAX_SECONDS": 2 * 86400}, "MAIL_RETRY_MAX_SECONDS"),
        ({"MAIL_RETRY_FOR_HOURS": 0}, "MAIL_RETRY_FOR_HOURS"),
        ({"MAIL_RETRY_FOR_HOURS": "72"}, "MAIL_RETRY_FOR_HOURS"),
        ({"MAIL_STUCK_NOTICE_MINUTES": 0}, "MAIL_STUCK_NOTICE_MINUTES"),
        ({"MAIL_STALE_CLAIM_SECONDS": 30, "MAIL_TIMEOUT": 10}, "4 times MAIL_TIMEOUT"),
        ({"MAIL_RATE_PER_SECOND": -1}, "MAIL_RATE_PER_SECOND"),
        ({"MAIL_RATE_PER_SECOND": "fast"}, "MAIL_RATE_PER_SECOND"),
    ],
)
def test_bad_mail_settings_are_refused(tmp_path: Path, config: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        _make(f"sqlite:///{tmp_path / 'c.sqlite3'}", **config)


def test_production_refuses_the_mailbox_backend(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    production = {
        "ENV": "production",
        "DATABASE_URL": url,
        "SECRET_KEY": "k" * 40,
        "MAIL_BACKEND": "mailbox",
        "PREFERRED_URL_SCHEME": "https",
        "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
    }
    with pytest.raises(ConfigError, match="PBEM_MAIL_BACKEND=smtp"):
        create_app(production)
    app = create_app({**production, "MAIL_BACKEND": "smtp", "MAIL_SERVER": "smtp.example.org"})
    app.extensions["pbem_engine"].dispose()
    assert app.extensions["mail"].server == "smtp.example.org"


def test_default_mail_settings(tmp_path: Path) -> None:
    app = _make(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    cfg = app.config
    assert (cfg["MAIL_BACKEND"], cfg["MAIL_TIMEOUT"], cfg["MAIL_BATCH"]) == ("mailbox", 10, 50)
    assert (cfg["MAIL_RETRY_BASE_SECONDS"], cfg["MAIL_RETRY_MAX_SECONDS"], cfg["MAIL_STALE_CLAIM_SECONDS"]) == (
        60,
        15 * 60,
        60,
    )
    assert cfg["MAIL_RETRY_FOR_HOURS"] >= 72, "a relay down for a long weekend loses nothing"
    assert cfg["MAIL_STUCK_NOTICE_MINUTES"] == 60
    assert "MAIL_MAX_ATTEMPTS" not in cfg
    assert cfg["MAIL_DEFAULT_SENDER"] == "Call to Glory <glory@localhost>"


# The command line


def test_pbem_send_mail_sends_and_prints_the_report(smtp_app: Flask, smtp_server: SMTPServer, put_email: Put) -> None:
    put_email(smtp_app)
    put_email(smtp_app, to="gone@example.com")
    smtp_server.fail_with["gone@example.com"] = "550 5.1.1 No such user"
    with smtp_app.app_context():
        result = smtp_app.test_cli_runner().invoke(args=["send-mail"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "claimed 2: sent 1, retried 0, dead 1"
    assert len(smtp_server.messages) == 1
    with smtp_app.app_context():
        again = smtp_app.test_cli_runner().invoke(args=["send-mail"])
    assert again.output.strip() == "claimed 0: sent 0, retried 0, dead 0"


def test_pbem_send_mail_on_an_empty_database_says_so_in_one_line(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}"})
    with app.app_context():
        result = app.test_cli_runner().invoke(args=["send-mail"])
    app.extensions["pbem_engine"].dispose()
    assert result.exit_code == 1
    assert "run pbem db-upgrade" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_pbem_send_mail_loop_sends_until_ctrl_c(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put, database_url: str
) -> None:
    email = put_email(smtp_app)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PBEM_")},
        "PBEM_DATABASE_URL": database_url,
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_MAIL_SERVER": smtp_server.host,
        "PBEM_MAIL_PORT": str(smtp_server.port),
    }
    proc = subprocess.Popen(
        [str(PBEM), "send-mail", "--loop", "--interval", "0.5"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30

    def wait_until_sent(email_id: int) -> None:
        while _row(smtp_app, email_id).status != "sent" and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)

    try:
        wait_until_sent(email)
        assert len(smtp_server.messages) == 1, "the loop sent the queued email"
        later = put_email(smtp_app, to="bob@example.com")
        wait_until_sent(later)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err
    assert "claimed 1: sent 1, retried 0, dead 0" in out, out
    assert [r.envelope_to for r in smtp_server.messages] == [["ann@example.com"], ["bob@example.com"]]
    assert _row(smtp_app, email).status == _row(smtp_app, later).status == "sent"


def test_send_due_needs_no_request_and_reports_nothing_to_do(smtp_app: Flask) -> None:
    report = _send(smtp_app, at=datetime(2030, 1, 1, tzinfo=UTC))
    assert report == SendReport()
    assert str(report) == "claimed 0: sent 0, retried 0, dead 0"


def test_a_lost_claim_is_logged_by_id_only(
    smtp_app: Flask, smtp_server: SMTPServer, put_email: Put, caplog: pytest.LogCaptureFixture, monkeypatch: Any
) -> None:
    """Another sender took the claim over while this one delivered: the warning names the email's id and result,
    never its text (links, the reader's hand)."""
    email_id = put_email(
        smtp_app, text="Your hand: SECRET-HAND-7\nhttps://x/play/abc.def.ghi\n", html="<p>SECRET-HAND-7</p>"
    )
    built = sender.build_message

    def build_then_lose_the_claim(email: Any, **kw: Any) -> Any:
        with db.write_session() as session:
            session.get(OutboxEmail, email.id).claimed_by = "another-sender"  # type: ignore[union-attr]
        return built(email, **kw)

    monkeypatch.setattr(sender, "build_message", build_then_lose_the_claim)
    with caplog.at_level("WARNING"):
        _send(smtp_app)
    assert f"outbox {email_id}: the claim was lost before its result (sent) was recorded" in caplog.text
    assert "SECRET-HAND" not in caplog.text and "abc.def" not in caplog.text


# Full speed: batch after batch over one connection, a rate cap, claims renewed while sending


def test_a_backlog_goes_out_in_one_pass_over_one_connection(
    make_mail_app: Any, smtp_server: SMTPServer, put_email: Put, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_mail_app(MAIL_SERVER=smtp_server.host, MAIL_PORT=smtp_server.port, MAIL_BATCH=5)
    for n in range(23):
        put_email(app, to=f"p{n}@example.com")
    connections: list[int] = []
    opened = sender._Connection.configure_host

    def counted(self: Any) -> Any:
        connections.append(1)
        return opened(self)

    monkeypatch.setattr(sender._Connection, "configure_host", counted)
    batches: list[int] = []
    with app.app_context():
        report = sender.send_while_full(after_batch=lambda r: batches.append(r.sent))
    assert (report.claimed, report.sent) == (23, 23) and batches == [5, 5, 5, 5, 3]
    assert len(connections) == 1, "one SMTP connection for the whole backlog"
    assert len({m["Message-ID"] for m in smtp_server.messages}) == len(smtp_server.messages) == 23


def test_a_pass_stops_when_the_server_cannot_be_reached(make_mail_app: Any, put_email: Put) -> None:
    app = make_mail_app(MAIL_SERVER="127.0.0.1", MAIL_PORT=free_port(), MAIL_BATCH=2)
    for n in range(7):
        put_email(app, to=f"p{n}@example.com")
    with app.app_context():
        report = sender.send_while_full()
    assert (report.claimed, report.retried, report.unreachable) == (2, 2, True), "one batch, then it waits"


def test_the_rate_cap_spaces_the_emails(make_mail_app: Any, smtp_server: SMTPServer, put_email: Put) -> None:
    app = make_mail_app(MAIL_SERVER=smtp_server.host, MAIL_PORT=smtp_server.port, MAIL_RATE_PER_SECOND=20)
    for n in range(11):
        put_email(app, to=f"p{n}@example.com")
    started = time.monotonic()
    with app.app_context():
        assert sender.send_while_full().sent == 11
    assert time.monotonic() - started >= 10 / 20, "11 emails at 20 a second take at least half a second"


def test_a_claim_is_renewed_while_its_batch_is_sent(smtp_app: Flask, put_email: Put) -> None:
    """A live sender keeps its rows' claims fresh, so no other sender takes them over; once it stops renewing
    (killed), the claim is stale after MAIL_STALE_CLAIM_SECONDS, a minute by default."""
    ids = [put_email(smtp_app, to=f"p{n}@example.com") for n in range(2)]
    t0 = timing.now()
    with smtp_app.app_context():
        with db.write_session() as session:
            outbox.claim_due(session=session, now=t0, limit=10, claimer="live")
        batch = sender._Batch(db.get_engine(), "live", t0 + timedelta(minutes=5), SendReport())
        batch.stale = 0.2  # renew every 0.05 s for the test
        before = batch.renewed
        with sender._Renewal(db.get_engine(), "live", batch):
            time.sleep(0.3)
        assert batch.renewed > before
    assert {_aware(_row(smtp_app, i).claimed_at) for i in ids} == {t0 + timedelta(minutes=5)}
    with smtp_app.app_context(), db.write_session() as session:
        taken = outbox.claim_due(session=session, now=t0 + timedelta(minutes=5, seconds=59), limit=10, claimer="other")
        assert taken == [], "a renewed claim is not stale"
        taken = outbox.claim_due(session=session, now=t0 + timedelta(minutes=6, seconds=1), limit=10, claimer="other")
        assert len(taken) == 2, "a minute after the last renewal, another sender takes the emails over"
