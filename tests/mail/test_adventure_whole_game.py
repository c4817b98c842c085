"""Whole games of Call to Adventure played from the mailbox, through a real SMTP server, on both databases.

Every seat is a person who acts only on what they receive: the setup choices arrive by email to everyone at once,
then each turn email; a player follows one move link of it, confirms it with one of the buttons of the page it
opens, and finishes the turn with the buttons (or the move links) of their page, whatever they are, then reads the
whole log. Every page fetched and every email received is checked against the engine state of that moment: it
names (by id or by name, in any language of the card) no other player's hand card, Destiny (before the end) or
setup card, no face-down row card and no deck card (A12). At the end the game-over email reaches everyone with the
ranking and the record, which replays to the stored game, and the revealed seed matches the commitment of the
invitation.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.core import errors, links
from pbem.mail import sender
from tests.adventure_helpers import RULES, Page, Witness, adventure_table, leaks, log_of, state_of
from tests.apps import Table
from tests.mail.conftest import Received, SMTPServer
from tests.mail.test_end_to_end import text_and_html

GAME_NAME = "Quest"
LINK = re.compile(r"^(.+):\n(http://127\.0\.0\.1:5000/play/\S+)$", re.MULTILINE)
COMMITMENT = re.compile(r"\b[0-9a-f]{64}\b")
PERSONAL = re.compile(r"^Your page, with the whole game and every choice:\n(http://127\.0\.0\.1:5000/play/\S+)$", re.M)


@dataclass(frozen=True)
class Setup:
    """One game of the test: its players, options and seed."""

    names: tuple[str, ...]
    options: dict[str, bool]
    seed: int


GAMES = {
    "solo": Setup(("Ann",), {"coop": True}, 11),
    "two-first-game": Setup(("Ann", "Bob"), {"first_game": True}, 12),
    "three-base": Setup(("Ann", "Bob", "Cy"), {}, 13),
    "four-allies-adversaries": Setup(("Ann", "Bob", "Cy", "Dee"), {"allies_adversaries": True}, 14),
    "two-coop": Setup(("Ann", "Bob"), {"coop": True}, 15),
}


class Party:
    """The players' mailboxes and browsers, and what each was shown, checked as it arrives."""

    def __init__(self, app: Flask, server: SMTPServer, table: Table, names: tuple[str, ...]) -> None:
        self.app, self.server, self.table = app, server, table
        self.names = {f"{n.lower()}@example.com": n for n in names}
        self.browsers: dict[str, FlaskClient] = {addr: app.test_client() for addr in self.names}
        self.witnesses = {addr: Witness(name) for addr, name in self.names.items()}
        self.received: list[Received] = []
        self.pages = 0

    def check(self, addr: str, where: str, document: str) -> None:
        """Nothing hidden from ``addr``'s player now is in the document (A12)."""
        state = state_of(self.table)
        witness = self.witnesses[addr]
        witness.update(state, log_of(self.table))
        found = leaks(document, state, witness)
        assert not found, f"{where} shows {self.names[addr]} what is hidden from them: {found}"

    def deliver(self) -> list[Received]:
        with self.app.app_context():
            report = sender.send_due(limit=500)
        assert report.sent == report.claimed, report
        new = self.server.messages[len(self.received) :]
        self.received += new
        for message in new:
            [addr] = message.envelope_to
            text, html = text_and_html(message)
            where = f"the email «{message['Subject']}» to {addr}"
            for part in (str(message["Subject"]), text, html):
                self.check(addr, where, part)
        return new

    def get(self, addr: str, path: str) -> Page:
        response = self.browsers[addr].get(path)
        assert response.status_code == 200, (path, response.status_code)
        self.pages += 1
        self.check(addr, f"the page {path} of {addr}", response.text)
        return Page(response.text)

    def post(self, addr: str, action: str, fields: dict[str, str]) -> str:
        response = self.browsers[addr].post(action, data=fields)
        assert response.status_code == 303, (action, response.status_code, response.text[:500])
        return urlsplit(response.headers["Location"]).path

    def confirm(self, addr: str, path: str, rng: random.Random) -> str:
        """Open a move link and press one of the buttons of its confirm page; the page it leads to."""
        page = self.get(addr, path)
        buttons = page.confirm_buttons(path)
        assert buttons, f"the move link {path} opens a page with a button to confirm it"
        chosen = rng.choice(buttons)
        return self.post(addr, chosen.action, chosen.fields)

    def is_move_link(self, path: str) -> bool:
        """True for a signed move link (a page also links to the player's own page, freshly signed)."""
        with self.app.test_request_context():
            try:
                return links.read(path.removeprefix("/play/")).purpose == links.MOVE
            except (errors.LinkInvalid, errors.LinkExpired):
                return False

    def waited(self, name: str) -> str | None:
        decision = RULES.waiting_for(state_of(self.table)).get(name)
        return None if decision is None else decision.wait

    def take_turn(self, message: Received, rng: random.Random) -> None:
        """Follow a move link of a turn email, confirm it, then play on from the page until the turn is over."""
        [addr] = message.envelope_to
        name = self.names[addr]
        text, _ = text_and_html(message)
        personal = PERSONAL.search(text)
        assert personal, "a turn email links to the player's page"
        moves = [url for _label, url in LINK.findall(text) if self.is_move_link(urlsplit(url).path)]
        assert moves, "a turn email has one link per first decision"
        wait = self.waited(name)
        assert wait is not None, f"{name} got a turn email and is waited on"
        here = self.confirm(addr, urlsplit(rng.choice(moves)).path, rng)
        steps = 0
        while self.waited(name) == wait:
            page = self.get(addr, here)
            buttons, links = page.moves(), [p for p in page.move_links(here) if self.is_move_link(p)]
            assert buttons or links, f"{name}'s page carries them through the turn"
            steps += 1
            assert steps < 60, f"{name}'s turn ends"
            pick = rng.randrange(len(buttons) + len(links))
            if pick < len(buttons):
                here = self.post(addr, buttons[pick].action, buttons[pick].fields)
            else:
                here = self.confirm(addr, links[pick - len(buttons)], rng)
        after = self.get(addr, here)
        [log] = {h for h in after.links if re.fullmatch(r"/play/[^/?#]+/log", h)}
        self.get(addr, log)  # the whole log, as the page links to it


def asks_to_move(message: Received) -> bool:
    """A turn email (whatever the game's subject says): it carries the player's move links and their page."""
    return PERSONAL.search(text_and_html(message)[0]) is not None


def _subject_ends(message: Received, ending: str) -> bool:
    subject = str(message["Subject"])
    return subject.startswith(f"{GAME_NAME} · ") and subject.endswith(f" · {ending}")


@pytest.mark.slow
@pytest.mark.parametrize("setup", list(GAMES.values()), ids=list(GAMES))
def test_a_whole_game_from_the_mailbox(smtp_app: Flask, smtp_server: SMTPServer, setup: Setup) -> None:
    table = adventure_table(smtp_app, setup.names, setup.options, seed=setup.seed, name=GAME_NAME)
    party = Party(smtp_app, smtp_server, table, setup.names)
    rng = random.Random(setup.seed)

    new = party.deliver()
    invitations = [m for m in new if _subject_ends(m, "You are invited")]
    assert sorted(m.envelope_to[0] for m in invitations) == sorted(party.names)
    commitments = {found.group(0) for m in invitations if (found := COMMITMENT.search(text_and_html(m)[0]))}
    assert len(commitments) == 1, "one commitment, sent to everyone"
    first_turns = [m for m in new if asks_to_move(m)]
    if setup.options.get("first_game"):
        assert len(first_turns) == 1, "a first game deals the characters: the first player plays at once"
    else:
        assert sorted(m.envelope_to[0] for m in first_turns) == sorted(party.names), "setup choices by email to all"

    turns = 0
    while True:
        over = [m for m in new if _subject_ends(m, "Game over")]
        if over:
            break
        asked = [m for m in new if asks_to_move(m)]
        assert asked, [(m.envelope_to, m["Subject"]) for m in new]
        for message in asked:
            party.take_turn(message, rng)
        turns += 1
        assert turns < 400, "the game ends"
        new = party.deliver()

    final = state_of(table)
    result = RULES.result(final)
    assert result is not None and table.verify()
    assert sorted(m.envelope_to[0] for m in over) == sorted(party.names), "the game-over email reaches everyone"
    for message in over:
        text, _html = text_and_html(message)
        shown = re.findall(r"^\d+\. (\S+?)(?: \(you\))?: (-?\d+)$", text, re.MULTILINE)
        assert [(n, int(s)) for n, s in shown] == [(n, result.scores[n]) for n in result.ranking], text
        seed = re.search(r"The seed was (\d+)", text)
        assert seed and int(seed.group(1)) == setup.seed
        assert hashlib.sha256(seed.group(1).encode()).hexdigest() in commitments
        [attachment] = list(message.iter_attachments())
        assert attachment.get_content_type() == "application/json"
        assert attachment.get_filename() == f"call-to-adventure-{table.game_id}.json"
        _start, replayed, moves = RULES.replay(json.loads(attachment.get_content()))
        assert RULES.summary(replayed) == RULES.summary(final)
        assert len(moves) == table.moves_logged()
    assert party.pages > turns


def test_the_privacy_check_catches_each_kind_of_hidden_card() -> None:
    state = RULES.new_game(["Ann", "Bob"], RULES.parse_options({}, ["Ann", "Bob"]), 3)
    ann, bob = state.ps
    witness = Witness("Ann")
    witness.update(state, [])
    cards = state.cards.cards

    def shown(*ids: str, lang: str = "en") -> list[str]:
        return leaks(" · ".join(cards[c].title(lang) for c in ids), state, witness)

    assert shown(*ann.hand, *(c for kind in ann.offers.values() for c in kind), *state.rows[0]) == []
    assert leaks(f"<li>{ann.hand[0]}</li><li>{state.rows[0][1]}</li>", state, witness) == []
    assert shown(bob.hand[0]) == [f"Bob's hand card {bob.hand[0]} (its name {cards[bob.hand[0]].title()!r})"]
    assert leaks(f"<li>{bob.offers['destiny'][1]}</li>", state, witness) == [
        f"Bob's unchosen destiny {bob.offers['destiny'][1]} (its id)"
    ]
    face_down = state.rows[1][0]
    assert face_down is not None and shown(face_down, lang="nl") == [
        f"a face-down card of Act 2's row {face_down} (its name {cards[face_down].title('nl')!r})"
    ]
    deck_card = state.decks["act1"][0]
    assert leaks(f"Quest &middot; {cards[deck_card].title('fr')}", state, witness) != []
