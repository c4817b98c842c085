"""Security headers on every response, no third-party resources, trusted hosts, links from SERVER_NAME only."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.core import links
from tests.apps import Table, form_fields

from .forge import days_ago, rotate_nonce, signed_at

DRAW1 = {"do": "draw", "pile": "draw1"}
URL_ATTR = re.compile(r"""\b(?:src|href|action|formaction|srcset|poster|data)\s*=\s*["']?([^"'\s>]+)""", re.I)


def _responses(client: FlaskClient, table: Table, app: Flask) -> dict[str, tuple[int, dict[str, str], str]]:
    """Status, headers and body of every kind of response the app gives."""
    ann = table.personal(0)
    move = table.move_token(0, DRAW1)
    with signed_at(days_ago(app.config["PERSONAL_LINK_DAYS"] + 1)):
        expired = table.personal(0)
    revoked = table.personal(2)
    rotate_nonce(app, table.game_id, 2)
    out: dict[str, tuple[int, dict[str, str], str]] = {}

    def keep(kind: str, method: str, path: str, **kw: object) -> None:
        with client.open(path, method=method, **kw) as response:  # type: ignore[arg-type]
            out[kind] = (response.status_code, dict(response.headers), response.get_data(as_text=True))

    keep("personal page", "GET", f"/play/{ann}")
    keep("personal page HEAD", "HEAD", f"/play/{ann}")
    keep("move page", "GET", f"/play/{move}")
    keep("log page", "GET", f"/play/{ann}/log")
    keep("invalid token", "GET", "/play/not-a-token")
    keep("expired token", "GET", f"/play/{expired}")
    keep("revoked token", "GET", f"/play/{revoked}")
    keep("unknown url", "GET", "/nowhere")
    keep("method not allowed", "PUT", f"/play/{ann}")
    keep("csrf failure", "POST", f"/play/{ann}", data=DRAW1)
    csrf, decision = form_fields(client.get(f"/play/{ann}").text)
    keep("illegal move", "POST", f"/play/{ann}", data={"csrf_token": csrf, "decision": decision, "do": "lay"})
    keep("move made (redirect)", "POST", f"/play/{move}", data={"csrf_token": csrf})
    keep("static css", "GET", "/static/style.css")
    keep("missing static", "GET", "/static/none.css")
    return out


def test_every_response_carries_the_security_headers(client: FlaskClient, table: Table, app: Flask) -> None:
    responses = _responses(client, table, app)
    assert responses["move made (redirect)"][0] == 303
    assert responses["static css"][0] == 200
    for kind, (_status, headers, _body) in responses.items():
        csp = headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in csp, kind
        assert "default-src 'none'" in csp, kind
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, kind
        assert headers.get("Referrer-Policy") == "no-referrer", kind
        assert headers.get("X-Content-Type-Options") == "nosniff", kind


def test_token_pages_are_not_stored(client: FlaskClient, table: Table, app: Flask) -> None:
    for kind, (_status, headers, _body) in _responses(client, table, app).items():
        if kind.startswith(("static", "missing static")):
            continue
        assert "no-store" in headers.get("Cache-Control", ""), kind


def test_pages_use_no_external_resources_and_no_script(client: FlaskClient, table: Table, app: Flask) -> None:
    for kind, (status, headers, body) in _responses(client, table, app).items():
        if not headers.get("Content-Type", "").startswith("text/html") or status == 303:
            continue
        assert "<script" not in body.lower(), kind
        assert "<iframe" not in body.lower(), kind
        assert not re.search(r"<meta[^>]+http-equiv=[\"']?refresh", body, re.I), f"{kind}: no auto-redirect"
        for url in URL_ATTR.findall(body):
            assert url.startswith("/") and not url.startswith("//"), f"{kind} links {url!r}"
        assert not re.search(r"https?://", body), f"{kind} names an absolute URL"
    css = client.get("/static/style.css")
    text = css.get_data(as_text=True)
    css.close()
    assert "@import" not in text
    assert not re.search(r"url\(\s*[\"']?(https?:)?//", text), "the stylesheet loads nothing from elsewhere"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:5000", "127.0.0.1.evil.example", "localhost.evil"])
def test_untrusted_host_header_is_refused(client: FlaskClient, table: Table, host: str) -> None:
    for path in (f"/play/{table.personal(0)}", "/nowhere", "/static/style.css"):
        with client.get(path, headers={"Host": host}) as response:
            body = response.get_data(as_text=True)
            assert response.status_code == 400, (path, response.status_code)
            assert "Traceback" not in body
            assert not any(host in url for url in URL_ATTR.findall(body)), "no link built from the Host header"


def test_trusted_hosts_are_served(client: FlaskClient, table: Table) -> None:
    for host in ("localhost", "127.0.0.1", "127.0.0.1:5000", "localhost:8080"):
        response = client.get(f"/play/{table.personal(0)}", headers={"Host": host})
        assert response.status_code == 200, host
        assert host.split(":")[0] + ":" not in response.text and "//" + host not in response.text


def _configure_public_name(app: Flask) -> None:
    app.config["SERVER_NAME"] = "play.example.org"
    app.config["PREFERRED_URL_SCHEME"] = "https"


def test_external_url_uses_server_name_not_the_request_host(app: Flask) -> None:
    _configure_public_name(app)
    for base in ("http://localhost/", "http://127.0.0.1:5000/", "http://localhost:8080/"):
        with app.test_request_context("/", base_url=base):
            assert links.external_url("play.page", token="abc") == "https://play.example.org/play/abc"
            assert links.external_url("play.full_log", token="abc") == "https://play.example.org/play/abc/log"
    with app.app_context():
        assert links.external_url("play.page", token="abc") == "https://play.example.org/play/abc"


def test_cli_links_use_server_name(app: Flask, table: Table) -> None:
    _configure_public_name(app)
    runner = app.test_cli_runner()
    with app.app_context():
        result = runner.invoke(args=["links", str(table.game_id)])
    assert result.exit_code == 0, result.output
    urls = re.findall(r"\S+://\S+", result.output)
    assert len(urls) == 3
    assert all(url.startswith("https://play.example.org/play/") for url in urls), urls
    app.config["TRUSTED_HOSTS"] = [*app.config["TRUSTED_HOSTS"], "play.example.org"]
    client = app.test_client()
    for url in urls:
        assert client.get(url.removeprefix("https://play.example.org")).status_code == 200


def test_session_cookie_flags_in_development(client: FlaskClient, table: Table) -> None:
    response = client.get(f"/play/{table.personal(0)}")
    cookie = response.headers.get("Set-Cookie", "")
    assert cookie, "the page sets the session cookie that holds the CSRF secret"
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie


def test_a_players_page_leaves_the_session_cookie_alone(client: FlaskClient, table: Table) -> None:
    """Only the first page sets the cookie (its CSRF secret); later pages neither re-sign it nor clear others."""
    page = f"/play/{table.personal(0)}"
    assert client.get(page).headers.getlist("Set-Cookie")
    for _ in range(2):
        assert client.get(page).headers.getlist("Set-Cookie") == []
