"""The sender renders what a move queued: the move stores what to send, the sender shows the game as it is then.

A turn email whose decision was made before it went out is dropped (never sent, never counted as undelivered);
the move's transaction renders nothing; what happened meanwhile (table talk) is in the email; a game without
email partials of its own gets the plain ones; an email queued before migration 0008 is still sent after it.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from sqlalchemy import text
from sqlmodel import SQLModel, col, select

from pbem import admin, db, flows, timing
from pbem.core import games, talk
from pbem.core import seats as seat_rows
from pbem.mail import compose, outbox
from pbem.mail.sender import send_due
from pbem.models import OutboxEmail
from tests.apps import Table, new_table

from .conftest import SMTPServer, deliver


def _rows(app: Flask, **where: object) -> list[OutboxEmail]:
    with app.app_context():
        query = select(OutboxEmail).order_by(col(OutboxEmail.id))
        for name, value in where.items():
            query = query.where(getattr(OutboxEmail, name) == value)
        return list(db.get_session().exec(query))


def _move(app: Flask, table: Table, body: dict[str, object]) -> None:
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        rules = games.rules_of(game)
        state = games.load_state(game)
        [(player, decision)] = rules.waiting_for(state).items()
        seat = [s.name for s in seat_rows.seats_of(session=session, game_id=table.game_id)].index(player)
        flows.play.move(
            session=session, game_id=table.game_id, seat=seat, move=body, decision=decision.id, source="page"
        )


def _bot_move(app: Flask, table: Table) -> None:
    with app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
        rules = games.rules_of(game)
        state = games.load_state(game)
        [player] = rules.waiting_for(state)
        body = games.move_body(games.bot_move(rules, state, player))
    _move(app, table, body)


def test_a_stale_turn_email_is_dropped_not_sent(smtp_app: Flask, smtp_server: SMTPServer) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    table = new_table(smtp_app, specs, seed=1, organiser_email="org@example.com")
    [asked] = _rows(smtp_app, kind="turn")
    assert asked.decision == "0" and asked.text_body == "" and asked.html_body == "", "queued, not rendered"
    _move(smtp_app, table, {"do": "draw", "pile": "draw1"})  # ann acts before the sender ran
    with smtp_app.app_context():
        report = send_due()
    assert report.dropped == 1 and report.sent == 3, report
    [dropped] = _rows(smtp_app, kind="turn")
    assert dropped.status == "dropped" and dropped.sent_at is None and dropped.text_body == ""
    assert dropped.last_error == "dropped: decision 0 was made"
    assert sorted(m["To"] for m in smtp_server.messages) == [f"{n} <{n}@example.com>" for n in ("ann", "bob", "cy")]
    assert all("You are invited" in m["Subject"] for m in smtp_server.messages), "no turn email went out"
    # A dropped email is not undelivered: no "mail stuck", no dead email, nothing retried.
    with smtp_app.app_context():
        later = timing.now() + timedelta(days=2)
        assert outbox.stuck_games(session=db.get_session(), now=later, after=timedelta(minutes=1)) == []
        listed = admin.list_games(session=db.get_session(), now=later).rows
        assert [r for r in listed if r.id == table.game_id and r.stuck_since is not None] == []
        assert send_due(now=later).claimed == 0
    # ann's turn goes on: bob's turn email is current when the sender runs, so it is sent, rendered then.
    _bot_move(smtp_app, table)
    _bot_move(smtp_app, table)
    with smtp_app.app_context():
        assert send_due().sent == 1
    [_, bobs] = _rows(smtp_app, kind="turn")
    assert bobs.status == "sent" and bobs.to_addr == "bob <bob@example.com>"
    assert bobs.subject == "Test game · Round 1 · Your turn" and "WHAT HAPPENED SINCE YOUR LAST TURN" in bobs.text_body
    [message] = [m for m in smtp_server.messages if m["Message-ID"] == bobs.message_id]
    assert message["Subject"] == bobs.subject and message["In-Reply-To"] == bobs.headers["In-Reply-To"]
    assert message.get_body(("plain",)).get_content() == bobs.text_body


def test_the_move_transaction_renders_nothing(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob")]
    table = new_table(app, specs, seed=2, options={"rounds": 1})

    def refuse(*_args: object, **_kw: object) -> tuple[str, str]:
        raise AssertionError("an email was rendered in the move's transaction")

    monkeypatch.setattr(compose, "render", refuse)
    while not table.state().is_finished:
        _bot_move(app, table)  # turn emails, the score sheet and the game over are queued
    queued = _rows(app)
    kinds = {r.kind for r in queued if r.render is not None}
    assert kinds == {"turn", "scores", "game_over"}
    assert all(r.text_body == "" and r.html_body == "" for r in queued if r.render is not None)
    monkeypatch.undo()
    deliver(app)
    sent = _rows(app, status="sent")
    assert {r.kind for r in sent} >= {"invitation", "scores", "game_over"}
    assert all(r.text_body.strip() and "</html>" in r.html_body for r in sent)
    [over] = [r for r in sent if r.kind == "game_over"][:1]
    assert over.attachments[0]["filename"] == f"call-to-glory-{table.game_id}.json"
    assert json.loads(over.attachments[0]["content"])["format"] == "call-to-glory/1"
    # Every turn email but the sheets' and the game's last was made stale by the moves that followed it.
    assert {r.status for r in _rows(app, kind="turn")} == {"dropped"}


def test_the_story_is_told_when_the_email_is_sent(app: Flask) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob")]
    table = new_table(app, specs, seed=3)
    for _ in range(3):
        _bot_move(app, table)  # ann's whole turn: bob's turn email is queued
    with app.app_context(), db.write_session() as session:
        talk.say(
            session=session, game_id=table.game_id, seat=0, text="Your move, Bob!", nonce_tag=None, now=timing.now()
        )
    deliver(app)
    bobs = _rows(app, kind="turn")[-1]
    assert bobs.to_addr == "bob <bob@example.com>" and bobs.status == "sent"
    assert "- ann said: “Your move, Bob!”" in bobs.text_body, "said after the move, before the email went out"


def test_a_game_without_email_partials_gets_the_plain_ones(app: Flask) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob")]
    with app.app_context(), db.write_session() as session:
        game = flows.games.create(
            session=session, name="Numbers", seats=specs, game="pick-a-number", options={"rounds": "1"}, seed=5
        )
        table = Table(app, game.id or 0)
    deliver(app)
    invitations = _rows(app, kind="invitation")
    assert len(invitations) == 2 and "Rounds: 1" in invitations[0].text_body
    turns = _rows(app, kind="turn")
    assert {r.status for r in turns} == {"sent"} and len(turns) == 2, "both pick at once"
    for row in turns:
        assert row.subject == "Numbers · Your turn"
        assert "YOUR MOVE: " in row.text_body and "Pick 1:\nhttp://127.0.0.1:5000/play/" in row.text_body
        assert "Your page shows the whole game." in row.text_body
    while True:
        with app.app_context():
            game_row = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
            waiting = games.rules_of(game_row).waiting_for(games.load_state(game_row))
        if not waiting:
            break
        for player in waiting:
            with app.app_context(), db.write_session() as session:
                game_row = seat_rows.get_game(session=session, game_id=table.game_id)
                rules = games.rules_of(game_row)
                state = games.load_state(game_row)
                decision = rules.waiting_for(state)[player]
                body = games.move_body(games.bot_move(rules, state, player))
                flows.play.move(
                    session=session,
                    game_id=table.game_id,
                    seat=["ann", "bob"].index(player),
                    move=body,
                    decision=decision.id,
                    source="page",
                )
    deliver(app)
    over = _rows(app, kind="game_over")
    assert len(over) == 2 and all(r.status == "sent" for r in over)
    assert "FINAL RANKING" in over[0].text_body and over[0].attachments[0]["filename"].startswith("pick-a-number-")
    sheets = _rows(app, kind="scores")
    assert len(sheets) == 2 and sheets[0].subject == "Numbers · Round 1 revealed"


def _migrate(app: Flask, target: str, up: bool) -> None:
    engine = app.extensions["pbem_engine"]
    cfg = db.alembic_config(engine)
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        (command.upgrade if up else command.downgrade)(cfg, target)
    engine.dispose()


def test_an_email_queued_before_0008_is_sent_after_it(smtp_app: Flask, smtp_server: SMTPServer) -> None:
    _migrate(smtp_app, "0007", up=False)
    now = timing.now()
    old = {
        "kind": "turn",
        "to_addr": "ann <ann@example.com>",
        "subject": "Friday game · Round 1 · Your turn",
        "text_body": "Hello ann,\n\nIt is your turn.\n",
        "html_body": "<html><body><p>It is your turn.</p></body></html>",
        "headers": json.dumps({"List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}),
        "attachments": "[]",
        "message_id": "<old-row@127.0.0.1>",
        "dedupe_key": "turn:1:0:0",
        "status": "queued",
        "attempts": 0,
        "next_attempt_at": now,
        "created_at": now,
    }
    with smtp_app.extensions["pbem_engine"].begin() as conn:
        names = ", ".join(old)
        conn.execute(text(f"INSERT INTO outbox ({names}) VALUES ({', '.join(':' + k for k in old)})"), old)
    _migrate(smtp_app, "heads", up=True)
    with smtp_app.app_context():
        assert send_due().sent == 1
    [row] = _rows(smtp_app)
    assert row.status == "sent" and row.render is None and row.decision is None
    assert row.subject == old["subject"] and row.text_body == old["text_body"], "sent as it was stored"
    [message] = smtp_server.messages
    assert message["Message-ID"] == "<old-row@127.0.0.1>" and message["Subject"] == old["subject"]
    assert message.get_body(("plain",)).get_content() == old["text_body"]


def test_the_migration_matches_the_models(app: Flask) -> None:
    with app.extensions["pbem_engine"].connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        found = compare_metadata(context, SQLModel.metadata)
    ops = [op for d in found for op in (d if isinstance(d, list) else [d])]
    assert [op for op in ops if "outbox" in repr(op)] == []
