"""The transports, each feeding the same parser and flow: replies sent by SMTP into a real Dovecot and read with
``pbem mail-in --imap`` (whole games by reply only, on SQLite and PostgreSQL), a connection dropped mid-pass, a
crash between commit and mark, and the LMTP listener."""

from __future__ import annotations

import random
import smtplib
from typing import Any

import pytest
from flask import Flask
from imap_tools import AND, MailBoxUnencrypted

from engine.call_to_glory import Options
from pbem import create_app, db
from pbem.core import games
from pbem.core import seats as seat_rows
from pbem.mail_in import imap, lmtp
from tests.apps import Table, free_port, new_table
from tests.mail.test_compose import check_email

from . import clients
from .conftest import PEOPLE, Relay, inbound, last_email, mail_in, sent_to
from .dovecot import Dovecot
from .test_replies import commands_in

CLIENTS = sorted(clients.CLIENTS)


def unreachable_app(**config: Any) -> Flask:
    """An app whose database does not answer."""
    return create_app(
        {
            "TESTING": True,
            "DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none",
            "SECRET_KEY": "test-key-" + "x" * 32,
            "MAIL_REPLY_ADDRESS": "play@club.example",
            **config,
        }
    )


def imap_read(app: Flask) -> str:
    """``pbem mail-in --imap`` once; its report line."""
    result = app.test_cli_runner().invoke(args=["mail-in", "--imap"])
    assert result.exit_code == 0, result.output
    return result.output


def waiting(table: Table) -> list[int]:
    """The seats with an open decision now."""
    with table.app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
        rules = games.rules_of(game)
        names = [s.name for s in seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)]
        return [names.index(n) for n in rules.waiting_for(games.load_state(game))]


@pytest.mark.slow
def test_a_whole_call_to_glory_game_by_reply_only(make_reply_app: Any, dovecot: Dovecot, relay: Relay) -> None:
    app = make_reply_app(**dovecot.settings())
    specs = [games.SeatSpec(n, email=e, language=lang) for n, e, lang in PEOPLE]
    table = new_table(app, specs, seed=7, options=Options(rounds=1))
    rng = random.Random(7)
    replies = 0
    while table.state().round_scores == [] or waiting(table):
        seats = waiting(table)
        if not seats:
            break
        position = seats[0]
        name, address, lang = PEOPLE[position]
        original = last_email(app, address)
        assert original.reply_to.startswith("play+")
        commands = commands_in(original.text)
        assert commands, f"{name}'s email lists commands:\n{original.text}"
        pick = rng.randrange(len(commands))
        words = str(pick + 1) if rng.random() < 0.5 else commands[pick]
        client = CLIENTS[replies % len(CLIENTS)]
        raw = clients.CLIENTS[client](original, words, sender=address.lower(), lang=lang)
        before = table.moves_logged()
        if replies == 3:
            assert mail_in(app, raw).exit_code == 0  # one through the pipe transport
        else:
            relay.send(raw, original.reply_to)
            report = imap_read(app)
            assert "applied 1" in report, (client, lang, words, sent_to(app, address)[-1].text_body[:1500])
        assert table.moves_logged() > before, f"{client} reply {words!r} by {name} made no move"
        replies += 1
        answer = sent_to(app, address)[-1]
        assert answer.kind == "answer"
        check_email(answer.text_body, answer.html_body, name, table.state())
        assert replies < 400
    assert table.state().round_scores
    assert table.verify()
    assert all(r["outcome"] == "applied" for r in inbound(app))


def _put(server: Dovecot, raws: list[bytes]) -> None:
    for raw in raws:
        server.deliver(raw)


def test_a_connection_dropped_mid_pass_loses_nothing(
    make_reply_app: Any, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_reply_app(**dovecot.settings())
    specs = [games.SeatSpec(n, email=e, language=lang) for n, e, lang in PEOPLE]
    table = new_table(app, specs, seed=1)
    ann = last_email(app, "ann@example.com")
    talk = [
        clients.plain(sender="cy@example.com", to=last_email(app, "cy@example.com").reply_to, text=f"hi {i}")
        for i in range(3)
    ]
    _put(dovecot, [clients.gmail(ann, "draw pile 1", sender="ann@example.com"), *talk])
    original_fetch = imap._fetch
    calls = {"n": 0}

    def dropping(box: Any, uids: list[str]) -> dict[str, bytes]:
        calls["n"] += 1
        if calls["n"] == 2:
            box.client.shutdown()  # the server goes away in the middle of the pass
        return original_fetch(box, uids)

    monkeypatch.setattr(imap, "_fetch", dropping)
    with app.app_context():
        report = imap.poll(chunk=1)
    assert report.read == 1 and report.error.startswith("IMAP"), report
    monkeypatch.setattr(imap, "_fetch", original_fetch)
    with app.app_context():
        report = imap.poll()
    # the first was handled but could not be marked: read again, it is a duplicate and changes nothing
    assert report.read == 4 and report.ignored == 1 and not report.error, report
    assert table.moves_logged() == 1
    assert sorted(r["outcome"] for r in inbound(app)) == ["answered"] * 3 + ["applied"]
    with MailBoxUnencrypted(dovecot.host, dovecot.port).login(dovecot.user, dovecot.password) as box:
        assert box.uids(AND(seen=False)) == []


def test_a_crash_between_commit_and_mark_reads_the_message_again_as_a_no_op(
    make_reply_app: Any, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_reply_app(**dovecot.settings())
    specs = [games.SeatSpec(n, email=e, language=lang) for n, e, lang in PEOPLE]
    table = new_table(app, specs, seed=1)
    ann = last_email(app, "ann@example.com")
    _put(dovecot, [clients.outlook(ann, "draw pile 2", sender="ann@example.com")])

    def crash(*_args: Any, **_kw: Any) -> None:
        raise OSError("the reader was killed")

    monkeypatch.setattr("imap_tools.mailbox.BaseMailBox.flag", crash)
    with app.app_context():
        assert imap.poll().error
    monkeypatch.undo()
    answers = len(sent_to(app, "ann@example.com"))
    with app.app_context():
        report = imap.poll()
    assert report.read == 1 and report.ignored == 1, report
    assert table.moves_logged() == 1 and len(sent_to(app, "ann@example.com")) == answers


def test_the_database_down_leaves_the_message_unseen(make_reply_app: Any, dovecot: Dovecot, tmp_path: Any) -> None:
    app = make_reply_app(**dovecot.settings())
    specs = [games.SeatSpec(n, email=e, language=lang) for n, e, lang in PEOPLE]
    table = new_table(app, specs, seed=1)
    ann = last_email(app, "ann@example.com")
    _put(dovecot, [clients.gmail(ann, "draw pile 1", sender="ann@example.com")])
    broken = unreachable_app(**dovecot.settings())
    result = broken.test_cli_runner().invoke(args=["mail-in", "--imap"])
    assert result.exit_code == 75, result.output
    assert "applied 1" in imap_read(app)
    assert table.moves_logged() == 1


def test_the_lmtp_listener(reply_app: Flask, glory: Table) -> None:
    port = free_port()
    controller = lmtp.listen(reply_app, "127.0.0.1", port)
    try:
        ann = last_email(reply_app, "ann@example.com")
        raw = clients.apple(ann, "draw pile 1\nlovely weather", sender="ann@example.com")
        with smtplib.LMTP("127.0.0.1", port, timeout=30) as client:
            assert client.sendmail("ann@example.com", [ann.reply_to], raw) == {}
    finally:
        controller.stop()
    assert glory.moves_logged() == 1
    assert "Said to the table: lovely weather" in sent_to(reply_app, "ann@example.com")[-1].text_body


def test_the_lmtp_listener_says_try_again_when_the_database_is_down(make_reply_app: Any) -> None:
    broken = unreachable_app()
    port = free_port()
    controller = lmtp.listen(broken, "127.0.0.1", port)
    try:
        raw = clients.plain(sender="ann@example.com", to="play+1-0-0-0123456789abcdef0123@club.example", text="hi")
        with smtplib.LMTP("127.0.0.1", port, timeout=30) as client, pytest.raises(smtplib.SMTPDataError) as refused:
            client.sendmail("ann@example.com", ["play+1-0-0-0123456789abcdef0123@club.example"], raw)
        assert refused.value.smtp_code == 451
    finally:
        controller.stop()


@pytest.mark.slow
def test_a_whole_call_to_adventure_game_by_reply_only(make_reply_app: Any, dovecot: Dovecot, relay: Relay) -> None:
    """Setup choices included, every decision is a numbered command in a reply; every answer is checked for
    cards hidden from its reader (A12)."""
    from tests.adventure_helpers import Witness, adventure_table, leaks, log_of, state_of

    app = make_reply_app(**dovecot.settings())
    names = ("Ann", "Bob")
    table = adventure_table(app, names, {"first_game": True}, seed=12)
    witnesses = {n: Witness(n) for n in names}
    rng = random.Random(12)
    replies = 0
    while seats := waiting(table):
        name = names[seats[0]]
        address = f"{name.lower()}@example.com"
        original = last_email(app, address)
        commands = commands_in(original.text)
        assert commands, f"{name}'s email lists commands:\n{original.text}"
        number = rng.randrange(len(commands)) + 1
        raw = clients.CLIENTS[CLIENTS[replies % len(CLIENTS)]](original, str(number), sender=address)
        before = table.moves_logged()
        relay.send(raw, original.reply_to)
        report = imap_read(app)
        assert "applied 1" in report, (number, sent_to(app, address)[-1].text_body[:2000])
        assert table.moves_logged() > before
        answer = sent_to(app, address)[-1]
        state = state_of(table)
        witnesses[name].update(state, log_of(table))
        for document in (answer.text_body, answer.html_body):
            assert not leaks(document, state, witnesses[name]), f"an answer to {name} shows a hidden card"
        replies += 1
        assert replies < 300
    assert state_of(table).status == "finished"
    assert table.verify()
