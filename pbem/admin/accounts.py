"""Organiser accounts and their login sessions."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timedelta
from functools import cache
from typing import Any

import sqlalchemy as sa
from flask_babel import gettext as _
from sqlalchemy import or_, update
from sqlmodel import Session, col, select
from werkzeug.security import check_password_hash, generate_password_hash

from .. import timing
from ..core.checks import check_language, check_timezone, require_email
from ..core.errors import ServiceError
from ..i18n import N_
from ..models import AdminSession, AdminUser
from .common import Actor

USERNAME = re.compile(r"[A-Za-z0-9._@-]{1,64}")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024


def check_username(value: Any) -> str:
    """A login name: 1-64 letters, digits and ``. _ @ -``; compared without case."""
    if not isinstance(value, str) or not USERNAME.fullmatch(value):
        raise ServiceError(N_("a login name is 1 to 64 letters, digits, dots, dashes, underscores or @"))
    return value.lower()


def check_new_password(value: Any) -> str:
    """A password of MIN_PASSWORD to MAX_PASSWORD characters, with at least 4 different characters."""
    if not isinstance(value, str) or len(value) < MIN_PASSWORD:
        raise ServiceError(N_("the password must be at least %(num)d characters"), num=MIN_PASSWORD)
    if len(value) > MAX_PASSWORD:
        raise ServiceError(N_("the password must be at most %(num)d characters"), num=MAX_PASSWORD)
    if len(set(value)) < 4:
        raise ServiceError(N_("the password is too simple: use at least 4 different characters"))
    return value


def hash_password(password: str) -> str:
    """A scrypt hash of the password (werkzeug)."""
    return generate_password_hash(password, method="scrypt")


@cache
def _dummy_hash() -> str:
    return hash_password(secrets.token_hex(16))


def create_admin(
    *,
    session: Session,
    username: str,
    password: str,
    email: str | None = None,
    timezone: str | None = None,
    reset: bool = False,
    language: str | None = None,
) -> AdminUser:
    """Create an organiser account (time zone UTC and English unless given); with ``reset``, give an existing one
    a new password, which ends all their sessions (and a new email, time zone or language, if given)."""
    name = check_username(username)
    check_new_password(password)
    email = require_email(email, _("the organiser")) if email else None
    zone = check_timezone(timezone, _("the organiser")) if timezone is not None else None
    lang = check_language(language) if language is not None else None
    user = session.exec(select(AdminUser).where(AdminUser.username == name)).first()
    if user is None and reset:
        raise ServiceError(N_("there is no admin %(name)r to reset"), name=name)
    if user is not None and not reset:
        raise ServiceError(N_("there is already an admin %(name)r (use --reset to give it a new password)"), name=name)
    if user is None:
        user = AdminUser(
            username=name,
            password_hash=hash_password(password),
            email=email,
            timezone=zone or "UTC",
            language=lang or "en",
        )
    else:
        user.password_hash = hash_password(password)
        user.email = email or user.email
        user.timezone = zone or user.timezone
        user.language = lang or user.language
    session.add(user)
    session.flush()
    if reset:
        end_all_sessions(session=session, admin_id=user.id or 0)
    return user


def authenticate(*, session: Session, username: Any, password: Any, now: datetime | None = None) -> AdminUser | None:
    """The admin with that login and password, or None; takes as long for an unknown login as for a known one."""
    if not isinstance(password, str) or len(password) > MAX_PASSWORD:
        return None
    user = None
    if isinstance(username, str) and USERNAME.fullmatch(username):
        user = session.exec(select(AdminUser).where(AdminUser.username == username.lower())).first()
    if user is None:
        check_password_hash(_dummy_hash(), password)
        return None
    if not check_password_hash(user.password_hash, password):
        return None
    user.last_login_at = now or timing.now()
    session.add(user)
    return user


SESSION_KEEP = timedelta(days=31)
"""Revoked or old session rows are deleted when their admin next logs in (ADMIN_SESSION_HOURS is at most 30 days)."""


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start_session(*, session: Session, user: AdminUser, now: datetime | None = None) -> str:
    """A new server-side login session for ``user``; returns what the login cookie stores (``<admin id>.<token>``).

    The token is random and only its hash is stored; rows this admin no longer needs are deleted on the way.
    """
    now = now or timing.now()
    assert user.id is not None
    session.execute(
        sa.delete(AdminSession).where(
            col(AdminSession.admin_id) == user.id,
            or_(col(AdminSession.revoked_at).is_not(None), col(AdminSession.created_at) < now - SESSION_KEEP),
        )
    )
    token = secrets.token_urlsafe(32)
    session.add(AdminSession(token_hash=_token_hash(token), admin_id=user.id, created_at=now))
    session.flush()
    return f"{user.id}.{token}"


def _parse_session(value: Any) -> tuple[int, str] | None:
    """The admin id and the token hash of a cookie's value, or None if it is malformed."""
    if not isinstance(value, str) or len(value) > 100:
        return None
    admin_id, _, token = value.partition(".")
    if not admin_id.isascii() or not admin_id.isdigit() or len(admin_id) > 12 or not token:
        return None
    return int(admin_id), _token_hash(token)


def _session_row(session: Session, value: Any) -> AdminSession | None:
    """The open session row a cookie's value names, or None (malformed, unknown, revoked or another admin's)."""
    parsed = _parse_session(value)
    if parsed is None:
        return None
    query = select(AdminSession).where(
        AdminSession.token_hash == parsed[1],
        AdminSession.admin_id == parsed[0],
        col(AdminSession.revoked_at).is_(None),
    )
    return session.exec(query).first()


def admin_for_session(*, session: Session, value: str) -> AdminUser | None:
    """The admin a login cookie names, or None when its session was revoked (logout, a new password) or is unknown.

    One query on every admin page: the open session joined with its admin.
    """
    parsed = _parse_session(value)
    if parsed is None:
        return None
    query = (
        select(AdminUser)
        .join(AdminSession, col(AdminSession.admin_id) == col(AdminUser.id))
        .where(
            AdminSession.token_hash == parsed[1],
            AdminSession.admin_id == parsed[0],
            col(AdminSession.revoked_at).is_(None),
        )
    )
    return session.exec(query).first()


def end_session(*, session: Session, value: str, now: datetime | None = None) -> bool:
    """Revoke the login session a cookie names (logging out): a copy of the cookie no longer works. True if open."""
    row = _session_row(session, value)
    if row is None:
        return False
    row.revoked_at = now or timing.now()
    session.add(row)
    return True


def end_all_sessions(*, session: Session, admin_id: int, now: datetime | None = None) -> int:
    """Revoke every open login session of an admin ("log out everywhere", a new password); how many were open."""
    result = session.execute(
        update(AdminSession)
        .where(col(AdminSession.admin_id) == admin_id, col(AdminSession.revoked_at).is_(None))
        .values(revoked_at=now or timing.now())
    )
    return int(getattr(result, "rowcount", 0) or 0)


def actor_of(user: AdminUser) -> Actor:
    """The organiser as the services record them."""
    return Actor(id=user.id or 0, name=user.username, email=user.email, timezone=user.timezone)


def set_language(*, session: Session, admin_id: int, language: Any) -> AdminUser:
    """Store the language the admin area speaks to this organiser (one of i18n.SUPPORTED, any case)."""
    lang = check_language(language)
    user = session.get(AdminUser, admin_id)
    if user is None:
        raise ServiceError(N_("there is no admin %(id)s"), id=admin_id)
    user.language = lang
    session.add(user)
    session.flush()
    return user
