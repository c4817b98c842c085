"""The settings page, one-click unsubscribe, leaving a game, and fresh links for expired ones, over HTTP.

On both databases: a GET or HEAD of the settings page writes nothing; every change is a
CSRF-protected POST, except RFC 8058 one-click unsubscribe (``List-Unsubscribe=One-Click``,
sent by mail clients without a form), which can only turn reminders off. Leaving hands the
seat to a bot, revokes the seat's links and tells the organiser. The expired-link page
offers a fresh link, which is mailed only to the address on file and at most once in ten
minutes.
"""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine import call_to_glory as glory
from pbem import db, flows
from pbem.core import games, links
from tests.apps import Table, new_table
from tests.mail.test_compose import rows

from .forge import assert_error_page, days_ago, rotate_nonce, sign, signed_at, tamper

FORM = re.compile(r'<form method="post" action="([^"]+)">(.*?)</form>', re.DOTALL)
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def forms(html: str) -> list[tuple[str, dict[str, str]]]:
    """Each POST form of a page: its action and hidden fields."""
    return [(action, dict(HIDDEN.findall(body))) for action, body in FORM.findall(html)]


def settings_token(app: Flask, table: Table, position: int) -> str:
    with app.test_request_context():
        return links.settings_token(table.game_id, position, table.seat(position).nonce)


@pytest.fixture
def org_table(app: Flask) -> Table:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    return new_table(app, specs, seed=1, organiser_email="org@example.com")


CHOSEN = re.compile(r'<input type="radio" name="([^"]+)" value="([^"]+)" checked>')


def chosen(html: str) -> dict[str, str]:
    """The radio buttons a page has checked, by name."""
    return dict(CHOSEN.findall(html))


def test_the_settings_page_only_shows(client: FlaskClient, app: Flask, table: Table, write_counter: list[str]) -> None:
    token = settings_token(app, table, 1)
    page = client.get(f"/settings/{token}")
    assert page.status_code == 200 and "bob" in page.text and "Test game" in page.text
    assert "They are <strong>on</strong>" in page.text and "Leave the game…" in page.text
    assert [fields["action"] for _, fields in forms(page.text)] == ["choices"]
    assert chosen(page.text) == {"reminders": "on", "score_sheets": "separate", "digest": "none"}
    assert "in your next turn email" in page.text and "none on days when nothing happened" in page.text
    confirm = client.get(f"/settings/{token}?confirm=leave")
    assert [fields["action"] for _, fields in forms(confirm.text)] == ["leave", "choices"]
    assert client.head(f"/settings/{token}").status_code == 200
    assert page.headers["Cache-Control"] == "no-store" and page.headers["Referrer-Policy"] == "no-referrer"
    assert write_counter == []
    bob = table.seat(1)
    assert (bob.reminders, bob.score_sheets, bob.digest, bob.next_digest_at) == (True, "separate", "none", None)


def test_the_email_choices_are_saved_with_one_form(client: FlaskClient, app: Flask, table: Table) -> None:
    token = settings_token(app, table, 1)
    [(action, fields)] = forms(client.get(f"/settings/{token}").text)
    assert action == f"/settings/{token}"
    choices = {"reminders": "off", "score_sheets": "folded", "digest": "daily"}
    response = client.post(action, data={**fields, **choices})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/settings/{token}")
    page = client.get(f"/settings/{token}")
    assert "Your email choices are saved." in page.text and "They are <strong>off</strong>" in page.text
    assert chosen(page.text) == choices
    bob = table.seat(1)
    assert (bob.reminders, bob.score_sheets, bob.digest) == (False, "folded", "daily")
    assert bob.next_digest_at is not None, "the first digest is planned"
    back = {"reminders": "on", "score_sheets": "separate", "digest": "none"}
    assert client.post(action, data={**fields, **back}).status_code == 303
    bob = table.seat(1)
    assert (bob.reminders, bob.score_sheets, bob.digest, bob.next_digest_at) == (True, "separate", "none", None)
    # Without the CSRF token nothing changes.
    assert_error_page(client.post(action, data={"action": "choices", **choices}), 400, "reload")
    assert table.seat(1).reminders is True
    assert_error_page(client.post(action, data={**fields, "action": "nonsense"}), 400, "setting")


@pytest.mark.parametrize(
    "hostile",
    [
        {"reminders": "maybe"},
        {"reminders": ""},
        {"score_sheets": "both"},
        {"score_sheets": "FOLDED"},
        {"digest": "hourly"},
        {"digest": "daily\r\nBcc: eve@evil.example"},
        {"digest": "x" * 5000},
    ],
)
def test_hostile_email_choices_change_nothing(
    client: FlaskClient, app: Flask, table: Table, hostile: dict[str, str]
) -> None:
    token = settings_token(app, table, 1)
    [(action, fields)] = forms(client.get(f"/settings/{token}").text)
    good = {"reminders": "off", "score_sheets": "folded", "digest": "daily"}
    assert_error_page(client.post(action, data={**fields, **good, **hostile}), 400)
    missing = {k: v for k, v in good.items() if k not in hostile}
    assert_error_page(client.post(action, data={**fields, **missing}), 400)
    bob = table.seat(1)
    assert (bob.reminders, bob.score_sheets, bob.digest, bob.next_digest_at) == (True, "separate", "none", None)


@pytest.mark.parametrize("encoding", ["form", "multipart"])
def test_one_click_unsubscribe(app: Flask, table: Table, encoding: str) -> None:
    [turn] = [r for r in rows(app, kind="turn") if r.to_addr.startswith("ann")]
    assert turn.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = turn.headers["List-Unsubscribe"].strip("<>").removeprefix("http://127.0.0.1:5000")
    mail_client = app.test_client()  # a mail provider: no cookie, no CSRF token
    kwargs = {"content_type": "multipart/form-data"} if encoding == "multipart" else {}
    response = mail_client.post(url, data={"List-Unsubscribe": "One-Click"}, **kwargs)
    assert response.status_code == 200 and "Reminders are off" in response.text
    assert table.seat(0).reminders is False
    assert table.seat(0).kind == "human", "one click only turns reminders off"


def test_only_the_one_click_body_skips_the_csrf_check(app: Flask, table: Table) -> None:
    url = f"/settings/{settings_token(app, table, 0)}"
    client = app.test_client()
    for data in ({"action": "leave"}, {"action": "reminders-off"}, {"List-Unsubscribe": "Yes"}, {}):
        assert_error_page(client.post(url, data=data), 400)
    assert table.seat(0).kind == "human" and table.seat(0).reminders is True
    # Even with the one-click body, the only change is reminders off.
    response = client.post(url, data={"List-Unsubscribe": "One-Click", "action": "leave"})
    assert response.status_code == 200
    assert table.seat(0).kind == "human" and table.seat(0).left_at is None and table.seat(0).reminders is False


def test_bad_settings_links(client: FlaskClient, app: Flask, table: Table) -> None:
    token = settings_token(app, table, 2)
    with app.test_request_context(), signed_at(days_ago(app.config["PERSONAL_LINK_DAYS"] + 1)):
        expired = links.settings_token(table.game_id, 2, table.seat(2).nonce)
    cases = [
        ("not-a-token", 400),
        (tamper(token), 400),
        (table.personal(2), 400),  # a personal link is not a settings link
        (expired, 410),
    ]
    for bad, status in cases:
        assert_error_page(client.get(f"/settings/{bad}"), status)
        assert_error_page(client.post(f"/settings/{bad}", data={"List-Unsubscribe": "One-Click"}), status)
    rotate_nonce(app, table.game_id, 2)
    assert_error_page(client.get(f"/settings/{token}"), 410, "no longer works")
    assert_error_page(client.post(f"/settings/{token}", data={"List-Unsubscribe": "One-Click"}), 410)
    assert table.seat(2).reminders is True


def test_leaving_the_game(client: FlaskClient, app: Flask, org_table: Table) -> None:
    table = org_table
    token = settings_token(app, table, 0)
    personal = table.personal(0)
    start = max((r.id or 0 for r in rows(app)), default=0)
    confirm = client.get(f"/settings/{token}?confirm=leave")
    assert "Leave the game?" in confirm.text and "cannot be undone" in confirm.text
    [(action, fields)] = [f for f in forms(confirm.text) if f[1]["action"] == "leave"]
    response = client.post(action, data=fields)
    assert response.status_code == 200 and "You left the game" in response.text
    ann = table.seat(0)
    assert ann.kind == "heuristic" and ann.left_at is not None
    assert table.state().current == 1, "the bot played ann's turn at once"
    assert table.verify()
    assert_error_page(client.get(f"/play/{personal}"), 410)
    assert_error_page(client.get(f"/settings/{token}"), 410)
    assert_error_page(client.post(action, data=fields), 410)
    new = rows(app, start)
    assert [(r.kind, r.to_addr) for r in new] == [("organiser", "org@example.com"), ("turn", "bob <bob@example.com>")]
    assert "ann left the game" in new[0].subject
    assert "- ann left the game; a bot plays for them from now on." in new[1].text_body


def test_a_finished_game_offers_no_leaving(client: FlaskClient, app: Flask) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("Bot", kind="heuristic")]
    table = new_table(app, specs, seed=3, options=glory.Options(rounds=1))
    with app.app_context():
        while not table.state().is_finished:
            state = table.state()
            move = glory.HeuristicBot().choose(state).to_json()
            del move["player"]
            with db.write_session() as session:
                flows.play.move(
                    session=session, game_id=table.game_id, seat=0, move=move, decision=state.ply, source="page"
                )
    token = settings_token(app, table, 0)
    page = client.get(f"/settings/{token}?confirm=leave")
    assert page.status_code == 200 and "Leave the game" not in page.text
    csrf = forms(page.text)[0][1]["csrf_token"]
    assert_error_page(
        client.post(f"/settings/{token}", data={"csrf_token": csrf, "action": "leave"}), 400, "game is over"
    )
    assert table.seat(0).kind == "human"


def _expired(app: Flask, table: Table, position: int) -> str:
    with app.test_request_context(), signed_at(days_ago(app.config["PERSONAL_LINK_DAYS"] + 3)):
        return links.personal_token(table.game_id, position, table.seat(position).nonce)


def test_an_expired_link_offers_a_fresh_one_sent_to_the_address_on_file(
    client: FlaskClient, app: Flask, table: Table
) -> None:
    expired = _expired(app, table, 1)
    page = client.get(f"/play/{expired}")
    assert_error_page(page, 410, "This link has expired", "Email me a fresh link")
    [(action, fields)] = forms(page.text)
    assert action == "/fresh-link" and fields["token"] == expired
    # A hostile page adds an address of its own: it is ignored.
    response = client.post(action, data={**fields, "email": "eve@evil.example", "to": "eve@evil.example"})
    assert (
        response.status_code == 200 and "If this seat has an email address, a fresh link is on its way" in response.text
    )
    [sent] = rows(app, kind="fresh_link")
    assert sent.to_addr == "bob <bob@example.com>" and "evil" not in sent.text_body + sent.html_body
    found = re.search(r"http://127\.0\.0\.1:5000/play/([A-Za-z0-9._-]+)", sent.text_body)
    assert found, "the email has the seat's page link"
    with app.test_request_context():  # signed when the email was: same seat, maybe another second than now
        fresh = links.read(found.group(1))
    assert (fresh.purpose, fresh.game_id, fresh.seat) == (links.PERSONAL, table.game_id, 1)
    assert client.get(f"/play/{found.group(1)}").status_code == 200, "the fresh link works"
    again = client.post(action, data=fields)
    assert_error_page(again, 429, "try again later")
    assert again.headers["Retry-After"] == "600"
    assert len(rows(app, kind="fresh_link")) == 1


def test_an_expired_move_link_and_the_log_page_offer_it_too(client: FlaskClient, app: Flask, table: Table) -> None:
    with app.test_request_context(), signed_at(days_ago(app.config["MOVE_LINK_DAYS"] + 1)):
        expired_move = table.move_token(0, {"do": "draw", "pile": "draw1"})
    for path in (f"/play/{expired_move}", f"/play/{_expired(app, table, 0)}/log"):
        page = client.get(path)
        assert_error_page(page, 410, "Email me a fresh link")
    [(action, fields)] = forms(client.get(f"/play/{expired_move}").text)
    assert client.post(action, data=fields).status_code == 200
    assert [r.to_addr for r in rows(app, kind="fresh_link")] == ["ann <ann@example.com>"]


def test_fresh_link_refusals(client: FlaskClient, app: Flask) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob")]
    table = new_table(app, specs)
    ann, bob = _expired(app, table, 0), _expired(app, table, 1)
    [(action, fields)] = forms(client.get(f"/play/{ann}").text)
    csrf = fields["csrf_token"]
    assert_error_page(client.post(action, data={"token": ann}), 400, "reload")  # no CSRF token
    for bad in ("not-a-token", tamper(ann), ""):
        assert_error_page(client.post(action, data={"csrf_token": csrf, "token": bad}), 400, "not valid")
    neutral = client.post(action, data={"csrf_token": csrf, "token": bob})  # bob has no address
    assert neutral.status_code == 200 and "If this seat has an email address" in neutral.text
    rotate_nonce(app, table.game_id, 0)
    assert_error_page(client.post(action, data={"csrf_token": csrf, "token": ann}), 400, "not valid")
    assert_error_page(client.get(action), 405)
    assert rows(app, kind="fresh_link") == []


def test_settings_links_survive_a_key_rotation_and_are_bound_to_their_purpose(
    client: FlaskClient, app: Flask, table: Table
) -> None:
    payload = {"g": table.game_id, "s": 1, "n": links.nonce_tag(table.seat(1).nonce)}
    old = sign(app, payload, salt=links.SETTINGS, key="the-old-key-" + "y" * 32)
    assert_error_page(client.get(f"/settings/{old}"), 400)
    app.config["SECRET_KEY_FALLBACKS"] = ["the-old-key-" + "y" * 32]
    assert client.get(f"/settings/{old}").status_code == 200
    assert_error_page(client.get(f"/settings/{sign(app, payload, salt=links.PERSONAL)}"), 400)
    assert client.get(f"/play/{sign(app, payload, salt=links.SETTINGS)}").status_code == 400
