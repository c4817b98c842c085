"""Replies through ``pbem mail-in -``: the reply address, commands in plain words and numbers, several commands
in one reply, table talk, seat commands, the answer email, and every way a message is refused or ignored."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask import Flask

from pbem import db, timing
from pbem.core import talk
from tests.apps import Table

from . import clients
from .conftest import REPLY, inbound, last_email, mail_in, sent_to

COMMANDS = re.compile(r"^(\d+)\. (.+)$", re.MULTILINE)


def commands_in(text: str) -> list[str]:
    """The numbered commands of an email's "Reply with one of these" (its text part)."""
    tail = text.split("REPLY WITH ONE OF THESE")[-1]
    return [m.group(2) for m in COMMANDS.finditer(tail)]


def test_turn_email_carries_a_reply_address_and_numbered_commands(reply_app: Flask, glory: Table) -> None:
    turn = sent_to(reply_app, "ann@example.com")[-1]
    address = turn.headers["Reply-To"]
    local, domain = address.split("@")
    assert domain == "club.example" and local.startswith("play+") and local == local.lower() and len(local) <= 64
    assert "REPLY WITH ONE OF THESE" in turn.text_body
    assert commands_in(turn.text_body)[:2] == ["draw pile 1", "draw pile 2"]
    assert "draw pile 1" in turn.html_body.split("Reply with one of these")[-1]
    invitation = sent_to(reply_app, "ann@example.com")[0]
    assert invitation.headers["Reply-To"].startswith("play+")


@pytest.mark.parametrize("client", sorted(clients.CLIENTS))
def test_a_whole_turn_in_one_reply_from_each_client(reply_app: Flask, glory: Table, client: str) -> None:
    original = last_email(reply_app, "ann@example.com")
    before = glory.moves_logged()
    raw = clients.CLIENTS[client](original, "1\ndraw pile 2", sender="Ann <ann@example.com>")
    result = mail_in(reply_app, raw)
    assert result.exit_code == 0, result.output
    assert glory.moves_logged() == before + 2
    answer = sent_to(reply_app, "ann@example.com")[-1]
    assert answer.kind == "answer"
    assert answer.headers["In-Reply-To"] != original.message_id or True
    assert answer.text_body.count("Done: ") == 2
    assert commands_in(answer.text_body), "the answer lists the next choices with their commands"
    # the quoted email's commands were not applied, and nothing else was said to the table
    with reply_app.app_context():
        assert talk.said(session=db.get_session(), game_id=glory.game_id, names={}) == []


def _talk(app: Flask, table: Table) -> list[str]:
    with app.app_context():
        return [s.text for s in talk.said(session=db.get_session(), game_id=table.game_id, names={})]


def _outbox_count(app: Flask) -> int:
    return len(sent_to(app, "@"))


def test_commands_stop_at_the_first_that_is_not_legal_and_say_why(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = clients.gmail(original, "draw pile 1\nlay 9 samurai\ndraw pile 2", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 1
    answer = sent_to(reply_app, "ann@example.com")[-1].text_body
    assert "Done: Draw from draw pile 1" in answer
    assert "Not done: lay 9 samurai: " in answer
    assert "Not done: draw pile 2: not tried" in answer
    assert inbound(reply_app)[-1]["outcome"] == "applied"


def test_other_text_is_said_to_the_table_with_the_move(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = clients.apple(original, "Good luck all!\ndraw pile 2\nYour move, Bob.", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 1
    assert _talk(reply_app, glory) == ["Good luck all! Your move, Bob."]
    answer = sent_to(reply_app, "ann@example.com")[-1].text_body
    assert "Said to the table: Good luck all! Your move, Bob." in answer


def test_a_reply_that_only_quotes_does_nothing_and_says_so(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = clients.thunderbird(original, "", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 0 and _talk(reply_app, glory) == []
    answer = sent_to(reply_app, "ann@example.com")[-1]
    assert answer.kind == "answer" and "Nothing was done" in answer.text_body
    assert commands_in(answer.text_body)[:2] == ["draw pile 1", "draw pile 2"]


@pytest.mark.parametrize(
    ("address", "lang", "words", "expected"),
    [
        ("Bob@Example.COM", "nl", "trek stapel 1", "Niet gedaan: trek stapel 1: "),
        ("cy@example.com", "fr", "Bien joué Ann", "Dit à la table\u202f: Bien joué Ann"),
    ],
)
def test_answers_speak_the_seats_language(
    reply_app: Flask, glory: Table, address: str, lang: str, words: str, expected: str
) -> None:
    original = last_email(reply_app, address)
    raw = clients.outlook(original, words, sender=address.lower(), lang=lang)
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 0
    answer = sent_to(reply_app, address)[-1]
    assert answer.kind == "answer" and expected in answer.text_body


def test_seat_commands(reply_app: Flask, glory: Table) -> None:
    soon = (timing.now() + timedelta(days=3)).date().isoformat()  # ahead of today, within the game's 14 days
    too_far = (timing.now() + timedelta(days=400)).date().isoformat()
    original = last_email(reply_app, "cy@example.com")
    raw = clients.gmail(
        original, f"rappels non\nabsent jusqu'au {soon}\nhelp\nÉtat", sender="cy@example.com", lang="fr"
    )
    assert mail_in(reply_app, raw).exit_code == 0
    seat = glory.seat(2)
    assert seat.reminders is False and seat.away_until is not None and seat.away_until.isoformat() == soon
    answer = sent_to(reply_app, "cy@example.com")[-1].text_body
    assert "Fait\u202f: Les rappels sont désactivés." in answer
    assert answer.count("Fait\u202f: ") == 4
    original = last_email(reply_app, "cy@example.com")
    raw = clients.gmail(original, f"back\naway until {too_far}\nreminders on", sender="cy@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    seat = glory.seat(2)
    assert seat.reminders is True and seat.away_until is None
    answer = sent_to(reply_app, "cy@example.com")[-1].text_body
    assert "Vous êtes de retour." in answer and answer.count("Pas fait\u202f: ") == 1


def test_robots_are_recorded_and_never_answered(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    before = _outbox_count(reply_app)
    robots = [
        {"Auto-Submitted": "auto-replied"},
        {"X-Autoreply": "yes"},
        {"X-Autorespond": "Out of office"},
        {"Precedence": "bulk"},
        {"Precedence": "junk"},
        {"List-Id": "<friends.lists.example>"},
        {"Return-Path": "<>"},
    ]
    for extra in robots:
        raw = clients.plain(sender="ann@example.com", to=original.reply_to, text="draw pile 1", extra=extra)
        assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 0
    assert _outbox_count(reply_app) == before
    assert [r["outcome"] for r in inbound(reply_app)] == ["robot"] * len(robots)


def test_two_auto_responders_cannot_loop(reply_app: Flask, glory: Table) -> None:
    """An out-of-office answering our answer gets nothing back: the loop ends at its first turn."""
    original = last_email(reply_app, "ann@example.com")
    ooo = clients.outlook(original, "I am out of the office until Monday.", sender="ann@example.com")
    ooo = b"Auto-Submitted: auto-replied\r\nX-Auto-Response-Suppress: All\r\n" + ooo
    before = _outbox_count(reply_app)
    for _ in range(3):
        assert mail_in(reply_app, ooo.replace(b"Message-ID: <", b"Message-ID: <x" + str(_).encode())).exit_code == 0
    assert _outbox_count(reply_app) == before and glory.moves_logged() == 0


def test_forged_senders_and_dead_tokens_get_no_answer(reply_app: Flask, glory: Table) -> None:
    ann = last_email(reply_app, "ann@example.com")
    before = _outbox_count(reply_app)
    local, domain = ann.reply_to.split("@")
    tampered = local[:-1] + ("0" if local[-1] != "0" else "1") + "@" + domain
    other_game = local.replace("+1-", "+2-", 1) + "@" + domain
    cases = [
        ("eve@example.com", ann.reply_to, {}),  # forged From
        ("bob@example.com", ann.reply_to, {}),  # another seat's address to ann's token
        ("ann@example.com", tampered, {}),  # a token that was changed
        ("ann@example.com", other_game, {}),  # a token of another game
        ("ann@example.com", REPLY, {}),  # no token at all
        ("ann@example.com", ann.reply_to, {"Authentication-Results": "mx.club.example; spf=fail; dmarc=fail"}),
    ]
    for sender, to, extra in cases:
        raw = clients.plain(sender=sender, to=to, text="draw pile 1", extra=extra)
        assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 0 and _outbox_count(reply_app) == before
    assert [r["outcome"] for r in inbound(reply_app)] == ["forged", "forged", "dead", "dead", "unknown", "forged"]


def test_a_rotated_nonce_kills_the_reply_address(reply_app: Flask, glory: Table) -> None:
    from pbem.core import seats as seat_rows
    from pbem.flows import seats as seat_flows

    ann = last_email(reply_app, "ann@example.com")
    with reply_app.app_context(), db.write_session() as session:
        seat = seat_rows.seats_of(session=session, game_id=glory.game_id)[0]
        seat_flows.rotate(seat)
        session.add(seat)
    before = _outbox_count(reply_app)
    raw = clients.gmail(ann, "draw pile 1", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 0 and _outbox_count(reply_app) == before
    assert inbound(reply_app)[-1]["outcome"] == "dead"


def test_each_message_is_handled_once(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = clients.gmail(original, "draw pile 1", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    answers = _outbox_count(reply_app)
    result = mail_in(reply_app, raw)
    assert result.exit_code == 0 and "duplicate" in result.output
    assert glory.moves_logged() == 1 and _outbox_count(reply_app) == answers


def test_two_readers_at_once_handle_a_message_once(reply_app: Flask, glory: Table) -> None:
    import threading

    from pbem import mail_in as inbound_mail

    original = last_email(reply_app, "ann@example.com")
    raw = clients.gmail(original, "draw pile 1", sender="ann@example.com")
    outcomes: list[str] = []

    def read() -> None:
        with reply_app.app_context():
            outcomes.append(inbound_mail.receive(raw).outcome)

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes) == ["applied", "duplicate"]
    assert glory.moves_logged() == 1


def test_a_reply_to_a_decision_already_made(reply_app: Flask, glory: Table) -> None:
    first = last_email(reply_app, "ann@example.com")
    assert mail_in(reply_app, clients.gmail(first, "draw pile 1", sender="ann@example.com")).exit_code == 0
    late = clients.gmail(first, "draw pile 2\nwell played", sender="ann@example.com")
    assert mail_in(reply_app, late).exit_code == 0
    assert glory.moves_logged() == 1
    answer = sent_to(reply_app, "ann@example.com")[-1].text_body
    assert "Not done: draw pile 2: This choice was already made." in answer
    assert "Said to the table: well played" in answer
    assert commands_in(answer), "the current choices are listed"


def test_the_answer_replaces_the_turn_email_and_threads(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    count = len(sent_to(reply_app, "ann@example.com"))
    raw = clients.gmail(original, "draw pile 1", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    mine = sent_to(reply_app, "ann@example.com")
    assert len(mine) == count + 1 and mine[-1].kind == "answer"
    reply_id = raw.split(b"Message-ID: ")[1].split(b"\r\n")[0].decode()
    assert mine[-1].headers["In-Reply-To"] == reply_id
    assert mine[0].message_id in mine[-1].headers["References"]
    assert mine[-1].subject.startswith("Re: ")


@pytest.mark.parametrize("lang", ["en", "nl", "fr"])
@pytest.mark.parametrize("client", sorted(clients.CLIENTS))
def test_every_client_in_every_language(reply_app: Flask, client: str, lang: str) -> None:
    """Top-posted (Gmail, Outlook, Apple Mail, the phone) and bottom-posted (Thunderbird) replies in the player's
    language: the command is played once, the words are said, the quoted email plays nothing."""
    from pbem.core import games
    from tests.apps import new_table
    from tests.mail.conftest import deliver

    specs = [games.SeatSpec("ann", email="ann@example.com", language=lang), games.SeatSpec("bob", email="b@x.org")]
    table = new_table(reply_app, specs, seed=1)
    deliver(reply_app)
    original = last_email(reply_app, "ann@example.com")
    command = {"en": "draw pile 2", "nl": "trek stapel 2", "fr": "pioche 2"}[lang]
    words = {"en": "Good game!", "nl": "Goed spel!", "fr": "Belle partie !"}[lang]
    raw = clients.CLIENTS[client](original, f"{command}\n{words}", sender="Ann <ANN@example.com>", lang=lang)
    assert mail_in(reply_app, raw).exit_code == 0
    assert table.moves_logged() == 1
    assert _talk(reply_app, table) == [words]
    answer = sent_to(reply_app, "ann@example.com")[-1]
    assert answer.kind == "answer" and answer.text_body.count(words) == 1


def test_a_number_picks_only_the_first_command(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = clients.gmail(original, "1\n2", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 1 and _talk(reply_app, glory) == []
    assert "Not done: 2: a number picks from the email's list" in sent_to(reply_app, "ann@example.com")[-1].text_body


def test_addresses_compare_without_case_and_with_international_domains() -> None:
    from pbem.core.replies import normal_address

    assert normal_address("Ann@Bücher.Example") == normal_address("ann@xn--bcher-kva.example") != ""
    assert normal_address(" <BOB@Example.COM> ") == "bob@example.com"
    assert normal_address("not an address") == normal_address("") == ""
