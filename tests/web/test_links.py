"""Signed links under attack: tampered, truncated, malformed, wrong-purpose, other-seat, expired, rotated keys."""

from __future__ import annotations

import base64
import json
import random
import zlib
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.core import games, links
from tests.apps import Table, form_fields, new_table

from .forge import assert_error_page, days_ago, delete_game, rotate_nonce, sign, signed_at, snapshot

NOT_VALID = "not valid"
DRAW1 = {"do": "draw", "pile": "draw1"}


def _payload(token: str) -> dict[str, Any]:
    """The payload of a token (itsdangerous zlib-compresses long ones and marks them with a leading dot)."""
    part = token.rsplit(".", 2)[0]
    raw = base64.urlsafe_b64decode(part.lstrip(".") + "=" * (-len(part.lstrip(".")) % 4))
    data: dict[str, Any] = json.loads(zlib.decompress(raw) if part.startswith(".") else raw)
    return data


def _with_payload(token: str, payload: dict[str, Any]) -> str:
    """The same timestamp and signature, another payload: what a hand-edited link looks like."""
    body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")
    return ".".join([body, *token.rsplit(".", 2)[1:]])


def _flip(text: str, index: int) -> str:
    return text[:index] + ("A" if text[index] != "A" else "B") + text[index + 1 :]


def _refused(client: FlaskClient, table: Table, token: str, status: int | tuple[int, ...], *words: str) -> None:
    """GET, log GET and POST of the token all give the error page and change nothing."""
    before = snapshot(table)
    assert_error_page(client.get(f"/play/{token}"), status, *words)
    assert_error_page(client.get(f"/play/{token}/log"), status, *words)
    csrf, decision = form_fields(client.get(f"/play/{table.personal(0)}").text)
    posted = client.post(f"/play/{token}", data={"csrf_token": csrf, "decision": decision, **DRAW1})
    assert_error_page(posted, status, *words)
    assert snapshot(table) == before


def test_genuine_links_work(client: FlaskClient, table: Table) -> None:
    assert client.get(f"/play/{table.personal(0)}").status_code == 200
    assert client.get(f"/play/{table.move_token(0, DRAW1)}").status_code == 200


@pytest.mark.parametrize("where", ["payload", "timestamp", "signature-start", "signature-end"])
def test_tampered_token_is_not_valid(client: FlaskClient, table: Table, where: str) -> None:
    token = table.move_token(0, DRAW1)
    payload, stamp, _signature = token.rsplit(".", 2)
    index = {
        "payload": 3,
        "timestamp": len(payload) + 2,
        "signature-start": len(payload) + len(stamp) + 2,
        "signature-end": len(token) - 2,
    }[where]
    _refused(client, table, _flip(token, index), 400, NOT_VALID)


@pytest.mark.parametrize("change", [{"s": 1}, {"s": 2}, {"g": 2}, {"d": 5}, {"m": {"do": "draw", "pile": "draw2"}}])
def test_edited_payload_keeps_no_signature(client: FlaskClient, table: Table, change: dict[str, Any]) -> None:
    token = table.move_token(0, DRAW1)
    _refused(client, table, _with_payload(token, {**_payload(token), **change}), 400, NOT_VALID)


@pytest.mark.parametrize("cut", [1, 5, 27, "signature", "timestamp+signature", "half"])
def test_truncated_token_is_not_valid(client: FlaskClient, table: Table, cut: int | str) -> None:
    token = table.personal(0)
    if cut == "signature":
        short = token.rsplit(".", 1)[0]
    elif cut == "timestamp+signature":
        short = token.split(".", 1)[0]
    elif cut == "half":
        short = token[: len(token) // 2]
    else:
        assert isinstance(cut, int)
        short = token[:-cut]
    _refused(client, table, short, 400, NOT_VALID)


MALFORMED = [
    "x",
    "abc123",
    "eyJnIjoxfQ",
    "...",
    "a.b.c",
    "a.b.c.d.e",
    ".eyJnIjoxfQ.",
    "-_-_-_",
    "ü",
    "日本語のトークン",
    "🂡🂢🂣.🂤.🂥",
    "%00",
    "%ff%fe",
    "null",
    "__proto__",
    "x" * 10_000,
    "A." * 3000,
]


@pytest.mark.parametrize("token", MALFORMED, ids=lambda t: f"{t[:12]}-{len(t)}")
def test_malformed_token_is_not_valid(client: FlaskClient, table: Table, token: str) -> None:
    _refused(client, table, token, 400, NOT_VALID)


def test_random_tokens_are_not_valid(client: FlaskClient, table: Table) -> None:
    rng = random.Random(20240611)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
    for _ in range(60):
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 120)))
        assert_error_page(client.get(f"/play/{token}"), 400, NOT_VALID)


@pytest.mark.parametrize("salt", ["pbem.unsubscribe", "pbem.fresh-link", "itsdangerous", "", "pbem.move "])
def test_right_key_wrong_purpose_is_not_valid(client: FlaskClient, table: Table, app: Flask, salt: str) -> None:
    tag = links.nonce_tag(table.seat(0).nonce)
    for payload in ({"g": table.game_id, "s": 0, "n": tag}, {"g": table.game_id, "s": 0, "n": tag, "d": 0, "m": DRAW1}):
        _refused(client, table, sign(app, payload, salt=salt), 400, NOT_VALID)


@pytest.mark.parametrize(
    "payload",
    [
        [1, 0, "tag"],
        "a string",
        42,
        None,
        {},
        {"g": "1", "s": 0, "n": "TAG"},
        {"g": 1.0, "s": 0, "n": "TAG"},
        {"g": True, "s": 0, "n": "TAG"},
        {"g": "GAME", "s": True, "n": "TAG"},
        {"g": "GAME", "s": "0", "n": "TAG"},
        {"g": "GAME", "s": 0, "n": 12},
        {"g": "GAME", "s": 0},
        {"g": "GAME", "s": -1, "n": "TAG"},
        {"g": "GAME", "s": 3, "n": "TAG"},
        {"g": "GAME", "s": 10**20, "n": "TAG"},
    ],
    ids=repr,
)
def test_signed_but_malformed_payload_is_not_valid(client: FlaskClient, table: Table, app: Flask, payload: Any) -> None:
    tag = links.nonce_tag(table.seat(0).nonce)
    if isinstance(payload, dict):
        payload = {
            k: {"GAME": table.game_id, "TAG": tag}.get(v, v) if isinstance(v, str) else v for k, v in payload.items()
        }
    _refused(client, table, sign(app, payload), 400, NOT_VALID)


@pytest.mark.parametrize(
    "change", [{"d": ""}, {"d": "9" * 65}, {"d": None}, {"m": "draw"}, {"m": ["draw1"]}, {"d": 0.0}]
)
def test_signed_move_token_with_bad_fields_is_not_valid(
    client: FlaskClient, table: Table, app: Flask, change: dict[str, Any]
) -> None:
    tag = links.nonce_tag(table.seat(0).nonce)
    payload = {"g": table.game_id, "s": 0, "n": tag, "d": 0, "m": DRAW1, **change}
    _refused(client, table, sign(app, payload, salt=links.MOVE), 400, NOT_VALID)


def test_token_naming_another_seat_with_own_nonce_is_refused(client: FlaskClient, table: Table, app: Flask) -> None:
    """Ann's nonce tag under Bob's seat number: neither Ann's nor Bob's page."""
    ann_tag = links.nonce_tag(table.seat(0).nonce)
    for seat in (1, 2):
        personal = sign(app, {"g": table.game_id, "s": seat, "n": ann_tag})
        move = sign(app, {"g": table.game_id, "s": seat, "n": ann_tag, "d": 0, "m": DRAW1}, salt=links.MOVE)
        for token in (personal, move):
            _refused(client, table, token, (400, 410))
            assert "bob" not in client.get(f"/play/{token}").text.lower()


def test_token_with_another_seats_nonce_tag_is_refused(client: FlaskClient, table: Table, app: Flask) -> None:
    """Ann's seat number with Bob's nonce tag: refused, not Ann's page."""
    bob_tag = links.nonce_tag(table.seat(1).nonce)
    personal = sign(app, {"g": table.game_id, "s": 0, "n": bob_tag})
    move = sign(app, {"g": table.game_id, "s": 0, "n": bob_tag, "d": 0, "m": DRAW1}, salt=links.MOVE)
    for token in (personal, move):
        _refused(client, table, token, (400, 410))


def test_token_of_another_game_is_refused(client: FlaskClient, table: Table, app: Flask) -> None:
    """A genuine seat of game 1 does not open game 2 by changing the game number in a signed payload."""
    other = new_table(app, [games.SeatSpec(n) for n in ("dan", "eve")], seed=2)
    tag = links.nonce_tag(table.seat(0).nonce)
    _refused(client, table, sign(app, {"g": other.game_id, "s": 0, "n": tag}), (400, 410))
    assert other.moves_logged() == 0


# Expiry ---------------------------------------------------------------------------------------


def test_expired_personal_link_explains(client: FlaskClient, table: Table, app: Flask) -> None:
    days = app.config["PERSONAL_LINK_DAYS"]
    with signed_at(days_ago(days + 1)):
        old = table.personal(0)
    _refused(client, table, old, 410, "expired", "latest email")


def test_expired_move_link_explains(client: FlaskClient, table: Table, app: Flask) -> None:
    days = app.config["MOVE_LINK_DAYS"]
    with signed_at(days_ago(days + 0.01)):
        old = table.move_token(0, DRAW1)
    _refused(client, table, old, 410, "expired")


def test_links_within_their_lifetime_work(client: FlaskClient, table: Table, app: Flask) -> None:
    """A move link just inside MOVE_LINK_DAYS works; a personal link outlives a move link."""
    with signed_at(days_ago(app.config["MOVE_LINK_DAYS"] - 0.01)):
        move = table.move_token(0, DRAW1)
    with signed_at(days_ago(app.config["MOVE_LINK_DAYS"] + 1)):
        personal = table.personal(0)
    assert client.get(f"/play/{personal}").status_code == 200
    page = client.get(f"/play/{move}")
    assert page.status_code == 200
    csrf, _ = form_fields(page.text)
    assert client.post(f"/play/{move}", data={"csrf_token": csrf}).status_code == 303
    assert table.state().ply == 1


def test_expired_token_with_junk_payload_is_still_a_page(client: FlaskClient, table: Table, app: Flask) -> None:
    with signed_at(days_ago(400)):
        tokens = [sign(app, ["junk"]), sign(app, {"g": "x", "s": None}, salt=links.MOVE), sign(app, None)]
    for token in tokens:
        _refused(client, table, token, 410, "expired")


def test_token_from_the_future_is_refused(client: FlaskClient, table: Table) -> None:
    with signed_at(days_ago(-3)):
        token = table.personal(0)
    _refused(client, table, token, (400, 410))


# Keys -----------------------------------------------------------------------------------------


def test_old_key_in_fallbacks_still_works(client: FlaskClient, table: Table, app: Flask) -> None:
    personal, move = table.personal(0), table.move_token(0, DRAW1)
    old = app.config["SECRET_KEY"]
    app.config["SECRET_KEY"] = "new-key-" + "y" * 32
    app.config["SECRET_KEY_FALLBACKS"] = [old]
    page = client.get(f"/play/{personal}")
    assert page.status_code == 200
    assert client.get(f"/play/{move}").status_code == 200
    csrf, _ = form_fields(client.get(f"/play/{move}").text)
    assert client.post(f"/play/{move}", data={"csrf_token": csrf}).status_code == 303
    assert table.state().ply == 1
    # links printed after the rotation are signed with the new key: they survive dropping the old one
    fresh = table.personal(0)
    app.config["SECRET_KEY_FALLBACKS"] = []
    assert client.get(f"/play/{fresh}").status_code == 200


def test_removed_key_no_longer_works(client: FlaskClient, table: Table, app: Flask) -> None:
    personal, move = table.personal(0), table.move_token(0, DRAW1)
    app.config["SECRET_KEY"] = "new-key-" + "y" * 32
    app.config["SECRET_KEY_FALLBACKS"] = ["some-other-old-key-" + "z" * 20]
    for token in (personal, move):
        _refused(client, table, token, 400, NOT_VALID)


def test_token_signed_with_unknown_key_is_not_valid(client: FlaskClient, table: Table, app: Flask) -> None:
    tag = links.nonce_tag(table.seat(0).nonce)
    forged = sign(app, {"g": table.game_id, "s": 0, "n": tag}, key="dev-insecure-change-me")
    _refused(client, table, forged, 400, NOT_VALID)


# Nonce rotation and missing games -------------------------------------------------------------


def test_rotated_nonce_revokes_all_old_links_of_the_seat(client: FlaskClient, table: Table, app: Flask) -> None:
    personal, move = table.personal(0), table.move_token(0, DRAW1)
    bob = table.personal(1)
    rotate_nonce(app, table.game_id, 0)
    for token in (personal, move):
        before = snapshot(table)
        assert_error_page(client.get(f"/play/{token}"), 410, "no longer valid")
        assert_error_page(client.get(f"/play/{token}/log"), 410)
        csrf, _ = form_fields(client.get(f"/play/{bob}").text)
        posted = client.post(f"/play/{token}", data={"csrf_token": csrf, "decision": "0", **DRAW1})
        assert_error_page(posted, 410)
        assert snapshot(table) == before
    assert client.get(f"/play/{bob}").status_code == 200, "other seats keep their links"
    assert client.get(f"/play/{table.personal(0)}").status_code == 200, "a link made with the new nonce works"


def test_token_for_a_game_that_does_not_exist(client: FlaskClient, table: Table, app: Flask) -> None:
    tag = links.nonce_tag(table.seat(0).nonce)
    assert_error_page(client.get(f"/play/{sign(app, {'g': 999_999, 's': 0, 'n': tag})}"), 404)
    personal, move = table.personal(0), table.move_token(0, DRAW1)
    csrf, _ = form_fields(client.get(f"/play/{personal}").text)
    delete_game(app, table.game_id)
    for token in (personal, move):
        assert_error_page(client.get(f"/play/{token}"), 404, "no game")
        assert_error_page(client.get(f"/play/{token}/log"), 404)
        assert_error_page(client.post(f"/play/{token}", data={"csrf_token": csrf, "decision": "0", **DRAW1}), 404)
