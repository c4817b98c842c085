"""Bounces through ``pbem mail-in``: a delivery status notification (RFC 3464) or mail to a VERP return path marks
the seat's address as failing, tells the organiser once, shows on the admin games list and on the player's page;
a storm of them changes nothing more."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask import Flask

from pbem import db, timing
from pbem.admin import listing
from pbem.core import games
from tests.apps import Table, new_table
from tests.mail.conftest import SMTPServer, deliver

from .conftest import PEOPLE, inbound, sent_to


def dsn(failed: str, *, message_id: str, to: str = "glory@club.example") -> bytes:
    """A Postfix delivery status notification (RFC 3464) for ``failed``, as Postfix writes it."""
    text = f"""Return-Path: <>
From: MAILER-DAEMON@mx.club.example (Mail Delivery System)
To: {to}
Subject: Undelivered Mail Returned to Sender
Message-ID: {message_id}
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
\tboundary="8F2A1C0042.1764324000/mx.club.example"

This is a MIME-encapsulated message.

--8F2A1C0042.1764324000/mx.club.example
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.club.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<{failed}>: host mx.example.com[192.0.2.7] said: 550 5.1.1
    <{failed}>: Recipient address rejected: User unknown

--8F2A1C0042.1764324000/mx.club.example
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.club.example
X-Postfix-Queue-ID: 8F2A1C0042
Arrival-Date: Sat, 28 Nov 2026 10:00:00 +0000 (UTC)

Final-Recipient: rfc822; {failed}
Original-Recipient: rfc822;{failed}
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.com
Diagnostic-Code: smtp; 550 5.1.1 <{failed}>: Recipient address rejected: User
    unknown

--8F2A1C0042.1764324000/mx.club.example
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

From: Call to Glory <glory@club.example>
To: {failed}
Subject: Friday game · Your turn

--8F2A1C0042.1764324000/mx.club.example--
"""
    return text.replace("\n", "\r\n").encode()


@pytest.fixture
def organised(reply_app: Flask) -> Table:
    specs = [games.SeatSpec(n, email=e, language=lang) for n, e, lang in PEOPLE]
    table = new_table(reply_app, specs, seed=1, organiser_email="org@example.com")
    deliver(reply_app)
    return table


def _run(app: Flask, raw: bytes) -> None:
    result = app.test_cli_runner().invoke(args=["mail-in", "-"], input=raw)
    assert result.exit_code == 0, result.output
    assert "bounce" in result.output


def test_a_dsn_marks_the_address_tells_the_organiser_once_and_shows_where_needed(
    reply_app: Flask, organised: Table
) -> None:
    _run(reply_app, dsn("bob@example.com", message_id="<dsn-1@mx>"))
    seat = organised.seat(1)
    assert seat.bounced_at is not None and "5.1.1" in (seat.bounce_detail or "")
    notices = sent_to(reply_app, "org@example.com")
    bounce_notices = [n for n in notices if "bounce" in n.subject]
    assert len(bounce_notices) == 1 and "bob@example.com" in bounce_notices[0].text_body
    _run(reply_app, dsn("bob@example.com", message_id="<dsn-2@mx>"))
    assert len([n for n in sent_to(reply_app, "org@example.com") if "bounce" in n.subject]) == 1
    with reply_app.test_request_context():
        rows = listing.list_games(session=db.get_session(), now=timing.now(), attention=True).rows
    assert [r.id for r in rows] == [organised.game_id] and rows[0].bouncing == 1
    assert any("bounces" in reason for reason in rows[0].attention(timing.now()))
    page = reply_app.test_client().get(f"/play/{organised.personal(1)}").get_data(as_text=True)
    assert "komen onbezorgd terug" in page  # bob reads Dutch
    other = reply_app.test_client().get(f"/play/{organised.personal(0)}").get_data(as_text=True)
    assert "come back undelivered" not in other and "onbezorgd" not in other
    assert organised.moves_logged() == 0


def test_a_bounce_storm_is_one_notice(reply_app: Flask, organised: Table) -> None:
    from pbem import mail_in

    start = time.perf_counter()
    with reply_app.app_context():
        for i in range(1000):
            assert mail_in.receive(dsn("cy@example.com", message_id=f"<storm-{i}@mx>")).outcome == "bounce"
    elapsed = time.perf_counter() - start
    assert len([n for n in sent_to(reply_app, "org@example.com") if "bounce" in n.subject]) == 1
    rows = inbound(reply_app)
    assert len(rows) == 1000 and {r["outcome"] for r in rows} == {"bounce"}
    print(f"1000 DSNs in {elapsed:.1f} s")


def test_a_verp_return_path_names_the_seat(make_reply_app: Any, smtp_server: SMTPServer) -> None:
    app = make_reply_app(
        MAIL_BACKEND="smtp",
        MAIL_SERVER=smtp_server.host,
        MAIL_PORT=smtp_server.port,
        MAIL_USE_TLS=False,
        MAIL_USE_SSL=False,
        MAIL_USERNAME=None,
        MAIL_PASSWORD=None,
        MAIL_BOUNCE_ADDRESS="bounce@club.example",
    )
    specs = [games.SeatSpec(n, email=e, language=lang) for n, e, lang in PEOPLE]
    table = new_table(app, specs, seed=1, organiser_email="org@example.com")
    deliver(app)
    to_cy = [m for m in smtp_server.messages if "cy@example.com" in m.envelope_to]
    assert to_cy and all(m.envelope_from.startswith("bounce+") for m in to_cy)
    assert to_cy[0]["List-Id"] and to_cy[0]["Auto-Submitted"] == "auto-generated"
    verp = to_cy[-1].envelope_from
    # a mail server's bounce that names no recipient at all: the return path says whose it was
    raw = (
        f"From: MAILER-DAEMON@mx.example\r\nTo: {verp}\r\nSubject: failure notice\r\nMessage-ID: <qmail-1@mx>\r\n\r\n"
        "Sorry, I wasn't able to deliver your message.\r\n"
    ).encode()
    _run(app, raw)
    assert table.seat(2).bounced_at is not None and table.seat(1).bounced_at is None
    # a forged return path (another seat's token with a changed MAC) marks nothing
    forged = verp[:-20] + ("0" if verp[-20] != "0" else "1") + verp[-19:]
    _run(app, raw.replace(verp.encode(), forged.encode()).replace(b"qmail-1", b"qmail-2"))
    assert table.seat(1).bounced_at is None and table.seat(0).bounced_at is None
