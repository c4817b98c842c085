"""Helpers for the hostile web tests: forge and age tokens, rotate nonces, drop games, snapshot a table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import inspect, text
from werkzeug.test import TestResponse

from pbem import db, timing
from pbem.core import links
from pbem.core import seats as seat_rows
from tests.apps import Table

DAY = 86400
TRACE = re.compile(r"Traceback|File \"|\bline \d+, in\b")


def sign(app: Flask, payload: Any, salt: str = links.PERSONAL, key: str | None = None) -> str:
    """A token for ``payload`` signed with ``key`` (default: the app's current key) and ``salt``."""
    return URLSafeTimedSerializer(key or app.config["SECRET_KEY"], salt=salt).dumps(payload)


def tamper(token: str) -> str:
    """The token with one character of its signature changed: the second-to-last, all of whose bits count
    (the last character of a base64 signature carries padding bits that decoding may ignore)."""
    return token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]


@contextmanager
def signed_at(when: float) -> Iterator[None]:
    """Inside the block, new signatures are timestamped at ``when`` (a Unix time): the app's, whose signer reads
    ``timing.now``, and those of ``sign`` (itsdangerous's own ``TimestampSigner.get_timestamp``). Only the signing
    is done in the block; the age is checked outside it, by the clock.
    """
    with pytest.MonkeyPatch.context() as patch, timing.frozen(datetime.fromtimestamp(when, UTC)):
        patch.setattr(TimestampSigner, "get_timestamp", lambda _self: int(when))
        yield


def days_ago(days: float) -> float:
    """The Unix time ``days`` days before now."""
    return timing.now().timestamp() - days * DAY


def rotate_nonce(app: Flask, game_id: int, position: int, nonce: str = "rotated-nonce-0123456789") -> None:
    """Give a seat a new secret nonce, as an organiser revoking its links would."""
    with app.extensions["pbem_engine"].begin() as conn:
        conn.execute(
            text("UPDATE seat SET nonce = :n WHERE game_id = :g AND position = :p"),
            {"n": nonce, "g": game_id, "p": position},
        )


def delete_game(app: Flask, game_id: int) -> None:
    """Remove a game with everything that refers to it (emails, admin actions, waits, moves, seats)."""
    with app.extensions["pbem_engine"].begin() as conn:
        tables = set(inspect(conn).get_table_names())
        for sql in (
            *(f"DELETE FROM {t} WHERE game_id = :g" for t in ("outbox", "admin_action", "wait") if t in tables),
            "DELETE FROM move WHERE game_id = :g",
            "DELETE FROM seat WHERE game_id = :g",
            "DELETE FROM game WHERE id = :g",
        ):
            conn.execute(text(sql), {"g": game_id})


def snapshot(table: Table) -> tuple[int, str, int]:
    """What must not change when a request is refused: version, the stored state (JSON), the log length."""
    with table.app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
        return game.version, repr(game.state), table.moves_logged()


def assert_error_page(response: TestResponse, status: int | tuple[int, ...], *words: str) -> None:
    """An HTML error page with that status (or one of them), no traceback, and each of ``words`` in it."""
    statuses = (status,) if isinstance(status, int) else status
    body = response.get_data(as_text=True)
    assert response.status_code in statuses, f"status {response.status_code}, expected {statuses}: {body[:500]}"
    assert response.mimetype == "text/html"
    assert not TRACE.search(body), body
    assert "<h1>" in body, "the error is a page with a heading"
    for word in words:
        assert word in body, f"{word!r} not in the page: {body[:800]}"
