"""Texts stored as codes (issue 25, item 3): an organiser's pause, abort and notices reach a Dutch and a French
player in their own language, on the page and in email (real SMTP); the admin log reads in the organiser's
language; rows stored as English sentences before migration 0012 still show; invitations say what an option's
value means instead of "yes" or "no"."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text
from sqlmodel import select

from engine import call_to_glory as glory
from pbem import admin, db, flows, i18n
from pbem.core import audit, errors, games
from pbem.i18n import N_, Np_
from pbem.models import AdminAction, AdminUser
from tests.admin.conftest import actions_of, assert_page, create_table, csrf_of, outbox_rows
from tests.apps import Table
from tests.mail.conftest import SMTPServer, deliver
from tests.scheduler.test_migration_0009 import _migrate

PAUSED = {
    "nl": "De organisator heeft het gepauzeerd: vakantie.",
    "fr": "L'organisateur l'a mise en pause\u202f: vakantie.",
}
TOLD_PAUSED = {
    "nl": "De organisator heeft het spel gepauzeerd: vakantie.",
    "fr": "L'organisateur a mis la partie en pause\u202f: vakantie.",
}
TOLD_RESUMED = {"nl": "De organisator heeft het spel hervat.", "fr": "L'organisateur a repris la partie."}
ABORTED = {
    "nl": "De organisator heeft het spel voortijdig beëindigd: te weinig tijd.",
    "fr": "L'organisateur a arrêté la partie avant la fin\u202f: te weinig tijd.",
}


def dutch_and_french(app: Flask, organiser: admin.Actor) -> Table:
    """ann speaks Dutch (Amsterdam), bob French (Paris), and a bot."""
    seats = [
        admin.SeatInput("human", "ann", "ann@example.com", "nl", "Europe/Amsterdam"),
        admin.SeatInput("human", "bob", "bob@example.com", "fr", "Europe/Paris"),
        admin.SeatInput("heuristic"),
    ]
    return create_table(app, organiser, seats=seats)


def act(client: FlaskClient, table: Table, action: str, **form: str) -> None:
    """Post one action of the admin game page as the organiser does (confirmed where it asks)."""
    csrf = csrf_of(client, f"/admin/games/{table.game_id}")
    response = client.post(
        f"/admin/games/{table.game_id}/{action}", data={"csrf_token": csrf, "confirm": "yes", **form}
    )
    assert response.status_code == 303 and "draft=" not in response.location, response.location


def player_page(client: FlaskClient, table: Table, position: int) -> str:
    response = client.get(f"/play/{table.personal(position)}")
    assert response.status_code == 200
    return response.get_data(as_text=True).replace("&#39;", "'")


def finish_turn(app: Flask, table: Table, seat: int) -> None:
    """``seat`` plays its first legal moves until its turn ends, as its page would post them."""
    name = table.seat(seat).name
    while table.state().current_player == name:
        state = table.state()
        move = {k: v for k, v in glory.legal_moves(state)[0].to_json().items() if k != "player"}
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=seat, move=move, decision=state.ply, source="page"
            )


def plain(message: EmailMessage) -> str:
    """The text part of a received email, its lines joined."""
    body = message.get_body(("plain",))
    assert body is not None
    return re.sub(r"[ \t\n]+", " ", str(body.get_content()))


def received_by(server: SMTPServer, address: str) -> list[str]:
    return [plain(m) for m in server.messages if address in m["To"]]


def test_a_dutch_and_a_french_player_read_the_pause_and_the_notices_in_their_language(
    smtp_app: Flask, smtp_server: SMTPServer, app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = dutch_and_french(app, organiser)
    act(admin_client, table, "pause", reason="vakantie")
    for position, lang in ((0, "nl"), (1, "fr")):
        page = player_page(admin_client, table, position)
        assert PAUSED[lang] in page, f"the pause's reason on the {lang} page"
        assert "The organiser" not in page
    act(admin_client, table, "resume")
    finish_turn(app, table, 0)  # bob's first turn email tells what happened since the start
    deliver(smtp_app)
    bob = received_by(smtp_server, "bob@example.com")[-1]
    assert TOLD_PAUSED["fr"] in bob and TOLD_RESUMED["fr"] in bob, bob
    assert "The organiser" not in bob

    act(admin_client, table, "pause", reason="vakantie")
    act(admin_client, table, "resume")
    finish_turn(app, table, 1)  # the bot plays; ann's turn email tells what happened since her move
    deliver(smtp_app)
    ann = received_by(smtp_server, "ann@example.com")[-1]
    assert TOLD_PAUSED["nl"] in ann and TOLD_RESUMED["nl"] in ann, ann
    assert "The organiser" not in ann


def test_an_aborted_game_says_why_in_each_players_language(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = dutch_and_french(app, organiser)
    act(admin_client, table, "abort", reason="te weinig tijd")
    for position, lang in ((0, "nl"), (1, "fr")):
        page = player_page(admin_client, table, position)
        assert ABORTED[lang] in page and "The organiser" not in page


@pytest.mark.parametrize(
    ("lang", "paused", "created"),
    [
        ("nl", "heeft het spel gepauzeerd: vakantie", "heeft het spel aangemaakt (Call to Glory): ann (persoon)"),
        ("fr", "a mis la partie en pause\u202f: vakantie", "a créé la partie (Call to Glory)\u202f: ann (personne)"),
        ("en", "paused the game: vakantie", "created the game (Call to Glory): ann (person)"),
    ],
)
def test_the_admin_log_reads_in_the_organisers_language(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor, lang: str, paused: str, created: str
) -> None:
    table = dutch_and_french(app, organiser)
    act(admin_client, table, "pause", reason="vakantie")
    with app.app_context(), db.write_session() as session:
        user = session.exec(select(AdminUser).where(AdminUser.username == "org")).one()
        user.language = lang
        session.add(user)
    assert_page(admin_client.get(f"/admin/games/{table.game_id}"), 200, paused, created)
    assert actions_of(app, table.game_id)[-1].detail == "paused the game: vakantie", "English kept in the row"


@pytest.mark.usefixtures("admin_client")
def test_rows_stored_as_sentences_before_0012_still_show(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = dutch_and_french(app, organiser)
    _migrate(app, "0011_admin_language", up=False)
    with app.extensions["pbem_engine"].begin() as conn:
        conn.execute(
            text(
                "INSERT INTO admin_action (game_id, admin_id, admin_name, action, seat, detail, notice, created_at)"
                " VALUES (:g, :a, 'org', 'pause', NULL, 'paused the game: the old way',"
                " 'The organiser paused the game.', :at)"
            ),
            {"g": table.game_id, "a": organiser.id, "at": datetime.now(UTC)},
        )
        conn.execute(
            text(
                "UPDATE game SET paused_at = :at, paused_reason = 'The organiser paused it: the old way.' WHERE id = :g"
            ),
            {"g": table.game_id, "at": datetime.now(UTC)},
        )
    _migrate(app, "heads", up=True)
    old = actions_of(app, table.game_id)[-1]
    assert (old.key, old.notice_key, old.params) == ("", None, None)
    assert_page(
        admin_client.get(f"/admin/games/{table.game_id}"),
        200,
        "paused the game: the old way",
        "The organiser paused it: the old way.",
    )
    assert "The organiser paused it: the old way." in player_page(admin_client, table, 0), "shown as it is"
    with app.test_request_context():
        i18n.use("nl")
        assert audit.log_words(old) == "paused the game: the old way"
        assert audit.notice_words(old) == "The organiser paused the game."


@pytest.mark.parametrize(
    ("lang", "tasks", "ninja"),
    [("en", "played", "not used"), ("nl", "gespeeld", "niet gebruikt"), ("fr", "jouées", "non utilisé")],
)
def test_invitations_say_what_an_option_means_not_yes_or_no(
    app: Flask, organiser: admin.Actor, lang: str, tasks: str, ninja: str
) -> None:
    seats = [
        admin.SeatInput("human", "ann", "ann@example.com", lang, "Europe/Amsterdam"),
        admin.SeatInput("human", "bob", "bob@example.com", lang, "Europe/Paris"),
    ]
    table = create_table(app, organiser, seats=seats, imperial_tasks=True, ninja_power=False)
    deliver(app)
    invitation = outbox_rows(app, table.game_id, "invitation")[0]
    for body in (invitation.text_body, invitation.html_body):
        lines = [line.strip() for line in body.splitlines()]
        assert not [line for line in lines if line.endswith((": yes", ": no", ": ja", ": nee", ": oui", ": non"))]
    assert f": {tasks}" in invitation.text_body and f": {ninja}" in invitation.text_body


def test_stored_texts_are_put_into_words_in_each_language(app: Flask) -> None:
    at = datetime(2026, 3, 12, 13, 5, tzinfo=UTC)
    stored = i18n.stored(
        N_("extended the deadline of %(name)s's decision by %(time)s, to %(deadline)s"),
        name="ann",
        time=timedelta(hours=26),
        deadline=at,
    )
    assert i18n.english(stored) == (
        "extended the deadline of ann's decision by 1 day and 2 hours, to Thursday 12 March 2026, 13:05 (UTC)"
    )
    with app.test_request_context():
        i18n.use("nl", "Europe/Amsterdam")
        assert i18n.words(stored) == (
            "heeft de deadline van de beslissing van ann met 1 dag en 2 uur verlengd, "
            "tot donderdag 12 maart 2026, 14:05 (Europe/Amsterdam)"
        )
        assert i18n.words(stored, "fr").startswith("a prolongé de 1\u00a0jour et 2\u00a0heures")
        plural = i18n.stored(Np_("queued %(num)d undeliverable email again", "x"), num=2)
        assert i18n.words(plural) == "heeft 2 onbestelbare e-mails opnieuw in de wachtrij gezet"
        each = i18n.stored(N_("let the bot decide for %(name)s: %(move)s"), name="ann", move=i18n.EachLanguage.of(str))
        assert i18n.words(each) == "liet de bot beslissen voor ann: nl"
        assert i18n.words("an old sentence") == "an old sentence" and i18n.words(None) == ""
    row = AdminAction(game_id=1, admin_name="org", action="x", detail="", key="", params=None)
    assert audit.log_words(row) == ""


def test_a_move_refused_in_a_paused_game_says_why_in_the_players_language(
    app: Flask, admin_client: FlaskClient, organiser: admin.Actor
) -> None:
    table = dutch_and_french(app, organiser)
    act(admin_client, table, "pause", reason="vakantie")
    with app.test_request_context():
        i18n.use("fr")
        with db.write_session() as session, pytest.raises(errors.Paused) as refused:
            state = table.state()
            move = {k: v for k, v in glory.legal_moves(state)[0].to_json().items() if k != "player"}
            games.apply_move(
                session=session, game_id=table.game_id, seat=0, move=move, decision=state.ply, source="page"
            )
        assert PAUSED["fr"] in refused.value.message
        with i18n.in_language("nl"):
            assert PAUSED["nl"] in refused.value.message
