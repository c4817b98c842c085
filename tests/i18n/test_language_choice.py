"""Pages reached without a seat: Accept-Language, else the ``lang`` cookie the visible switch sets (POST /language)."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from pbem import i18n
from tests.apps import CSRF

HTML_LANG = re.compile(r'<html lang="([a-z]+)">')


def lang_of(html: str) -> str:
    found = HTML_LANG.search(html)
    assert found, "the page names its language"
    return found.group(1)


def csrf(client: FlaskClient) -> str:
    found = CSRF.search(client.get("/").text)
    assert found, "the front page has forms with a CSRF token"
    return found.group(1)


@pytest.mark.parametrize(
    ("header", "expected"),
    [("nl-NL,nl;q=0.9,en;q=0.5", "nl"), ("fr-CA, fr;q=0.8", "fr"), ("de-DE,de;q=0.9", "en"), (None, "en")],
)
def test_the_front_page_speaks_the_browsers_language(client: FlaskClient, header: str | None, expected: str) -> None:
    headers = {"Accept-Language": header} if header else {}
    assert lang_of(client.get("/", headers=headers).text) == expected


def test_the_cookie_overrides_the_browsers_language(client: FlaskClient) -> None:
    client.set_cookie(i18n.COOKIE, "fr", domain="127.0.0.1")
    assert lang_of(client.get("/", headers={"Accept-Language": "nl"}).text) == "fr"
    client.set_cookie(i18n.COOKIE, "xx", domain="127.0.0.1")  # not a language offered: ignored
    assert lang_of(client.get("/", headers={"Accept-Language": "nl"}).text) == "nl"


def test_the_switch_is_on_the_front_page_with_every_language_and_the_current_one_marked(client: FlaskClient) -> None:
    html = client.get("/", headers={"Accept-Language": "nl"}).text
    switch = html[html.index('class="language-switch"') :]
    for code, name in i18n.NAMES.items():
        assert f'name="lang" value="{code}"' in switch
        assert name in switch
    assert re.search(r'lang="nl" aria-current="true"', switch)


def test_post_language_sets_the_cookie_and_goes_back(client: FlaskClient) -> None:
    response = client.post("/language", data={"csrf_token": csrf(client), "lang": "nl", "next": "/help?x=1"})
    assert response.status_code == 303
    assert response.location == "/help?x=1"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(f"{i18n.COOKIE}=nl;")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=31536000" in cookie
    assert lang_of(client.get("/", headers={"Accept-Language": "fr"}).text) == "nl"


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "", "help"]
)
def test_post_language_never_goes_to_another_site(client: FlaskClient, target: str) -> None:
    response = client.post("/language", data={"csrf_token": csrf(client), "lang": "fr", "next": target})
    assert response.status_code == 303
    assert response.location == "/"


@pytest.mark.parametrize("code", ["de", "NL", "", "nl-BE", "<b>"])
def test_post_language_refuses_a_language_not_offered(client: FlaskClient, code: str) -> None:
    response = client.post("/language", data={"csrf_token": csrf(client), "lang": code, "next": "/"})
    assert response.status_code == 400
    assert "en, nl, fr" in response.text
    assert i18n.COOKIE + "=" not in response.headers.get("Set-Cookie", "")


def test_post_language_needs_the_csrf_token(client: FlaskClient) -> None:
    response = client.post("/language", data={"lang": "nl", "next": "/"})
    assert response.status_code == 400
    assert "Set-Cookie" not in response.headers or i18n.COOKIE + "=" not in response.headers["Set-Cookie"]


def test_a_get_to_language_changes_nothing(client: FlaskClient) -> None:
    response = client.get("/language?lang=nl&next=/")
    assert response.status_code == 405
    assert i18n.COOKIE + "=" not in response.headers.get("Set-Cookie", "")
    assert lang_of(client.get("/").text) == "en"


def test_error_pages_follow_the_browser_and_offer_the_switch(client: FlaskClient) -> None:
    response = client.get("/no-such-page", headers={"Accept-Language": "fr"})
    assert response.status_code == 404
    assert lang_of(response.text) == "fr"
    assert 'class="language-switch"' in response.text
