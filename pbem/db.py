"""Database engines and sessions: SQLite (WAL, busy timeout, BEGIN IMMEDIATE for writes) or PostgreSQL
(lock and statement timeouts), and what a database error means for a request (busy, read-only, gone)."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import orjson
from flask import Flask, current_app, g, has_app_context
from sqlalchemy import CursorResult, Engine, Executable, event, inspect, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session, create_engine
from werkzeug.routing import IntegerConverter

log = logging.getLogger(__name__)

# The largest row id: PostgreSQL's INTEGER (SQLite's is larger, but ids never get there).
MAX_ID = 2**31 - 1


def database_url(app: Flask) -> str:
    """The configured URL, or SQLite in the instance folder."""
    url: str = app.config["DATABASE_URL"]
    if url:
        return url
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{Path(app.instance_path) / 'pbem.sqlite3'}"


def dumps(value: Any) -> str:
    """JSON text of a column's value: orjson (keys that are not strings written as strings, as the standard
    library does); the standard library for what orjson refuses (an integer wider than 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    """A column's JSON value: orjson, else the standard library (which also reads NaN and Infinity)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


_JSON_CODEC: dict[str, Any] = {"json_serializer": dumps, "json_deserializer": loads}
"""Every JSON column (a game's state, the log's moves and events) is read and written through orjson."""


def make_engine(
    url: str, busy_timeout_ms: int = 5000, lock_timeout_ms: int = 5000, statement_timeout_ms: int = 15000
) -> Engine:
    """An engine; for SQLite with SQLAlchemy's recipe so that we, not pysqlite, emit BEGIN; for PostgreSQL
    with ``lock_timeout`` and ``statement_timeout`` on every connection (0 turns one off)."""
    if not url.startswith("sqlite"):
        pg = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10, **_JSON_CODEC)

        @event.listens_for(pg, "connect")
        def _timeouts(dbapi_connection: Any, _record: Any) -> None:
            with dbapi_connection.cursor() as cursor:
                cursor.execute(f"SET lock_timeout = {int(lock_timeout_ms)}")
                cursor.execute(f"SET statement_timeout = {int(statement_timeout_ms)}")
            dbapi_connection.commit()  # else the pool's rollback on return would undo the SETs

        return pg
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        pool_size=8,
        max_overflow=16,
        **_JSON_CODEC,
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
    """Create the app's engine, close the request's session at teardown, and add the ``id`` URL converter."""
    cfg = app.config
    engine = make_engine(
        database_url(app), cfg["SQLITE_BUSY_TIMEOUT_MS"], cfg["DB_LOCK_TIMEOUT_MS"], cfg["DB_STATEMENT_TIMEOUT_MS"]
    )
    app.extensions["pbem_engine"] = engine
    app.teardown_appcontext(_close_session)
    app.url_map.converters["id"] = IdConverter


class IdConverter(IntegerConverter):
    """``<id:name>``: a row id, at most MAX_ID; a larger number is no row (404), not a database error."""

    def __init__(self, map: Any) -> None:
        super().__init__(map, max=MAX_ID)


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


def rows(session: Session, statement: Executable, params: Mapping[str, Any] | None = None) -> CursorResult[Any]:
    """Run a Core statement of plain columns in the session's transaction, without the ORM's work per
    statement: the hot reads of a page. Pending changes are flushed first, as the session's own queries do."""
    session.flush()
    return session.connection().execute(statement, params)


def _close_session(_exc: BaseException | None) -> None:
    """End the request's read session. Its connection may have been lost after the page was built (a failover,
    a killed backend): the rollback then fails, which must not turn the finished page into a bare 500."""
    session = g.pop("db_session", None)
    if session is None:
        return
    try:
        session.close()
    except DBAPIError as exc:
        log.warning("database connection lost after the request was answered: %s", type(exc.orig).__name__)
        with suppress(DBAPIError):  # already invalidated: the pool replaces it
            session.invalidate()


def drop_session() -> None:
    """Close the request's read session (after a lost connection: the next one starts on a fresh one)."""
    _close_session(None)


@contextmanager
def write_session(engine: Engine | None = None) -> Iterator[Session]:
    """One write transaction (BEGIN IMMEDIATE on SQLite): commit on success, roll back on error.

    Before the COMMIT is sent, the app context notes it (``committing``): from then on a lost
    connection leaves it unknown whether the transaction was saved, and the request is not retried.
    """
    engine = engine or get_engine()
    with (
        _sqlite_writer_lock(engine),
        Session(engine.execution_options(pbem_write=True)) as session,
        session.begin(),
    ):
        yield session
        session.flush()
        if has_app_context():
            g.pbem_committing = True


def committing() -> bool:
    """Whether a write transaction of this app context got as far as its COMMIT."""
    return bool(g.get("pbem_committing"))


BUSY, READ_ONLY, GONE = "busy", "read-only", "gone"
# PostgreSQL SQLSTATEs: lock_not_available, query_canceled (statement_timeout), deadlock_detected,
# serialization_failure, too_many_connections; read_only_sql_transaction (a standby after failover);
# admin_shutdown, crash_shutdown, cannot_connect_now and the connection exceptions (class 08).
_PG = {"55P03": BUSY, "57014": BUSY, "40P01": BUSY, "40001": BUSY, "53300": BUSY, "25006": READ_ONLY}
_PG_GONE = ("57P01", "57P02", "57P03", "08")
# SQLite primary result codes: SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY.
_SQLITE = {5: BUSY, 6: BUSY, 8: READ_ONLY}


def unavailable(exc: DBAPIError) -> str | None:
    """Why the database could not do its part (BUSY, READ_ONLY or GONE), or None for an error of ours (a bug)."""
    if exc.connection_invalidated:
        return GONE
    orig = exc.orig
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if isinstance(code, str):
        if code in _PG:
            return _PG[code]
        if code.startswith(_PG_GONE):
            return GONE
    if isinstance(orig, sqlite3.Error):
        kind = _SQLITE.get(getattr(orig, "sqlite_errorcode", 0) & 0xFF)
        if kind:
            return kind
    if isinstance(exc, OperationalError):  # the database's side: cannot connect, disk full, I/O error ...
        return GONE
    return None


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
    if engine.dialect.name != "sqlite" or not database or ":memory:" in database or held:
        yield
        return
    if engine.url.query.get("uri") == "true" and database.startswith("file:"):
        database = database.removeprefix("file:").split("?")[0]  # sqlite:///file:/path?mode=ro&uri=true
    try:
        fd = os.open(f"{database}-writer.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # a folder gone or read-only: SQLite itself will say what is wrong (a 503, not a 500)
        yield
        return
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
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("SET LOCAL statement_timeout = 0")  # a migration may rewrite big tables
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "heads")


_HEADS: dict[str, frozenset[str]] = {}


def schema_heads() -> frozenset[str]:
    """The newest revisions of our migrations (read once per process: they change only with the code)."""
    if "heads" not in _HEADS:
        from alembic.script import ScriptDirectory

        cfg = alembic_config_for_scripts()
        _HEADS["heads"] = frozenset(ScriptDirectory.from_config(cfg).get_heads())
    return _HEADS["heads"]


def alembic_config_for_scripts() -> Any:
    """Alembic's configuration for reading our migrations folder (no database)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    return cfg


def schema_revisions(session: Session) -> frozenset[str]:
    """The revisions the database says it is at (empty before the first ``pbem db-upgrade``)."""
    connection = session.connection()
    if not inspect(connection).has_table("alembic_version"):
        return frozenset()
    return frozenset(str(v) for v in connection.execute(text("SELECT version_num FROM alembic_version")).scalars())
