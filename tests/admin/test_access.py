"""Access to the admin page: every route needs a login and every form a CSRF token; safe redirects; login limits."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from limits import parse as parse_limit
from werkzeug.routing import Rule

from pbem import admin, create_app, db
from pbem.models import AdminAction, OutboxEmail
from pbem.web.admin.base import safe_next
from tests.apps import Table

from .conftest import PASSWORD, assert_page, count, csrf_of, log_in, logged_in, login_refused, refused

PUBLIC = {"admin.login"}


def _urls(app: Flask, game_id: int) -> Iterator[tuple[Rule, str]]:
    """Every /admin rule with a URL for it: ``game_id`` for numbers, each choice of an ``any(…)``."""
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/admin") or rule.endpoint in PUBLIC:
            continue
        choices: list[dict[str, object]] = [{}]
        for name, converter in rule._converters.items():
            options = sorted(getattr(converter, "items", [])) or [game_id]
            choices = [{**c, name: option} for c in choices for option in options]
        with app.test_request_context():
            from flask import url_for

            for values in choices:
                yield rule, url_for(rule.endpoint, **values)


def _is_login_redirect(response: object, path: str) -> None:
    status = getattr(response, "status_code", None)
    location = getattr(response, "location", "") or ""
    assert status in (302, 303), f"{path}: {status}"
    assert urlsplit(location).path == "/admin/login", f"{path} → {location}"


def test_the_url_map_has_the_admin_routes(app: Flask, adm_table: Table) -> None:
    endpoints = {rule.endpoint for rule, _url in _urls(app, adm_table.game_id)}
    assert endpoints == {
        "admin.index",
        "admin.new_game",
        "admin.game",
        "admin.act",
        "admin.logout",
        "admin.logout_everywhere",
        "admin.language",
        "admin.personal_data",
        "admin.erase",
    }
    assert sum(1 for rule, _ in _urls(app, adm_table.game_id) if rule.endpoint == "admin.act") == 17


def test_every_admin_route_sends_a_visitor_to_the_login_page(app: Flask, client: FlaskClient, adm_table: Table) -> None:
    before = (adm_table.version(), adm_table.moves_logged(), count(app, AdminAction), count(app, OutboxEmail))
    token = csrf_of(client)
    for rule, url in _urls(app, adm_table.game_id):
        for method in sorted(rule.methods - {"OPTIONS"}):
            response = client.open(url, method=method, data={"csrf_token": token} if method == "POST" else None)
            _is_login_redirect(response, f"{method} {url}")
            if method == "GET":
                assert parse_qs(urlsplit(response.location).query).get("next") == [url]
    assert (adm_table.version(), adm_table.moves_logged(), count(app, AdminAction), count(app, OutboxEmail)) == before


def test_every_post_without_a_csrf_token_is_refused(admin_client: FlaskClient, app: Flask, adm_table: Table) -> None:
    before = (adm_table.version(), adm_table.moves_logged(), count(app, AdminAction), count(app, OutboxEmail))
    posts = [url for rule, url in _urls(app, adm_table.game_id) if "POST" in rule.methods]
    posts.append("/admin/login")
    assert len(posts) == 23
    for url in posts:
        for data in ({}, {"csrf_token": "forged"}, {"csrf_token": csrf_of(app.test_client())}):
            form = {"confirm": "yes", "seat": "1", "email": "x@example.com", "hours": "5", "decision": "0", **data}
            response = admin_client.post(url, data=form)
            assert_page(response, 400, "Please reload the page")
    assert (adm_table.version(), adm_table.moves_logged(), count(app, AdminAction), count(app, OutboxEmail)) == before
    assert admin_client.get("/admin/").status_code == 200, "still logged in"


def test_csrf_is_on_in_the_test_app(app: Flask) -> None:
    assert app.config.get("WTF_CSRF_ENABLED", True) is True
    assert app.config["TESTING"] is True


def test_logging_in_and_out(app: Flask, client: FlaskClient, organiser: admin.Actor) -> None:
    page = assert_page(client.get("/admin/login"), 200, "Organiser login")
    assert 'type="password"' in page and 'autocomplete="current-password"' in page
    wrong = log_in(client, password="not the password")
    refused(client, wrong, "Wrong login name or password.")
    unknown = log_in(client, username="nobody")
    refused(client, unknown, "Wrong login name or password.")
    response = log_in(client)
    assert response.status_code == 303 and response.location == "/admin/"
    assert_page(client.get("/admin/"), 200, "Games", "Log out")
    assert client.get("/admin/login").status_code == 303, "a logged-in organiser goes to the list"
    assert client.get("/admin/logout").status_code == 405, "a GET never logs out"
    out = client.post("/admin/logout", data={"csrf_token": csrf_of(client, "/admin/")})
    assert out.status_code == 303 and out.location == "/admin/login"
    _is_login_redirect(client.get("/admin/"), "/admin/ after logout")


def test_the_session_cookie_is_httponly_lax_and_secure_outside_development(
    client: FlaskClient, organiser: admin.Actor, database_url: str
) -> None:
    response = log_in(client)
    cookie = response.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    production = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "p" * 40, "ENV": "production"}
    )
    try:
        assert production.config["SESSION_COOKIE_SECURE"] is True
        assert production.config["SESSION_COOKIE_HTTPONLY"] is True
        assert production.config["SESSION_COOKIE_SAMESITE"] == "Lax"
    finally:
        production.extensions["pbem_engine"].dispose()


ESCAPES = [
    "https://evil.example/admin/",
    "http://evil.example",
    "//evil.example/admin/",
    "///evil.example/admin/",
    "/\\evil.example",
    "\\\\evil.example\\admin",
    "/admin\\..\\..\\evil",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "http:/evil.example",
    "https:evil.example",
    " /admin/",
    "/admin/\t/evil",
    "\t//evil.example",
    "/admin/\r\nLocation: https://evil.example",
    "/admin/../..//evil.example",
    "/admin/./../evil",
    "/%2F%2Fevil.example",
    "/play/abc",
    "evil.example",
    "",
    "/admin" + "/x" * 1500,
]


def test_safe_next_accepts_only_admin_paths() -> None:
    for target in ESCAPES:
        assert safe_next(target) is None, target
    for target in ("/admin", "/admin/", "/admin/games/3", "/admin/?status=finished&attention=1"):
        assert safe_next(target) == target


def test_next_never_leads_off_the_admin_page(client: FlaskClient, organiser: admin.Actor) -> None:
    for target in ("https://evil.example/admin/", "//evil.example/admin/", "/\\evil.example", "javascript:alert(1)"):
        shown = client.get("/admin/login", query_string={"next": target}).get_data(as_text=True)
        assert "evil" not in shown and "javascript" not in shown, target
        response = log_in(client, next=target)
        assert response.status_code == 303
        assert response.location == "/admin/", f"next={target!r} led to {response.location!r}"


def test_next_leads_back_to_the_admin_page_asked_for(
    client: FlaskClient, adm_table: Table, organiser: admin.Actor
) -> None:
    path = f"/admin/games/{adm_table.game_id}"
    response = client.get(path)
    _is_login_redirect(response, path)
    next_value = parse_qs(urlsplit(response.location).query)["next"][0]
    login = client.get(response.location).get_data(as_text=True)
    assert f'name="next" value="{path}"' in login
    done = log_in(client, next=next_value)
    assert done.status_code == 303 and done.location == path
    with_query = log_in(client, next="/admin/?status=finished&attention=1")
    assert with_query.location == "/admin/?status=finished&attention=1"


@pytest.fixture
def limited(app: Flask, organiser: admin.Actor) -> Iterator[FlaskClient]:
    """A client that has typed the wrong password four times in a row."""
    client = app.test_client()
    for _ in range(4):
        refused(client, log_in(client, password="wrong password"), "Wrong login name or password.")
    yield client


def test_the_fifth_wrong_password_in_a_row_is_refused_with_429(app: Flask, limited: FlaskClient) -> None:
    response = log_in(limited, password="wrong again")
    assert_page(response, 429, "Too many login attempts", "Too many wrong passwords in a row", "minutes")
    assert 800 < int(response.headers["Retry-After"]) <= 900
    assert_page(log_in(limited), 429, "Too many login attempts"), "the right password waits too"
    other = app.test_client()
    fine = other.post(
        "/admin/login",
        data={"csrf_token": csrf_of(other), "username": "org", "password": PASSWORD},
        environ_base={"REMOTE_ADDR": "192.0.2.7"},
    )
    assert fine.status_code == 303, "another address is not affected"


def test_a_right_password_resets_the_count(app: Flask, limited: FlaskClient) -> None:
    assert logged_in(log_in(limited))
    limited.post("/admin/logout", data={"csrf_token": csrf_of(limited, "/admin/")})
    for _ in range(4):
        refused(limited, log_in(limited, password="wrong password"), "Wrong login name or password.")
    assert logged_in(log_in(limited))


def test_the_limit_is_configurable(database_url: str, organiser: admin.Actor, app: Flask) -> None:
    strict = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "s" * 40, "ADMIN_LOGIN_LIMIT": "2 per hour"}
    )
    try:
        client = strict.test_client()
        assert login_refused(log_in(client, password="wrong"))
        response = log_in(client, password="wrong")
        assert_page(response, 429, "Too many login attempts")
        assert 3000 < int(response.headers["Retry-After"]) <= 3600
    finally:
        strict.extensions["pbem_engine"].dispose()


def test_a_login_expires(app: Flask, admin_client: FlaskClient) -> None:
    assert admin_client.get("/admin/").status_code == 200
    with admin_client.session_transaction() as session:
        session["admin_since"] = time.time() - app.config["ADMIN_SESSION_HOURS"] * 3600 - 1
    response = admin_client.get("/admin/")
    _is_login_redirect(response, "/admin/ after the login expired")
    assert_page(admin_client.get(response.location), 200, "Your login has expired")
    assert admin_client.get("/admin/").status_code == 303, "and it stays logged out"


def test_a_new_password_ends_every_session(app: Flask, admin_client: FlaskClient) -> None:
    assert admin_client.get("/admin/").status_code == 200
    with app.app_context(), db.write_session() as session:
        admin.create_admin(session=session, username="org", password="a brand new secret", reset=True)
    _is_login_redirect(admin_client.get("/admin/"), "/admin/ after a password reset")


def test_a_forged_session_is_not_a_login(app: Flask, client: FlaskClient, organiser: admin.Actor) -> None:
    with client.session_transaction() as session:
        session["_user_id"] = f"{organiser.id}.0000"
        session["admin_since"] = time.time()
    _is_login_redirect(client.get("/admin/"), "a session naming the admin without the right tag")


def _redis_or_skip(url: str) -> None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis must run on CI at {url}: {exc}")
        pytest.skip(f"the shared-limit test needs Redis at {url}: {exc}")


def test_workers_share_the_count_through_redis(database_url: str, organiser: admin.Actor, app: Flask) -> None:
    url = os.environ.get("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379")
    _redis_or_skip(url)
    address = f"198.51.100.{secrets.randbelow(250) + 1}"
    prefix = f"test-{secrets.token_hex(4)}"  # apart from other test runs on the same Redis
    config = {
        "TESTING": True,
        "DATABASE_URL": database_url,
        "SECRET_KEY": "r" * 40,
        "RATELIMIT_STORAGE_URI": url,
        "RATELIMIT_KEY_PREFIX": prefix,
    }
    workers = [create_app(config), create_app(config)]
    try:
        clients = [w.test_client() for w in workers]
        for client in clients:
            client.environ_base["REMOTE_ADDR"] = address
        for n in range(4):
            assert login_refused(log_in(clients[n % 2], password="wrong"))
        assert_page(log_in(clients[0], password="wrong"), 429, "Too many login attempts")
        assert_page(log_in(clients[1]), 429, "Too many login attempts")
    finally:
        limiter = workers[0].extensions["pbem_limiter"]
        limiter.limiter.clear(parse_limit(workers[0].config["ADMIN_LOGIN_LIMIT"]), prefix, "admin-login", address)
        account = parse_limit(workers[0].config["ADMIN_LOGIN_ACCOUNT_LIMIT"])
        limiter.limiter.clear(account, prefix, "admin-login-account", "org")
        for worker in workers:
            worker.extensions["pbem_engine"].dispose()


def test_parallel_wrong_passwords_cannot_slip_past_the_limit(
    app: Flask, organiser: admin.Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    clients = [app.test_client() for _ in range(12)]
    tokens = [csrf_of(client) for client in clients]
    checked: list[str] = []
    real = admin.authenticate

    def counting(**kw: object) -> object:
        checked.append(str(kw["password"]))
        return real(**kw)  # type: ignore[arg-type]

    monkeypatch.setattr(admin, "authenticate", counting)

    def attempt(n: int) -> int:
        data = {"csrf_token": tokens[n], "username": "org", "password": f"wrong {n}"}
        return clients[n].post("/admin/login", data=data).status_code

    with ThreadPoolExecutor(max_workers=12) as pool:
        statuses = list(pool.map(attempt, range(12)))
    assert len(checked) <= 5, f"{len(checked)} passwords were tried"
    assert statuses.count(429) >= 8 and set(statuses) <= {200, 429}, statuses
