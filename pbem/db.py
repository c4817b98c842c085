"""Database engines and sessions: SQLite (WAL, busy timeout, BEGIN IMMEDIATE for writes) or PostgreSQL."""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask, current_app, g
from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine


def database_url(app: Flask) -> str:
    """The configured URL, or SQLite in the instance folder."""
    url: str = app.config["DATABASE_URL"]
    if url:
        return url
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{Path(app.instance_path) / 'pbem.sqlite3'}"


def make_engine(url: str, busy_timeout_ms: int = 5000) -> Engine:
    """An engine; for SQLite with SQLAlchemy's recipe so that we, not pysqlite, emit BEGIN."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        pool_size=8,
        max_overflow=16,
    )

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # pysqlite must not BEGIN on its own
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("pbem_write") else "BEGIN")

    return engine


def init_app(app: Flask) -> None:
    """Create the app's engine and close the request's session at teardown."""
    engine = make_engine(database_url(app), app.config["SQLITE_BUSY_TIMEOUT_MS"])
    app.extensions["pbem_engine"] = engine
    app.teardown_appcontext(_close_session)


def get_engine() -> Engine:
    """The current app's engine."""
    engine: Engine = current_app.extensions["pbem_engine"]
    return engine


def get_session() -> Session:
    """The request's read session, created on first use and closed at teardown."""
    if "db_session" not in g:
        g.db_session = Session(get_engine())
    session: Session = g.db_session
    return session


def _close_session(_exc: BaseException | None) -> None:
    session = g.pop("db_session", None)
    if session is not None:
        session.close()


@contextmanager
def write_session(engine: Engine | None = None) -> Iterator[Session]:
    """One write transaction (BEGIN IMMEDIATE on SQLite): commit on success, roll back on error."""
    engine = engine or get_engine()
    with (
        _sqlite_writer_lock(engine),
        Session(engine.execution_options(pbem_write=True)) as session,
        session.begin(),
    ):
        yield session


_writer = threading.local()


@contextmanager
def _sqlite_writer_lock(engine: Engine) -> Iterator[None]:
    """On a SQLite file, queue writers on a lock file (flock) before BEGIN IMMEDIATE.

    SQLite's busy handler polls: a writer that finds the database locked sleeps 1, 2, 5, 10 … ms
    and retries, so under load most of a write's latency is sleeping while the CPU idles. flock
    wakes the next writer the moment the lock is released, in every process and thread. A thread
    that already holds it (a nested write) goes on; SQLite's own locking stays the safety net.
    """
    database = engine.url.database
    held: bool = getattr(_writer, "held", False)
    if engine.dialect.name != "sqlite" or not database or database == ":memory:" or held:
        yield
        return
    fd = os.open(f"{database}-writer.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _writer.held = True
        try:
            yield
        finally:
            _writer.held = False
    finally:
        os.close(fd)  # releases the lock


def alembic_config(engine: Engine) -> Any:
    """Alembic's configuration for our migrations folder and this engine."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    cfg.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    return cfg


def upgrade(engine: Engine) -> None:
    """Bring the database schema up to date (alembic upgrade heads)."""
    from alembic import command

    cfg = alembic_config(engine)
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "heads")
