"""Forged and hostile requests: every one gets a 4xx page with a message and leaves the game as it was."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from engine import call_to_glory as glory
from pbem import db, flows
from pbem.core import errors, games
from pbem.core import seats as seat_rows
from tests.apps import Table, form_fields, new_table

from .forge import TRACE, assert_error_page, snapshot

DRAW1 = {"do": "draw", "pile": "draw1"}


def _post(client: FlaskClient, token: str, data: Any, **kw: Any) -> Any:
    return client.post(f"/play/{token}", data=data, **kw)


def _fields(client: FlaskClient, token: str) -> tuple[str, str]:
    return form_fields(client.get(f"/play/{token}").text)


FORGED: list[tuple[str, dict[str, str], str]] = [
    ("unknown do", {"do": "teleport"}, "unknown move"),
    ("empty do", {"do": ""}, "move"),
    ("unknown card", {"do": "lay", "type": "dragon", "count": "2"}, "unknown card type"),
    ("unknown card discard", {"do": "discard", "type": "Emperor"}, "unknown card type"),
    ("pile draw9", {"do": "draw", "pile": "draw9"}, "unknown pile"),
    ("pile discard3", {"do": "draw", "pile": "discard3"}, "unknown pile"),
    ("count abc", {"do": "lay", "type": "samurai", "count": "abc"}, "count"),
    ("count -1", {"do": "lay", "type": "samurai", "count": "-1"}, "count"),
    ("count 0", {"do": "lay", "type": "samurai", "count": "0"}, "count"),
    ("count 1.5", {"do": "lay", "type": "samurai", "count": "1.5"}, "count"),
    ("count 10**30", {"do": "lay", "type": "samurai", "count": str(10**30)}, "count"),
    ("count unicode digits", {"do": "lay", "type": "samurai", "count": "²"}, "count"),
    ("field of another move", {"do": "draw", "pile": "draw1", "type": "samurai"}, "has no field"),
    ("draw without pile", {"do": "draw"}, "needs"),
    ("huge do", {"do": "x" * 100_000}, "unknown move"),
    ("huge pile", {"do": "draw", "pile": "draw1" * 20_000}, "unknown pile"),
    ("huge type", {"do": "lay", "type": "é" * 50_000, "count": "2"}, "unknown card type"),
    ("bad preference", {"do": "preference", "discard_preference": "biggest"}, "discard preference"),
    ("reveal out of season", {"do": "reveal_task", "deck": "A"}, "R8"),
    ("unknown deck", {"do": "reveal_task", "deck": "Z"}, "unknown task deck"),
    ("ninja without variant", {"do": "ninja", "target": "bob", "type": "samurai"}, "R9"),
    ("discard before drawing", {"do": "discard", "type": "samurai"}, "R5"),
    ("control characters", {"do": "draw", "pile": "draw1\x00\r\n"}, "unknown pile"),
]


@pytest.mark.parametrize(("data", "message"), [(d, m) for _, d, m in FORGED], ids=[n for n, _, _ in FORGED])
def test_forged_form_is_refused(client: FlaskClient, table: Table, data: dict[str, str], message: str) -> None:
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    before = snapshot(table)
    response = _post(client, token, {"csrf_token": csrf, "decision": decision, **data})
    assert_error_page(response, 400, message)
    assert snapshot(table) == before


def test_illegal_lay_names_the_rule(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    for pile in ("draw1", "draw2"):
        csrf, decision = _fields(client, token)
        data = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": pile}
        assert _post(client, token, data).status_code == 303
    state = table.state()
    assert state.step != "draw" and state.current_player == "ann"
    hand = state.hands[0]
    kind = max(range(len(glory.TYPES)), key=lambda t: hand[t])
    csrf, decision = _fields(client, token)
    before = snapshot(table)
    data = {"do": "lay", "type": glory.TYPES[kind], "count": str(hand[kind] + 1)}
    response = _post(client, token, {"csrf_token": csrf, "decision": decision, **data})
    assert_error_page(response, 400, "R5.2", "not allowed")
    assert snapshot(table) == before


def test_second_draw_from_the_same_pile_names_the_rule(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    assert _post(client, token, {"csrf_token": csrf, "decision": decision, **DRAW1}).status_code == 303
    csrf, decision = _fields(client, token)
    before = snapshot(table)
    assert_error_page(_post(client, token, {"csrf_token": csrf, "decision": decision, **DRAW1}), 400, "R5.1")
    assert snapshot(table) == before


def test_ninja_target_that_is_not_a_player(client: FlaskClient, app: Flask) -> None:
    specs = [games.SeatSpec(n) for n in ("ann", "bob", "cy")]
    table = new_table(app, specs, seed=1, options=glory.Options(ninja_power=True))
    state = table.state()
    state.ninjas[0] = 1  # give ann a miniature, as if she had laid a Ninja set
    state.ninja_supply -= 1
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        game.state = glory.to_json(state)
        session.add(game)
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    before = snapshot(table)
    for target in ("zed", "", "ANN", "bob\n", "x" * 5000):
        data = {"csrf_token": csrf, "decision": decision, "do": "ninja", "target": target, "type": "samurai"}
        response = _post(client, token, data)
        assert_error_page(response, 400)
        assert snapshot(table) == before
    response = _post(client, token, {"csrf_token": csrf, "decision": decision, "do": "ninja", "target": "zed"})
    assert_error_page(response, 400, "type")
    zed = {"csrf_token": csrf, "decision": decision, "do": "ninja", "target": "zed", "type": "samurai"}
    assert_error_page(_post(client, token, zed), 400, "R9", "does not play")


@pytest.mark.parametrize("csrf", [None, "", "wrong", "x" * 5000, "IjEyMyI.Zm9v.YmFy"])
def test_missing_or_wrong_csrf_token(client: FlaskClient, table: Table, csrf: str | None) -> None:
    token = table.personal(0)
    _, decision = _fields(client, token)
    data = {"decision": decision, **DRAW1} | ({} if csrf is None else {"csrf_token": csrf})
    before = snapshot(table)
    assert_error_page(_post(client, token, data), 400, "reload")
    assert snapshot(table) == before


def test_csrf_token_of_another_browser(client: FlaskClient, table: Table, app: Flask) -> None:
    """A token from another session (another browser) is refused: the form token is bound to the session."""
    token = table.personal(0)
    other = app.test_client()
    csrf, decision = _fields(other, token)
    _fields(client, token)
    before = snapshot(table)
    assert_error_page(_post(client, token, {"csrf_token": csrf, "decision": decision, **DRAW1}), 400, "reload")
    assert snapshot(table) == before


def test_move_link_post_needs_csrf(client: FlaskClient, table: Table) -> None:
    move = table.move_token(0, DRAW1)
    client.get(f"/play/{move}")
    before = snapshot(table)
    assert_error_page(client.post(f"/play/{move}"), 400, "reload")
    assert_error_page(client.post(f"/play/{move}", data={"csrf_token": "nope"}), 400, "reload")
    assert snapshot(table) == before


@pytest.mark.parametrize("decision", [None, "", " 0", "0 ", "0\n", "1 2", "<b>", "a/b", "é", "x" * 65])
def test_missing_or_garbled_decision_is_refused(client: FlaskClient, table: Table, decision: str | None) -> None:
    """A page move must say which decision it was made for; without it a stale click would land on a new one."""
    token = table.personal(0)
    csrf, _ = _fields(client, token)
    data = {"csrf_token": csrf, **DRAW1} | ({} if decision is None else {"decision": decision})
    before = snapshot(table)
    assert_error_page(_post(client, token, data), 400, "decision")
    assert snapshot(table) == before


@pytest.mark.parametrize("decision", ["abc", "-1", "1e3", "0x0", "00", "1"])
def test_a_decision_that_is_not_open_is_already_played(client: FlaskClient, table: Table, decision: str) -> None:
    """Decision ids are the game's strings: one of the right form that is not the seat's open decision is a
    decision made before (a notice), and changes nothing."""
    token = table.personal(0)
    csrf, _ = _fields(client, token)
    before = snapshot(table)
    response = _post(client, token, {"csrf_token": csrf, "decision": decision, **DRAW1})
    assert response.status_code == 303
    assert "This choice was already made." in client.get(response.headers["Location"]).text
    assert snapshot(table) == before


@pytest.mark.parametrize("offset", [-1, 1, 7, 10**8])
def test_decision_other_than_the_open_one_changes_nothing(client: FlaskClient, table: Table, offset: int) -> None:
    """A click on an old (or made-up) decision is 'already played' (DESIGN: a notice, not an error)."""
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    assert _post(client, token, {"csrf_token": csrf, "decision": decision, **DRAW1}).status_code == 303
    ply = table.state().ply
    before = snapshot(table)
    data = {"csrf_token": csrf, "decision": str(ply + offset), "do": "draw", "pile": "draw2"}
    response = _post(client, token, data)
    assert response.status_code in (303, 400, 409)
    assert not TRACE.search(response.text)
    assert snapshot(table) == before
    if response.status_code == 303:
        assert "This choice was already made." in client.get(response.headers["Location"]).text


def test_move_out_of_turn_is_refused(client: FlaskClient, table: Table) -> None:
    bob = table.personal(1)
    csrf, _ = _fields(client, bob)
    before = snapshot(table)
    response = _post(client, bob, {"csrf_token": csrf, "decision": "0", **DRAW1})
    assert_error_page(response, 400, "R4", "turn")
    assert snapshot(table) == before
    move = table.move_token(1, DRAW1)
    assert_error_page(_post(client, move, {"csrf_token": csrf}), 400, "R4")
    assert snapshot(table) == before


def test_move_for_a_bot_seat_is_refused(client: FlaskClient, app: Flask) -> None:
    specs = [games.SeatSpec("ann"), games.SeatSpec("Bot", kind="heuristic")]
    table = new_table(app, specs, seed=3, first_player="ann")
    bot = table.personal(1)
    assert client.get(f"/play/{bot}").status_code in (200, 400, 403)
    csrf, _ = _fields(client, table.personal(0))
    before = snapshot(table)
    data = {"csrf_token": csrf, "decision": "0", "do": "preference", "discard_preference": "larger"}
    assert_error_page(_post(client, bot, data), 400, "bot")
    assert snapshot(table) == before


@pytest.mark.parametrize(
    "duplicated",
    [
        [("do", "draw"), ("do", "lay"), ("pile", "draw1")],
        [("do", "draw"), ("pile", "draw1"), ("pile", "draw2")],
        [("do", "draw"), ("pile", "draw1"), ("decision", "0"), ("decision", "1")],
    ],
    ids=["two-do", "two-piles", "two-decisions"],
)
def test_repeated_fields_are_refused(client: FlaskClient, table: Table, duplicated: list[tuple[str, str]]) -> None:
    """A form field sent twice is forged (no page sends it): refuse rather than pick one of the values."""
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    fields = [("csrf_token", csrf), *duplicated]
    if not any(k == "decision" for k, _ in duplicated):
        fields.append(("decision", decision))
    before = snapshot(table)
    assert_error_page(_post(client, token, MultiDict(fields)), 400)
    assert snapshot(table) == before


@pytest.mark.parametrize(
    "body",
    [
        b"\xff\xfe\x00\x01",
        b"do=draw&pile=draw1\xff\xfe",
        b"do=\xc3\x28&pile=draw1",
        b"do=draw&pile=%ff%fe",
    ],
)
def test_non_utf8_body_is_refused(client: FlaskClient, table: Table, body: bytes) -> None:
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    data = f"csrf_token={csrf}&decision={decision}&".encode() + body
    before = snapshot(table)
    response = _post(client, token, data, content_type="application/x-www-form-urlencoded")
    assert_error_page(response, 400)
    assert snapshot(table) == before


def test_wrong_content_types_are_refused(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    before = snapshot(table)
    as_json = client.post(f"/play/{token}", json={"csrf_token": csrf, "decision": decision, **DRAW1})
    assert_error_page(as_json, 400)
    as_text = _post(client, token, "do=draw&pile=draw1", content_type="text/plain")
    assert_error_page(as_text, 400)
    assert snapshot(table) == before


def test_oversized_body_is_refused(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    before = snapshot(table)
    response = _post(client, token, {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "x" * 2_000_000})
    assert_error_page(response, (400, 413))
    assert snapshot(table) == before


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_other_methods_are_not_allowed(client: FlaskClient, table: Table, method: str) -> None:
    before = snapshot(table)
    for path in (f"/play/{table.personal(0)}", f"/play/{table.move_token(0, DRAW1)}", f"/play/{table.personal(0)}/log"):
        response = client.open(path, method=method, data=DRAW1)
        assert_error_page(response, 405)
        assert "GET" in response.headers.get("Allow", "")
    assert snapshot(table) == before


def test_post_to_the_log_page_is_not_allowed(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    csrf, decision = _fields(client, token)
    response = _post(client, f"{token}/log", {"csrf_token": csrf, "decision": decision, **DRAW1})
    assert_error_page(response, 405)


@pytest.mark.parametrize(
    "path",
    ["/nope", "/play", "/play/", "/admin/nope", "/play/a/b/c", "/static/nothing.css", "/static/../pbem/db.py"],
)
def test_unknown_url_is_a_404_page(client: FlaskClient, path: str) -> None:
    assert_error_page(client.get(path), 404, "Not found")


# A small fuzz ----------------------------------------------------------------------------------

FIELDS = ["do", "pile", "type", "count", "target", "deck", "discard_preference", "decision", "csrf_token", "junk"]
VALUES = [
    "",
    "draw",
    "lay",
    "discard",
    "ninja",
    "reveal_task",
    "preference",
    "draw1",
    "draw2",
    "discard1",
    "discard2",
    "samurai",
    "envoy",
    "emperor",
    "0",
    "1",
    "2",
    "-1",
    "99999999999",
    "A",
    "ann",
    "bob",
    "smaller",
    "null",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "\x00",
    "é",
    "🂡",
]


def _mutate(rng: random.Random, token: str) -> str:
    i = rng.randrange(len(token))
    choice = rng.randrange(5)
    if choice == 0:
        return token[:i] + rng.choice(string.ascii_letters + "-_.") + token[i + 1 :]
    if choice == 1:
        return token[:i] + token[i + 1 :]
    if choice == 2:
        return token[:i] + rng.choice(".-_~%!'()*") + token[i:]
    if choice == 3:
        return ".".join(reversed(token.split(".")))
    return token + token[:i]


def test_fuzz_never_a_server_error(client: FlaskClient, table: Table) -> None:
    rng = random.Random(7)
    personal, bob = table.personal(0), table.personal(1)
    move = table.move_token(0, DRAW1)
    genuine = [personal, bob, move]
    csrf, _ = _fields(client, personal)
    for step in range(400):
        kind = rng.randrange(6)
        if kind == 0:
            token = "".join(rng.choice(string.printable.strip() + "éü日🂡") for _ in range(rng.randint(1, 60)))
            path = "/play/" + token.replace("/", "").replace("?", "").replace("#", "")
        elif kind == 1:
            path = f"/play/{_mutate(rng, rng.choice(genuine))}"
        elif kind == 2:
            path = f"/play/{rng.choice(genuine)}" + rng.choice(["", "/log", "/", "/log/x", "//", "/../log"])
        elif kind == 3:
            path = rng.choice(["/", "/play", "/static/style.css", "/static/", "/admin", "/%ff", "/play/%2e%2e"])
        else:
            path = f"/play/{rng.choice(genuine)}"
        method = rng.choice(["GET", "GET", "HEAD", "POST", "POST", "POST", "PUT", "DELETE", "OPTIONS"])
        data: dict[str, str] = {}
        if method == "POST":
            for name in rng.sample(FIELDS, rng.randint(0, len(FIELDS))):
                data[name] = rng.choice(VALUES)
            if rng.random() < 0.7:
                data["csrf_token"] = csrf
        with client.open(path, method=method, data=data) as response:
            body = response.get_data(as_text=True)
        where = f"step {step}: {method} {path[:80]} {data}"
        assert response.status_code < 500, where
        assert not TRACE.search(body), where
        assert "<script>" not in body, where
    assert table.verify(), "the log still replays to the snapshot"


def test_huge_request_body_is_refused_with_a_page(client: FlaskClient, table: Table) -> None:
    before = snapshot(table)
    response = client.post(f"/play/{table.personal(0)}", data={"do": "draw", "pile": "x" * 5_000_000})
    assert_error_page(response, 413)
    assert snapshot(table) == before


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_names_with_unicode_line_separators_are_refused(app: Flask, separator: str) -> None:
    """The email library refuses them in headers: a game or player named so could never be emailed."""
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="line breaks"):
        flows.games.create(
            session=session, name=f"Friday{separator}night", seats=[games.SeatSpec("a"), games.SeatSpec("b")]
        )
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="line breaks"):
        flows.games.create(
            session=session, name="Friday", seats=[games.SeatSpec(f"a{separator}b"), games.SeatSpec("c")]
        )
