"""Backups, restores and checks of the whole database: ``pbem backup``, ``pbem restore``, ``pbem verify``.

SQLite is copied with its online backup API (a consistent copy while the server runs and writes); PostgreSQL with
``pg_dump`` in its custom format (a consistent snapshot, restored by ``pg_restore``). A restore goes into an empty
database only. ``verify`` replays every game's log and compares the result with the stored snapshot, checks that
each game waits on exactly the decisions its state has open, and counts the outbox's unsent mail.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, inspect, update
from sqlalchemy.engine import URL
from sqlmodel import Session, col, func, select

from .. import timing
from ..core import games
from ..models import Game, OutboxEmail, Seat, Wait

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"


class BackupError(RuntimeError):
    """A backup or restore that cannot be done; the message says why."""


def _sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory SQLite database cannot be backed up")
    return Path(url.database)


def _libpq(url: URL) -> tuple[str, dict[str, str], str | None]:
    """A libpq connection string for pg_dump and pg_restore, the environment with the password, and the schema
    named by a ``search_path`` option (only that schema is dumped)."""
    query = dict(url.query)
    options = str(query.get("options", ""))
    schema = None
    for part in options.split():
        if part.startswith("-csearch_path="):
            schema = part.split("=", 1)[1]
    plain = url.set(drivername="postgresql", password=None)
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    return plain.render_as_string(hide_password=False), env, schema


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not installed (Debian: apt install postgresql-client)")
    return found


def backup(engine: Engine, target: Path) -> str:
    """Write a backup of the database of ``engine`` to ``target`` (which must not exist); what was written."""
    if target.exists():
        raise BackupError(f"{target} exists already: choose a new file name")
    url = engine.url
    if url.get_backend_name() == "sqlite":
        source = _sqlite_path(url)
        partial = target.with_name(target.name + ".partial")
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(partial) as dst:
            src.backup(dst)
        dst.close()
        partial.rename(target)
        return f"SQLite database {source} copied to {target} ({target.stat().st_size} bytes)"
    conninfo, env, schema = _libpq(url)
    command = [_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", f"--file={target}"]
    if schema:
        command.append(f"--schema={schema}")
    done = subprocess.run([*command, conninfo], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        raise BackupError(f"pg_dump failed: {done.stderr.strip()}")
    return f"PostgreSQL database dumped to {target} ({target.stat().st_size} bytes, pg_dump custom format)"


def _empty(engine: Engine) -> bool:
    with engine.connect() as connection:
        return not inspect(connection).get_table_names()


@dataclass
class Restored:
    """What a restore found: the emails that were waiting at the backup's moment (they are sent now)."""

    description: str
    unsent: int = 0
    in_flight: int = 0


def restore(engine: Engine, source: Path) -> Restored:
    """Restore the backup ``source`` into the empty database of ``engine``. Emails that were being sent at the
    backup's moment go back to the queue (the server sends them once more: a few may arrive twice)."""
    if not source.is_file():
        raise BackupError(f"{source} is not a file")
    with source.open("rb") as file:
        magic = file.read(16)
    if not _empty(engine):
        raise BackupError("the database is not empty: restore into a new, empty database")
    url = engine.url
    if url.get_backend_name() == "sqlite":
        if not magic.startswith(SQLITE_MAGIC):
            raise BackupError(f"{source} is not a SQLite backup")
        engine.dispose()
        target = _sqlite_path(url)
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(target) as dst:
            src.backup(dst)
        dst.close()
        description = f"SQLite backup {source} restored into {target}"
    else:
        if not magic.startswith(PG_MAGIC):
            raise BackupError(f"{source} is not a pg_dump custom-format backup")
        conninfo, env, _schema = _libpq(url)
        command = [_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction"]
        done = subprocess.run(
            [*command, f"--dbname={conninfo}", str(source)], env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise BackupError(f"pg_restore failed: {done.stderr.strip()}")
        description = f"PostgreSQL backup {source} restored"
    with Session(engine) as session, session.begin():
        in_flight = session.execute(
            update(OutboxEmail)
            .where(col(OutboxEmail.status) == "sending")
            .values(status="queued", claimed_by=None, claimed_at=None, next_attempt_at=timing.now())
        ).rowcount  # type: ignore[attr-defined]
        unsent = session.exec(select(func.count()).where(col(OutboxEmail.status) == "queued")).one()
    return Restored(description, int(unsent), int(in_flight))


@dataclass
class Verified:
    """What ``verify`` found: games checked, and the problems (none when all is well)."""

    games: int = 0
    problems: list[str] = field(default_factory=list)
    unsent: int = 0
    dead: int = 0


def verify(*, session: Session, game_ids: list[int] | None = None) -> Verified:
    """Replay every game (or those of ``game_ids``) and compare with its snapshot; check each running game waits
    on exactly its open decisions (paused too) and a finished or stopped one on nobody; count unsent and dead mail."""
    report = Verified()
    query = select(Game.id).order_by(col(Game.id))
    if game_ids:
        query = query.where(col(Game.id).in_(game_ids))
    for game_id in session.exec(query).all():
        report.games += 1
        game_id = int(game_id or 0)
        try:
            if not games.verify_game(session=session, game_id=game_id):
                report.problems.append(f"game {game_id}: replaying its log does not give its stored state")
                continue
        except Exception as exc:  # a log the engine refuses: that is what verify is for
            report.problems.append(f"game {game_id}: its log cannot be replayed ({type(exc).__name__}: {exc})")
            continue
        report.problems.extend(_check_waits(session, game_id))
    statuses = dict(session.exec(select(OutboxEmail.status, func.count()).group_by(col(OutboxEmail.status))).all())
    report.unsent = int(statuses.get("queued", 0)) + int(statuses.get("sending", 0))
    report.dead = int(statuses.get("dead", 0))
    unknown = set(statuses) - {"queued", "sending", "sent", "dead", "dropped"}
    if unknown:
        report.problems.append(f"outbox: emails with an unknown status {sorted(unknown)}")
    return report


def _check_waits(session: Session, game_id: int) -> list[str]:
    game = session.get(Game, game_id)
    assert game is not None
    rules = games.rules_of(game)
    stored = {(w.seat, w.wait) for w in session.exec(select(Wait).where(col(Wait.game_id) == game_id)).all()}
    if game.aborted_at is not None or game.status != "playing":  # a paused game keeps its waits
        expected: set[tuple[int, str]] = set()
    else:
        positions = {s.name: s.position for s in session.exec(select(Seat).where(col(Seat.game_id) == game_id))}
        waiting = rules.waiting_for(games.load_state(game))
        expected = {(positions[player], decision.wait) for player, decision in waiting.items()}
    if stored == expected:
        return []
    return [f"game {game_id}: waits on {sorted(stored)} but its state waits on {sorted(expected)}"]
