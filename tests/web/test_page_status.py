"""What the head of a seat's page says: whose turn, or a paused or stopped game instead; and a page that follows
the game by itself (a plain GET) while the seat has nothing to decide."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from engine import call_to_glory as glory
from engine.call_to_glory import Options
from pbem import admin, db, flows, timing
from pbem.core import games
from pbem.core.audit import Actor
from pbem.models import OutboxEmail
from tests.apps import Table, new_table

REFRESH = '<meta http-equiv="refresh"'
ORGANISER = Actor(id=0, name="org")


def page(client: FlaskClient, table: Table, position: int) -> str:
    response = client.get(f"/play/{table.personal(position)}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_the_seat_to_act_is_asked_and_the_others_follow_by_themselves(client: FlaskClient, table: Table) -> None:
    mine = page(client, table, 0)
    assert "Your turn." in mine and REFRESH not in mine
    other = page(client, table, 1)
    assert "Waiting for <strong><bdi>ann</bdi></strong>" in other and f'{REFRESH} content="60">' in other


def test_a_paused_game_says_so_instead_of_your_turn(app: Flask, client: FlaskClient, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        admin.pause_game(
            session=session, game_id=table.game_id, actor=ORGANISER, reason="back on Monday", now=timing.now()
        )
    html = page(client, table, 0)
    assert "This game is paused." in html and "back on Monday" in html
    assert "Your turn." not in html and 'class="choices"' not in html and REFRESH not in html


def test_a_stopped_game_says_the_organiser_stopped_it(app: Flask, client: FlaskClient, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        admin.abort_game(
            session=session, game_id=table.game_id, actor=ORGANISER, reason="we moved away", now=timing.now()
        )
    for position in (0, 1):
        html = page(client, table, position)
        assert "This game was stopped by the organiser." in html and "we moved away" in html
        assert "Your turn." not in html and "This game is paused" not in html and REFRESH not in html


def test_a_player_called_you_is_not_you_you(app: Flask, client: FlaskClient) -> None:
    specs = [games.SeatSpec("You", email="you@example.com"), games.SeatSpec("ann", email="ann@example.com")]
    table = new_table(app, specs, seed=1)
    mine, theirs = page(client, table, 0), page(client, table, 1)
    assert "You</bdi> (you)" not in mine and "<bdi>ann</bdi> (you)" in theirs
    with app.app_context():
        bodies = [e.text_body + e.html_body for e in db.get_session().exec(select(OutboxEmail))]
    assert bodies and not any("You (you)" in body or "You</strong> (you)" in body for body in bodies)
    assert any("ann (you)" in body for body in bodies)


def test_names_are_isolated_from_the_text_around_them(app: Flask, client: FlaskClient) -> None:
    """A right-to-left name cannot turn the words around it (each name is in its own <bdi>)."""
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("שרה", email="sara@example.com")]
    html = page(client, new_table(app, specs, seed=1, name="ערב משחק"), 1)
    assert "<h1><bdi>ערב משחק</bdi></h1>" in html and "you are <strong><bdi>שרה</bdi></strong>" in html
    assert "<h3><bdi>שרה</bdi> (you)" in html and "<th><bdi>שרה</bdi></th>" in html
    assert "Waiting for <strong><bdi>ann</bdi></strong>" in html


def ann_moves(app: Flask, table: Table) -> None:
    """ann makes the heuristic bot's choice through the service, as a page's button would."""
    state = table.state()
    move = games.move_body(games.bot_move(glory.GAME, state, state.current_player or ""))
    with app.app_context(), db.write_session() as session:
        flows.play.move(session=session, game_id=table.game_id, seat=0, move=move, decision=state.ply, source="page")


def test_a_round_end_shows_a_banner_and_the_standing_of_the_round(app: Flask, client: FlaskClient) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("Bot", kind="heuristic")]
    table = new_table(app, specs, seed=3, options=Options(rounds=2))
    html = page(client, table, 0)
    assert 'class="progress"' in html and "If round 1 ended now:" in html and "of 6." in html
    assert "headline" not in html
    while table.state().round == 1:
        move = games.move_body(games.bot_move(glory.GAME, table.state(), table.state().current_player or ""))
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=0, move=move, decision=table.state().ply, source="page"
            )
    html = page(client, table, 0)
    assert '<p class="flash done headline">Round 1 is over: ann ' in html and "If round 2 ended now:" in html


def test_a_finished_game_shows_no_empty_boxes(app: Flask, client: FlaskClient) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("Bot", kind="heuristic")]
    table = new_table(app, specs, seed=3, options=Options(rounds=1))
    while not table.state().is_finished:
        move = games.move_body(games.bot_move(glory.GAME, table.state(), table.state().current_player or ""))
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=0, move=move, decision=table.state().ply, source="page"
            )
    html = page(client, table, 0)
    assert "Winner" in html and 'class="progress"' not in html and 'class="choices"' not in html
    assert "<h2>Time</h2>" not in html and "Where your displaced cards go" not in html


def _play(app: Flask, table: Table, position: int, moves: int | None = None) -> None:
    """The seat's moves through the service (the heuristic bot's choices): ``moves`` of them, or its whole turn."""
    made = 0
    while moves is None or made < moves:
        with app.app_context(), db.write_session() as session:
            state = table.state()
            name = state.players[position]
            decision = games.decision_of(glory.GAME, state, name)
            if decision is None:
                return
            move = games.move_body(games.bot_move(glory.GAME, state, name, "heuristic"))
            flows.play.move(
                session=session, game_id=table.game_id, seat=position, move=move, decision=decision.id, source="page"
            )
        made += 1


def _recent(html: str) -> list[tuple[bool, str]]:
    """The lines of the page's 'what happened since your last turn', each with whether it is marked as mine."""
    section = re.search(r'<section class="recent" id="recent">(.*?)</section>', html, re.DOTALL)
    assert section, "the page tells what happened"
    return [(bool(mine), text) for mine, text in re.findall(r'<li( class="mine")?>(.*?)</li>', section.group(1))]


def test_what_happened_comes_first_with_the_seats_own_turn_marked(app: Flask, client: FlaskClient) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    table = new_table(app, specs, seed=3, first_player="bob")
    _play(app, table, 1)
    _play(app, table, 2)
    html = page(client, table, 0)
    before = _recent(html)
    assert before and not any(mine for mine, _ in before)
    assert any(text.startswith("bob ") for _, text in before) and any(text.startswith("cy ") for _, text in before)
    assert html.index('class="recent"') < html.index('class="choices"'), "what happened comes before the choices"

    _play(app, table, 0, moves=1)  # ann draws: her draw is told, with what the others did before it
    drawn = _recent(page(client, table, 0))
    assert drawn[: len(before)] == before
    [(mine, text)] = drawn[len(before) :]
    assert mine and re.fullmatch(r"You drew an? \w+ from .+\.", text), text

    _play(app, table, 0)  # the rest of her turn, then bob moves once: her turn, then bob's move since (no more)
    _play(app, table, 1, moves=1)
    after = _recent(page(client, table, 0))
    assert [mine for mine, _ in after] == [True, False], after
    assert after[0][1].startswith("You drew ") and after[1][1].startswith("bob "), after
