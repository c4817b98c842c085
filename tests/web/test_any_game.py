"""A game the server was never written for, played through the whole server.

The test-only game ``pick-a-number`` (``tests/games/pick_a_number.py``: every player picks a number at the
same time, in secret; the picks are revealed when all have picked) is registered in ``engine.GAMES`` by the
tests and nowhere else: no module of ``pbem/`` and no template knows it. An organiser creates it on the admin
page; its players get their emails through a real SMTP server (aiosmtpd) and play from the move links in
them; two people wait at once, each gets their own reminder, and the one who does not answer is decided for
by the game's bot when their own deadline passes; the game-over email carries the record, which replays to
the final state, and the admin page exports the same record and verifies the game.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from pbem import db
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.mail import sender
from pbem.models import AdminUser, Game, MoveRecord
from pbem.scheduler import sweeps
from tests.admin.conftest import PASSWORD, csrf_of, log_in
from tests.mail.conftest import Received, SMTPServer, make_mail_app, smtp_app, smtp_server  # noqa: F401 (fixtures)
from tests.scheduler.conftest import Clock, clock  # noqa: F401 (a fixture)
from tests.web.test_settings import forms

KEY = "pick-a-number"
PEOPLE = {"ann@example.com": "Ann", "bob@example.com": "Bob"}
LINK = re.compile(r"^(.+):\n(http://127\.0\.0\.1:5000/play/\S+)$", re.MULTILINE)


def text_of(message: Received) -> str:
    body = message.get_body(("plain",))
    assert body is not None, "every email has a text part"
    return str(body.get_content())


class Mailboxes:
    """What the players received, and each player's own browser."""

    def __init__(self, app: Flask, server: SMTPServer) -> None:
        self.app, self.server, self.seen = app, server, 0
        self.browsers: dict[str, FlaskClient] = {addr: app.test_client() for addr in PEOPLE}

    def deliver(self) -> list[Received]:
        """Run the sender once; what arrived since the last time."""
        with self.app.app_context():
            sender.send_due()
        new = self.server.messages[self.seen :]
        self.seen = len(self.server.messages)
        return new

    def pick(self, message: Received, number: int) -> None:
        """Open the email's link for ``number`` (a GET: a confirmation page), then press its button (a POST)."""
        [addr] = message.envelope_to
        links = dict(LINK.findall(text_of(message)))
        assert f"Pick {number}" in links, f"one link per choice: {sorted(links)}"
        path = urlsplit(links[f"Pick {number}"]).path
        browser = self.browsers[addr]
        page = browser.get(path)
        assert page.status_code == 200 and f"Pick {number}" in page.text
        [confirm] = [fields for action, fields in forms(page.text) if action == path]
        assert browser.post(path, data=confirm).status_code == 303


def organiser_of(app: Flask) -> FlaskClient:
    """A logged-in organiser's browser (the account as ``pbem create-admin`` makes it)."""
    from pbem import admin

    with app.app_context(), db.write_session() as session:
        session.add(AdminUser(username="org", email="org@example.com", password_hash=admin.hash_password(PASSWORD)))
    client = app.test_client()
    assert log_in(client).status_code == 303
    return client


def test_a_game_the_server_never_heard_of(smtp_app: Flask, smtp_server: SMTPServer, clock: Clock) -> None:  # noqa: F811
    rules = engine.GAMES[KEY]
    organiser = organiser_of(smtp_app)
    form = organiser.get(f"/admin/games/new?game={KEY}")
    assert form.status_code == 200 and rules.title in form.text
    seats = [("human", "Ann", "ann@example.com"), ("human", "Bob", "bob@example.com"), ("random", "", "")]
    data = {
        "csrf_token": csrf_of(organiser, "/admin/"),
        "game": KEY,
        "name": "Numbers night",
        "order": "listed",
        "organiser_email": "",
        "options-rounds": "2",
        "options-highest": "5",
        "first_reminder_hours": "2",
        "reminder_every_hours": "2",
        "max_reminders": "1",
        "deadline_hours": "6",
        "timeout": "bot",
        "absence_cap_days": "14",
    }
    for i in range(rules.max_players):
        kind, name, email = seats[i] if i < len(seats) else ("none", "", "")
        data |= {f"seats-{i}-kind": kind, f"seats-{i}-name": name, f"seats-{i}-email": email}
        data |= {f"seats-{i}-language": "en", f"seats-{i}-timezone": "UTC"}
    created = organiser.post(f"/admin/games/new?game={KEY}", data=data)
    assert created.status_code == 303, created.text
    with smtp_app.app_context():
        [game] = db.get_session().exec(select(Game).where(col(Game.game) == KEY)).all()
    game_id = game.id or 0
    mail = Mailboxes(smtp_app, smtp_server)

    first = mail.deliver()
    invited = sorted(m.envelope_to[0] for m in first if "invited" in m["Subject"])
    assert invited == sorted(PEOPLE), [m["Subject"] for m in first]
    turns = {m.envelope_to[0]: m for m in first if LINK.search(text_of(m))}
    assert sorted(turns) == sorted(PEOPLE), "both people are waited on at once: each gets a turn email"

    mail.pick(turns["ann@example.com"], 4)
    assert mail.deliver() == [], "Ann's pick reveals nothing while Bob still has to pick"

    clock.advance(hours=3)
    with smtp_app.app_context():
        sweeps.reminder_sweep(now=clock.now)
    reminded = mail.deliver()
    assert [m.envelope_to[0] for m in reminded] == ["bob@example.com"], "only the one still waited on is reminded"
    assert "Reminder" in reminded[0]["Subject"]

    clock.advance(hours=4)
    with smtp_app.app_context():
        assert sweeps.deadline_sweep(now=clock.now) >= 1
        timed_out = db.get_session().exec(select(MoveRecord).where(MoveRecord.source == "timeout")).all()
    assert [r.seat for r in timed_out] == [1], "the bot decided for Bob, and for nobody else"
    second = mail.deliver()
    assert any("revealed" in text_of(m) for m in second), "the reveal is told"
    asked = {m.envelope_to[0]: m for m in second if LINK.search(text_of(m))}
    assert sorted(asked) == sorted(PEOPLE), [m["Subject"] for m in second]

    mail.pick(asked["ann@example.com"], 2)
    mail.pick(asked["bob@example.com"], 3)
    final = mail.deliver()
    over = [m for m in final if m.get_content_type() == "multipart/mixed"]
    assert sorted(m.envelope_to[0] for m in over) == sorted(PEOPLE), [m["Subject"] for m in final]
    [attachment] = list(over[0].iter_attachments())
    _start, replayed, moves = rules.replay(json.loads(attachment.get_content()))
    assert len(moves) == 6 and rules.result(replayed) is not None
    with smtp_app.app_context():
        stored = games.load_state(seat_rows.get_game(session=db.get_session(), game_id=game_id))
    assert rules.to_json(replayed) == rules.to_json(stored)

    page = organiser.get(f"/admin/games/{game_id}")
    assert page.status_code == 200 and "Numbers night" in page.text
    token = csrf_of(organiser, "/admin/")
    export = organiser.post(f"/admin/games/{game_id}/export", data={"csrf_token": token})
    assert export.status_code == 200
    assert rules.to_json(rules.replay(json.loads(export.data))[1]) == rules.to_json(replayed)
    assert organiser.post(f"/admin/games/{game_id}/verify", data={"csrf_token": token}).status_code == 303
    assert "the stored state matches" in organiser.get(f"/admin/games/{game_id}").text
