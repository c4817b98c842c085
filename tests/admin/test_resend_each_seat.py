"""Resend the turn email to each seat with an open decision: three at Call to Adventure's setup, where everyone
chooses at once; and not to a seat that has nothing to decide."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from pbem import admin
from tests.adventure_helpers import adventure_table
from tests.apps import Table

from .conftest import csrf_of, outbox_rows, refused


def _resend(client: FlaskClient, table: Table, seat: str) -> int:
    data = {"csrf_token": csrf_of(client, "/admin/"), "seat": seat}
    return client.post(f"/admin/games/{table.game_id}/resend", data=data).status_code


def test_every_seat_that_must_choose_at_setup_has_its_resend_button(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = adventure_table(app, ["Ann", "Bob", "Cy"])
    page = admin_client.get(f"/admin/games/{table.game_id}").text
    buttons = re.findall(r"Resend the turn email to (\w+)", page)
    assert buttons == ["Ann", "Bob", "Cy"]
    for number, address in ((2, "bob@example.com"), (3, "cy@example.com")):
        before = len([e for e in outbox_rows(app, table.game_id, "turn") if address in e.to_addr])
        assert _resend(admin_client, table, str(number)) == 303
        after = [e for e in outbox_rows(app, table.game_id, "turn") if address in e.to_addr]
        assert len(after) == before + 1
    refused(
        admin_client,
        admin_client.post(
            f"/admin/games/{table.game_id}/resend", data={"csrf_token": csrf_of(admin_client, "/admin/"), "seat": "9"}
        ),
        "has no seat 9",
    )


def test_no_resend_for_a_seat_without_a_decision(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    page = admin_client.get(f"/admin/games/{adm_table.game_id}").text
    assert re.findall(r"Resend the turn email to (\w+)", page) == ["ann"], "only ann is to act"
    turns = len(outbox_rows(app, adm_table.game_id, "turn"))
    data = {"csrf_token": csrf_of(admin_client, "/admin/"), "seat": "2"}
    refused(
        admin_client,
        admin_client.post(f"/admin/games/{adm_table.game_id}/resend", data=data),
        "bob has no decision to make now",
    )
    assert len(outbox_rows(app, adm_table.game_id, "turn")) == turns
    assert _resend(admin_client, adm_table, "1") == 303
    assert len(outbox_rows(app, adm_table.game_id, "turn")) == turns + 1
