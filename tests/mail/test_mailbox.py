"""The development mailbox: lists, filters and shows every email, serves the HTML part safely, never writes."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import create_app, db
from pbem.mail.sender import send_due
from pbem.models import OutboxEmail
from pbem.web.mailbox import EMAIL_CSP

Put = Callable[..., int]
ITEM = re.compile(r'<li class="mail">.*?<span class="subject">(.*?)</span>.*?class="mail-status (\w+)"', re.S)


def _listed(html: str) -> list[tuple[str, str]]:
    """(subject, status) of each email on a list page, in order."""
    return ITEM.findall(html)


def _set(app: Flask, email_id: int, **values: object) -> None:
    with app.app_context(), db.write_session() as session:
        row = session.get(OutboxEmail, email_id)
        assert row is not None
        for name, value in values.items():
            setattr(row, name, value)


def test_the_list_shows_every_email_newest_first_even_before_the_sender_ran(
    app: Flask, client: FlaskClient, put_email: Put
) -> None:
    put_email(app, subject="Friday · Invitation", kind="invitation")
    put_email(app, subject="Friday · Round 1 · Your turn", kind="turn", to="bob@example.com")
    page = client.get("/mailbox")
    assert page.status_code == 200
    assert _listed(page.text) == [("Friday · Round 1 · Your turn", "queued"), ("Friday · Invitation", "queued")]
    assert "To bob@example.com · turn ·" in page.text
    assert "2 emails" in page.text

    with app.app_context():
        assert send_due().sent == 2
    put_email(app, subject="Friday · Round 2 · Your turn")
    assert _listed(client.get("/mailbox").text) == [
        ("Friday · Round 2 · Your turn", "queued"),
        ("Friday · Round 1 · Your turn", "sent"),
        ("Friday · Invitation", "sent"),
    ]


def test_the_list_filters_by_recipient(app: Flask, client: FlaskClient, put_email: Put) -> None:
    put_email(app, subject="for ann 1", to="Ann@Example.com")
    put_email(app, subject="for bob", to="bob@example.com")
    put_email(app, subject="for ann 2", to="Ann@Example.com")
    everyone = client.get("/mailbox").text
    assert 'href="/mailbox?to=Ann@Example.com"' in everyone and 'href="/mailbox?to=bob@example.com"' in everyone
    page = client.get("/mailbox?to=ann@example.com")
    assert [subject for subject, _status in _listed(page.text)] == ["for ann 2", "for ann 1"]
    assert "2 emails to <strong>ann@example.com</strong>" in page.text
    assert _listed(client.get("/mailbox?to=nobody@example.com").text) == []
    assert "No emails to nobody@example.com" in client.get("/mailbox?to=nobody@example.com").text


def test_the_list_is_paginated(app: Flask, client: FlaskClient, put_email: Put) -> None:
    for n in range(30):
        put_email(app, subject=f"email {n}")
    first = client.get("/mailbox")
    assert [s for s, _ in _listed(first.text)] == [f"email {n}" for n in range(29, 4, -1)]
    assert 'href="/mailbox?page=2" rel="next"' in first.text and 'rel="prev"' not in first.text
    second = client.get("/mailbox?page=2")
    assert [s for s, _ in _listed(second.text)] == [f"email {n}" for n in range(4, -1, -1)]
    assert 'href="/mailbox?page=1" rel="prev"' in second.text and 'rel="next"' not in second.text
    beyond = client.get("/mailbox?page=9")
    assert beyond.status_code == 200 and "No emails on this page" in beyond.text


@pytest.mark.parametrize(
    "query", ["page=0", "page=x", "page=-1", "page=1e3", "page=²", "page=10000000", f"to={'a' * 255}", "to=a%00b"]
)
def test_bad_list_parameters_get_a_400_page(client: FlaskClient, query: str) -> None:
    response = client.get(f"/mailbox?{query}")
    assert response.status_code == 400
    assert "not valid" in response.text


def test_one_email_shows_headers_text_with_links_html_and_attachments(
    app: Flask, client: FlaskClient, put_email: Put
) -> None:
    email = put_email(
        app,
        to="Zoë <zoe@example.com>",
        subject="Friday · Your turn 🎴",
        text="Draw from pile 1:\nhttp://127.0.0.1:5000/play/abc?x=1&y=2.\n",
        html='<table><tr><td style="background:#4f7d2b">3 Farmer</td></tr></table>',
        headers={"In-Reply-To": "<invite@127.0.0.1>", "List-Unsubscribe": "<http://127.0.0.1:5000/u/t>"},
        message_id="<turn-7@127.0.0.1>",
        attachments=[{"filename": "call-to-glory-1.json", "content_type": "application/json", "content": '{"a": 1}'}],
    )
    page = client.get(f"/mailbox/{email}")
    assert page.status_code == 200
    text = page.text
    for name, value in [
        ("From", "Call to Glory &lt;glory@localhost&gt;"),
        ("To", "Zoë &lt;zoe@example.com&gt;"),
        ("Subject", "Friday · Your turn 🎴"),
        ("Message-ID", "&lt;turn-7@127.0.0.1&gt;"),
        ("In-Reply-To", "&lt;invite@127.0.0.1&gt;"),
        ("List-Unsubscribe", "&lt;http://127.0.0.1:5000/u/t&gt;"),
        ("MIME parts", "multipart/mixed, multipart/alternative, text/plain, text/html, application/json"),
    ]:
        assert f"<dt>{name}</dt><dd>{value}</dd>" in text
    link = "http://127.0.0.1:5000/play/abc?x=1&amp;y=2"
    assert f'<a href="{link}" rel="noreferrer">{link}</a>.' in text, "the link is clickable, the full stop is not in it"
    assert "&lt;td style=&#34;background:#4f7d2b&#34;&gt;3 Farmer" in text, "the HTML source is shown escaped"
    assert f'href="/mailbox/{email}/html"' in text
    assert "call-to-glory-1.json" in text and "{&#34;a&#34;: 1}" in text
    assert 'href="/mailbox?to=Zo%C3%AB+%3Czoe@example.com%3E"' in text, "back to this recipient's mailbox"


def test_a_failed_email_shows_its_status_and_error(app: Flask, client: FlaskClient, put_email: Put) -> None:
    dead = put_email(app)
    _set(app, dead, status="dead", attempts=1, last_error="550 5.1.1 No such user")
    broken = put_email(app)
    _set(app, broken, headers={"X-Bad": "a\r\nBcc: eve@example.com"})
    page = client.get(f"/mailbox/{dead}").text
    assert 'class="mail-status dead"' in page and "Last error: 550 5.1.1 No such user" in page
    assert (
        "This email cannot be sent: the X-Bad header may not contain line breaks"
        in client.get(f"/mailbox/{broken}").text
    )


def test_the_html_part_is_served_with_its_own_csp(app: Flask, client: FlaskClient, put_email: Put) -> None:
    html = '<div style="color:#8a1c1c">Your turn</div><script>alert(1)</script>'
    email = put_email(app, html=html)
    response = client.get(f"/mailbox/{email}/html")
    assert response.status_code == 200
    assert response.text == html
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Content-Security-Policy"] == EMAIL_CSP
    assert "script-src" not in EMAIL_CSP and "default-src 'none'" in EMAIL_CSP, "scripts fall back to 'none'"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    other = client.get(f"/mailbox/{email}")
    assert "style-src 'self'" in other.headers["Content-Security-Policy"], "other pages keep the app's policy"


def test_subjects_and_addresses_are_escaped(app: Flask, client: FlaskClient, put_email: Put) -> None:
    email = put_email(app, subject="<script>alert(1)</script>", to="x<img src=x>@example.com")
    for path in ("/mailbox", f"/mailbox/{email}"):
        text = client.get(path).text
        assert "<script>alert(1)" not in text and "<img src=x>" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


@pytest.mark.parametrize("path", ["/mailbox/999", "/mailbox/999/html", "/mailbox/99999999999999999999", "/mailbox/x"])
def test_an_unknown_email_is_a_404_page(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert 'class="error"' in response.text


def test_the_mailbox_does_not_exist_in_production(tmp_path: Path, put_email: Put) -> None:
    app = create_app(
        {
            "ENV": "production",
            "TESTING": True,
            "SECRET_KEY": "a-real-production-key-" + "q" * 40,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.sqlite3'}",
        }
    )
    with app.app_context():
        db.upgrade(db.get_engine())
    email = put_email(app)
    client = app.test_client()
    for path in ("/mailbox", f"/mailbox/{email}", f"/mailbox/{email}/html"):
        assert client.get(path).status_code == 404
    app.extensions["pbem_engine"].dispose()


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_opening_mailbox_pages_writes_nothing(
    app: Flask, client: FlaskClient, put_email: Put, write_counter: list[str], method: str
) -> None:
    queued = put_email(app)
    broken = put_email(app, to="bob@example.com")
    _set(app, broken, headers={"X-Bad": "a\nb"})
    write_counter.clear()
    paths = [
        "/mailbox",
        "/mailbox?to=ann@example.com",
        "/mailbox?page=2",
        "/mailbox?page=x",
        f"/mailbox/{queued}",
        f"/mailbox/{queued}/html",
        f"/mailbox/{broken}",
        "/mailbox/999",
    ]
    for path in paths:
        assert client.open(path, method=method).status_code in (200, 400, 404)
    assert write_counter == []
    with app.app_context():
        rows = db.get_session().exec(select(OutboxEmail)).all()
    assert {row.status for row in rows} == {"queued"}


def test_the_filter_takes_a_bare_address_too(app: Flask, client: FlaskClient, put_email: Put) -> None:
    put_email(app, subject="for ann", to="Ann Müller <Ann@Example.com>")
    put_email(app, subject="for ann's namesake", to="ann_x@example.com")
    put_email(app, subject="not for ann", to="Joanne <joann@example.com>")
    assert [subject for subject, _ in _listed(client.get("/mailbox?to=ann@example.com").text)] == ["for ann"]
    assert _listed(client.get("/mailbox?to=ann%25@example.com").text) == []


@pytest.mark.parametrize(("backend", "status"), [("mailbox", 200), ("smtp", 404)])
def test_the_mailbox_exists_only_with_the_mailbox_backend(tmp_path: Path, backend: str, status: int) -> None:
    """In development with real SMTP mail, /mailbox would show every player's email (and links) to anyone."""
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/x.sqlite3", "MAIL_BACKEND": backend})
    with app.app_context():
        db.upgrade(db.get_engine())
    assert app.config["DEVELOPMENT"]
    assert app.test_client().get("/mailbox").status_code == status
    app.extensions["pbem_engine"].dispose()
