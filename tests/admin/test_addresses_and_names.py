"""Email addresses are checked by email-validator at every input (the CLI, the new-game form, change-email,
create-admin), and names refuse invisible and text-direction characters (Unicode category Cf)."""

from __future__ import annotations

import html

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import admin, db, flows
from pbem.core import checks, errors, games
from pbem.core import seats as seat_rows
from pbem.models import Game
from tests.apps import Table

from .conftest import count, csrf_of, new_game_form, refused

HOSTILE = ["a@b.co,evil@x.org", "a@b.co>evil@x.org", "a@[127.0.0.1].co", "Ann <ann@example.com>", '"a b"@example.com']
"""Addresses whose mail would all die later: a second address, a bracket, a domain literal, a display name, quotes."""
IDN = "ann@bücher.example"
IDN_ASCII = "ann@xn--bcher-kva.example"
INVISIBLE = ["Ann\u200b", "\u202eAnn", "A\u2066nn", "Ann\u00ad", "\ufeffAnn"]
"""Zero-width space, right-to-left override, a bidi isolate, a soft hyphen, a byte-order mark."""


@pytest.mark.parametrize("address", HOSTILE)
def test_the_shared_check_refuses_hostile_addresses(address: str) -> None:
    with pytest.raises(errors.ServiceError, match="is not an email address"):
        checks.check_email(address, "ann's email")


def test_the_shared_check_keeps_an_international_domain_in_ascii() -> None:
    assert checks.check_email(IDN, "ann's email") == IDN_ASCII
    assert checks.check_email("Ann@Example.COM", "ann's email") == "Ann@example.com", "the domain is lowercased"
    with pytest.raises(errors.ServiceError, match="not an email address"):
        checks.check_email("ann@localhost", "ann's email")


@pytest.mark.parametrize("address", HOSTILE[:3])
def test_the_cli_refuses_hostile_addresses(app: Flask, address: str) -> None:
    with app.app_context():
        result = app.test_cli_runner().invoke(
            args=["create-game", "--name", "x", "--player", f"Ann <{address}>", "--player", "Bob <bob@example.com>"]
        )
        admin_result = app.test_cli_runner().invoke(
            args=["create-admin", "org", "--password-stdin", "--email", address], input="a long secret 42\n"
        )
    assert result.exit_code != 0 and "not an email address" in result.output, result.output
    assert admin_result.exit_code != 0 and "not an email address" in admin_result.output, admin_result.output
    assert count(app, Game) == 0


def test_the_cli_accepts_an_international_domain(app: Flask) -> None:
    with app.app_context():
        result = app.test_cli_runner().invoke(
            args=["create-game", "--name", "x", "--player", f"Ann <{IDN}>", "--player", "Bob <bob@example.com>"]
        )
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert seat_rows.seats_of(session=db.get_session(), game_id=1)[0].email == IDN_ASCII


@pytest.mark.parametrize("address", HOSTILE[:3])
def test_the_new_game_form_refuses_hostile_addresses(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor, address: str
) -> None:
    form = new_game_form(**{"seats-1-email": address, "organiser_email": address})
    response = admin_client.post("/admin/games/new", data={"csrf_token": csrf_of(admin_client, "/admin/"), **form})
    page = html.unescape(refused(admin_client, response))
    assert page.count("is not an email address") == 2, "both the seat's and the organiser's address"
    assert count(app, Game) == 0


@pytest.mark.parametrize("address", HOSTILE[:3])
def test_change_email_refuses_hostile_addresses(
    app: Flask, admin_client: FlaskClient, adm_table: Table, address: str
) -> None:
    for confirm in ({}, {"confirm": "yes"}):
        data = {"csrf_token": csrf_of(admin_client, "/admin/"), "seat": "2", "email": address, **confirm}
        response = admin_client.post(f"/admin/games/{adm_table.game_id}/email", data=data)
        assert "is not an email address" in html.unescape(refused(admin_client, response))
    assert adm_table.seat(1).email == "bob@example.com"


def test_change_email_stores_an_international_domain_in_ascii(
    app: Flask, admin_client: FlaskClient, adm_table: Table
) -> None:
    data = {"csrf_token": csrf_of(admin_client, "/admin/"), "seat": "2", "email": IDN, "confirm": "yes"}
    assert admin_client.post(f"/admin/games/{adm_table.game_id}/email", data=data).status_code == 303
    assert adm_table.seat(1).email == IDN_ASCII


@pytest.mark.parametrize("name", INVISIBLE)
def test_names_refuse_invisible_and_direction_characters(app: Flask, name: str) -> None:
    with pytest.raises(errors.ServiceError, match="invisible or text-direction"):
        games.check_seat(games.SeatSpec(name, "ann@example.com"))
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="invisible"):
        flows.games.create(session=session, name=f"Game {name}", seats=[games.SeatSpec("Bob"), games.SeatSpec("Cy")])


def test_ann_and_ann_with_a_zero_width_space_cannot_share_a_game(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    form = new_game_form(**{"seats-0-name": "Ann", "seats-1-name": "Ann\u200b"})
    response = admin_client.post("/admin/games/new", data={"csrf_token": csrf_of(admin_client, "/admin/"), **form})
    assert "invisible or text-direction characters" in html.unescape(refused(admin_client, response))
    rtl = new_game_form(**{"name": "\u202eemag yadirF"})
    response = admin_client.post("/admin/games/new", data={"csrf_token": csrf_of(admin_client, "/admin/"), **rtl})
    assert "invisible or text-direction characters" in html.unescape(refused(admin_client, response))
    assert count(app, Game) == 0


def test_visible_unicode_names_are_still_welcome(app: Flask) -> None:
    for name in ("Zoë", "José María", "李雷", "Дмитрий", "אנה", "Ann 🎲"):
        assert games.check_seat(games.SeatSpec(name, "x@example.com")).name == name
