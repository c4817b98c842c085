"""``pbem doctor``: checks a site's configuration end to end without sending any email.

Each check gives one line: OK and what was found, or what is wrong and how to fix it. The database (reachable,
migrated), the secret key, the links' address, the SMTP relay (connection, STARTTLS, login: no message is sent),
Redis, the game files' folder and the scheduler's heartbeat. Inbound mail and DKIM are checked by their own
features when configured.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import redis as redis_client
from flask import Flask
from flask_babel import gettext as _
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from .. import config, db
from ..core import health
from ..mail import sender


@dataclass(frozen=True)
class Finding:
    """One check's result: whether it is fine, and what to say."""

    ok: bool
    what: str


Check = Callable[[Flask, datetime], Finding]


def secret_key(app: Flask, _now: datetime) -> Finding:
    key = str(app.config["SECRET_KEY"])
    if key == config.DEFAULT_SECRET or len(key) < 32:
        return Finding(False, _("SECRET_KEY is the default or shorter than 32 characters: set PBEM_SECRET_KEY"))
    return Finding(True, _("SECRET_KEY is set (%(length)s characters)", length=len(key)))


def server_name(app: Flask, _now: datetime) -> Finding:
    address = f"{app.config['PREFERRED_URL_SCHEME']}://{app.config['SERVER_NAME']}"
    if app.config["PREFERRED_URL_SCHEME"] != "https":
        return Finding(False, _("links start with %(address)s: set PBEM_PREFERRED_URL_SCHEME=https", address=address))
    return Finding(True, _("links start with %(address)s", address=address))


def database(app: Flask, _now: datetime) -> Finding:
    shown = app.extensions["pbem_engine"].url.render_as_string(hide_password=True)
    try:
        with Session(app.extensions["pbem_engine"]) as session:
            current = db.schema_revisions(session)
    except SQLAlchemyError as exc:
        return Finding(False, _("database %(url)s cannot be reached: %(error)s", url=shown, error=type(exc).__name__))
    if current != db.schema_heads():
        return Finding(False, _("database %(url)s is not up to date: run pbem db-upgrade", url=shown))
    return Finding(True, _("database %(url)s is reachable and up to date", url=shown))


def smtp(app: Flask, _now: datetime) -> Finding:
    if app.config["MAIL_BACKEND"] != "smtp":
        return Finding(False, _("MAIL_BACKEND is not smtp: no email leaves this server"))
    courier = sender.Courier()
    try:
        courier.connection()
    except Exception as exc:
        return Finding(
            False,
            _("the SMTP server %(server)s does not accept us: %(error)s", server=courier.where, error=str(exc)[:200]),
        )
    finally:
        courier.close()
    login = _(", logged in") if app.config["MAIL_USERNAME"] else ""
    return Finding(
        True, _("the SMTP server %(server)s answers%(login)s (nothing sent)", server=courier.where, login=login)
    )


def redis(app: Flask, _now: datetime) -> Finding:
    uri = str(app.config["RATELIMIT_STORAGE_URI"])
    if not uri.startswith(("redis://", "rediss://")):
        return Finding(True, _("limits are kept in memory (%(uri)s): fine for one worker", uri=uri))
    try:
        redis_client.Redis.from_url(uri, socket_timeout=5).ping()
    except redis_client.RedisError as exc:
        return Finding(False, _("Redis %(uri)s does not answer: %(error)s", uri=uri, error=type(exc).__name__))
    return Finding(True, _("Redis %(uri)s answers", uri=uri))


def game_files(app: Flask, _now: datetime) -> Finding:
    folder = config.game_files(app)
    if not folder.exists():
        return Finding(
            True, _("no game files folder (%(folder)s): organisers use the packaged card sets", folder=folder)
        )
    if not folder.is_dir() or not os.access(folder, os.R_OK | os.X_OK):
        return Finding(False, _("the game files folder %(folder)s cannot be read", folder=folder))
    links = [p for p in Path(folder).rglob("*") if stat.S_ISLNK(p.lstat().st_mode)]
    if links:
        return Finding(
            False,
            _("%(folder)s holds symbolic links, which are never followed: %(first)s", folder=folder, first=links[0]),
        )
    return Finding(True, _("the game files folder %(folder)s can be read", folder=folder))


def scheduler(app: Flask, now: datetime) -> Finding:
    limit = 3 * app.config["SCHEDULER_SEND_SECONDS"]
    try:
        with Session(app.extensions["pbem_engine"]) as session:
            beat = health.beats(session=session).get("send-mail")
    except SQLAlchemyError:
        return Finding(False, _("the scheduler's heartbeat cannot be read"))
    if beat is None or (now - beat.beat_at).total_seconds() > limit:
        return Finding(False, _("the scheduler is not running: start pbem scheduler (systemctl start pbem-scheduler)"))
    return Finding(True, _("the scheduler is running"))


CHECKS: tuple[Check, ...] = (secret_key, server_name, database, smtp, redis, game_files, scheduler)


def run(app: Flask, now: datetime) -> list[Finding]:
    """Every check, in order."""
    return [check(app, now) for check in CHECKS]
