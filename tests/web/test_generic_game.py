"""A game with no templates of its own (the test-only Pick a Number, tests/games/pick_a_number.py) is played on the
generic page: the plain board of templates/games/_default, its choices as buttons, a move posted from one, a move
link to confirm, hidden picks kept hidden, and the result at the end."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from pbem.core import games, links
from tests.apps import Table, new_table

from .forge import assert_error_page, snapshot
from .test_games_http import Form, parse

GAME = "pick-a-number"


def _table(app: Flask) -> Table:
    specs = [games.SeatSpec(n) for n in ("ann", "bob")]
    return new_table(app, specs, seed=5, game=GAME, options={"rounds": 1, "highest": 3})


def _page(client: FlaskClient, token: str) -> str:
    response = client.get(f"/play/{token}")
    assert response.status_code == 200, response.text
    return response.text


def _picks(html: str) -> dict[str, Form]:
    """The page's move buttons by their label."""
    return {f.label: f for f in parse(html).forms if f.fields.get("do") == "pick"}


def _press(client: FlaskClient, form: Form) -> str:
    """Post a button's form as a browser does; the page it leads to."""
    response = client.post(form.action, data=form.fields)
    assert response.status_code == 303, response.text
    return client.get(response.headers["Location"]).text


def test_a_game_without_templates_is_played_on_the_plain_page(app: Flask, client: FlaskClient) -> None:
    table = _table(app)
    ann, bob = table.personal(0), table.personal(1)
    html = _page(client, ann)
    assert "<title>Test game · Pick a Number</title>" in html and 'id="board"' in html and "Highest" in html
    assert "Your turn." in html and "<h2>Pick a number from 1 to 3</h2>" in html
    assert "Round 1 of 1: 0 of 2 have picked." in html, "the game's progress lines"
    assert '<link rel="stylesheet" href="/games/pick-a-number/style.css?v=' in html
    buttons = _picks(html)
    assert sorted(buttons) == ["Pick 1", "Pick 2", "Pick 3"]
    assert {f.fields["number"] for f in buttons.values()} == {"1", "2", "3"}
    assert {f.fields["decision"] for f in buttons.values()} == {"round-1"}
    assert sorted(_picks(_page(client, bob))) == ["Pick 1", "Pick 2", "Pick 3"], "both pick at the same time"

    after = _press(client, buttons["Pick 2"])
    assert "Done: Pick 2." in after and not _picks(after)
    assert "Waiting for <strong><bdi>bob</bdi></strong>." in after and "You picked 2." in after
    theirs = _page(client, bob)
    assert "ann picked." in theirs and "picked 2" not in theirs, "a pick stays secret until the reveal"


def test_the_plain_page_shows_the_result(app: Flask, client: FlaskClient) -> None:
    table = _table(app)
    _press(client, _picks(_page(client, table.personal(0)))["Pick 2"])
    final = _press(client, _picks(_page(client, table.personal(1)))["Pick 3"])
    assert "Winner: <strong><bdi>bob</bdi></strong>" in final and "Game over" in final
    assert '<p class="flash done headline">Round 1 is revealed: ann 2, bob 3.</p>' in final
    assert "<td><bdi>bob</bdi> (you)</td><td>3</td>" in final and "<td><bdi>ann</bdi></td><td>2</td>" in final
    assert not _picks(final) and 'class="choices"' not in final
    assert "Round 1 revealed: ann 2, bob 3." in final, "the log says what happened"
    assert table.verify()


def test_a_move_link_of_such_a_game_is_confirmed_with_its_label(app: Flask, client: FlaskClient) -> None:
    table = _table(app)
    with app.test_request_context():
        token = links.move_token(table.game_id, 1, table.seat(1).nonce, "round-1", {"do": "pick", "number": 3})
    html = _page(client, token)
    assert "Confirm your move" in html and '<button type="submit" class="primary">Pick 3</button>' in html
    csrf = parse(html).forms[0].fields["csrf_token"]
    response = client.post(f"/play/{token}", data={"csrf_token": csrf})
    assert response.status_code == 303
    assert "You picked 3." in client.get(response.headers["Location"]).text
    again = _page(client, token)
    assert "Already played" in again and "Confirm your move" not in again


def test_the_game_refuses_what_it_does_not_know(app: Flask, client: FlaskClient) -> None:
    table = _table(app)
    token = table.personal(0)
    fields = _picks(_page(client, token))["Pick 1"].fields
    before = snapshot(table)
    for extra, message in (
        ({"number": "7"}, "pick a number from 1 to 3"),
        ({"number": "x"}, "whole number"),
        ({"colour": "red"}, "a move is"),
        ({"do": "lay"}, "a move is"),
    ):
        assert_error_page(client.post(f"/play/{token}", data={**fields, **extra}), 400, message)
    assert_error_page(client.post(f"/play/{token}", data={**fields, "decision": ""}), 400, "decision")
    assert snapshot(table) == before


def test_a_game_style_sheet_is_cached_and_unknown_games_have_none(client: FlaskClient) -> None:
    glory = client.get("/games/call-to-glory/style.css")
    assert glory.status_code == 200 and glory.mimetype == "text/css" and ".t-samurai" in glory.text
    assert "max-age=31536000" in glory.headers["Cache-Control"]
    plain = client.get("/games/pick-a-number/style.css")
    assert plain.status_code == 200 and plain.text == ""
    assert client.get("/games/chess/style.css").status_code == 404
