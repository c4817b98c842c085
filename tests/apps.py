"""App fixtures for every test package: an app on SQLite or PostgreSQL (same tests), a client, tables, a live server."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Browser, sync_playwright
from sqlalchemy import Engine, create_engine, event, text
from werkzeug.serving import BaseWSGIServer, make_server

from engine import call_to_glory as glory
from pbem import create_app, db, flows
from pbem.core import games, links
from pbem.core import seats as seat_rows

POSTGRES_URL = os.environ.get("PBEM_TEST_POSTGRES_URL", "")
WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|REPLACE)\b", re.IGNORECASE)


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Engine]:
    """An engine on the PostgreSQL test database; skipped (or failed on CI) when it is not configured."""
    if not POSTGRES_URL:
        if os.environ.get("CI") == "true":
            pytest.fail("PBEM_TEST_POSTGRES_URL must be set on CI: the PostgreSQL tests are required there")
        pytest.skip("PostgreSQL tests need PBEM_TEST_POSTGRES_URL (e.g. postgresql+psycopg://postgres@127.0.0.1/test)")
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


def _postgres_url(pg_admin: Engine) -> Iterator[str]:
    schema = f"t_{secrets.token_hex(6)}"
    with pg_admin.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in POSTGRES_URL else "?"
    yield f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"
    with pg_admin.connect() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: SQLite in tmp_path, or a new schema on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    else:
        yield from _postgres_url(request.getfixturevalue("pg_admin"))


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    """The app on that database, migrated with the same Alembic migrations as `make run`."""
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "test-key-" + "x" * 32})
    with app.app_context():
        db.upgrade(db.get_engine())
    yield app
    app.extensions["pbem_engine"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client (it keeps its own session cookie, as one browser does)."""
    return app.test_client()


def listen_writes(app: Flask) -> tuple[list[str], Callable[[], None]]:
    """The list that every writing SQL statement of the app's engine is added to from now on, and the function
    that stops listening."""
    statements: list[str] = []
    eng = app.extensions["pbem_engine"]

    def _count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if WRITES.match(statement):
            statements.append(statement)

    event.listen(eng, "before_cursor_execute", _count)
    return statements, lambda: event.remove(eng, "before_cursor_execute", _count)


@pytest.fixture
def write_counter(app: Flask) -> Iterator[list[str]]:
    """Every writing SQL statement the app's engine runs from now on."""
    statements, stop = listen_writes(app)
    yield statements
    stop()


@dataclass
class Table:
    """A game created for a test, with helpers to get its links and state."""

    app: Flask
    game_id: int

    def seat(self, position: int) -> Any:
        with self.app.app_context():
            return seat_rows.seats_of(session=db.get_session(), game_id=self.game_id)[position]

    def personal(self, position: int) -> str:
        """The seat's personal token."""
        seat = self.seat(position)
        with self.app.test_request_context():
            return links.personal_token(self.game_id, position, seat.nonce)

    def move_token(self, position: int, move: dict[str, Any], decision: int | None = None) -> str:
        """A move token for the seat (at the current decision unless given)."""
        seat = self.seat(position)
        with self.app.test_request_context():
            ply = self.state().ply if decision is None else decision
            return links.move_token(self.game_id, position, seat.nonce, str(ply), move)

    def state(self) -> glory.State:
        """The stored snapshot as an engine state."""
        with self.app.app_context():
            return games.load_state(seat_rows.get_game(session=db.get_session(), game_id=self.game_id))

    def version(self) -> int:
        with self.app.app_context():
            return seat_rows.get_game(session=db.get_session(), game_id=self.game_id).version

    def moves_logged(self) -> int:
        with self.app.app_context():
            return len(games.move_log(session=db.get_session(), game_id=self.game_id))

    def verify(self) -> bool:
        """Replaying the log from the seed gives the snapshot."""
        with self.app.app_context():
            return games.verify_game(session=db.get_session(), game_id=self.game_id)


def new_table(app: Flask, seats: list[games.SeatSpec], **kw: Any) -> Table:
    """Create a game through the service and return a Table for it."""
    options = kw.pop("options", None)
    options = dict(options.to_json() if hasattr(options, "to_json") else options or {})
    if kw.get("first_player") is not None:
        options["first_player"] = kw.pop("first_player")
    kw.pop("first_player", None)
    with app.app_context(), db.write_session() as session:
        game = flows.games.create(session=session, name=kw.pop("name", "Test game"), seats=seats, options=options, **kw)
        return Table(app, game.id or 0)


@pytest.fixture
def table(app: Flask) -> Table:
    """A 3-player game of people (ann, bob, cy) with seed 1."""
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    return new_table(app, specs, seed=1)


CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
DECISION = re.compile(r'name="decision" value="(\d*)"')


def form_fields(html: str) -> tuple[str, str]:
    """The CSRF token and the decision of the first move form on a page."""
    csrf = CSRF.search(html)
    decision = DECISION.search(html)
    assert csrf, "the page has a form with a CSRF token"
    return csrf.group(1), decision.group(1) if decision else ""


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (chosen here: aiosmtpd and others report port 0 badly)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_server(app: Flask) -> Iterator[str]:
    """The app served by a threaded WSGI server on 127.0.0.1; yields its base URL."""
    port = free_port()
    server: BaseWSGIServer = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    thread.join(5)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless (never a downloaded browser); skipped where it is missing, except on CI
    where that is a failure."""
    if not os.access(CHROMIUM, os.X_OK):
        reason = f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}: it must be installed on CI")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


ROOT = Path(__file__).resolve().parent.parent
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"
GUNICORN_SETTINGS = ROOT / "config" / "gunicorn.conf.py"


@pytest.fixture
def production_server(app: Flask) -> Iterator[str]:
    """gunicorn as in production (two workers, the settings file) on a free port; its base URL."""
    port = free_port()
    env = {
        "PATH": "/usr/bin:/bin",
        "PBEM_ENV": "production",
        "PBEM_SECRET_KEY": app.config["SECRET_KEY"],
        "PBEM_DATABASE_URL": app.config["DATABASE_URL"],
        "PBEM_SERVER_NAME": f"127.0.0.1:{port}",
        "PBEM_TRUSTED_HOSTS": json.dumps(["127.0.0.1"]),
        "PBEM_PREFERRED_URL_SCHEME": "https",
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
    }
    command = [str(GUNICORN), "-c", str(GUNICORN_SETTINGS), "-w", "2", "-b", f"127.0.0.1:{port}", "pbem:create_app()"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                requests.get(f"{base}/static/style.css", timeout=5)
                break
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.2)
        else:
            pytest.fail("gunicorn did not answer")
        yield base
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert "Traceback" not in output, output
