"""Ids in admin and mailbox URLs beyond the database's integer range are "not found" (404), never a 500.

SQLite's ids stop at 2**63 - 1 (a larger number overflowed in the driver) and PostgreSQL's INTEGER at
2**31 - 1 (a larger one was NumericValueOutOfRange): the ``id`` URL converter turns both away.
"""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.apps import Table

from .conftest import TRACE, csrf_of

TOO_LARGE = ["2147483648", "9223372036854775807", "9223372036854775808", "9" * 40]
ACTIONS = ["resend", "email", "hand", "pause", "resume", "extend", "bot", "retry", "abort", "export", "verify"]


@pytest.mark.parametrize("game_id", TOO_LARGE)
def test_a_game_id_out_of_range_is_not_found(admin_client: FlaskClient, game_id: str) -> None:
    response = admin_client.get(f"/admin/games/{game_id}")
    assert response.status_code == 404
    assert not TRACE.search(response.get_data(as_text=True))


@pytest.mark.parametrize("action", ACTIONS)
def test_an_action_on_a_game_id_out_of_range_is_not_found(admin_client: FlaskClient, action: str) -> None:
    csrf = csrf_of(admin_client, "/admin/")
    for game_id in TOO_LARGE:
        for confirm in ("", "yes"):
            data = {"csrf_token": csrf, "confirm": confirm, "seat": "1", "hours": "1", "decision": "0"}
            response = admin_client.post(f"/admin/games/{game_id}/{action}", data=data)
            assert response.status_code == 404, (game_id, action, confirm)
            assert not TRACE.search(response.get_data(as_text=True))


def test_the_largest_id_still_reaches_the_game_lookup(admin_client: FlaskClient, adm_table: Table) -> None:
    """2**31 - 1 is a valid id that names no game: the game's own "not found" page; real games still open."""
    response = admin_client.get("/admin/games/2147483647")
    assert response.status_code == 404 and "2147483647" in response.get_data(as_text=True)
    assert admin_client.get(f"/admin/games/{adm_table.game_id}").status_code == 200
    csrf = csrf_of(admin_client, "/admin/")
    paused = admin_client.post("/admin/games/2147483647/pause", data={"csrf_token": csrf, "confirm": "yes"})
    assert paused.status_code == 404


@pytest.mark.parametrize("email_id", TOO_LARGE)
def test_a_mailbox_id_out_of_range_is_not_found(client: FlaskClient, email_id: str) -> None:
    for path in (f"/mailbox/{email_id}", f"/mailbox/{email_id}/html"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert not TRACE.search(response.get_data(as_text=True))
