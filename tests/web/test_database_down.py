"""A database that is busy, read-only or gone: a move POST answers 503 with Retry-After and a page that says
the move was not made (never a 500), GETs keep working where the database can still read, and the log says why.

SQLite: another process holding the write lock past the busy timeout (a raw connection in BEGIN IMMEDIATE
that skips our lock file), a file opened read-only. PostgreSQL: a row lock held past ``lock_timeout`` or
``statement_timeout``, a read-only server, and connections terminated mid-request (run once more on a fresh
connection, else 503).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask, g
from flask.testing import FlaskClient
from sqlalchemy import Engine, create_engine, event, text

from pbem import create_app, db
from pbem.core import games, links
from tests.apps import Table, form_fields, new_table

DRAW1 = {"do": "draw", "pile": "draw1"}
SQLITE = [pytest.param("sqlite")]
POSTGRES = [pytest.param("postgres", marks=pytest.mark.postgres)]
NOT_MADE = "your move was not made"
TRACE = ("Traceback", 'File "')

AppMaker = Callable[..., Flask]


@pytest.fixture
def make_app(database_url: str) -> Iterator[AppMaker]:
    """Build apps on the test database with extra settings (or another URL for it), migrated once."""
    made: list[Flask] = []

    def make(url: str = database_url, **settings: Any) -> Flask:
        app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "test-key-" + "x" * 32, **settings})
        if not made:
            with app.app_context():
                db.upgrade(db.get_engine())
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["pbem_engine"].dispose()


def people(app: Flask) -> Table:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    return new_table(app, specs, seed=1)


def open_move(client: FlaskClient, token: str) -> str:
    """Open a move link as a player does; the confirm form's CSRF token."""
    page = client.get(f"/play/{token}")
    assert page.status_code == 200
    return form_fields(page.get_data(as_text=True))[0]


def assert_503(response: Any, *words: str) -> str:
    page: str = response.get_data(as_text=True)
    assert response.status_code == 503, page
    assert response.headers["Retry-After"].isdigit()
    for word in words:
        assert word in page
    assert not any(t in page for t in TRACE)
    return page


# 4. SQLite: the write lock held by another process ------------------------------------------------


@pytest.mark.parametrize("database_url", SQLITE, indirect=True)
def test_sqlite_lock_held_past_the_busy_timeout_answers_503_and_reads_go_on(
    make_app: AppMaker, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(SQLITE_BUSY_TIMEOUT_MS=20)
    table = people(app)
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    other = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process's writer: it never takes our lock file
        with caplog.at_level(logging.WARNING):
            response = client.post(f"/play/{token}", data={"csrf_token": csrf})
        page = assert_503(response, NOT_MADE, "Try again in a moment")
        assert "busy" in page and response.headers["Retry-After"] == "5"
        assert "database busy during POST play.make_move" in caplog.text
        assert "database is locked" in caplog.text, "the log says why"
        assert client.get(f"/play/{table.personal(0)}").status_code == 200, "reads go on meanwhile"
        assert table.moves_logged() == 0
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert client.post(f"/play/{token}", data={"csrf_token": csrf}).status_code == 303
    assert table.moves_logged() == 1 and table.verify()


# 6. PostgreSQL: a row lock held for long ------------------------------------------------------------


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"DB_LOCK_TIMEOUT_MS": 50}, "lock timeout"),
        ({"DB_LOCK_TIMEOUT_MS": 0, "DB_STATEMENT_TIMEOUT_MS": 50}, "statement timeout"),
    ],
)
def test_postgres_row_lock_held_past_the_timeout_answers_503(
    make_app: AppMaker,
    database_url: str,
    settings: dict[str, int],
    reason: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = make_app(**settings)
    table = people(app)
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    holder = create_engine(database_url)
    try:
        with holder.connect() as other:
            # Without timeouts the POST would wait for good: the holder lets go after 30 s at the latest.
            other.execute(text("SET idle_in_transaction_session_timeout = 30000"))
            other.execute(text("SELECT id FROM game WHERE id = :id FOR UPDATE"), {"id": table.game_id})
            with caplog.at_level(logging.WARNING):
                response = client.post(f"/play/{token}", data={"csrf_token": csrf})
            assert_503(response, NOT_MADE, "Try again in a moment")
            assert response.headers["Retry-After"] == "5"
            assert reason in caplog.text, "the log says why"
            assert client.get(f"/play/{table.personal(0)}").status_code == 200, "reads go on meanwhile"
            other.rollback()
    finally:
        holder.dispose()
    assert client.post(f"/play/{token}", data={"csrf_token": csrf}).status_code == 303
    assert table.moves_logged() == 1 and table.verify()


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_postgres_connections_get_the_configured_timeouts(make_app: AppMaker) -> None:
    for app, lock, statement in (
        (make_app(), "5s", "15s"),
        (make_app(DB_LOCK_TIMEOUT_MS=1500, DB_STATEMENT_TIMEOUT_MS=0), "1500ms", "0"),
    ):
        with app.app_context():
            session = db.get_session()
            assert session.execute(text("SHOW lock_timeout")).scalar() == lock
            assert session.execute(text("SHOW statement_timeout")).scalar() == statement
        with app.app_context(), db.write_session() as write:
            assert write.execute(text("SHOW lock_timeout")).scalar() == lock, "a pooled connection keeps them"


# 7. A read-only database --------------------------------------------------------------------------


def read_only_url(url: str) -> str:
    """The same database opened read-only: SQLite's mode=ro, or a PostgreSQL session that only reads."""
    if url.startswith("sqlite:///"):
        return f"sqlite:///file:{url.removeprefix('sqlite:///')}?mode=ro&uri=true"
    return f"{url}%20-cdefault_transaction_read_only%3Don"


@pytest.mark.parametrize("database_url", [*SQLITE, *POSTGRES], indirect=True)
def test_a_read_only_database_answers_503_and_the_log_says_why(
    make_app: AppMaker, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    table = people(make_app())
    app = make_app(read_only_url(database_url))
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    with caplog.at_level(logging.WARNING):
        response = client.post(f"/play/{token}", data={"csrf_token": csrf})
    page = assert_503(response, NOT_MADE, "Try again later")
    assert "cannot be written" in page
    assert "database read-only during POST play.make_move" in caplog.text
    assert "readonly database" in caplog.text or "read-only transaction" in caplog.text, "the log says why"
    assert client.get(f"/play/{table.personal(0)}").status_code == 200, "reads go on"
    with app.test_request_context():
        unsubscribe = links.settings_token(table.game_id, 1, table.seat(1).nonce)
    settings = client.post(f"/settings/{unsubscribe}", data={"List-Unsubscribe": "One-Click"})
    assert "nothing was changed" in assert_503(settings)
    assert table.moves_logged() == 0 and table.seat(1).reminders


# 5. PostgreSQL: connections terminated mid-request ------------------------------------------------


def kill_on(app: Flask, admin: Engine, first: str, times: int, reads_only: bool = False) -> list[int]:
    """Terminate the app's connection just before its next ``times`` statements starting with ``first``
    (as a failover or pg_terminate_backend does), only on read sessions if ``reads_only``; the killed pids."""
    killed: list[int] = []

    def _kill(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if reads_only and conn.get_execution_options().get("pbem_write"):
            return
        if len(killed) < times and statement.lstrip().upper().startswith(first):
            pid = conn.connection.dbapi_connection.info.backend_pid
            with admin.connect() as other:
                assert other.execute(text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": pid}).scalar()
            killed.append(pid)

    event.listen(app.extensions["pbem_engine"], "before_cursor_execute", _kill)
    return killed


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_a_move_whose_connection_is_killed_mid_transaction_is_made_once_on_a_fresh_one(
    make_app: AppMaker, pg_admin: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app()
    table = people(app)
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    killed = kill_on(app, pg_admin, "SELECT", 1)  # the game row's SELECT … FOR UPDATE, inside the transaction
    with caplog.at_level(logging.WARNING):
        response = client.post(f"/play/{token}", data={"csrf_token": csrf})
    assert len(killed) == 1
    assert response.status_code == 303, response.get_data(as_text=True)
    assert "running it once more" in caplog.text
    assert "Done: " in client.get(response.location).get_data(as_text=True)
    assert table.moves_logged() == 1 and table.verify()


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_a_move_whose_connection_is_killed_twice_answers_503_and_changes_nothing(
    make_app: AppMaker, pg_admin: Engine
) -> None:
    app = make_app()
    table = people(app)
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    killed = kill_on(app, pg_admin, "SELECT", 2)
    response = client.post(f"/play/{token}", data={"csrf_token": csrf})
    assert len(killed) == 2
    assert_503(response, NOT_MADE, "cannot be reached")
    assert table.moves_logged() == 0
    assert client.post(f"/play/{token}", data={"csrf_token": csrf}).status_code == 303
    assert table.moves_logged() == 1 and table.verify()


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_a_page_whose_connection_is_killed_is_read_again(make_app: AppMaker, pg_admin: Engine) -> None:
    app = make_app()
    table = people(app)
    client = app.test_client()
    personal = table.personal(0)
    assert client.get(f"/play/{personal}").status_code == 200  # the pool holds a connection now
    killed = kill_on(app, pg_admin, "SELECT", 1)
    assert client.get(f"/play/{personal}").status_code == 200
    assert len(killed) == 1
    kill_on(app, pg_admin, "SELECT", 2)
    assert_503(client.get(f"/play/{personal}"), "this page cannot be shown")


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_a_lost_commit_is_not_run_again(make_app: AppMaker, pg_admin: Engine) -> None:
    """When the connection is lost at COMMIT, whether the move was saved is unknown: 503, asking to check."""
    app = make_app()
    table = people(app)
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    engine = app.extensions["pbem_engine"]
    killed: list[int] = []

    @event.listens_for(engine, "commit")
    def _kill(conn: Any) -> None:
        if not killed:
            pid = conn.connection.dbapi_connection.info.backend_pid
            with pg_admin.connect() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": pid})
            killed.append(pid)

    response = client.post(f"/play/{token}", data={"csrf_token": csrf})
    assert killed
    assert_503(response, "Reload the page to see whether it was made")
    assert table.moves_logged() == 0, "the COMMIT never reached the server"


# A database that cannot be reached at all -------------------------------------------------------


def unreachable_url(url: str, tmp: str) -> str:
    """A database that is not there: a SQLite file in a folder that does not exist, a port nobody listens on."""
    if url.startswith("sqlite"):
        return f"sqlite:///{tmp}/gone/pbem.sqlite3"
    from tests.apps import free_port

    return f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/test?connect_timeout=5"


@pytest.mark.parametrize("database_url", [*SQLITE, *POSTGRES], indirect=True)
def test_an_unreachable_database_answers_503(
    make_app: AppMaker, database_url: str, tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    table = people(make_app())
    app = make_app(unreachable_url(database_url, str(tmp_path)), WTF_CSRF_ENABLED=False)  # no page gives a form
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    with caplog.at_level(logging.WARNING):
        assert_503(client.get(f"/play/{token}"), "cannot be reached", "this page cannot be shown")
        assert_503(client.post(f"/play/{token}"), NOT_MADE, "cannot be reached")
    assert "database gone during GET play.page" in caplog.text
    assert "database gone during POST play.make_move" in caplog.text


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_connections_killed_between_requests_are_replaced(make_app: AppMaker, pg_admin: Engine) -> None:
    """A failover between two requests: every pooled connection is gone, and the next POST and GET just work."""
    app = make_app()
    pids: set[int] = set()
    event.listen(app.extensions["pbem_engine"], "checkout", lambda dbapi, *_: pids.add(dbapi.info.backend_pid))
    table = people(app)
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    assert pids
    with pg_admin.connect() as other:
        for pid in pids:
            other.execute(text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": pid})
    response = client.post(f"/play/{token}", data={"csrf_token": csrf})
    assert response.status_code == 303
    assert "Done: " in client.get(response.location).get_data(as_text=True)
    assert table.moves_logged() == 1 and table.verify()


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_a_retried_request_shows_its_message_once(make_app: AppMaker, pg_admin: Engine) -> None:
    """A click on a move already made flashes "Already played", then reads the seat's page link: when that read
    loses its connection, the view runs again, and the message is still shown once."""
    app = make_app()
    table = people(app)
    client = app.test_client()
    token = table.move_token(0, DRAW1)
    csrf = open_move(client, token)
    assert client.post(f"/play/{token}", data={"csrf_token": csrf}).status_code == 303
    client.get(f"/play/{table.personal(0)}")  # shows (and clears) "Done"
    killed = kill_on(app, pg_admin, "SELECT", 1, reads_only=True)  # the read after "Already played"
    response = client.post(f"/play/{token}", data={"csrf_token": csrf})
    assert len(killed) == 1 and response.status_code == 303
    page = client.get(response.location).get_data(as_text=True)
    assert page.count("Already played") == 1


@pytest.mark.parametrize("database_url", POSTGRES, indirect=True)
def test_a_connection_lost_after_the_page_was_built_still_answers_the_page(
    make_app: AppMaker, pg_admin: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """The read session's rollback at teardown fails on a killed backend: the page that was built is answered (no
    bare 500 from gunicorn), the log says so without the link, and the next request gets a fresh connection."""
    app = make_app()
    table = people(app)
    personal = table.personal(0)
    killed: list[int] = []

    @app.after_request
    def _kill_after_the_view(response: Any) -> Any:
        session = g.get("db_session")
        if not killed and session is not None and session.in_transaction():
            pid = session.connection().connection.dbapi_connection.info.backend_pid
            with pg_admin.connect() as other:
                assert other.execute(text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": pid}).scalar()
            killed.append(pid)
        return response

    client = app.test_client()
    with caplog.at_level(logging.WARNING):
        response = client.get(f"/play/{personal}?log=1")
    assert killed, "the request held a read transaction when its connection was killed"
    assert response.status_code == 200 and "ann" in response.get_data(as_text=True)
    assert "connection lost after the request was answered" in caplog.text
    assert personal not in caplog.text
    assert client.get(f"/play/{personal}").status_code == 200
