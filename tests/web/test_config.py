"""Configuration: defaults, then the PBEM_CONFIG file, then PBEM_* variables, then the test mapping; unsafe refused."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from pbem import create_app, db
from pbem.config import DEFAULT_SECRET, ConfigError
from pbem.core import games
from tests.apps import new_table

REAL_KEY = "a-real-production-key-" + "q" * 40
AppFactory = Callable[..., Flask]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No PBEM_* or DATABASE_URL from the shell that runs the tests."""
    for name in list(os.environ):
        if name.startswith("PBEM_") or name == "DATABASE_URL":
            monkeypatch.delenv(name)


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[AppFactory]:
    """create_app with a database in tmp_path (unless the mapping names one); engines disposed afterwards."""
    made: list[Flask] = []

    def make(mapping: dict[str, Any] | None = None, **kw: Any) -> Flask:
        # smtp: production refuses the development mailbox (tested in tests/mail); nothing is sent here.
        config = {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'config.sqlite3'}",
            "MAIL_BACKEND": "smtp",
            "PREFERRED_URL_SCHEME": "https",
            "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
            **(mapping or {}),
            **kw,
        }
        app = create_app(config)
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["pbem_engine"].dispose()


def test_defaults(make_app: AppFactory) -> None:
    app = make_app()
    assert app.config["ENV"] == "development"
    assert app.config["DEVELOPMENT"] is True
    assert app.config["MOVE_LINK_DAYS"] == 30
    assert app.config["PERSONAL_LINK_DAYS"] == 120
    assert app.config["SECRET_KEY_FALLBACKS"] == []
    assert app.config["TRUSTED_HOSTS"] == ["127.0.0.1", "localhost"]


@pytest.mark.parametrize("key", [DEFAULT_SECRET, ""])
def test_production_refuses_the_default_key(make_app: AppFactory, key: str) -> None:
    with pytest.raises(ConfigError, match="SECRET_KEY"):
        make_app(ENV="production", SECRET_KEY=key)


def test_production_refuses_the_default_key_from_the_environment(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PBEM_ENV", "production")
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        make_app()


def test_production_starts_with_a_real_key(make_app: AppFactory) -> None:
    app = make_app(ENV="production", SECRET_KEY=REAL_KEY)
    assert app.config["DEVELOPMENT"] is False
    assert app.config["SESSION_COOKIE_SECURE"] is True


def test_production_with_a_real_key_from_the_environment(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_ENV", "production")
    monkeypatch.setenv("PBEM_SECRET_KEY", REAL_KEY)
    app = make_app()
    assert app.config["SECRET_KEY"] == REAL_KEY
    assert app.config["DEVELOPMENT"] is False


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_load_order(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """defaults < PBEM_CONFIG file < PBEM_* variables < test mapping."""
    config = _write(
        tmp_path / "site.toml",
        'SERVER_NAME = "file.example.org"\nMOVE_LINK_DAYS = 7\nPERSONAL_LINK_DAYS = 50\n'
        'TRUSTED_HOSTS = ["file.example.org"]\nPREFERRED_URL_SCHEME = "https"\n',
    )
    monkeypatch.setenv("PBEM_CONFIG", str(config))
    monkeypatch.setenv("PBEM_MOVE_LINK_DAYS", "3")
    monkeypatch.setenv("PBEM_PREFERRED_URL_SCHEME", "http")
    monkeypatch.setenv("PBEM_TRUSTED_HOSTS", '["env.example.org", "localhost"]')
    app = make_app(PREFERRED_URL_SCHEME="https")
    cfg = app.config
    assert cfg["BOT_KINDS"] == ["heuristic", "random"], "default kept"
    assert cfg["SERVER_NAME"] == "file.example.org", "file over defaults"
    assert cfg["PERSONAL_LINK_DAYS"] == 50, "file over defaults"
    assert cfg["MOVE_LINK_DAYS"] == 3 and type(cfg["MOVE_LINK_DAYS"]) is int, "env over file, parsed as an int"
    assert cfg["TRUSTED_HOSTS"] == ["env.example.org", "localhost"], "env parsed as JSON"
    assert cfg["PREFERRED_URL_SCHEME"] == "https", "test mapping over env"


def test_relative_config_path(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _write(tmp_path / "rel.toml", "MOVE_LINK_DAYS = 9\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_CONFIG", "rel.toml")
    assert make_app().config["MOVE_LINK_DAYS"] == 9


@pytest.mark.parametrize("name", ["missing.toml", "sub/dir/missing.toml", ""])
def test_missing_config_file_is_refused(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    target = tmp_path / name if name else tmp_path  # "" names a directory, not a file
    monkeypatch.setenv("PBEM_CONFIG", str(target))
    with pytest.raises(ConfigError) as info:
        make_app()
    message = str(info.value)
    assert "PBEM_CONFIG" in message
    assert str(target) in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("PBEM_MOVE_LINK_DAYS", "0", "MOVE_LINK_DAYS"),
        ("PBEM_MOVE_LINK_DAYS", "-4", "MOVE_LINK_DAYS"),
        ("PBEM_MOVE_LINK_DAYS", "abc", "MOVE_LINK_DAYS"),
        ("PBEM_PERSONAL_LINK_DAYS", "1.5", "PERSONAL_LINK_DAYS"),
        ("PBEM_SECRET_KEY_FALLBACKS", "old-key", "SECRET_KEY_FALLBACKS"),
        ("PBEM_SERVER_NAME", '""', "SERVER_NAME"),
        ("PBEM_SQLITE_BUSY_TIMEOUT_MS", "0", "SQLITE_BUSY_TIMEOUT_MS"),
        ("PBEM_DB_LOCK_TIMEOUT_MS", "-1", "DB_LOCK_TIMEOUT_MS"),
        ("PBEM_DB_LOCK_TIMEOUT_MS", '"5s"', "DB_LOCK_TIMEOUT_MS"),
        ("PBEM_DB_STATEMENT_TIMEOUT_MS", "1.5", "DB_STATEMENT_TIMEOUT_MS"),
        ("PBEM_DB_STATEMENT_TIMEOUT_MS", "600001", "DB_STATEMENT_TIMEOUT_MS"),
    ],
)
def test_bad_values_are_refused_with_the_setting_named(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, name: str, value: str, words: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=words):
        make_app()


def test_key_fallbacks_from_the_environment(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_SECRET_KEY_FALLBACKS", '["old-1", "old-2"]')
    assert make_app().config["SECRET_KEY_FALLBACKS"] == ["old-1", "old-2"]


def test_database_url_variable(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'plain.sqlite3'}")
    app = create_app({})
    try:
        assert app.config["DATABASE_URL"].endswith("plain.sqlite3")
    finally:
        app.extensions["pbem_engine"].dispose()
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    app = create_app({})
    try:
        assert app.config["DATABASE_URL"].endswith("pbem.sqlite3"), "PBEM_DATABASE_URL wins"
    finally:
        app.extensions["pbem_engine"].dispose()


def test_session_cookie_settings(make_app: AppFactory) -> None:
    dev = make_app().config
    assert (dev["SESSION_COOKIE_HTTPONLY"], dev["SESSION_COOKIE_SAMESITE"], dev["SESSION_COOKIE_SECURE"]) == (
        True,
        "Lax",
        False,
    )
    prod = make_app(ENV="production", SECRET_KEY=REAL_KEY).config
    assert (prod["SESSION_COOKIE_HTTPONLY"], prod["SESSION_COOKIE_SAMESITE"], prod["SESSION_COOKIE_SECURE"]) == (
        True,
        "Lax",
        True,
    )


def test_settings_cannot_weaken_the_cookie(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_SESSION_COOKIE_HTTPONLY", "false")
    monkeypatch.setenv("PBEM_SESSION_COOKIE_SAMESITE", '"None"')
    monkeypatch.setenv("PBEM_SESSION_COOKIE_SECURE", "false")
    cfg = make_app(ENV="staging", SECRET_KEY=REAL_KEY).config
    assert cfg["SESSION_COOKIE_HTTPONLY"] is True
    assert cfg["SESSION_COOKIE_SAMESITE"] == "Lax"
    assert cfg["SESSION_COOKIE_SECURE"] is True, "anything but development is production"


def test_production_page_sets_a_secure_cookie(make_app: AppFactory) -> None:
    app = make_app(ENV="production", SECRET_KEY=REAL_KEY, TESTING=True)
    with app.app_context():
        db.upgrade(db.get_engine())
    table = new_table(app, [games.SeatSpec("ann"), games.SeatSpec("bob")], seed=1)
    response = app.test_client().get(f"/play/{table.personal(0)}")
    assert response.status_code == 200
    cookie = response.headers.get("Set-Cookie", "")
    for flag in ("HttpOnly", "SameSite=Lax", "Secure"):
        assert flag in cookie, cookie


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ({"PREFERRED_URL_SCHEME": "http"}, "PBEM_PREFERRED_URL_SCHEME=https"),
        ({"RATELIMIT_STORAGE_URI": "memory://"}, "PBEM_RATELIMIT_STORAGE_URI=redis"),
    ],
)
def test_production_refuses_http_links_and_a_per_worker_login_limit(
    make_app: AppFactory, setting: dict[str, str], words: str
) -> None:
    with pytest.raises(ConfigError, match=words):
        make_app(ENV="production", SECRET_KEY=REAL_KEY, **setting)
    make_app(ENV="development", **setting)  # fine for trying it out
