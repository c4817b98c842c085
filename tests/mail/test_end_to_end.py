"""A whole game played from the mailbox, through a real SMTP server, on both databases.

Three people (accented, emoji and right-to-left names) play a 2-round game with the Power of
the Ninja. The emails are sent by ``pbem.mail.sender.send_due`` to an aiosmtpd server; each
player acts only on what their email says: they pick one of the move links in the text part
of their turn email, open it (GET), press the confirm button (a POST with the page's CSRF
token), follow the redirect to their page and finish the turn there, as a person would, each
in their own browser (a test client with its own cookies). From the invitations to the
game-over email, every received message is checked against the engine state at that time:
it shows no hand but the recipient's, its headers are exactly the expected ones (nothing
injected), it threads under the recipient's invitation and carries one-click unsubscribe.
At the end the attached record replays (library and CLI) to the final state and the revealed
seed matches the commitment sent with the invitations.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine import call_to_glory as glory
from engine.call_to_glory import Options
from pbem import db
from pbem.core import games, links
from pbem.core import seats as seat_rows
from pbem.mail import sender
from tests.apps import Table, new_table
from tests.web.forge import days_ago, signed_at
from tests.web.test_settings import forms

from .conftest import Received, SMTPServer
from .test_compose import check_email

PLAYERS = (("Zoë Ærø", "zoe@example.com"), ("Bob 🎲", "bob@example.com"), ("שרה", "sara@example.com"))
HEADERS = {
    "from",
    "to",
    "subject",
    "date",
    "message-id",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
    "in-reply-to",
    "references",
    "list-unsubscribe",
    "list-unsubscribe-post",
    "list-id",
    "auto-submitted",
}
LINK = re.compile(r"^(.+):\n(http://127\.0\.0\.1:5000/play/\S+)$", re.MULTILINE)
ROOT = Path(__file__).resolve().parents[2]


def text_and_html(message: EmailMessage) -> tuple[str, str]:
    """The plain-text and HTML parts (both must be there)."""
    text, html = message.get_body(("plain",)), message.get_body(("html",))
    assert text is not None and html is not None, "both parts"
    return str(text.get_content()), str(html.get_content())


class Players:
    """The mailboxes and browsers of the three players, and what their emails said so far."""

    def __init__(self, app: Flask, server: SMTPServer, table: Table) -> None:
        self.app, self.server, self.table = app, server, table
        self.names = {addr: name for name, addr in PLAYERS}
        self.browsers: dict[str, FlaskClient] = {addr: app.test_client() for _, addr in PLAYERS}
        self.roots: dict[str, str] = {}
        self.received: list[Received] = []

    def deliver(self) -> list[Received]:
        """Run the sender once; check and return what arrived."""
        with self.app.app_context():
            report = sender.send_due()
        assert report.sent == report.claimed, f"every queued email was accepted: {report}"
        new = self.server.messages[len(self.received) :]
        assert len(new) == report.sent
        state = self.table.state()
        for message in new:
            self.check(message, state)
        self.received += new
        return new

    def check(self, message: Received, state: glory.State) -> None:
        """Headers as expected (nothing injected), threading, unsubscribe, and no other player's hand."""
        names = {name.lower() for name in message}
        assert names <= HEADERS, f"unexpected headers {names - HEADERS}"
        for name, value in message.items():
            assert "\r" not in str(value) and "\n" not in str(value), f"{name}: {value!r}"
        [addr] = message.envelope_to
        to = message["To"].addresses
        assert len(to) == 1 and to[0].addr_spec == addr and to[0].display_name == self.names[addr]
        assert message["Subject"].startswith("Friday game · ")
        text, html = text_and_html(message)
        if addr not in self.browsers:  # the organiser: not a seat, so no thread and no unsubscribe
            assert "In-Reply-To" not in message and "List-Unsubscribe" not in message
            assert "data-card" not in html
            return
        if message["Subject"] == "Friday game · You are invited":
            assert addr not in self.roots and "In-Reply-To" not in message
            self.roots[addr] = message["Message-ID"]
        else:
            assert message["In-Reply-To"] == message["References"] == self.roots[addr]
        assert re.fullmatch(r"<http://127\.0\.0\.1:5000/settings/\S+>", message["List-Unsubscribe"])
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert message.get_content_type() in ("multipart/alternative", "multipart/mixed")
        check_email(text, html, self.names[addr], state)

    def take_turn(self, message: Received, rng: random.Random) -> None:
        """Follow one move link of a turn email, confirm it, then finish the turn on the player's page."""
        [addr] = message.envelope_to
        browser = self.browsers[addr]
        text, _ = text_and_html(message)
        moves = [url for label, url in LINK.findall(text) if not label.startswith("Your page")]
        assert moves, "a turn email has one link per first decision"
        path = urlsplit(rng.choice(moves)).path
        page = browser.get(path)
        assert page.status_code == 200
        [confirm] = [fields for action, fields in forms(page.text) if action == path]
        response = browser.post(path, data=confirm)
        assert response.status_code == 303
        personal = urlsplit(response.headers["Location"]).path
        state = self.table.state()
        decision = (state.turn, state.round, state.status)
        while (state.turn, state.round, state.status) == decision and not state.is_finished:
            page = browser.get(personal)
            assert page.status_code == 200
            choices = [(a, f) for a, f in forms(page.text) if f.get("decision") and f.get("do")]
            assert choices, "the page carries the player through the turn"
            lays = [c for c in choices if c[1].get("do") == "lay"]
            action, fields = rng.choice(lays) if lays and rng.random() < 0.9 else rng.choice(choices)
            response = browser.post(action, data=fields)
            assert response.status_code == 303
            personal = urlsplit(response.headers["Location"]).path
            state = self.table.state()


@pytest.mark.slow
def test_a_whole_game_played_from_the_mailbox(smtp_app: Flask, smtp_server: SMTPServer, tmp_path: Path) -> None:
    specs = [games.SeatSpec(name, email=addr) for name, addr in PLAYERS]
    options = Options(rounds=2, ninja_power=True)
    table = new_table(smtp_app, specs, name="Friday game", options=options, seed=20260705)
    players = Players(smtp_app, smtp_server, table)
    rng = random.Random(2024)

    new = players.deliver()
    invitations = [m for m in new if m["Subject"] == "Friday game · You are invited"]
    assert sorted(m.envelope_to[0] for m in invitations) == sorted(addr for _, addr in PLAYERS)
    commitments = set()
    for message in invitations:
        found = re.search(r"\b[0-9a-f]{64}\b", text_and_html(message)[0])
        assert found, "the invitation carries the seed's commitment"
        commitments.add(found.group(0))
    assert len(commitments) == 1
    turns = 0
    while True:
        asked = [m for m in new if re.search(r"· Round \d · (Your turn|Reveal a task card)$", m["Subject"])]
        over = [m for m in new if m["Subject"] == "Friday game · Game over"]
        if over:
            assert not asked and len(over) == 3
            break
        assert len(asked) == 1, [m["Subject"] for m in new]
        players.take_turn(asked[0], rng)
        turns += 1
        assert turns < 400, "the game ends"
        new = players.deliver()

    final = table.state()
    assert final.is_finished and table.verify()
    subjects = [m["Subject"] for m in players.received]
    assert subjects.count("Friday game · Round 1 scores") == subjects.count("Friday game · Round 2 scores") == 3
    assert turns == sum(1 for s in subjects if s.endswith("· Your turn"))
    ninja_use = re.compile(r"Remove an? \w+ from \S+ set \(")
    assert any(ninja_use.search(text_and_html(m)[0]) for m in players.received), "a Ninja use was offered"
    for message in over:
        text, _ = text_and_html(message)
        seed = re.search(r"The seed was (\d+)", text)
        assert seed and hashlib.sha256(seed.group(1).encode()).hexdigest() in commitments
        assert re.search(r"/play/\S+/check\n", text), "a link to the page that checks the seed"
        [attachment] = list(message.iter_attachments())
        assert attachment.get_content_type() == "application/json"
        assert attachment.get_filename() == f"call-to-glory-{table.game_id}.json"
        data = attachment.get_content()
        _record, replayed = glory.replay(json.loads(data))
        assert glory.to_json(replayed) == glory.to_json(final)
        for winner in final.winners:
            assert final.players[winner] in text
    path = tmp_path / f"call-to-glory-{table.game_id}.json"
    path.write_bytes(data)
    replay = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert json.loads(replay.stdout) == glory.state_summary(final)
    with smtp_app.app_context():
        seats = seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)
    assert all(s.kind == "human" for s in seats)


SETTINGS_LINK = re.compile(r"Reminders on or off, or leave the game: (http://127\.0\.0\.1:5000/settings/\S+)")


@pytest.fixture
def friday(smtp_app: Flask, smtp_server: SMTPServer) -> Players:
    """The three players' game with an organiser, invitations and the first turn email delivered."""
    specs = [games.SeatSpec(name, email=addr) for name, addr in PLAYERS]
    table = new_table(smtp_app, specs, name="Friday game", seed=5, organiser_email="org@example.com")
    players = Players(smtp_app, smtp_server, table)
    players.names["org@example.com"] = ""  # the organiser's address is bare
    assert len(players.deliver()) == 4
    return players


def test_one_click_unsubscribe_from_a_received_email(friday: Players) -> None:
    [turn] = [m for m in friday.received if m["Subject"].endswith("Your turn")]
    url = urlsplit(turn["List-Unsubscribe"].strip("<>"))
    mail_provider = friday.app.test_client()
    response = mail_provider.post(url.path, data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert friday.table.seat(0).reminders is False


def test_leaving_from_the_link_in_an_email(friday: Players) -> None:
    [turn] = [m for m in friday.received if m["Subject"].endswith("Your turn")]
    settings = urlsplit(SETTINGS_LINK.search(text_and_html(turn)[0]).group(1))  # type: ignore[union-attr]
    browser = friday.browsers[turn.envelope_to[0]]
    page = browser.get(f"{settings.path}?confirm=leave")
    [leave] = [fields for _, fields in forms(page.text) if fields.get("action") == "leave"]
    assert browser.post(settings.path, data=leave).status_code == 200
    notice, bobs_turn = friday.deliver()
    assert notice.envelope_to == ["org@example.com"] and notice["Subject"] == "Friday game · Zoë Ærø left the game"
    assert "List-Unsubscribe" not in notice
    assert bobs_turn.envelope_to == ["bob@example.com"]
    assert "Zoë Ærø left the game; a bot plays for them from now on." in text_and_html(bobs_turn)[0]


def test_a_fresh_link_arrives_at_the_address_on_file_only(friday: Players) -> None:
    app, table = friday.app, friday.table
    with app.test_request_context(), signed_at(days_ago(app.config["PERSONAL_LINK_DAYS"] + 1)):
        expired = links.personal_token(table.game_id, 2, table.seat(2).nonce)
    someone = app.test_client()  # whoever holds the old link, in any browser
    page = someone.get(f"/play/{expired}")
    assert page.status_code == 410
    [(action, fields)] = forms(page.text)
    response = someone.post(action, data={**fields, "email": "eve@evil.example"})
    assert response.status_code == 200
    [fresh] = friday.deliver()
    assert fresh.envelope_to == ["sara@example.com"] and fresh["Subject"] == "Friday game · Your fresh link"
    url = re.search(r"http://127\.0\.0\.1:5000(/play/\S+)", text_and_html(fresh)[0])
    assert url and friday.browsers["sara@example.com"].get(url.group(1)).status_code == 200
    assert someone.post(action, data=fields).status_code == 429
    assert friday.deliver() == []
