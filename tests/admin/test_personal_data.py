"""Erasing a person: the organiser erases an address from the games it played that are over (the seat renamed,
its address, time zone, table talk and emails removed, the records still replaying, no trace of the address in any
table of the database); a player asks for it from the page of a game that is over, and the organiser confirms."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import inspect, text
from sqlmodel import select

import engine
from pbem import admin, db, flows, timing
from pbem.core import errors, games, personal, records, talk
from pbem.core import seats as seat_rows
from pbem.models import ErasureRequest, Message
from tests.apps import Table

from .conftest import csrf_of

ADDRESS = "Zeb.Quux@Example.com"
NAME = "Zebulon Quux"


def traces(app: Flask, *needles: str) -> list[str]:
    """Every table.column of the database (every table, read with plain SQL) whose value holds one of ``needles``,
    in any case."""
    found = []
    lowered = [n.lower() for n in needles]
    eng = app.extensions["pbem_engine"]
    with eng.connect() as conn:
        for table in inspect(conn).get_table_names():
            rows = conn.execute(text(f'SELECT * FROM "{table}"')).mappings()
            for row in rows:
                for column, value in row.items():
                    shown = (value if isinstance(value, str) else json.dumps(value, default=str)).lower()
                    if any(n in shown for n in lowered):
                        found.append(f"{table}.{column}")
    return sorted(set(found))


def _finish(app: Flask, table: Table, organiser: admin.Actor) -> None:
    """Let the bot make the person's decisions until the game is over."""
    for _ in range(2000):
        with app.app_context(), db.write_session() as session:
            game = seat_rows.get_game(session=session, game_id=table.game_id)
            rules = games.rules_of(game)
            waiting = rules.waiting_for(games.load_state(game))
            if not waiting:
                return
            decision = next(iter(waiting.values()))
            admin.bot_decision(session=session, game_id=table.game_id, decision=decision.id, actor=organiser, seat=0)
    raise AssertionError("the game did not end")


def played(app: Flask, organiser: admin.Actor, game: str = "call-to-glory", **options: Any) -> Table:
    """A game of the person and a bot, with table talk, a resent turn email, an organiser's address that is the
    person's, and a lost-links email; played to the end."""
    specs = [
        games.SeatSpec(NAME, email=ADDRESS, timezone="Europe/Paris", language="fr"),
        games.SeatSpec("Bot 1", kind="heuristic"),
    ]
    with app.app_context(), db.write_session() as session:
        made = flows.games.create(session=session, name="Club night", seats=specs, game=game, options=options, seed=4)
        table = Table(app, made.id or 0)
    with app.app_context(), db.write_session() as session:
        talk.say(
            session=session, game_id=table.game_id, seat=0, text=f"hello from {NAME}", nonce_tag=None, now=timing.now()
        )
        admin.resend_turn_email(session=session, game_id=table.game_id, actor=organiser, seat=0)
        flows.links.lost_links(session=session, address=ADDRESS.upper())
    _finish(app, table, organiser)
    return table


@pytest.mark.parametrize(("game", "options"), [("call-to-glory", {"rounds": 1}), ("call-to-adventure", {})])
def test_erasing_leaves_no_trace_and_the_record_replays(
    app: Flask, organiser: admin.Actor, game: str, options: dict[str, Any]
) -> None:
    table = played(app, organiser, game, **options)
    with app.app_context():
        session = db.get_session()
        stored = seat_rows.get_game(session=session, game_id=table.game_id)
        before = games.rules_of(stored).result(games.load_state(stored))
        session.close()
    assert before is not None
    assert "seat.email" in traces(app, ADDRESS) and "outbox.to_addr" in traces(app, ADDRESS)
    assert "move.events" in traces(app, NAME), "the scan sees what is there"
    old_link = table.personal(0)

    with app.app_context(), db.write_session() as session:
        said = admin.erase_person(session=session, address=ADDRESS.lower(), actor=organiser)
    assert said == "The person is erased from 1 game."
    assert traces(app, ADDRESS, ADDRESS.replace("@", "%40")) == [], "no trace of the address"
    assert traces(app, NAME, "Zebulon") == [], "nor of the name"

    seat = table.seat(0)
    assert (seat.name, seat.email, seat.timezone, seat.erased_at is not None) == ("Player 1", None, "UTC", True)
    with app.app_context():
        session = db.get_session()
        assert session.exec(select(Message)).all() == []
        assert games.verify_game(session=session, game_id=table.game_id), "the log replays to the stored game"
        stored = seat_rows.get_game(session=session, game_id=table.game_id)
        record = records.of_game(session=session, game=stored)
    rules = engine.GAMES[game]
    _start, final, _moves = rules.replay(json.loads(json.dumps(record)))
    after = rules.result(final)
    assert after is not None and after.scores == {("Player 1" if k == NAME else k): v for k, v in before.scores.items()}
    assert app.test_client().get("/play/" + old_link).status_code in (403, 404, 410), "the old link is dead"


def test_the_organiser_may_choose_the_name(app: Flask, organiser: admin.Actor) -> None:
    table = played(app, organiser, "call-to-glory", rounds=1)
    with app.app_context(), db.write_session() as session:
        admin.erase_person(session=session, address=ADDRESS, actor=organiser, name="Wanderer")
    assert table.seat(0).name == "Wanderer"
    with app.app_context():
        assert games.verify_game(session=db.get_session(), game_id=table.game_id)
    with app.app_context(), db.write_session() as session, pytest.raises(errors.NotFound):
        admin.erase_person(session=session, address=ADDRESS, actor=organiser)


def test_a_person_who_still_plays_is_not_erased(app: Flask, organiser: admin.Actor) -> None:
    specs = [games.SeatSpec(NAME, email=ADDRESS), games.SeatSpec("Bot 1", kind="heuristic")]
    with app.app_context(), db.write_session() as session:
        made = flows.games.create(session=session, name="Still on", seats=specs, seed=2)
        table = Table(app, made.id or 0)
    with app.app_context(), db.write_session() as session, pytest.raises(errors.NotNow, match="Still on"):
        admin.erase_person(session=session, address=ADDRESS, actor=organiser)
    assert (table.seat(0).email or "").lower() == ADDRESS.lower()
    assert table.seat(0).erased_at is None


def test_a_player_asks_and_the_organiser_confirms(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = played(app, organiser, "call-to-glory", rounds=1)
    player = app.test_client()
    page = player.get("/play/" + table.personal(0)).text
    assert 'id="erasure"' in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token
    asked = player.post(f"/play/{table.personal(0)}/erase", data={"csrf_token": token.group(1)})
    assert asked.status_code == 303
    assert "Votre demande est transmise" in player.get(asked.location).text, "in the seat's language (French)"
    again = player.post(f"/play/{table.personal(0)}/erase", data={"csrf_token": token.group(1)})
    assert again.status_code == 303
    with app.app_context():
        [request] = db.get_session().exec(select(ErasureRequest)).all()
    assert (request.game_id, request.seat, request.done_at) == (table.game_id, 0, None)

    listing = admin_client.get("/admin/personal-data").text
    assert NAME in listing and "Club night" in listing
    data = {"csrf_token": csrf_of(admin_client, "/admin/personal-data"), "address": table.seat(0).email or ""}
    confirm = admin_client.post("/admin/personal-data/erase", data=data)
    assert confirm.status_code == 200 and "Are you sure?" in confirm.text
    assert table.seat(0).erased_at is None, "asked first"
    done = admin_client.post("/admin/personal-data/erase", data=data | {"confirm": "yes"})
    assert done.status_code == 303
    assert "erased from 1 game" in admin_client.get(done.location).text
    with app.app_context():
        assert db.get_session().exec(select(ErasureRequest)).one().done_at is not None
    assert traces(app, ADDRESS) == []
    game_page = admin_client.get(f"/admin/games/{table.game_id}").text
    assert "(erased " in game_page and "Player 1" in game_page and NAME not in game_page
    assert "erased the personal data of seat 1, now called Player 1" in game_page
    refused = admin_client.post(
        "/admin/personal-data/erase",
        data={"csrf_token": csrf_of(admin_client, "/admin/personal-data"), "address": "not an address"},
    )
    assert refused.status_code == 400 and "not an email address" in refused.text


def test_no_request_while_the_game_runs(app: Flask) -> None:
    specs = [games.SeatSpec("Ann", email="ann@example.com"), games.SeatSpec("Bot 1", kind="heuristic")]
    with app.app_context(), db.write_session() as session:
        table = Table(app, flows.games.create(session=session, name="On", seats=specs, seed=2).id or 0)
    player = app.test_client()
    page = player.get("/play/" + table.personal(0)).text
    assert 'id="erasure"' not in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token
    refused = player.post(f"/play/{table.personal(0)}/erase", data={"csrf_token": token.group(1)})
    assert refused.status_code == 409 and "once the game is over" in refused.text
    with app.app_context():
        assert db.get_session().exec(select(ErasureRequest)).all() == []
        assert (
            personal.request_erasure_of_address(session=db.get_session(), address="ann@example.com", now=timing.now())
            == []
        )
