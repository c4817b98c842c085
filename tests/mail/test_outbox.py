"""The outbox: header values are checked when queued, and due rows are claimed by exactly one sender."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from datetime import timedelta

import pytest
from flask import Flask
from sqlmodel import col, select

from pbem import db, timing
from pbem.mail import outbox
from pbem.models import OutboxEmail

Put = Callable[..., int]
STALE = 600
"""The stale time these tests claim with (the setting's default is shorter; the rule is the same)."""


def _claim(app: Flask, claimer: str, *, limit: int = 50, after: float = 0) -> list[int]:
    with app.app_context(), db.write_session() as session:
        now = timing.now() + timedelta(seconds=after)
        rows = outbox.claim_due(session=session, now=now, limit=limit, claimer=claimer, stale_seconds=STALE)
        return [row.id or 0 for row in rows]


def _rows(app: Flask) -> dict[int, OutboxEmail]:
    with app.app_context():
        return {row.id or 0: row for row in db.get_session().exec(select(OutboxEmail)).all()}


@pytest.mark.parametrize(
    "field",
    [
        {"subject": "Your turn\r\nBcc: eve@example.com"},
        {"subject": "Your turn\nX-Evil: 1"},
        {"to": "ann@example.com\r\nBcc: eve@example.com"},
        {"to": "ann@example.com\0"},
        {"headers": {"In-Reply-To": "<a@b>\r\nBcc: eve@example.com"}},
        {"headers": {"X-Evil\r\nBcc": "eve@example.com"}},
    ],
    ids=["subject CRLF", "subject LF", "recipient CRLF", "recipient NUL", "header value", "header name"],
)
def test_queue_refuses_line_breaks_in_headers(app: Flask, put_email: Put, field: dict[str, object]) -> None:
    with pytest.raises(outbox.HeaderInjection):
        put_email(app, **field)
    assert _rows(app) == {}


def test_queue_keeps_one_row_per_dedupe_key(app: Flask, put_email: Put) -> None:
    put_email(app, dedupe_key="invite:1:0")
    with app.app_context(), db.write_session() as session:
        again = outbox.queue(
            session=session, kind="x", to="a@b.c", subject="s", text="t", html="h", dedupe_key="invite:1:0"
        )
    assert again is None
    assert len(_rows(app)) == 1


def test_claims_what_is_due_oldest_first(app: Flask, put_email: Put) -> None:
    later = put_email(app, due=timing.now() + timedelta(minutes=5))
    first = put_email(app, due=timing.now() - timedelta(minutes=5))
    second = put_email(app)
    assert _claim(app, "sender-a") == [first, second]
    rows = _rows(app)
    assert {rows[first].status, rows[second].status, rows[later].status} == {"sending", "queued"}
    assert rows[first].claimed_by == rows[second].claimed_by == "sender-a"
    assert rows[later].status == "queued" and rows[later].claimed_by is None
    assert _claim(app, "sender-b") == [], "a claimed row is not claimed again"
    assert _claim(app, "sender-b", after=310) == [later], "due now, and the other claims are not stale yet"


def test_claim_respects_the_limit(app: Flask, put_email: Put) -> None:
    ids = [put_email(app) for _ in range(5)]
    assert _claim(app, "a", limit=2) == ids[:2]
    assert _claim(app, "b", limit=2) == ids[2:4]
    assert _claim(app, "c", limit=2) == ids[4:]


def test_a_stale_claim_is_taken_over(app: Flask, put_email: Put) -> None:
    email = put_email(app)
    assert _claim(app, "crashed") == [email]
    assert _claim(app, "other", after=STALE - 5) == [], "a claim younger than the stale time stays"
    assert _claim(app, "other", after=STALE + 5) == [email]
    assert _rows(app)[email].claimed_by == "other"


def test_two_claims_at_once_never_share_a_row(app: Flask, put_email: Put) -> None:
    """A holds its claim transaction open while B claims: B gets other rows (PostgreSQL: without waiting,
    thanks to SKIP LOCKED; SQLite: after A commits, BEGIN IMMEDIATE serialises them)."""
    ids = [put_email(app) for _ in range(6)]
    postgres = app.extensions["pbem_engine"].dialect.name == "postgresql"
    got: dict[str, list[int]] = {}
    a_claimed, b_done = threading.Event(), threading.Event()
    b_finished_while_a_open: list[bool] = []

    def sender_a() -> None:
        with app.app_context(), db.write_session() as session:
            rows = outbox.claim_due(session=session, now=timing.now(), limit=3, claimer="a")
            got["a"] = [row.id or 0 for row in rows]
            a_claimed.set()
            if postgres:
                b_finished_while_a_open.append(b_done.wait(10))

    def sender_b() -> None:
        a_claimed.wait(10)
        got["b"] = _claim(app, "b", limit=6)
        b_done.set()

    threads = [threading.Thread(target=sender_a), threading.Thread(target=sender_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert got["a"] == ids[:3]
    assert got["b"] == ids[3:]
    if postgres:
        assert b_finished_while_a_open == [True], "B waited for A's locks instead of skipping them"
    rows = _rows(app)
    assert Counter(rows[i].claimed_by for i in ids) == {"a": 3, "b": 3}


def test_many_claimers_in_threads_claim_every_row_once(app: Flask, put_email: Put) -> None:
    ids = [put_email(app) for _ in range(40)]
    claims: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(4)

    def claimer(name: str) -> None:
        start.wait(10)
        while True:
            got = _claim(app, name, limit=3)
            if not got:
                return
            with lock:
                claims.extend(got)

    threads = [threading.Thread(target=claimer, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(claims) == ids, "every row claimed, none twice"
    assert all(row.status == "sending" for row in _rows(app).values())


def test_claim_uses_the_due_index(app: Flask) -> None:
    with app.app_context():
        names = {ix.name: [c.name for c in ix.columns] for ix in OutboxEmail.__table__.indexes}  # type: ignore[attr-defined]
    assert names["ix_outbox_due"] == ["status", "next_attempt_at"]


def test_mailbox_queries(app: Flask, put_email: Put) -> None:
    ids = [put_email(app, to="Ann@Example.com" if n % 2 else "bob@example.com") for n in range(5)]
    with app.app_context():
        session = db.get_session()
        page = outbox.mailbox_page(session=session, to="ann@example.com", per_page=1)
        assert (page.total, page.pages, [e.id for e in page.emails]) == (2, 2, [ids[3]])
        second = outbox.mailbox_page(session=session, to="ann@example.com", page=2, per_page=1)
        assert [e.id for e in second.emails] == [ids[1]]
        everyone = outbox.mailbox_page(session=session)
        assert [e.id for e in everyone.emails] == ids[::-1]
        assert outbox.recipients(session=session) == [("bob@example.com", 3), ("Ann@Example.com", 2)]
        assert outbox.get_email(session=session, email_id=2**40) is None
        assert session.exec(select(OutboxEmail).where(col(OutboxEmail.status) != "queued")).all() == []
