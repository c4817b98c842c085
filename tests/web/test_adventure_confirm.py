"""A choice the game wants confirmed (Call to Adventure's challenge): the page links to its confirm page, which
offers the game's variants (0 to 3 dark runes, or step by step) as its buttons; a GET writes nothing; one press
makes the chosen variant; the turn email links the choices only."""

from __future__ import annotations

import html
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

import engine
from pbem import db
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.mail import compose
from tests.apps import Table, new_table

from .forge import TRACE

KEY = "call-to-adventure"
GAME = engine.GAMES[KEY]
CONFIRM_LINK = re.compile(r'<a class="button attempt" href="(/play/[^"?]+)">')
FORM = re.compile(r'<form method="post" action="([^"]+)">(.*?)</form>', re.S)
FIELD = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def _table(app: Flask) -> tuple[Table, int]:
    """A game of two people (first game: no setup choice) whose first player may attempt a challenge now."""
    for seed in range(1, 60):
        state = GAME.new_game(["ann", "bob"], {"first_game": True}, seed)
        player = next(iter(GAME.waiting_for(state)), None)
        if player and any(m.do == "challenge" for m in GAME.legal_moves(state, player)):
            specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob")]
            table = new_table(app, specs, seed=seed, game=KEY, options={"first_game": True})
            return table, table.state().current
    raise AssertionError("no seed gives a challenge on the first turn")


def _forms(page: str) -> list[tuple[str, dict[str, str]]]:
    return [(html.unescape(a), {k: html.unescape(v) for k, v in FIELD.findall(body)}) for a, body in FORM.findall(page)]


def _moves(app: Flask, table: Table) -> int:
    with app.app_context():
        return len(games.move_log(session=db.get_session(), game_id=table.game_id))


def test_a_challenge_is_confirmed_with_the_dark_runes_chosen_on_its_confirm_page(
    app: Flask, client: FlaskClient
) -> None:
    table, seat = _table(app)
    page = client.get(f"/play/{table.personal(seat)}").get_data(as_text=True)
    confirm_links = CONFIRM_LINK.findall(page)
    assert confirm_links, "each challenge path opens its confirm page"
    assert 'name="dark"' not in page, "the page itself never casts: no challenge button posts at once"
    before, version = _moves(app, table), table.version()
    assert client.head(confirm_links[0]).status_code == 200
    confirm = client.get(confirm_links[0])
    assert confirm.status_code == 200 and table.version() == version and _moves(app, table) == before
    text = confirm.get_data(as_text=True)
    assert "Confirm your move" in text and not TRACE.search(text)
    variants = [(action, f) for action, f in _forms(text) if f.get("do") in ("challenge", "attempt")]
    state = table.state()
    most = min(3, state.ps[seat].xp)
    assert [f.get("dark") for _a, f in variants] == [*map(str, range(most + 1)), None], "0…most, then step by step"
    assert all("%" in body for body in re.findall(r"<small class=\"note\">([^<]*)</small>", text)[:most])
    assert 'class="primary"' not in text, "no variant is the default: not a poor chance over a better one"
    action, fields = variants[1]  # one dark rune
    answer = client.post(action, data=fields)
    assert answer.status_code == 303, answer.get_data(as_text=True)[:500]
    with app.app_context():
        record = games.move_log(session=db.get_session(), game_id=table.game_id)[-1]
    assert {k: v for k, v in record.move.items() if k != "player"} == {
        k: v for k, v in fields.items() if k not in ("csrf_token", "decision")
    }
    kinds = [e["event"] for e in record.events]
    assert kinds[:3] == ["attempt", "dark", "cast"], kinds
    assert table.state().attempt is None or table.state().attempt.cast, "cast at once"


def test_the_turn_email_links_each_choice_once_and_no_variant(app: Flask) -> None:
    table, seat = _table(app)
    with app.app_context():
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = seat_rows.seats_of(session=session, game_id=table.game_id)
        state = GAME.from_json(game.state)
        with app.test_request_context():
            found: list[dict[str, Any]] = compose.move_links(game, seats[seat], state)
    choices = [c for g in GAME.choices(state, state.players[seat]) for c in g.choices]
    assert len(found) == len(choices) < len(GAME.legal_moves(state, state.players[seat]))
    assert [f["label"] for f in found] == [f"{c.label} ({c.note})" if c.note else c.label for c in choices]
