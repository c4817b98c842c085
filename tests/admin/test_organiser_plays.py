"""An organiser who also plays sees only their own seat on the admin page and in an export, until they confirm
(logged, told to every player) that they need to see everything; an organiser who does not play sees all."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from engine import call_to_glory as glory
from engine import cli as engine_cli
from pbem import admin, db, flows
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.models import Game, OutboxEmail
from tests.apps import Table
from tests.mail.conftest import deliver

from .conftest import (
    actions_of,
    assert_page,
    count,
    create_table,
    csrf_of,
    log_in,
    logged_in,
    login_refused,
    new_game_form,
    outbox_rows,
    refused,
)

STATE = re.compile(r'<section class="admin-panel [a-z-]+" id="state">(.*?)<section class="admin-panel milest', re.S)
"""The state section of the admin game page (up to the next panel: a player's board has sections of its own)."""


def played_table(app: Flask, organiser: admin.Actor) -> Table:
    """A game in which the organiser (org@example.com, written in capitals here) plays seat 1, "ann"."""
    seats = [
        admin.SeatInput("human", "ann", "ORG@Example.com", "en", "Europe/Amsterdam"),
        admin.SeatInput("human", "bob", "bob@example.com", "en", "America/New_York"),
        admin.SeatInput("heuristic"),
    ]
    return create_table(app, organiser, seats=seats)


def play(app: Flask, table: Table, seat: int) -> None:
    """The first legal move of ``seat``, as its page would post it (emails queued as after any move)."""
    state = table.state()
    move = {k: v for k, v in glory.legal_moves(state)[0].to_json().items() if k != "player"}
    with app.app_context(), db.write_session() as session:
        flows.play.move(session=session, game_id=table.game_id, seat=seat, move=move, decision=state.ply, source="page")


def finish_turn(app: Flask, table: Table, seat: int, name: str) -> None:
    while table.state().current_player == name:
        play(app, table, seat)


def state_section(page: str) -> str:
    found = STATE.search(page)
    assert found, "the page has its state section"
    return found.group(1)


def hidden_from_ann(state: glory.State) -> set[str]:
    """Card types in bob's hand that ann cannot see anywhere (her hand, any table, a discard pile)."""
    view = glory.player_view(state, "ann")
    seen = set(view["hands"]["ann"]) | {t for table in view["tables"].values() for t in table}
    seen |= {t for pile in view["discard_piles"] for t in pile}
    return {t for t in glory.player_view(state, "bob")["hands"]["bob"] if t not in seen}


def test_the_page_shows_only_the_organisers_seat_while_they_play(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = played_table(app, organiser)
    finish_turn(app, table, 0, "ann")
    play(app, table, 1)  # bob draws: the log must not say what
    state = table.state()
    hidden = hidden_from_ann(state)
    assert hidden, "bob holds a card type ann cannot see (the check below would prove nothing otherwise)"

    page = assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, "You play in this game as")
    section = state_section(page)
    assert 'data-hand="ann"' in section and "hand-of" not in page, "only ann's hand, never the organiser's board"
    assert 'class="tables"' in section and "Discard pile 1" in section, "and the rest of ann's board"
    mine = glory.player_view(state, "ann")["hands"]["ann"]
    assert all(t.capitalize() in section for t in mine), "ann's own cards are shown"
    for t in hidden:
        assert t.capitalize() not in section, f"bob's {t} is not shown"
    with app.app_context():
        rules = games.rules_of("call-to-glory")
        bob_draw = games.move_log(session=db.get_session(), game_id=table.game_id)[-1].events[0]
    assert rules.describe(bob_draw, None) not in page, "the log does not say which card bob drew"
    assert rules.describe(glory.view.mask_event(bob_draw, "ann"), "ann") in page
    assert "The bot would:" not in page, "a bot's move for bob would tell his cards"
    assert f'action="/admin/games/{table.game_id}/reveal"' in page


def test_show_everything_is_a_confirmed_post_that_is_logged_and_told(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = played_table(app, organiser)
    path = f"/admin/games/{table.game_id}/reveal"
    assert admin_client.get(path).status_code == 405, "a GET changes nothing"
    csrf = csrf_of(admin_client, f"/admin/games/{table.game_id}")
    asked = assert_page(
        admin_client.post(path, data={"csrf_token": csrf}), 200, "Are you sure?", "Every player will be told"
    )
    assert 'name="confirm" value="yes"' in asked
    assert not any(a.action == admin.SHOW_HIDDEN for a in actions_of(app, table.game_id)), "asking logs nothing"

    done = admin_client.post(path, data={"csrf_token": csrf, "confirm": "yes"})
    assert done.status_code == 303
    shown = [a for a in actions_of(app, table.game_id) if a.action == admin.SHOW_HIDDEN]
    assert len(shown) == 1 and shown[0].admin_id == organiser.id
    notice = shown[0].notice or ""
    assert notice.startswith("The organiser (who also plays) looked at the hidden cards of this game on ")

    page = assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, "The whole state", "you chose to see")
    section = state_section(page)
    hands = all_hands(table)
    assert len(hands) == 3
    for name, hand in hands.items():
        assert f'data-player="{name}"' in section and all(t.capitalize() in section for t in hand)
    again = admin_client.post(path, data={"csrf_token": csrf, "confirm": "yes"})
    refused(admin_client, again, "already chose")
    assert len([a for a in actions_of(app, table.game_id) if a.action == admin.SHOW_HIDDEN]) == 1

    finish_turn(app, table, 0, "ann")  # bob's turn email follows
    deliver(app)
    email = outbox_rows(app, table.game_id, "turn")[-1]
    assert "bob@example.com" in email.to_addr
    with app.app_context():
        bob = seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)[1]
    told = re.escape(notice.split(" on ")[0]) + r" on [^()]+ \(" + re.escape(bob.timezone) + r"\)\."
    assert re.search(told, " ".join((email.text_body or "").split())), "told, with the time on bob's clock"


def all_hands(table: Table) -> dict[str, dict[str, int]]:
    """Every seat's hand (the game's summary shows them all)."""
    hands: dict[str, dict[str, int]] = games.rules_of("call-to-glory").summary(table.state())["hands"]
    return hands


def test_an_organiser_who_does_not_play_sees_everything(
    app: Flask, admin_client: FlaskClient, adm_table: Table
) -> None:
    page = assert_page(admin_client.get(f"/admin/games/{adm_table.game_id}"), 200, "The whole state")
    section = state_section(page)
    hands = all_hands(adm_table)
    assert len(hands) == 3
    for name, hand in hands.items():
        assert f'data-player="{name}"' in section and all(t.capitalize() in section for t in hand)
    assert "You play in this game" not in page and "/reveal" not in page
    csrf = csrf_of(admin_client, f"/admin/games/{adm_table.game_id}")
    not_mine = admin_client.post(f"/admin/games/{adm_table.game_id}/reveal", data={"csrf_token": csrf})
    refused(admin_client, not_mine, "you do not play in this game")
    assert not [a for a in actions_of(app, adm_table.game_id) if a.action == admin.SHOW_HIDDEN]
    export = admin_client.post(f"/admin/games/{adm_table.game_id}/export", data={"csrf_token": csrf})
    assert json.loads(export.get_data(as_text=True))["seed"] == 1


def export(client: FlaskClient, game_id: int) -> tuple[dict[str, object], str]:
    csrf = csrf_of(client, f"/admin/games/{game_id}")
    response = client.post(f"/admin/games/{game_id}/export", data={"csrf_token": csrf})
    assert response.status_code == 200 and response.mimetype == "application/json"
    return json.loads(response.get_data(as_text=True)), response.headers["Content-Disposition"]


def replay(tmp_path: Path, record: dict[str, object]) -> tuple[int, dict[str, object]]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = io.StringIO()
    status = engine_cli.cmd_replay(str(path), None, out)
    return status, json.loads(out.getvalue())


def test_an_export_while_playing_leaves_out_the_seed(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor, tmp_path: Path
) -> None:
    table = played_table(app, organiser)
    finish_turn(app, table, 0, "ann")
    record, disposition = export(admin_client, table.game_id)
    assert "seed" not in record and "decks" not in record and "tasks" not in record
    assert "seed" in record["omitted"]["keys"] and "cannot be replayed" in record["omitted"]["why"]  # type: ignore[index]
    assert record["players"][:2] == ["ann", "bob"]  # type: ignore[index]
    assert len(record["moves"]) == table.moves_logged()  # type: ignore[arg-type]
    assert "without-seed" in disposition
    status, answer = replay(tmp_path, record)
    assert status == 2 and "leaves out seed" in answer["error"]["message"]  # type: ignore[index]
    assert "as the organiser plays" in actions_of(app, table.game_id)[-1].detail

    csrf = csrf_of(admin_client, f"/admin/games/{table.game_id}")
    ended = admin_client.post(f"/admin/games/{table.game_id}/abort", data={"csrf_token": csrf, "confirm": "yes"})
    assert ended.status_code == 303
    record, disposition = export(admin_client, table.game_id)
    assert record["seed"] == 1 and "omitted" not in record and "without-seed" not in disposition
    status, _ = replay(tmp_path, record)
    assert status == 0, "once the game is over, the record is whole again"
    page = assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, "The whole state")
    assert "hand-of" in page


def test_a_confirmed_organiser_exports_the_whole_record(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = played_table(app, organiser)
    csrf = csrf_of(admin_client, f"/admin/games/{table.game_id}")
    admin_client.post(f"/admin/games/{table.game_id}/reveal", data={"csrf_token": csrf, "confirm": "yes"})
    record, _ = export(admin_client, table.game_id)
    assert record["seed"] == 1 and "omitted" not in record


def test_a_seat_the_organiser_left_is_not_theirs(app: Flask, organiser: admin.Actor) -> None:
    table = played_table(app, organiser)
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = seat_rows.seats_of(session=session, game_id=table.game_id)
        assert admin.hidden_seat(session=session, game=game, seats=seats, actor=organiser) == seats[0]
        flows.play.leave(session=session, game_id=table.game_id, seat=0)
    with app.app_context():
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = seat_rows.seats_of(session=session, game_id=table.game_id)
        assert admin.hidden_seat(session=session, game=game, seats=seats, actor=organiser) is None


# Post/Redirect/Get on the new-game form ------------------------------------------------------------


def test_a_refused_new_game_form_redirects_to_a_get_that_keeps_values_and_errors(
    app: Flask, admin_client: FlaskClient, write_counter: list[str]
) -> None:
    form = new_game_form(name="Friday game", **{"seats-1-email": "not-an-address", "rounds": "9"})
    response = admin_client.post("/admin/games/new", data={"csrf_token": csrf_of(admin_client, "/admin/"), **form})
    assert response.status_code == 303
    assert response.location.startswith("/admin/games/new?") and "game=call-to-glory" in response.location
    write_counter.clear()
    for _reload in range(2):
        page = html.unescape(assert_page(admin_client.get(response.location), 200, "New game"))
        assert "is not an email address" in field_error(page, "seats-1-email"), "the error is next to its field"
        assert "Not a valid choice" in field_error(page, "options-rounds")
        assert 'value="not-an-address"' in page and 'value="Friday game"' in page, "what was typed is kept"
        assert 'value="bob"' in page and 'value="ann@example.com"' in page
    assert write_counter == [], "showing the refused form again writes nothing"
    assert count(app, Game) == 0 and count(app, OutboxEmail) == 0

    fresh = html.unescape(assert_page(admin_client.get("/admin/games/new"), 200))
    assert field_error(fresh, "seats-1-email") == "" and "not-an-address" not in fresh, "a plain GET starts afresh"
    assert "Friday game" not in fresh

    created = admin_client.post(
        "/admin/games/new", data={"csrf_token": csrf_of(admin_client, "/admin/"), **new_game_form()}
    )
    assert created.status_code == 303 and "/admin/games/" in created.location and count(app, Game) == 1
    after = html.unescape(assert_page(admin_client.get(response.location), 200))
    assert "not-an-address" not in after, "once a game is created, the refused form is forgotten"


def test_a_draft_keeps_no_csrf_token_and_belongs_to_its_session(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    token = csrf_of(admin_client, "/admin/")
    form = new_game_form(**{"seats-1-email": "not-an-address"})
    response = admin_client.post("/admin/games/new", data={"csrf_token": token, **form})
    with admin_client.session_transaction() as kept:
        draft = kept["admin-drafts"]["new_game"]
    assert all(name != "csrf_token" for name, _value in draft["values"]) and token not in str(draft)
    other = app.test_client()
    assert logged_in(log_in(other))
    page = html.unescape(assert_page(other.get(response.location), 200))
    assert "not-an-address" not in page, "another browser's GET of the same URL shows a fresh form"


def field_error(page: str, field: str) -> str:
    """The error shown next to the field with that id ("" if none)."""
    found = re.search(rf'<p class="field-error" id="{re.escape(field)}-error">([^<]*)</p>', page)
    return found.group(1) if found else ""


def test_a_wrong_password_redirects_to_a_get_that_keeps_the_name_not_the_password(
    app: Flask, client: FlaskClient, organiser: admin.Actor, write_counter: list[str]
) -> None:
    response = log_in(client, username="org", password="the wrong secret", next="/admin/games/new")
    assert login_refused(response) and "next=/admin/games/new" in response.location
    write_counter.clear()
    for _reload in range(2):
        page = assert_page(client.get(response.location), 200, "Wrong login name or password.", 'value="org"')
        assert "the wrong secret" not in page and 'name="next" value="/admin/games/new"' in page
    assert write_counter == [], "showing the refused login again writes nothing"
    with client.session_transaction() as kept:
        assert "the wrong secret" not in str(dict(kept))
    assert logged_in(log_in(client, next="/admin/games/new"))


def test_any_game_shows_an_organiser_who_plays_only_their_seat(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor, tmp_path: Path
) -> None:
    seats = [
        admin.SeatInput("human", "ann", "org@example.com", "en", "UTC"),
        admin.SeatInput("human", "bob", "bob@example.com", "en", "UTC"),
    ]
    table = create_table(app, organiser, seats=seats, game="call-to-adventure")
    with app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
        rules = games.rules_of(game)
        state = games.load_state(game)
        whole = rules.summary(state)
        mine = rules.player_view(state, "ann")
    assert whole != mine, "this game hides something from ann (else the check below proves nothing)"
    page = assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, "You play in this game as")
    assert "The whole state" not in page and "admin-summary" not in page
    record, _ = export(admin_client, table.game_id)
    assert set(record) == {"format", "omitted", "players", "options", "moves"}
    assert {"seed", "card_set"} <= set(record["omitted"]["keys"])  # type: ignore[index]
    status, answer = replay(tmp_path, record)
    assert status == 2 and "cannot be replayed" in answer["error"]["message"]  # type: ignore[index]
