"""The languages a seat may get are a choice of the supported ones (new game, repairs); the admin area speaks the
organiser's own language (a POST on its switch); migration 0011 gives the admins stored before it English."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text
from sqlmodel import select

from pbem import admin, db, i18n
from pbem.core import checks, errors, games
from pbem.core import seats as seat_rows
from pbem.models import AdminUser, Game
from tests.admin.conftest import CSRF, PASSWORD, log_in, logged_in, new_game_form
from tests.scheduler.test_migration_0009 import _columns, _migrate


@pytest.fixture
def org(app: Flask) -> admin.Actor:
    """An admin account 'org' whose language is Dutch."""
    with app.app_context(), db.write_session() as session:
        user = admin.create_admin(
            session=session, username="org", password=PASSWORD, email="org@example.com", language="NL"
        )
        return admin.actor_of(user)


@pytest.fixture
def org_client(client: FlaskClient, org: admin.Actor) -> FlaskClient:
    assert logged_in(log_in(client))
    return client


def language_of(app: Flask, username: str = "org") -> str:
    with app.app_context():
        user = db.get_session().exec(select(AdminUser).where(AdminUser.username == username)).one()
        return user.language


@pytest.mark.parametrize(("given", "stored"), [("nl", "nl"), ("NL", "nl"), (" Fr ", "fr"), ("en", "en")])
def test_check_language_accepts_exactly_the_supported_ones(given: str, stored: str) -> None:
    assert checks.check_language(given) == stored


@pytest.mark.parametrize("given", ["pt-BR", "de", "", "nl-BE", "english", None, 3])
def test_check_language_refuses_the_others_and_names_the_choices(given: object) -> None:
    with pytest.raises(errors.ServiceError) as refused:
        checks.check_language(given)
    assert all(f"{code} ({name})" in refused.value.message for code, name in i18n.NAMES.items())


def test_the_new_game_form_offers_exactly_the_supported_languages_the_admins_first(
    app: Flask, org_client: FlaskClient
) -> None:
    html = org_client.get("/admin/games/new").text
    select_html = re.search(r'<select id="seats-0-language"[^>]*>(.*?)</select>', html, re.S)
    assert select_html, "each seat's language is a choice"
    offered = re.findall(r'<option (?:selected )?value="([^"]*)"', select_html.group(1))
    assert offered == list(i18n.SUPPORTED)
    assert re.search(r'<option selected value="nl">Nederlands</option>', select_html.group(1)), "the admin's own"


def test_the_new_game_form_refuses_another_language(app: Flask, org_client: FlaskClient) -> None:
    form = new_game_form() | {"seats-0-language": "pt-BR", "seats-1-language": "FR"}
    form["csrf_token"] = CSRF.findall(org_client.get("/admin/games/new").text)[0]
    response = org_client.post("/admin/games/new", data=form, follow_redirects=True)
    assert "en (English), nl (Nederlands), fr (Français)" in response.text
    with app.app_context():
        assert db.get_session().exec(select(Game)).first() is None, "no game was made"
    form["seats-0-language"] = "nl"
    org_client.post("/admin/games/new", data=form)
    with app.app_context():
        [game] = db.get_session().exec(select(Game)).all()
        seats = seat_rows.seats_of(session=db.get_session(), game_id=game.id or 0)
    assert [s.language for s in seats[:2]] == ["nl", "fr"], "codes are stored normalised"


def test_handing_a_seat_to_a_person_checks_the_language(app: Flask, org_client: FlaskClient, org: admin.Actor) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("Bot", kind="heuristic")]
    with app.app_context(), db.write_session() as session:
        from pbem import flows

        game = flows.games.create(session=session, name="G", seats=specs, seed=1)
        game_id = game.id or 0
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError):
        admin.hand_seat(
            session=session, actor=org, game_id=game_id, seat=1, kind="human", email="dee@example.com", language="pt-BR"
        )
    with app.app_context(), db.write_session() as session:
        admin.hand_seat(
            session=session, actor=org, game_id=game_id, seat=1, kind="human", email="dee@example.com", language="FR"
        )
    with app.app_context():
        assert seat_rows.seats_of(session=db.get_session(), game_id=game_id)[1].language == "fr"


def test_the_admin_area_speaks_the_admins_language(app: Flask, org_client: FlaskClient) -> None:
    html = org_client.get("/admin/", headers={"Accept-Language": "fr"}).text
    assert '<html lang="nl">' in html
    assert 'class="language-switch"' in html and "/admin/language" in html


def test_the_admin_changes_their_language_by_post(app: Flask, org_client: FlaskClient) -> None:
    token = CSRF.findall(org_client.get("/admin/").text)[0]
    response = org_client.post("/admin/language", data={"csrf_token": token, "lang": "fr", "next": "/admin/games/new"})
    assert response.status_code == 303 and response.location == "/admin/games/new"
    assert language_of(app) == "fr"
    assert '<html lang="fr">' in org_client.get("/admin/").text
    away = org_client.post("/admin/language", data={"csrf_token": token, "lang": "en", "next": "https://evil.example/"})
    assert away.location == "/admin/"
    refused = org_client.post("/admin/language", data={"csrf_token": token, "lang": "de"})
    assert refused.status_code == 400
    assert language_of(app) == "en"
    assert org_client.get("/admin/language").status_code == 405


def test_the_login_page_follows_the_browser(client: FlaskClient) -> None:
    html = client.get("/admin/login", headers={"Accept-Language": "fr"}).text
    assert '<html lang="fr">' in html
    assert html.count('class="language-switch"') == 1


def test_create_admin_language_on_the_command_line(app: Flask) -> None:
    runner = app.test_cli_runner()
    result = runner.invoke(args=["create-admin", "eva", "--language", "FR", "--password-stdin"], input=PASSWORD + "\n")
    assert result.exit_code == 0, result.output
    assert language_of(app, "eva") == "fr"
    result = runner.invoke(args=["create-admin", "max", "--language", "de", "--password-stdin"], input=PASSWORD + "\n")
    assert result.exit_code != 0
    plain = runner.invoke(args=["create-admin", "ida", "--password-stdin"], input=PASSWORD + "\n")
    assert plain.exit_code == 0 and language_of(app, "ida") == "en"


def test_admins_stored_before_0011_speak_english(app: Flask) -> None:
    _migrate(app, "0010_email_choices", up=False)
    assert "language" not in _columns(app, "admin_user")
    with app.extensions["pbem_engine"].begin() as conn:
        conn.execute(
            text(
                "INSERT INTO admin_user (username, email, timezone, password_hash, created_at)"
                " VALUES ('old', 'old@example.com', 'UTC', 'x', CURRENT_TIMESTAMP)"
            )
        )
    _migrate(app, "heads", up=True)
    assert "language" in _columns(app, "admin_user")
    assert language_of(app, "old") == "en"
