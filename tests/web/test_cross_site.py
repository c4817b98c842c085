"""POSTs sent by another site's page are refused (Origin, Sec-Fetch-Site), even with a valid form token;
HSTS outside development."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import create_app
from pbem.core import links
from tests.apps import Table, form_fields

from .forge import assert_error_page

EVIL = "https://evil.example"


def _draw(client: FlaskClient, table: Table, **headers: str) -> tuple[int, str]:
    token = table.personal(0)
    csrf, decision = form_fields(client.get(f"/play/{token}").text)
    data = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "draw1"}
    response = client.post(f"/play/{token}", data=data, headers=headers)
    return response.status_code, response.get_data(as_text=True)


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": EVIL},
        {"Origin": "http://127.0.0.1:5000.evil.example"},
        {"Origin": "https://127.0.0.1:5001"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "null"},
    ],
    ids=["other-origin", "lookalike", "other-port", "fetch-cross-site", "fetch-same-site"],
)
def test_a_cross_site_post_is_refused_even_with_a_valid_token(
    client: FlaskClient, table: Table, headers: dict[str, str]
) -> None:
    before = (table.version(), table.moves_logged())
    token = table.personal(0)
    csrf, decision = form_fields(client.get(f"/play/{token}").text)
    data = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "draw1"}
    response = client.post(f"/play/{token}", data=data, headers=headers)
    assert_error_page(response, 403, "sent from another site")
    assert (table.version(), table.moves_logged()) == before, "nothing was applied"


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Origin": "null"},  # what browsers send from our pages (Referrer-Policy: no-referrer)
        {"Origin": "http://127.0.0.1:5000", "Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},
    ],
    ids=["no-headers", "origin-null", "same-origin", "typed-by-user"],
)
def test_a_same_site_post_is_accepted(client: FlaskClient, table: Table, headers: dict[str, str]) -> None:
    status, _ = _draw(client, table, **headers)
    assert status == 303


def test_the_request_s_own_host_counts_as_this_site(client: FlaskClient, table: Table, app: Flask) -> None:
    token = table.personal(0)
    csrf, decision = form_fields(client.get(f"/play/{token}", base_url="http://localhost").text)
    data = {"csrf_token": csrf, "decision": decision, "do": "draw", "pile": "draw1"}
    response = client.post(
        f"/play/{token}", data=data, headers={"Origin": "http://localhost"}, base_url="http://localhost"
    )
    assert response.status_code == 303, "a page opened at localhost (a trusted host) posts back to it"


def test_the_admin_login_refuses_a_cross_site_post(client: FlaskClient) -> None:
    page = client.get("/admin/login").get_data(as_text=True)
    csrf = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    response = client.post(
        "/admin/login", data={"csrf_token": csrf, "username": "org", "password": "x"}, headers={"Origin": EVIL}
    )
    assert_error_page(response, 403, "sent from another site")


def test_one_click_unsubscribe_still_works_from_a_mail_provider(client: FlaskClient, table: Table, app: Flask) -> None:
    with app.test_request_context():
        token = links.settings_token(table.game_id, 0, table.seat(0).nonce)
    response = client.post(
        f"/settings/{token}", data={"List-Unsubscribe": "One-Click"}, headers={"Origin": "https://mail.example"}
    )
    assert response.status_code == 200 and table.seat(0).reminders is False


@pytest.fixture
def production(database_url: str, app: Flask) -> Iterator[Flask]:
    made = create_app({"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": "p" * 40, "ENV": "production"})
    yield made
    made.extensions["pbem_engine"].dispose()


def test_hsts_outside_development_only(client: FlaskClient, production: Flask) -> None:
    for path in ("/admin/login", "/nowhere", "/static/style.css"):
        with production.test_client().get(path) as response:
            assert response.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains", path
        with client.get(path) as response:
            assert "Strict-Transport-Security" not in response.headers, "development runs on plain http"
