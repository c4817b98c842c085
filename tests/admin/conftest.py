"""Admin test fixtures: an organiser account, a logged-in client, and a game made through the admin services.

``organiser``
    An admin account ("org", PASSWORD, org@example.com, Europe/Amsterdam) made with ``admin.create_admin``;
    the ``admin.Actor`` the services record.
``admin_client``
    The ``client`` fixture, logged in as ``organiser`` through the login form (the path a person takes).
``smtp_server``, ``smtp_app``
    A real SMTP server and an app on the same database that sends to it (tests/mail/conftest.py).
``adm_table``
    A 3-seat game (ann and bob by email, a heuristic bot) created with ``admin.create_game_from_form`` (seed 1),
    as a ``tests.apps.Table``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from engine.call_to_glory.game import task_table_text
from pbem import admin, db
from pbem.models import AdminAction, AdminUser, OutboxEmail
from tests.apps import Table
from tests.mail.conftest import make_mail_app, smtp_app, smtp_server  # noqa: F401  (the real SMTP server, shared)

PASSWORD = "a long secret, 42!"
CSRF = re.compile(r'name="csrf_token"(?: type="hidden")? value="([^"]+)"')
TRACE = re.compile(r"Traceback|File \"|\bline \d+, in\b")


def csrf_of(client: FlaskClient, path: str = "/admin/login") -> str:
    """A CSRF token from a page of this client's session."""
    response = client.get(path, follow_redirects=True)
    found = CSRF.search(response.get_data(as_text=True))
    assert found, f"{path} has a form with a CSRF token"
    return found.group(1)


def log_in(client: FlaskClient, username: str = "org", password: str = PASSWORD, **extra: str) -> TestResponse:
    """Post the login form as a person would (its CSRF token taken from the login page)."""
    return client.post(
        "/admin/login", data={"csrf_token": csrf_of(client), "username": username, "password": password, **extra}
    )


def new_game_form(**overrides: str) -> dict[str, str]:
    """The new-game form as a browser posts it: ann and bob by email, a heuristic bot, the defaults."""
    data = {
        "name": "Friday game",
        "order": "listed",
        "game": "call-to-glory",
        "options-first_player": "0",
        "options-rounds": "",
        "options-task_decks": task_table_text(),
        "organiser_email": "org@example.com",
        "first_reminder_hours": "24",
        "reminder_every_hours": "24",
        "max_reminders": "3",
        "deadline_hours": "72",
        "timeout": "bot",
        "absence_cap_days": "14",
    }
    seats = [
        ("human", "ann", "ann@example.com"),
        ("human", "bob", "bob@example.com"),
        ("heuristic", "", ""),
        ("none", "", ""),
    ]
    for i, (kind, name, email) in enumerate(seats):
        data |= {
            f"seats-{i}-kind": kind,
            f"seats-{i}-name": name,
            f"seats-{i}-email": email,
            f"seats-{i}-language": "en",
            f"seats-{i}-timezone": "Europe/Amsterdam",
        }
    return data | {OPTIONS.get(k, k): v for k, v in overrides.items()}


OPTIONS = {
    "first_player": "options-first_player",
    "rounds": "options-rounds",
    "imperial_tasks": "options-imperial_tasks",
    "ninja_power": "options-ninja_power",
    "task_decks": "options-task_decks",
}
"""The options of Call to Glory by name, as the form's fields are called."""


@pytest.fixture(scope="session")
def password_hash() -> str:
    """PASSWORD's scrypt hash, made once (each hash takes about 0.1 s on purpose)."""
    return admin.hash_password(PASSWORD)


@pytest.fixture
def organiser(app: Flask, password_hash: str) -> admin.Actor:
    """The admin account "org" (PASSWORD), as ``pbem create-admin`` stores it; the actor the services record."""
    with app.app_context(), db.write_session() as session:
        user = AdminUser(
            username="org", email="org@example.com", timezone="Europe/Amsterdam", password_hash=password_hash
        )
        session.add(user)
        session.flush()
        return admin.actor_of(user)


@pytest.fixture
def admin_client(client: FlaskClient, organiser: admin.Actor) -> FlaskClient:
    """The test client, logged in as the organiser through the login form."""
    response = log_in(client)
    assert logged_in(response), response.location
    return client


def create_table(app: Flask, actor: admin.Actor, **form: Any) -> Table:
    """A game made with admin.create_game_from_form (ann, bob, a heuristic bot unless ``seats`` is given)."""
    seats = form.pop(
        "seats",
        [
            admin.SeatInput("human", "ann", "ann@example.com", "en", "Europe/Amsterdam"),
            admin.SeatInput("human", "bob", "bob@example.com", "en", "America/New_York"),
            admin.SeatInput("heuristic"),
        ],
    )
    options = {k: form.pop(k) for k in list(form) if k in OPTIONS}
    new = admin.NewGame(name=form.pop("name", "Admin game"), seats=seats, options=options, **form)
    with app.app_context(), db.write_session() as session:
        game = admin.create_game_from_form(session=session, actor=actor, new=new, seed=1)
        return Table(app, game.id or 0)


@pytest.fixture
def adm_table(app: Flask, organiser: admin.Actor) -> Table:
    """A 3-seat game (ann, bob, a heuristic bot) created through the admin service, seed 1."""
    return create_table(app, organiser)


def actions_of(app: Flask, game_id: int) -> list[AdminAction]:
    """The game's organiser actions, oldest first."""
    with app.app_context():
        query = select(AdminAction).where(AdminAction.game_id == game_id).order_by(AdminAction.id)
        return list(db.get_session().execute(query).scalars())


def outbox_rows(app: Flask, game_id: int, kind: str | None = None) -> list[OutboxEmail]:
    """The game's outbox rows (of one kind), oldest first."""
    with app.app_context():
        query = select(OutboxEmail).where(OutboxEmail.game_id == game_id)
        if kind is not None:
            query = query.where(OutboxEmail.kind == kind)
        return list(db.get_session().execute(query.order_by(OutboxEmail.id)).scalars())


def count(app: Flask, model: Any) -> int:
    """Rows in a table."""
    with app.app_context():
        return int(db.get_session().execute(select(func.count()).select_from(model)).scalar_one())


def logged_in(response: TestResponse) -> bool:
    """A login POST that let the organiser in: a 303 away from the login form."""
    return response.status_code == 303 and not response.location.startswith("/admin/login")


def login_refused(response: TestResponse) -> bool:
    """A refused login POST: a 303 to the login form's GET that shows why (``?draft=``), so a reload posts nothing."""
    where = (response.location or "") if response.status_code == 303 else ""
    return where.startswith("/admin/login?") and "draft=" in where


def refused(client: FlaskClient, response: TestResponse, *words: str) -> str:
    """A refused form: a 303 to the GET that shows it again (``?draft=``, its values and errors); that page's text.
    Reloading that GET shows it again and posts nothing."""
    assert response.status_code == 303, f"status {response.status_code}: {response.get_data(as_text=True)[:800]}"
    assert "draft=" in response.location, response.location
    return assert_page(client.get(response.location), 200, *words)


def assert_page(response: TestResponse, status: int, *words: str) -> str:
    """An HTML page with that status, no traceback, and each of ``words`` in it; its text."""
    body = response.get_data(as_text=True)
    assert response.status_code == status, f"status {response.status_code}, expected {status}: {body[:800]}"
    assert response.mimetype == "text/html"
    assert not TRACE.search(body), body
    for word in words:
        assert word in body, f"{word!r} not in the page: {body[:1500]}"
    return body
