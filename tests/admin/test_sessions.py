"""Admin logins are server-side sessions: logging out, "log out everywhere" and a new password end them, so a
copied cookie stops working at once (not when it expires)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import inspect, select
from werkzeug.test import TestResponse

from pbem import admin, db

from .conftest import assert_page, csrf_of, log_in, logged_in


def _cookie(client: FlaskClient) -> str:
    """The client's session cookie, as someone who copied it would have it."""
    found = client.get_cookie("session", domain="127.0.0.1")
    assert found is not None, "a logged-in client holds a session cookie"
    return found.value


def _thief(app: Flask, cookie: str) -> FlaskClient:
    """Another browser that has only the copied cookie."""
    client = app.test_client()
    client.set_cookie("session", cookie, domain="127.0.0.1")
    return client


def _replay(app: Flask, cookie: str, path: str = "/admin/") -> TestResponse:
    """A request from another browser that only has the copied cookie."""
    return _thief(app, cookie).get(path)


def _session_rows(app: Flask) -> list[Any]:
    """The server-side login sessions, oldest first."""
    from pbem.models import AdminSession  # imported here: on the old code this file still runs and fails plainly

    with app.app_context():
        return list(db.get_session().execute(select(AdminSession).order_by(AdminSession.id)).scalars())


def _is_login(response: TestResponse) -> bool:
    return response.status_code in (302, 303) and urlsplit(response.location).path == "/admin/login"


def test_a_copied_cookie_stops_working_when_its_owner_logs_out(app: Flask, admin_client: FlaskClient) -> None:
    copied = _cookie(admin_client)
    assert_page(_replay(app, copied), 200, "Games"), "the copy works while the login lasts"
    out = admin_client.post("/admin/logout", data={"csrf_token": csrf_of(admin_client, "/admin/")})
    assert out.status_code == 303 and out.location == "/admin/login"
    assert _is_login(_replay(app, copied)), "the copied cookie is refused after the logout"
    thief = _thief(app, copied)
    attempt = thief.post("/admin/games/new", data={"csrf_token": csrf_of(thief)})
    assert _is_login(attempt), "no admin action with it either"
    assert [row.revoked_at is not None for row in _session_rows(app)] == [True], "one login, revoked on the server"


def test_log_out_everywhere_ends_every_login_of_the_organiser(app: Flask, admin_client: FlaskClient) -> None:
    phone = app.test_client()
    assert logged_in(log_in(phone))
    laptop_copy, phone_copy = _cookie(admin_client), _cookie(phone)
    assert _replay(app, phone_copy).status_code == 200
    body = admin_client.get("/admin/").get_data(as_text=True)
    assert 'action="/admin/logout-everywhere"' in body, "every admin page offers the button"
    assert admin_client.get("/admin/logout-everywhere").status_code == 405, "a GET never logs anyone out"
    out = admin_client.post("/admin/logout-everywhere", data={"csrf_token": csrf_of(admin_client, "/admin/")})
    assert out.status_code == 303 and out.location == "/admin/login"
    assert_page(admin_client.get("/admin/login"), 200, "logged out everywhere", "2 sessions ended")
    for copy in (laptop_copy, phone_copy):
        assert _is_login(_replay(app, copy))
    assert _is_login(phone.get("/admin/")), "the phone is logged out too"
    assert logged_in(log_in(phone)) and phone.get("/admin/").status_code == 200, "a new login works"


def test_log_out_everywhere_needs_the_form_token(app: Flask, admin_client: FlaskClient) -> None:
    response = admin_client.post("/admin/logout-everywhere", data={"csrf_token": "forged"})
    assert_page(response, 400, "Please reload the page")
    assert admin_client.get("/admin/").status_code == 200, "still logged in"


def test_a_new_password_revokes_a_copied_cookie(app: Flask, admin_client: FlaskClient) -> None:
    copied = _cookie(admin_client)
    with app.app_context(), db.write_session() as session:
        admin.create_admin(session=session, username="org", password="a brand new secret", reset=True)
    assert _is_login(_replay(app, copied))


def test_a_login_keeps_only_the_session_rows_it_needs(app: Flask, admin_client: FlaskClient) -> None:
    for _ in range(3):
        admin_client.post("/admin/logout", data={"csrf_token": csrf_of(admin_client, "/admin/")})
        assert logged_in(log_in(admin_client))
    assert [row.revoked_at for row in _session_rows(app)] == [None], "revoked rows are deleted at the next login"


def test_migration_0005_matches_the_model(app: Flask) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlmodel import SQLModel

    with app.extensions["pbem_engine"].connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diffs = [d for d in compare_metadata(context, SQLModel.metadata) if "admin_session" in repr(d)]
        assert "admin_session" in inspect(conn).get_table_names()
    assert diffs == []
