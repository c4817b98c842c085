"""The backup drill, on SQLite and PostgreSQL: players play; ``pbem backup`` is taken in the middle of their moves;
``pbem restore`` puts it into a fresh database; ``pbem verify --all`` finds every game sound; every move answered
before the backup began is there; the restored server serves the games and sends only the mail that was not sent."""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from flask import Flask
from sqlalchemy import Engine, make_url, text
from sqlmodel import col, select

from engine import call_to_glory as glory
from pbem import create_app, db
from pbem.core import games, seats
from pbem.mail.sender import send_due
from pbem.models import MoveRecord, OutboxEmail
from tests.apps import POSTGRES_URL, Table, form_fields, free_port, new_table
from tests.mail.conftest import SMTPServer

KEY = "test-key-" + "x" * 32


@pytest.fixture
def fresh_url(database_url: str, pg_admin_if_postgres: Engine | None, tmp_path: Path) -> Iterator[str]:
    """An empty database of the same kind to restore into: a new SQLite file, or a new PostgreSQL database (made and
    dropped by this test only) with the same schema name in its search path."""
    if database_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'restored.sqlite3'}"
        return
    assert pg_admin_if_postgres is not None
    name = f"pbem_drill_{secrets.token_hex(4)}"
    with pg_admin_if_postgres.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    url = make_url(database_url).set(database=name)
    yield url.render_as_string(hide_password=False)
    with pg_admin_if_postgres.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))


@pytest.fixture
def pg_admin_if_postgres(database_url: str, request: pytest.FixtureRequest) -> Engine | None:
    return None if database_url.startswith("sqlite") else request.getfixturevalue("pg_admin")


def play(app: Flask, tables: list[Table], acked: dict[int, int], stop: threading.Event, rng: random.Random) -> None:
    """Players make moves by their links (GET the confirm page, POST it), one after another, until ``stop``; each
    move the server answered (303) is counted in ``acked`` for its game."""
    client = app.test_client()
    while not stop.is_set():
        table = rng.choice(tables)
        state = table.state()
        legal = glory.legal_moves(state)
        if not legal:
            continue
        move = rng.choice([{k: v for k, v in m.to_json().items() if k != "player"} for m in legal])
        token = table.move_token(state.current, move)
        page = client.get(f"/play/{token}")
        if page.status_code != 200:
            continue
        csrf, _decision = form_fields(page.get_data(as_text=True))
        if client.post(f"/play/{token}", data={"csrf_token": csrf}).status_code == 303:
            acked[table.game_id] = acked.get(table.game_id, 0) + 1
        with app.app_context():
            send_due()  # the mailbox backend: emails are "sent" as play goes on


@pytest.mark.slow
def test_the_backup_drill(app: Flask, database_url: str, fresh_url: str, tmp_path: Path) -> None:
    if not database_url.startswith("sqlite"):
        assert POSTGRES_URL
    names = [f"p{n:02d}" for n in range(16)]
    tables = [
        new_table(app, [games.SeatSpec(n, email=f"{n}@example.com") for n in names[g * 4 : g * 4 + 4]], seed=g + 1)
        for g in range(4)
    ]
    acked: dict[int, int] = {}
    stop = threading.Event()
    player = threading.Thread(target=play, args=(app, tables, acked, stop, random.Random(7)))
    player.start()
    backup = tmp_path / "pbem.backup"
    try:
        while sum(acked.values()) < 20 and player.is_alive():
            stop.wait(0.05)
        before = dict(acked)  # every move answered before the backup began
        result = app.test_cli_runner().invoke(args=["backup", str(backup)])
        assert result.exit_code == 0, result.output
        while sum(acked.values()) < sum(before.values()) + 10 and player.is_alive():
            stop.wait(0.05)
    finally:
        stop.set()
        player.join(60)
    assert "backup written to" in result.output and backup.stat().st_size > 0
    assert sum(acked.values()) > sum(before.values()), "moves went on during and after the backup"

    restored = create_app({"TESTING": True, "DATABASE_URL": fresh_url, "SECRET_KEY": KEY})
    try:
        runner = restored.test_cli_runner()
        result = runner.invoke(args=["restore", str(backup)])
        assert result.exit_code == 0, result.output
        assert "emails had not been sent when the backup was taken" in result.output
        again = runner.invoke(args=["restore", str(backup)])
        assert again.exit_code != 0 and "not empty" in again.output, "a restore goes into an empty database only"
        assert runner.invoke(args=["db-upgrade"]).exit_code == 0
        result = runner.invoke(args=["verify", "--all"])
        assert result.exit_code == 0, result.output
        assert "4 games checked, 0 problems" in result.output

        with restored.app_context():
            session = db.get_session()
            for table in tables:
                logged = session.exec(select(MoveRecord.id).where(col(MoveRecord.game_id) == table.game_id)).all()
                assert len(logged) >= before.get(table.game_id, 0), "every acknowledged move is in the backup"
            rows = session.exec(select(OutboxEmail)).all()
            unsent = {r.message_id for r in rows if r.status == "queued"}
            sent = {r.message_id for r in rows if r.status == "sent"}
            assert sent, "mail went out before the backup"
        page = restored.test_client().get(f"/play/{Table(restored, tables[0].game_id).personal(0)}")
        assert page.status_code == 200, "the restored server serves the games"

        server = SMTPServer("127.0.0.1", free_port())
        controller = Controller(server, hostname=server.host, port=server.port)
        controller.start()
        try:
            restored.config.update(MAIL_BACKEND="smtp", MAIL_SERVER=server.host, MAIL_PORT=server.port)
            restored.extensions["mail"].server, restored.extensions["mail"].port = server.host, server.port
            with restored.app_context():
                while send_due().claimed:
                    pass
        finally:
            controller.stop()
        received = [m["Message-ID"] for m in server.messages]
        assert len(received) == len(set(received)), "each email once"
        assert not set(received) & sent, "nothing already sent goes out again"
        with restored.app_context():
            dropped = {
                r.message_id
                for r in db.get_session().exec(select(OutboxEmail).where(col(OutboxEmail.status) == "dropped"))
            }
        waiting = set(received) | (dropped & unsent)
        assert waiting == unsent, "every email that was waiting goes out (or is dropped: a turn already played)"
    finally:
        restored.extensions["pbem_engine"].dispose()


def test_backup_refuses_an_existing_file_and_restore_a_foreign_one(app: Flask, tmp_path: Path) -> None:
    existing = tmp_path / "there.backup"
    existing.write_text("keep me")
    result = app.test_cli_runner().invoke(args=["backup", str(existing)])
    assert result.exit_code != 0 and "exists already" in result.output and existing.read_text() == "keep me"
    target = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'new.sqlite3'}", "SECRET_KEY": KEY})
    result = target.test_cli_runner().invoke(args=["restore", str(existing)])
    target.extensions["pbem_engine"].dispose()
    assert result.exit_code != 0 and "is not a SQLite backup" in result.output


def test_verify_finds_a_game_whose_state_is_not_its_log(app: Flask, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        game = seats.get_game(session=session, game_id=table.game_id)
        game.state = {**game.state, "ply": game.state["ply"] + 5}
        session.add(game)
    result = app.test_cli_runner().invoke(args=["verify", "--all"])
    assert result.exit_code == 1
    assert f"game {table.game_id}: replaying its log does not give its stored state" in result.output
    assert "1 problems" in result.output
