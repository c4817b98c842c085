"""The admin page over HTTP, on SQLite and PostgreSQL: the forms and buttons an organiser uses, and bad input."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update
from sqlmodel import col
from werkzeug.test import TestResponse

from engine import call_to_glory as glory
from pbem import admin, db, i18n
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.models import AdminAction, Game, OutboxEmail
from tests.apps import Table

from .conftest import TRACE, actions_of, assert_page, count, create_table, csrf_of, new_game_form, outbox_rows, refused

ROOT = Path(__file__).resolve().parents[2]


def post(client: FlaskClient, path: str, **data: str) -> TestResponse:
    """A form POST with the CSRF token of the page the form is on."""
    return client.post(path, data={"csrf_token": csrf_of(client, "/admin/"), **data})


def act(client: FlaskClient, table: Table, action: str, **data: str) -> TestResponse:
    """Press an action button of a game's page (destructive ones need ``confirm="yes"``)."""
    return post(client, f"/admin/games/{table.game_id}/{action}", **data)


def game_page(client: FlaskClient, table: Table) -> str:
    return assert_page(client.get(f"/admin/games/{table.game_id}"), 200)


def errors_on(page: str) -> list[str]:
    return [html.unescape(m) for m in re.findall(r'class="(?:field-error|form-error)"[^>]*>\s*(?:<p>)?([^<]+)', page)]


# Creating a game ----------------------------------------------------------------------------------


def test_create_a_game_with_the_form(app: Flask, admin_client: FlaskClient) -> None:
    form = assert_page(admin_client.get("/admin/games/new"), 200, "New game", "Seat 4", "Task cards")
    assert 'value="org@example.com"' in form, "the organiser's address is offered"
    assert "A: Emperor, Empress, Daimyo, Shogun" in form, "the default task-card table of RULES.md"
    response = post(admin_client, "/admin/games/new", **new_game_form(name="Friday <script>alert(1)</script>"))
    assert response.status_code == 303, errors_on(response.get_data(as_text=True))
    game_id = int(response.location.rsplit("/", 1)[1])
    page = assert_page(admin_client.get(response.location), 200, "invitations are on their way", "Organiser's view")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    listed = assert_page(admin_client.get("/admin/"), 200)
    assert "<script>alert" not in listed and "&lt;script&gt;" in listed
    invited = sorted(r.to_addr for r in outbox_rows(app, game_id, "invitation"))
    assert len(invited) == 2 and "ann@example.com" in invited[0] and "bob@example.com" in invited[1]
    with app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=game_id)
        seats = seat_rows.seats_of(session=db.get_session(), game_id=game_id)
    assert [(s.name, s.kind, s.timezone) for s in seats] == [
        ("ann", "human", "Europe/Amsterdam"),
        ("bob", "human", "Europe/Amsterdam"),
        ("Bot 1", "heuristic", "UTC"),
    ]
    assert game.organiser_email == "org@example.com" and game.policy is not None
    assert game.policy["deadline_hours"] == 72 and game.policy["timeout"] == "bot"


HOSTILE_FORMS = [
    ({"name": "Friday\r\nBcc: x@evil.example"}, "may not contain line breaks"),
    ({"name": "x" * 100_000}, "at most 80 characters"),
    ({"name": ""}, "the game needs a name"),
    ({"seats-0-name": "<img src=x onerror=alert(1)>" * 3}, "at most 40 characters"),
    ({"seats-0-email": "ann@example.com\nBcc: x@evil.example"}, "may not contain line breaks"),
    ({"seats-1-email": "not-an-address"}, "is not an email address"),
    ({"seats-1-timezone": "../../../etc/passwd"}, "is not known"),
    ({"seats-0-kind": "superuser"}, "Not a valid choice"),
    ({"first_player": "9"}, "Not a valid choice"),
    ({"rounds": "7"}, "Not a valid choice"),
    ({"order": "sideways"}, "Not a valid choice"),
    ({"deadline_hours": "-5"}, "Number must be between"),
    ({"max_reminders": "lots"}, "Not a valid integer value"),
    ({"imperial_tasks": "y", "task_decks": "A: Emperor, Empress\r\nB: Monk"}, "must list 4 card types"),
    ({"seats-1-name": "ann"}, "names must differ"),
    ({"seats-1-kind": "none", "seats-1-name": "", "seats-1-email": "", "seats-2-kind": "none"}, "2 to 4 players"),
]


def test_bad_input_on_the_form_is_shown_next_to_its_field(app: Flask, admin_client: FlaskClient) -> None:
    for changes, words in HOSTILE_FORMS:
        response = post(admin_client, "/admin/games/new", **new_game_form(**changes))
        page = refused(admin_client, response, "New game")
        assert any(words in e for e in errors_on(page)), (changes, errors_on(page))
        assert "<img src=x" not in page, "what was typed is shown escaped"
    assert count(app, Game) == 0 and count(app, OutboxEmail) == 0


def test_every_problem_of_a_form_is_shown_at_once(admin_client: FlaskClient) -> None:
    bad = new_game_form(name="x" * 81, **{"seats-0-email": "nope", "seats-1-timezone": "Nowhere", "rounds": "9"})
    found = errors_on(refused(admin_client, post(admin_client, "/admin/games/new", **bad)))
    assert len(found) == 4, found


def test_a_huge_field_is_refused_and_not_echoed(app: Flask, admin_client: FlaskClient) -> None:
    response = post(admin_client, "/admin/games/new", **new_game_form(task_decks="A" * 2_000_000, name="B" * 300_000))
    page = refused(admin_client, response, "at most 600 characters", "at most 80 characters")
    assert len(page) < 100_000 and not TRACE.search(page)
    assert count(app, Game) == 0


# The list -----------------------------------------------------------------------------------------


def test_the_list_shows_filters_and_pages(app: Flask, admin_client: FlaskClient, organiser: admin.Actor) -> None:
    tables = [create_table(app, organiser, name=f"Game {i}") for i in range(3)]
    act(admin_client, tables[1], "pause")
    page = assert_page(admin_client.get("/admin/"), 200, "3 games", "Game 0", "Game 2", "paused")
    assert page.index("Game 2") < page.index("Game 0"), "newest first"
    attention = assert_page(admin_client.get("/admin/?attention=1"), 200, "1 game matches", "Game 1")
    assert "Game 0" not in attention
    app.config["ADMIN_GAMES_PER_PAGE"] = 2
    first = assert_page(admin_client.get("/admin/?status=playing"), 200, "Page 1 of 2", "Older")
    assert "Game 0" not in first
    second = assert_page(admin_client.get("/admin/?status=playing&page=2"), 200, "Page 2 of 2", "Game 0", "Newer")
    assert "Game 2" not in second
    assert_page(admin_client.get("/admin/?status=aborted"), 200, "0 games match")


def test_the_list_shows_mail_stuck_for_an_hour_as_needing_attention(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    tables = [create_table(app, organiser, name=f"Game {i}") for i in range(2)]
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    for table, since in ((tables[0], now - timedelta(minutes=5)), (tables[1], now - timedelta(hours=2))):
        with app.app_context(), db.write_session() as session:
            session.execute(
                update(OutboxEmail).where(col(OutboxEmail.game_id) == table.game_id)
                .values(status="queued", attempts=3, created_at=since, last_error="connecting to smtp:25: refused")
            )  # fmt: skip
    shown = i18n.when(now - timedelta(hours=2), "Europe/Amsterdam")
    page = assert_page(admin_client.get("/admin/"), 200, "mail stuck since", shown)
    assert page.count("mail stuck since") == 1, "a failure younger than MAIL_STUCK_NOTICE_MINUTES is not stuck yet"
    attention = assert_page(admin_client.get("/admin/?attention=1"), 200, "1 game matches", "Game 1", "mail stuck")
    assert "Game 0" not in attention


def test_bad_list_parameters_are_a_400(admin_client: FlaskClient) -> None:
    for query in ("page=0", "page=abc", "page=-1", "page=%C2%B2", "page=99999999", "status=deleted", "status=%00"):
        assert_page(admin_client.get(f"/admin/?{query}"), 400)


# Actions ------------------------------------------------------------------------------------------


def test_pause_and_resume(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    response = act(admin_client, adm_table, "pause", reason="a holiday")
    assert response.status_code == 303 and response.location == f"/admin/games/{adm_table.game_id}"
    page = game_page(admin_client, adm_table)
    assert "The game is paused." in page and "Resume the game" in page and "a holiday" in page
    player = app.test_client()
    personal = adm_table.personal(0)
    move = player.post(
        f"/play/{adm_table.move_token(0, {'do': 'draw', 'pile': 'draw1'})}",
        data={"csrf_token": csrf_of(player, f"/play/{personal}")},
    )
    assert move.status_code == 409 and "paused" in move.get_data(as_text=True)
    assert adm_table.moves_logged() == 0
    refused(admin_client, act(admin_client, adm_table, "pause"), "paused: resume it first")
    assert act(admin_client, adm_table, "resume").status_code == 303
    assert "The game is running again." in game_page(admin_client, adm_table)
    assert [a.action for a in actions_of(app, adm_table.game_id)] == ["create", "pause", "resume"]


def test_destructive_actions_ask_first(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    decision = str(adm_table.state().ply)
    before = (adm_table.moves_logged(), count(app, AdminAction), adm_table.seat(1).nonce)
    asks = [
        ("bot", {"decision": decision}, "Let the bot make ann&#39;s current decision"),
        ("abort", {"reason": "no time"}, "Abort Admin game?"),
        ("email", {"seat": "2", "email": "bob@new.example"}, "Change bob&#39;s email to bob@new.example?"),
        ("hand", {"seat": "2", "kind": "random"}, "Give bob&#39;s seat to the random bot?"),
        (
            "hand",
            {"seat": "2", "kind": "human", "person": "Dan", "email": "dan@example.com"},
            "Give bob&#39;s seat to Dan (dan@example.com)?",
        ),
    ]
    for action, data, words in asks:
        page = assert_page(act(admin_client, adm_table, action, **data), 200, "Are you sure?", words, "Yes, do it")
        for key, value in data.items():
            assert f'name="{key}" value="{value}"' in page
        assert 'name="confirm" value="yes"' in page
    assert (adm_table.moves_logged(), count(app, AdminAction), adm_table.seat(1).nonce) == before, "nothing yet"
    assert act(admin_client, adm_table, "bot", decision=decision, confirm="yes").status_code == 303
    assert "The bot decided for ann" in game_page(admin_client, adm_table)
    with app.app_context():
        assert [r.source for r in games.move_log(session=db.get_session(), game_id=adm_table.game_id)] == ["admin"]
    again = act(admin_client, adm_table, "bot", decision=decision, confirm="yes")
    assert again.status_code == 303 and adm_table.moves_logged() == 1, "a second click changes nothing"
    assert "already made" in game_page(admin_client, adm_table)


def test_a_bad_destructive_request_is_refused_before_the_question(admin_client: FlaskClient, adm_table: Table) -> None:
    def no(action: str, words: str, **data: str) -> str:
        return refused(admin_client, act(admin_client, adm_table, action, **data), words)

    no("email", "line breaks", seat="2", email="bob\r\nBcc: x@evil.example")
    no("email", "has no seat 9", seat="9", email="x@example.com")
    no("email", "seat must be a whole", seat="x", email="x@example.com")
    no("hand", "person or one of the bots", seat="1", kind="dragon")
    no("hand", "name must not be empty", seat="1", kind="human", email="a@b.co")
    typed = no("hand", "time", seat="1", kind="human", person="Dan", email="a@b.co", timezone="X")
    assert 'value="a@b.co"' in typed and "<details open>" in typed, "what was typed is shown again in its form"
    no("bot", "no open decision", decision="soon")
    no("bot", "decision must be a short code", decision="<script>")
    refused(admin_client, act(admin_client, adm_table, "abort", reason="x" * 151), "at most 150")


def test_change_email_makes_the_old_link_invalid(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    old = adm_table.personal(1)
    response = act(admin_client, adm_table, "email", seat="2", email="bob@new.example", confirm="yes")
    assert response.status_code == 303
    assert "bob@new.example" in game_page(admin_client, adm_table)
    assert_page(app.test_client().get(f"/play/{old}"), 410, "no longer valid")
    assert "bob@new.example" in outbox_rows(app, adm_table.game_id, "invitation")[-1].to_addr


def test_hand_seats_to_a_bot_and_to_a_person(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    assert act(admin_client, adm_table, "hand", seat="1", kind="heuristic", confirm="yes").status_code == 303
    page = game_page(admin_client, adm_table)
    assert "The heuristic bot now plays ann&#39;s seat. It has made its decision." in page
    assert adm_table.state().current_player == "bob"
    response = act(
        admin_client,
        adm_table,
        "hand",
        seat="1",
        kind="human",
        person="Eve",
        email="eve@example.com",
        timezone="Asia/Tokyo",
        confirm="yes",
    )
    assert response.status_code == 303
    seat = adm_table.seat(0)
    assert (seat.kind, seat.email, seat.timezone) == ("human", "eve@example.com", "Asia/Tokyo")
    assert adm_table.verify()


def test_extend_the_deadline_and_resend(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    assert act(admin_client, adm_table, "extend", hours="36").status_code == 303
    assert "The deadline is now 36 hours later." in game_page(admin_client, adm_table)
    for bad in ("", "0", "-4", "abc", "99999", "1.5"):
        refused(admin_client, act(admin_client, adm_table, "extend", hours=bad))
    turns = len(outbox_rows(app, adm_table.game_id, "turn"))
    assert act(admin_client, adm_table, "resend").status_code == 303
    assert len(outbox_rows(app, adm_table.game_id, "turn")) == turns + 1


def test_retry_dead_emails(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    refused(admin_client, act(admin_client, adm_table, "retry"), "no undeliverable emails")
    with app.app_context(), db.write_session() as session:
        session.execute(
            update(OutboxEmail)
            .where(col(OutboxEmail.game_id) == adm_table.game_id)
            .values(status="dead", attempts=8, last_error="550 5.1.1 <bob@example.com>: no such user")
        )
    page = game_page(admin_client, adm_table)
    assert "550 5.1.1 &lt;bob@example.com&gt;: no such user" in page and "Retry 3 undelivered emails" in page
    assert act(admin_client, adm_table, "retry").status_code == 303
    assert {(r.status, r.attempts) for r in outbox_rows(app, adm_table.game_id)} == {("queued", 0)}


def test_abort(app: Flask, admin_client: FlaskClient, adm_table: Table) -> None:
    assert act(admin_client, adm_table, "abort", reason="moved away", confirm="yes").status_code == 303
    page = game_page(admin_client, adm_table)
    assert "The game is aborted." in page and "ended the game early: moved away" in page
    assert "Pause the game" not in page and "Abort the game" not in page
    refused(admin_client, act(admin_client, adm_table, "pause"), "aborted")
    refused(admin_client, act(admin_client, adm_table, "bot", decision="0"), "aborted")  # no question: it is stopped
    player = app.test_client().get(f"/play/{adm_table.personal(0)}")
    assert player.status_code == 200 and "ended the game early" in player.get_data(as_text=True)


def test_export_downloads_a_record_the_engine_replays(
    app: Flask, admin_client: FlaskClient, adm_table: Table, tmp_path: Path
) -> None:
    for _ in range(4):
        act(admin_client, adm_table, "bot", decision=str(adm_table.state().ply), confirm="yes")
    response = act(admin_client, adm_table, "export")
    assert response.status_code == 200 and response.mimetype == "application/json"
    disposition = response.headers["Content-Disposition"]
    assert disposition == f'attachment; filename="call-to-glory-{adm_table.game_id}-admin-game.json"'
    assert "no-store" in response.headers["Cache-Control"]
    path = tmp_path / "record.json"
    path.write_bytes(response.data)
    replay = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert json.loads(replay.stdout) == glory.state_summary(adm_table.state())
    assert actions_of(app, adm_table.game_id)[-1].action == "export"


def test_verify(admin_client: FlaskClient, adm_table: Table) -> None:
    assert act(admin_client, adm_table, "verify").status_code == 303
    assert "Replayed 0 moves: the stored state matches." in game_page(admin_client, adm_table)


def test_the_game_page_shows_every_hand_the_log_and_the_emails(
    app: Flask, admin_client: FlaskClient, adm_table: Table
) -> None:
    act(admin_client, adm_table, "bot", decision=str(adm_table.state().ply), confirm="yes")
    page = game_page(admin_client, adm_table)
    state = glory.state_summary(adm_table.state())
    for name in ("ann", "bob", "Bot 1"):
        block = page.split(f'data-player="{name}"', 1)[1].split("</div>", 1)[0]
        for card_type in state["hands"][name]:
            assert card_type.capitalize() in block, (name, card_type)
    assert "Never show this page to a player" in page
    assert "let the bot decide for ann" in page and ">admin<" in page, "the move log says source admin"
    assert "created the game" in page and "organiser org" in page
    assert "You are invited" in page and "queued" in page


def test_unknown_games_actions_and_methods(admin_client: FlaskClient) -> None:
    token = csrf_of(admin_client, "/admin/")
    for method, path, status in (
        ("GET", "/admin/games/999", 404),
        ("POST", "/admin/games/999/pause", 404),
        ("POST", "/admin/games/999/abort", 404),
        ("POST", "/admin/games/1/explode", 404),
        ("GET", "/admin/games/1/pause", 405),
        ("GET", "/admin/games/abc", 404),
        ("PUT", "/admin/games/new", 405),
    ):
        assert_page(admin_client.open(path, method=method, data={"csrf_token": token}), status)


def test_get_and_head_never_write(
    app: Flask, admin_client: FlaskClient, adm_table: Table, write_counter: list[str]
) -> None:
    paths = ["/admin/", "/admin/?attention=1", "/admin/games/new", f"/admin/games/{adm_table.game_id}", "/admin/login"]
    for path in paths:
        for method in ("GET", "HEAD"):
            assert admin_client.open(path, method=method).status_code in (200, 303)
    assert write_counter == []


def test_a_forged_seat_on_a_confirmation_is_refused_in_one_line(admin_client: FlaskClient, adm_table: Table) -> None:
    for action in ("email", "hand"):  # the actions that name a seat (seats are numbered from 1 on the form)
        for seat in ("9", "0", "-3", "x"):
            page = refused(admin_client, act(admin_client, adm_table, action, seat=seat))
            assert re.search(r"id=\"refused\">[^<]*seat[^<]*</p>", page), (action, seat)
    ply = str(adm_table.state().ply)
    for action, data in (("abort", {}), ("bot", {"decision": ply})):  # a stray seat field is ignored
        response = act(admin_client, adm_table, action, seat="9", **data)
        assert response.status_code == 200 and "confirm" in response.get_data(as_text=True).lower()
