"""A GET or HEAD of any link writes nothing: mail scanners open every link before the player does."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.core import links
from tests.apps import Table, form_fields

from .forge import days_ago, rotate_nonce, sign, signed_at, snapshot

DRAW1 = {"do": "draw", "pile": "draw1"}


def _links(client: FlaskClient, table: Table, app: Flask) -> dict[str, str]:
    """Every kind of path a scanner may open, made with all the writes it needs done beforehand."""
    ann = table.personal(0)
    played = table.move_token(0, DRAW1)
    csrf, _ = form_fields(client.get(f"/play/{played}").text)
    assert client.post(f"/play/{played}", data={"csrf_token": csrf}).status_code == 303
    client.get(f"/play/{ann}")  # read the flash message
    with signed_at(days_ago(app.config["PERSONAL_LINK_DAYS"] + 5)):
        expired_personal = table.personal(0)
    with signed_at(days_ago(app.config["MOVE_LINK_DAYS"] + 5)):
        expired_move = table.move_token(0, {"do": "draw", "pile": "draw2"})
    revoked = table.personal(2)
    revoked_move = table.move_token(2, DRAW1)
    rotate_nonce(app, table.game_id, 2)
    tag = links.nonce_tag(table.seat(0).nonce)
    return {
        "personal": f"/play/{ann}",
        "personal, other seat": f"/play/{table.personal(1)}",
        "full log": f"/play/{ann}/log",
        "move link, open": f"/play/{table.move_token(0, {'do': 'draw', 'pile': 'draw2'})}",
        "move link, illegal move": f"/play/{table.move_token(0, {'do': 'lay', 'type': 'emperor', 'count': 9})}",
        "move link, already played": f"/play/{played}",
        "move link, already played, log": f"/play/{played}/log",
        "move link, out of turn": f"/play/{table.move_token(1, DRAW1)}",
        "invalid token": "/play/not-a-token",
        "tampered token": f"/play/{ann[:-3]}AAA",
        "expired personal": f"/play/{expired_personal}",
        "expired move": f"/play/{expired_move}",
        "revoked personal": f"/play/{revoked}",
        "revoked move": f"/play/{revoked_move}",
        "no such game": f"/play/{sign(app, {'g': 424242, 's': 0, 'n': tag})}",
        "unknown url": "/nowhere",
        "static": "/static/style.css",
    }


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_opening_links_writes_nothing(
    client: FlaskClient, table: Table, app: Flask, write_counter: list[str], method: str
) -> None:
    paths = _links(client, table, app)
    before = snapshot(table)
    write_counter.clear()
    writes: dict[str, list[str]] = {}
    statuses: dict[str, int] = {}
    for kind, path in paths.items():
        for _ in range(2):  # a scanner and then the player
            with client.open(path, method=method) as response:
                statuses[kind] = response.status_code
            if write_counter:
                writes[kind] = list(write_counter)
                write_counter.clear()
    assert writes == {}, f"{method} wrote to the database"
    assert snapshot(table) == before
    assert all(status < 500 for status in statuses.values()), statuses
    assert statuses["personal"] == statuses["move link, open"] == statuses["full log"] == 200


def test_scanner_opening_a_move_link_does_not_make_the_move(
    client: FlaskClient, table: Table, app: Flask, write_counter: list[str]
) -> None:
    """Even a fresh browser (no session, no CSRF cookie) opening the link any number of times changes nothing."""
    move = table.move_token(0, DRAW1)
    for _ in range(3):
        scanner = app.test_client()
        assert scanner.get(f"/play/{move}").status_code == 200
        assert scanner.head(f"/play/{move}").status_code == 200
        assert scanner.get(f"/play/{move}/log").status_code == 200
    assert write_counter == []
    assert table.state().ply == 0
    assert table.moves_logged() == 0
    # the counter is live: the POST of the button does write
    csrf, _ = form_fields(client.get(f"/play/{move}").text)
    assert client.post(f"/play/{move}", data={"csrf_token": csrf}).status_code == 303
    assert any(s.lstrip().upper().startswith("UPDATE") for s in write_counter)
