"""Email is never lost and never doubled: a mail server down for days, and a database locked just after DATA.

Both run against a real aiosmtpd server and count the Message-IDs it received per outbox row. Time moves
by the ``now`` the sender takes, never by sleeping (except for the real lock that a timer releases).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from flask import Flask
from sqlmodel import col, select

from pbem import admin, db, i18n, timing
from pbem.core import games
from pbem.mail import outbox
from pbem.mail.sender import SendReport, send_due
from pbem.models import OutboxEmail
from tests.apps import free_port, new_table

from .conftest import MailAppFactory, SMTPServer

Put = Callable[..., int]
STEP = timedelta(minutes=10)
OUTAGE = timedelta(days=3)


def _send(app: Flask, at: datetime) -> SendReport:
    with app.app_context():
        return send_due(now=at)


def _rows(app: Flask) -> list[OutboxEmail]:
    with app.app_context():
        return list(db.get_session().exec(select(OutboxEmail).order_by(col(OutboxEmail.id))).all())


def _stuck_notices(app: Flask) -> Counter[int]:
    return Counter(r.game_id or 0 for r in _rows(app) if (r.dedupe_key or "").startswith("stuck:"))


def _listing(app: Flask, now: datetime, **kw: Any) -> dict[int, admin.GameRow]:
    with app.app_context():
        return {r.id: r for r in admin.list_games(session=db.get_session(), now=now, **kw).rows}


def _figures(app: Flask, server: SMTPServer) -> tuple[int, int, int, int]:
    """(emails, lost, duplicated, dead): lost = a row whose Message-ID never arrived, duplicated = arrived twice."""
    received = Counter(m["Message-ID"] for m in server.messages)
    rows = _rows(app)
    lost = sum(1 for r in rows if received[r.message_id] == 0)
    doubled = sum(1 for r in rows if received[r.message_id] > 1)
    return len(rows), lost, doubled, sum(1 for r in rows if r.status == "dead")


def test_three_days_without_a_mail_server_lose_nothing_and_double_nothing(
    make_mail_app: MailAppFactory, put_email: Put, caplog: pytest.LogCaptureFixture
) -> None:
    """With the default settings, the server refusing connections for 3 days: no email is dead, the organisers
    hear once per game after an hour and the games list says "mail stuck"; when the server answers, every
    email arrives exactly once, without waiting for the backoff."""
    port = free_port()  # nothing listens there yet: every connection is refused
    app = make_mail_app(MAIL_PORT=port)
    organised = [
        new_table(app, [games.SeatSpec(f"p{g}{n}", email=f"p{g}{n}@example.com") for n in range(3)],
                  name=f"Game {g}", seed=g, organiser_email=f"org{g}@example.com").game_id
        for g in range(2)
    ]  # fmt: skip
    quiet = new_table(app, [games.SeatSpec("solo", email="solo@example.com"), games.SeatSpec("bot", kind="heuristic")])
    for n in range(20):
        put_email(app, to=f"reader{n}@example.com")
    start = timing.now()
    queued = len(_rows(app))

    moment, notices_at, outcomes = start, None, Counter[str]()
    while moment < start + OUTAGE:
        report = _send(app, moment)
        outcomes.update(sent=report.sent, dead=report.dead, retried=report.retried)
        if notices_at is None and _stuck_notices(app):
            notices_at = moment
        moment += STEP
    assert (outcomes["sent"], outcomes["dead"]) == (0, 0), "3 days down: nothing is dead"
    rows = _rows(app)
    assert {r.status for r in rows} == {"queued"}
    assert max(outbox.as_utc(r.next_attempt_at) for r in rows) <= moment + timedelta(minutes=15), "backoff capped"
    assert notices_at is not None and timedelta(hours=1) <= notices_at - start <= timedelta(hours=1) + STEP
    assert _stuck_notices(app) == {organised[0]: 1, organised[1]: 1}, "one notice per game with an organiser"
    listing = _listing(app, moment)
    assert {i for i, r in listing.items() if r.stuck_since is not None} == {*organised, quiet.game_id}
    assert "mail stuck" in listing[quiet.game_id].attention(moment)
    assert {*organised, quiet.game_id} <= set(_listing(app, moment, attention=True))

    # The server answers again; a player moves, so one new email is due at once.
    server = SMTPServer("127.0.0.1", port)
    controller = Controller(server, hostname=server.host, port=port, server_hostname="localhost")
    controller.start()
    try:
        put_email(app, to="mover@example.com")
        first = _send(app, moment)
        assert first.sent == first.claimed and first.resumed == queued + 3 - first.claimed
        second = _send(app, moment)  # the next pass, at the same instant: no backoff left to wait
        assert second.sent == second.claimed == queued + 3 - first.claimed
    finally:
        controller.stop()
    emails, lost, doubled, dead = _figures(app, server)
    logging.getLogger(__name__).warning(
        "outage figures: %s emails through 3 days down: lost %s, duplicated %s, dead %s", emails, lost, doubled, dead
    )
    assert (emails, lost, doubled, dead) == (queued + 3, 0, 0, 0)
    assert not any(r.stuck_since for r in _listing(app, moment).values())
    notices = [m for m in server.messages if m["Subject"].endswith("Email is not going out")]
    assert sorted(m["To"] for m in notices) == ["org0@example.com", "org1@example.com"]
    text = notices[0].get_body(("plain",))
    assert text is not None and "Nothing is lost" in text.get_content()
    words = " ".join(text.get_content().split())
    assert re.search(r"waiting since \w+day \d+ \w+ \d{4}, \d\d:\d\d \(UTC\):", words), "a time in words"
    with app.app_context():
        retried = i18n.duration(timedelta(hours=app.config["MAIL_RETRY_FOR_HOURS"]))
    assert f"for up to {retried} after each was queued" in words, "a duration in words"


def test_a_new_outage_tells_the_organiser_again_but_one_outage_only_once(
    smtp_app: Flask, smtp_server: SMTPServer
) -> None:
    seats = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob", kind="heuristic")]
    game = new_table(smtp_app, seats, organiser_email="org@example.com").game_id
    smtp_server.fail_with["ann@example.com"] = "451 4.3.0 Try again later"
    t0 = timing.now()
    for minutes in (0, 30, 59):
        _send(smtp_app, t0 + timedelta(minutes=minutes))
    assert _stuck_notices(smtp_app) == {}, "not before an hour"
    _send(smtp_app, t0 + timedelta(minutes=61))
    assert _stuck_notices(smtp_app) == {game: 1}
    _send(smtp_app, t0 + timedelta(hours=5))
    assert _stuck_notices(smtp_app) == {game: 1}, "once per outage"
    smtp_server.fail_with.clear()
    later = t0 + timedelta(hours=6)
    _send(smtp_app, later)
    assert {r.status for r in _rows(smtp_app)} == {"sent"}
    # A day later, the next email is stuck again: a new outage, a new notice.
    with smtp_app.app_context(), db.write_session() as session:
        outbox.queue(session=session, kind="turn", to="ann@example.com", subject="Your turn", text="t", html="h",
                     game_id=game, now=later + timedelta(days=1))  # fmt: skip
    smtp_server.fail_with["ann@example.com"] = "451 4.3.0 Try again later"
    _send(smtp_app, later + timedelta(days=1))
    assert _stuck_notices(smtp_app) == {game: 1}
    _send(smtp_app, later + timedelta(days=1, hours=2))
    assert _stuck_notices(smtp_app) == {game: 2}


def test_a_locked_database_after_data_does_not_send_twice(
    make_mail_app: MailAppFactory, smtp_server: SMTPServer, put_email: Put, database_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """Just after the server accepts DATA another process holds SQLite's write lock for longer than the busy
    timeout: the sender keeps trying to record "sent" until the lock is gone, so a later pass, past the stale
    claim time, has nothing to send again."""
    if not database_url.startswith("sqlite"):
        pytest.skip("a write lock held by another connection is SQLite's 'database is locked'")
    app = make_mail_app(MAIL_PORT=smtp_server.port, SQLITE_BUSY_TIMEOUT_MS=50)
    ids = [put_email(app, to=f"p{n}@example.com") for n in range(3)]
    path = database_url.removeprefix("sqlite:///")
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    locked: list[threading.Timer] = []
    accept = SMTPServer.handle_DATA

    async def lock_after_data(server: Any, session: Any, envelope: Any) -> str:
        reply = await accept(smtp_server, server, session, envelope)
        if not locked:  # the first email: lock the database before the sender hears "250"
            holder.execute("BEGIN IMMEDIATE")
            locked.append(threading.Timer(1.0, holder.execute, ("COMMIT",)))
            locked[0].start()
        return reply

    smtp_server.handle_DATA = lock_after_data  # type: ignore[method-assign]
    t0 = timing.now()
    with caplog.at_level(logging.WARNING):
        report = _send(app, t0)
    locked[0].join()
    holder.close()
    _send(app, t0 + timedelta(seconds=app.config["MAIL_STALE_CLAIM_SECONDS"] + 60))  # a later pass
    received = Counter(m["Message-ID"] for m in smtp_server.messages)
    wanted = [r.message_id for r in _rows(app) if r.id in ids]
    assert [received[m] for m in wanted] == [1, 1, 1], "each email once: 0 duplicated"
    assert {r.status for r in _rows(app)} == {"sent"}
    assert (report.claimed, report.sent) == (3, 3)
    assert "marking it sent failed, trying again" in caplog.text
