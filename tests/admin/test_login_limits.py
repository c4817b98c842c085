"""The login limits behind a reverse proxy (PROXY_FIX), per account as well as per address, and the limiter's
key prefix (RATELIMIT_KEY_PREFIX)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from limits import parse as parse_limit
from werkzeug.test import TestResponse

from pbem import admin, create_app, db
from pbem.config import ConfigError
from pbem.models import AdminUser

from .conftest import PASSWORD, assert_page, csrf_of, logged_in, login_refused

PROXY = "10.0.0.1"


@pytest.fixture
def make_app(database_url: str, app: Flask, organiser: admin.Actor) -> Iterator[Any]:
    """Build apps on the test database with extra settings (the ``app`` fixture migrated it)."""
    made: list[Flask] = []

    def make(**settings: Any) -> Flask:
        built = create_app({"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "k" * 40, **settings})
        made.append(built)
        return built

    yield make
    for built in made:
        built.extensions["pbem_engine"].dispose()


def _login(app: Flask, client_address: str, password: str, username: str = "org") -> TestResponse:
    """A login through the proxy: the peer is the proxy, the client's address is in X-Forwarded-For."""
    client: FlaskClient = app.test_client()
    client.environ_base["REMOTE_ADDR"] = PROXY
    client.environ_base["HTTP_X_FORWARDED_FOR"] = client_address
    token = csrf_of(client)
    return client.post("/admin/login", data={"csrf_token": token, "username": username, "password": password})


def test_behind_a_trusted_proxy_addresses_are_counted_apart(make_app: Any) -> None:
    app = make_app(PROXY_FIX=1)
    for _ in range(5):
        response = _login(app, "203.0.113.5", "wrong password")
        assert login_refused(response) or response.status_code == 429
    assert_page(_login(app, "203.0.113.5", PASSWORD), 429, "from your address")
    assert logged_in(_login(app, "203.0.113.6", PASSWORD)), "another organiser behind the proxy logs in"


def test_without_proxy_fix_everyone_behind_the_proxy_shares_one_count(make_app: Any) -> None:
    app = make_app()
    for _ in range(5):
        _login(app, "203.0.113.5", "wrong password")
    assert_page(_login(app, "203.0.113.6", PASSWORD), 429, "from your address")


def test_a_forwarded_header_is_not_believed_without_proxy_fix(make_app: Any) -> None:
    app = make_app()
    for n in range(5):
        _login(app, f"198.51.100.{n}", "wrong password")  # a client cannot dodge the count by inventing addresses
    assert_page(_login(app, "198.51.100.99", PASSWORD), 429)


def test_wrong_passwords_for_one_account_are_counted_across_addresses(make_app: Any) -> None:
    app = make_app(PROXY_FIX=1, ADMIN_LOGIN_ACCOUNT_LIMIT="3 per hour")
    with app.app_context(), db.write_session() as session:
        session.add(AdminUser(username="other", password_hash=admin.hash_password(PASSWORD)))
    for n in range(2):
        assert login_refused(_login(app, f"203.0.113.{n}", "wrong password", "ORG"))
    refused = _login(app, "203.0.113.50", "wrong password")
    assert_page(refused, 429, "Too many login attempts", "for this login name")
    assert 3000 < int(refused.headers["Retry-After"]) <= 3600
    assert_page(_login(app, "203.0.113.51", PASSWORD), 429, "for this login name"), "the account waits"
    assert logged_in(_login(app, "203.0.113.52", PASSWORD, "other")), "another account is not affected"


def test_the_key_prefix_is_used(make_app: Any) -> None:
    app = make_app(RATELIMIT_KEY_PREFIX="pbem-test")
    _login(app, "x", "wrong password")
    strategy = app.extensions["pbem_limiter"].limiter
    item = parse_limit(app.config["ADMIN_LOGIN_LIMIT"])
    account = parse_limit(app.config["ADMIN_LOGIN_ACCOUNT_LIMIT"])
    assert strategy.get_window_stats(item, "pbem-test", "admin-login", PROXY).remaining == 4
    assert strategy.get_window_stats(account, "pbem-test", "admin-login-account", "org").remaining == 9
    assert strategy.get_window_stats(item, "admin-login", PROXY).remaining == 5, "nothing counted without it"


def test_the_key_prefix_keeps_two_sites_apart_in_one_redis(make_app: Any) -> None:
    url = os.environ.get("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis must run on CI at {url}: {exc}")
        pytest.skip(f"needs Redis at {url}: {exc}")
    prefixes = [f"site-{secrets.token_hex(4)}", f"site-{secrets.token_hex(4)}"]
    one, two = (make_app(RATELIMIT_STORAGE_URI=url, RATELIMIT_KEY_PREFIX=p, PROXY_FIX=1) for p in prefixes)
    try:
        for _ in range(5):
            _login(one, "203.0.113.9", "wrong password")
        assert_page(_login(one, "203.0.113.9", PASSWORD), 429)
        assert logged_in(_login(two, "203.0.113.9", PASSWORD)), "the other site counts apart"
    finally:
        for app, prefix in ((one, prefixes[0]), (two, prefixes[1])):
            strategy = app.extensions["pbem_limiter"].limiter
            strategy.clear(parse_limit(app.config["ADMIN_LOGIN_LIMIT"]), prefix, "admin-login", "203.0.113.9")
            strategy.clear(parse_limit(app.config["ADMIN_LOGIN_ACCOUNT_LIMIT"]), prefix, "admin-login-account", "org")


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"PROXY_FIX": -1}, "PROXY_FIX"),
        ({"PROXY_FIX": "1"}, "PROXY_FIX"),
        ({"RATELIMIT_KEY_PREFIX": "two words"}, "RATELIMIT_KEY_PREFIX"),
        ({"ADMIN_LOGIN_ACCOUNT_LIMIT": "often"}, "ADMIN_LOGIN_ACCOUNT_LIMIT"),
    ],
)
def test_bad_settings_are_refused(database_url: str, settings: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        create_app({"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "k" * 40, **settings})
