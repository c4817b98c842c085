"""Call to Adventure in Debian's Chromium (Playwright) at 360 px and at 1280 px: a setup choice, a challenge with a
dark rune, and a card played after the cast, with the page's own buttons and links; screenshots of each step."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from playwright.sync_api import Locator, Page, expect

from pbem import db, flows
from tests.adventure_helpers import RULES, adventure_table, state_of
from tests.apps import Table
from tests.web.test_browser import Browse, database_url, desktop, phone  # noqa: F401  (shared fixtures)

pytestmark = pytest.mark.browser

NAMES = ["ann", "bob"]
OPTIONS = {"first_player": "ann"}


def _body(move: Any) -> dict[str, str]:
    return {k: v for k, v in move.to_json().items() if k != "player"}


def _first(state: Any, player: str, do: str) -> dict[str, str] | None:
    return next((_body(m) for m in RULES.legal_moves(state, player) if m.do == do), None)


def _challenge_then_play(seed: int) -> dict[str, str] | None:
    """The challenge (card, path) ann may attempt on her first turn, after both chose their first offers, such that
    with one dark rune the cast leaves her facing it with a card she may play; None if this seed has none."""
    state = RULES.new_game(NAMES, RULES.parse_options(OPTIONS, NAMES), seed)
    for name in ("bob", "ann"):
        RULES.apply(state, RULES.parse_move(name, _first(state, name, "choose")))
    for move in RULES.legal_moves(state, "ann"):
        if move.do not in ("attempt", "challenge") or getattr(move, "dark", "0") not in (None, "0"):
            continue
        trial = RULES.clone(state)
        body = _body(move)
        if move.do == "challenge":
            RULES.apply(trial, RULES.parse_move("ann", {**body, "dark": "1"}))
        else:
            for step in (body, {"do": "dark"}, {"do": "cast"}):
                RULES.apply(trial, RULES.parse_move("ann", step))
        if trial.phase == "facing" and _first(trial, "ann", "play"):
            return {"card": body["card"], "path": body["path"]}
    return None


def _situation() -> tuple[int, dict[str, str]]:
    for seed in range(1, 400):
        found = _challenge_then_play(seed)
        if found:
            return seed, found
    raise AssertionError("no seed gives a card to play after the cast")


def _table(app: Flask) -> tuple[Table, dict[str, str]]:
    """The game, with bob's setup choice made (his first offers): ann chooses in the browser."""
    seed, challenge = _situation()
    table = adventure_table(app, NAMES, OPTIONS, seed=seed)
    with app.app_context(), db.write_session() as session:
        move = _first(state_of(table), "bob", "choose")
        assert move is not None
        flows.play.move(session=session, game_id=table.game_id, seat=1, move=move, decision=None, source="page")
    return table, challenge


def _press(page: Page, button: Locator) -> None:
    expect(button).to_be_visible()
    with page.expect_navigation(wait_until="load"):
        button.click()
    expect(page.locator(".flash").first).to_be_visible()


def _move_button(page: Page, do: str, **fields: str) -> Locator:
    """The submit buttons of the forms that post this move (matched on their hidden fields)."""
    selector = f'form:has(input[name="do"][value="{do}"])'
    for name, value in fields.items():
        selector += f':has(input[name="{name}"][value="{value}"])'
    return page.locator(f"{selector} button")


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_a_setup_choice_a_challenge_with_a_dark_rune_and_a_card_after_the_cast(
    app: Flask, request: pytest.FixtureRequest, device: str
) -> None:
    screen: Browse = request.getfixturevalue(device)
    width = 360 if device == "phone" else 1280
    table, challenge = _table(app)
    page = screen.page
    personal = f"/play/{table.personal(0)}"
    screen.open(personal)
    expect(_move_button(page, "choose").first).to_be_visible()
    screen.assert_fits(width)
    screen.shot("1-setup")

    first = _first(state_of(table), "ann", "choose")
    assert first is not None
    _press(page, _move_button(page, "choose", **{k: first[k] for k in ("origin", "motivation", "destiny")}).first)
    state = state_of(table)
    assert state.ps[0].origin == first["origin"] and state.status == "playing"
    screen.assert_fits(width)
    screen.shot("2-chosen")

    card = state.cards.cards[challenge["card"]]
    direct = _move_button(page, "attempt", **challenge)
    if direct.count() == 0:
        direct = _move_button(page, "challenge", **challenge)
    if direct.count():
        _press(page, direct.first)
    else:  # a link to a confirm page, named after the card
        links = page.locator(".choices a").filter(has_text=re.compile(re.escape(card.title())))
        if links.count() > 1:
            links = links.filter(has_text=re.compile(challenge["path"], re.IGNORECASE))
        expect(links.first).to_be_visible()
        with page.expect_navigation(wait_until="load"):
            links.first.click()
        screen.assert_fits(width)
        screen.shot("3-confirm")
        variant = page.locator('form:has(input[name="dark"][value="1"]) button, button[name="dark"][value="1"]')
        here = urlsplit(page.url).path
        _press(page, variant.first if variant.count() else page.locator(f'form[action="{here}"] button').first)
    if state_of(table).phase == "prepare":  # the runes are bought and cast with the page's buttons
        screen.shot("3-declared")
        _press(page, _move_button(page, "dark").first)
        screen.assert_fits(width)
        _press(page, _move_button(page, "cast").first)
    state = state_of(table)
    assert state.phase == "facing" and state.attempt is not None and state.attempt.dark == 1, "one dark rune, cast"
    expect(page.locator("body")).to_contain_text(re.compile(r"cast \d+ runes|total", re.IGNORECASE))
    screen.assert_fits(width)
    screen.shot("4-cast")

    play = _first(state, "ann", "play")
    assert play is not None
    hand_before = len(state.ps[0].hand)
    _press(page, _move_button(page, "play", card=play["card"]).first)
    state = state_of(table)
    assert play["card"] in state.ps[0].played and len(state.ps[0].hand) < hand_before
    screen.assert_fits(width)
    screen.shot("5-played")

    _press(page, _move_button(page, "resolve").first)
    state = state_of(table)
    assert state.attempt is None and challenge["card"] not in [c for row in state.rows for c in row]
    screen.assert_fits(width)
    screen.shot("6-result")
    screen.assert_clean()
    assert table.verify()
