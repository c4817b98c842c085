"""Invitations that are accepted: a game that starts when everyone has accepted (Accept / Decline on the player's
page), the organiser's view of the answers, a declined seat filled (a person or a bot), a start date with bots in
the unanswered seats or without them, and the function a reply by email calls."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import admin, db, timing
from pbem.core import games, links
from pbem.core import seats as seat_rows
from pbem.flows import invites as invite_flows
from pbem.models import Game, OutboxEmail, Seat, Wait
from pbem.scheduler import sweeps
from tests.admin.conftest import assert_page, create_table, csrf_of, new_game_form, outbox_rows
from tests.apps import CSRF, Table

PEOPLE = [
    admin.SeatInput("human", "ann", "ann@example.com", "en", "Europe/Amsterdam"),
    admin.SeatInput("human", "bob", "bob@example.com", "nl", "Europe/Brussels"),
    admin.SeatInput("human", "cy", "cy@example.com", "fr", "Europe/Paris"),
]


def invited(app: Flask, actor: admin.Actor, **form: Any) -> Table:
    """A game of ann, bob and cy that starts when everyone has accepted."""
    form.setdefault("organiser_email", "org@example.com")
    return create_table(app, actor, seats=form.pop("seats", PEOPLE), start="accepted", **form)


def game_row(app: Flask, table: Table) -> Game:
    with app.app_context():
        return seat_rows.get_game(session=db.get_session(), game_id=table.game_id)


def seats(app: Flask, table: Table) -> list[Seat]:
    with app.app_context():
        return seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)


def waits(app: Flask, table: Table) -> list[Wait]:
    with app.app_context():
        return list(db.get_session().exec(select(Wait).where(Wait.game_id == table.game_id)))


def answer(client: FlaskClient, token: str, value: str) -> Any:
    page = client.get(f"/play/{token}")
    found = CSRF.search(page.text)
    assert found, page.text[:500]
    return client.post(f"/play/{token}/answer", data={"csrf_token": found.group(1), "answer": value})


def kinds(app: Flask, table: Table, kind: str) -> list[OutboxEmail]:
    return outbox_rows(app, table.game_id, kind)


def test_the_new_game_form_can_wait_for_everyone_to_accept(
    app: Flask, admin_client: FlaskClient, write_counter: list[str]
) -> None:
    form = new_game_form(start="accepted")
    form["csrf_token"] = csrf_of(admin_client, "/admin/games/new")
    created = admin_client.post("/admin/games/new", data=form)
    assert created.status_code == 303, created.text[:500]
    game_id = int(created.location.rstrip("/").split("/")[-1])
    table = Table(app, game_id)
    assert game_row(app, table).status == games.INVITED
    assert waits(app, table) == [] and table.moves_logged() == 0, "nobody is waited on, no bot has moved"
    invitations = kinds(app, table, "invitation")
    assert {e.to_addr for e in invitations} == {"ann <ann@example.com>", "bob <bob@example.com>"}
    assert kinds(app, table, "turn") == []
    for email in invitations:
        assert "Will you play?" in email.subject and "Accept or decline" in email.html_body
        assert "The game starts when everyone has accepted." in email.text_body
    page = assert_page(admin_client.get(f"/admin/games/{game_id}"), 200, "Invitations", "no answer yet", "Start now")
    assert "a bot" in page
    listed = assert_page(admin_client.get("/admin/?status=invited"), 200, "Friday game", "Invited")
    assert "1 game matches." in listed
    del write_counter[:]
    shown = app.test_client().get(f"/play/{table.personal(0)}")
    assert shown.status_code == 200 and "Will you play?" in shown.text and 'value="accept"' in shown.text
    assert 'href="/mine/' in shown.text, "the invitation page links to all the player's games"
    assert write_counter == [], "the page is a GET: it changes nothing"


def test_everyone_accepts_and_the_game_starts(app: Flask, client: FlaskClient, organiser: admin.Actor) -> None:
    table = invited(app, organiser)
    assert answer(client, table.personal(0), "accept").status_code == 303
    assert seats(app, table)[0].answer == "accepted" and game_row(app, table).status == games.INVITED
    notices = kinds(app, table, "organiser")
    assert [n.subject for n in notices] == ["Admin game · ann accepted the invitation"]
    assert "Still waiting for: bob, cy." in notices[0].text_body
    page = client.get(f"/play/{table.personal(0)}")
    assert "You have accepted." in page.text and 'value="accept"' not in page.text
    # a move before the start is refused, whatever the link says
    token = table.move_token(0, {"do": "draw", "pile": "draw1"})
    move = client.post(f"/play/{token}", data={"csrf_token": CSRF.search(page.text).group(1)})  # type: ignore[union-attr]
    assert move.status_code == 409 and table.moves_logged() == 0
    with app.test_request_context():
        mine = links.mine_token("ann@example.com")
    assert "Invited: the game starts when everyone has answered" in client.get(f"/mine/{mine}").text
    answer(client, table.personal(1), "accept")
    last = answer(client, table.personal(2), "accept")
    assert last.status_code == 303
    assert game_row(app, table).status == "playing"
    assert "la partie commence maintenant" in client.get(last.location).text, "cy reads French"
    subjects = ("The game starts", "Het spel begint", "La partie commence")
    starting = [e for e in kinds(app, table, "invitation") if e.subject.endswith(subjects)]
    assert len(starting) == 3, [e.subject for e in kinds(app, table, "invitation")]
    assert len(kinds(app, table, "turn")) == 1 and len(waits(app, table)) == 1
    assert kinds(app, table, "organiser")[-1].subject.endswith("The game has started")
    assert table.verify()


def test_a_decline_lets_the_organiser_give_the_seat_to_a_person(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = invited(app, organiser)
    player = app.test_client()
    old_bob = table.personal(1)
    answer(player, table.personal(0), "accept")
    answer(player, table.personal(2), "accept")
    answer(player, old_bob, "decline")
    assert seats(app, table)[1].answer == "declined"
    assert "bob declined the invitation" in kinds(app, table, "organiser")[-1].subject
    page = assert_page(
        admin_client.get(f"/admin/games/{table.game_id}"), 200, "declined", "Give seat 2 to someone else"
    )
    csrf = CSRF.search(page)
    assert csrf
    form = {"csrf_token": csrf.group(1), "seat": "2", "kind": "human", "name": "dee", "email": "dee@example.com"}
    done = admin_client.post(f"/admin/games/{table.game_id}/fill", data=form | {"language": "en", "timezone": "UTC"})
    assert done.status_code == 303 and "draft" not in done.location
    dee = seats(app, table)[1]
    assert (dee.name, dee.email, dee.answer, game_row(app, table).status) == ("dee", "dee@example.com", None, "invited")
    assert player.get(f"/play/{old_bob}").status_code == 410, "bob's links stop working"
    assert kinds(app, table, "invitation")[-1].to_addr == "dee <dee@example.com>"
    answer(player, table.personal(1), "accept")
    assert game_row(app, table).status == "playing"
    assert [s.name for s in seats(app, table)] == ["ann", "dee", "cy"] and table.verify()
    assert list(table.state().players) == ["ann", "dee", "cy"]


def test_a_decline_filled_by_a_bot_starts_the_game(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = invited(app, organiser)
    player = app.test_client()
    for position in (0, 2):
        answer(player, table.personal(position), "accept")
    answer(player, table.personal(1), "decline")
    csrf = CSRF.search(admin_client.get(f"/admin/games/{table.game_id}").text)
    assert csrf
    form = {"csrf_token": csrf.group(1), "seat": "2", "kind": "heuristic", "name": ""}
    done = admin_client.post(f"/admin/games/{table.game_id}/fill", data=form)
    assert done.status_code == 303
    assert game_row(app, table).status == "playing" and seats(app, table)[1].is_bot
    assert table.verify()


def test_start_by_date_with_bots_in_the_unanswered_seats(app: Flask, organiser: admin.Actor) -> None:
    day = (timing.now() + timedelta(days=3)).date()
    table = invited(app, organiser, start_by=day.isoformat(), unanswered="bot")
    row = game_row(app, table)
    assert row.start_at is not None and row.unanswered == "bot"
    start_text = kinds(app, table, "invitation")[0].text_body
    assert "at the latest" in start_text
    player = app.test_client()
    answer(player, table.personal(0), "accept")
    answer(player, table.personal(1), "decline")
    old_cy = table.personal(2)
    with app.app_context():
        assert sweeps.start_sweep(now=timing.now()) == 0, "not before its day"
        assert sweeps.start_sweep(now=timing.now() + timedelta(days=4)) == 1
        assert sweeps.start_sweep(now=timing.now() + timedelta(days=4)) == 0, "started once"
    after = seats(app, table)
    assert game_row(app, table).status == "playing"
    assert [s.kind for s in after] == ["human", "heuristic", "heuristic"]
    assert player.get(f"/play/{old_cy}").status_code == 410
    assert "A bot plays for bob, cy, who did not accept." in kinds(app, table, "organiser")[-1].text_body
    assert table.verify()


def test_start_by_date_without_the_unanswered_seats(app: Flask, client: FlaskClient, organiser: admin.Actor) -> None:
    day = (timing.now() + timedelta(days=1)).date()
    table = invited(app, organiser, start_by=day.isoformat(), unanswered="drop")
    answer(client, table.personal(0), "accept")
    answer(client, table.personal(2), "accept")
    with app.app_context():
        assert sweeps.start_sweep(now=timing.now() + timedelta(days=2)) == 1
    after = seats(app, table)
    assert [(s.position, s.name) for s in after] == [(0, "ann"), (1, "cy")]
    assert list(table.state().players) == ["ann", "cy"] and table.verify()
    # cy moved up a seat: the email that says the game starts carries her new link, and it works
    [email] = [e for e in kinds(app, table, "invitation") if "cy@" in e.to_addr and "La partie commence" in e.subject]
    token = re.search(r"/play/([A-Za-z0-9._-]+)", email.text_body)
    assert token and client.get(f"/play/{token.group(1)}").status_code == 200
    assert "It started without bob" in kinds(app, table, "organiser")[-1].text_body


def test_too_few_to_start_without_them_waits_and_tells_the_organiser(app: Flask, organiser: admin.Actor) -> None:
    day = (timing.now() + timedelta(days=1)).date()
    table = invited(app, organiser, start_by=day.isoformat(), unanswered="drop")
    answer(app.test_client(), table.personal(0), "accept")
    with app.app_context():
        assert sweeps.start_sweep(now=timing.now() + timedelta(days=2)) == 0
    row = game_row(app, table)
    assert row.status == games.INVITED and row.start_at is None
    notice = kinds(app, table, "organiser")[-1]
    assert "could not start" in notice.subject and "Too few players accepted" in notice.text_body
    assert len(seats(app, table)) == 3


def test_the_organiser_starts_it_now(app: Flask, admin_client: FlaskClient, organiser: admin.Actor) -> None:
    table = invited(app, organiser)
    answer(app.test_client(), table.personal(0), "accept")
    csrf = CSRF.search(admin_client.get(f"/admin/games/{table.game_id}").text)
    assert csrf
    done = admin_client.post(f"/admin/games/{table.game_id}/start", data={"csrf_token": csrf.group(1)})
    assert done.status_code == 303 and "draft" not in done.location
    assert game_row(app, table).status == "playing"
    assert [s.kind for s in seats(app, table)] == ["human", "heuristic", "heuristic"]
    again = admin_client.post(f"/admin/games/{table.game_id}/start", data={"csrf_token": csrf.group(1)})
    assert "draft" in again.location, "a started game cannot start again"


def test_answer_invitation_is_the_one_function_a_reply_calls(app: Flask, organiser: admin.Actor) -> None:
    table = invited(app, organiser)
    with app.app_context(), db.write_session() as session:
        seat = seat_rows.load(session=session, game_id=table.game_id, seat=1).seat
        done = invite_flows.answer_invitation(session=session, seat=seat, accept=False)
        assert not done.started and done.seat.answer == "declined"
    with app.app_context(), db.write_session() as session:  # the same answer again: stored once, told once
        seat = seat_rows.load(session=session, game_id=table.game_id, seat=1).seat
        invite_flows.answer_invitation(session=session, seat=seat, accept=False)
    assert len(kinds(app, table, "organiser")) == 1


def test_answers_after_the_start_and_forged_answers_are_refused(
    app: Flask, client: FlaskClient, organiser: admin.Actor
) -> None:
    table = invited(app, organiser)
    page = client.get(f"/play/{table.personal(0)}")
    csrf = CSRF.search(page.text)
    assert csrf
    odd = client.post(f"/play/{table.personal(0)}/answer", data={"csrf_token": csrf.group(1), "answer": "maybe"})
    assert odd.status_code == 400 and seats(app, table)[0].answer is None
    assert client.post(f"/play/{table.personal(0)}/answer", data={"answer": "accept"}).status_code == 400
    forged = table.personal(0)[:-3] + "abc"
    bad = client.post(f"/play/{forged}/answer", data={"csrf_token": csrf.group(1), "answer": "accept"})
    assert bad.status_code in (400, 403, 404) and seats(app, table)[0].answer is None
    for position in range(3):
        answer(client, table.personal(position), "accept")
    late = client.post(f"/play/{table.personal(0)}/answer", data={"csrf_token": csrf.group(1), "answer": "decline"})
    assert late.status_code == 409 and seats(app, table)[0].answer == "accepted"


@pytest.mark.parametrize(("lang", "words"), [("nl", "Speel je mee?"), ("fr", "Jouez-vous\u202f?")])
def test_the_invitation_page_and_email_speak_the_seat_language(
    app: Flask, client: FlaskClient, organiser: admin.Actor, lang: str, words: str
) -> None:
    table = invited(app, organiser)
    position = 1 if lang == "nl" else 2
    assert words in client.get(f"/play/{table.personal(position)}").text
    email = next(e for e in kinds(app, table, "invitation") if e.seat_id == seats(app, table)[position].id)
    assert words in email.subject
