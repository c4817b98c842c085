"""What just happened comes first, on a 360-px phone (Debian's Chromium): the front page, How to play, a Call to
Glory turn whose drawn card and the others' moves are told above the choices, a Call to Adventure challenge whose
cast is shown before the choice it leads to, and a finished game whose ranking is at the top of the page.
Screenshots go to ``test-artifacts/what-happened-first/``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Locator, expect

import engine
from pbem import db, flows
from pbem.core import games
from pbem.core import seats as seat_rows
from tests.adventure_helpers import RULES as ADVENTURE
from tests.adventure_helpers import adventure_table, state_of
from tests.apps import Table, new_table
from tests.web.test_adventure_browser import _first, _situation
from tests.web.test_browser import Browse, artifacts_dir, click_move, database_url, phone  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GLORY = engine.GAMES["call-to-glory"]
WIDTH, HEIGHT = 360, 740


def shot(screen: Browse, label: str) -> None:
    """The page fits the phone; a full-page screenshot in test-artifacts/what-happened-first/."""
    screen.assert_fits(WIDTH)
    folder = artifacts_dir().parent / "what-happened-first"
    folder.mkdir(parents=True, exist_ok=True)
    screen.page.screenshot(path=str(folder / f"{label}.png"), full_page=True)


def top(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None, "the element is shown"
    return float(box["y"])


def bottom(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None, "the element is shown"
    return float(box["y"] + box["height"])


def play_for(app: Flask, table: Table, position: int, until: Any) -> None:
    """The seat's moves through the service (as its own page would make them: the heuristic bot's choices) while
    ``until(state)`` is false and the seat has a decision."""
    while True:
        with app.app_context(), db.write_session() as session:
            game = seat_rows.get_game(session=session, game_id=table.game_id)
            rules = games.rules_of(game)
            state = games.load_state(game)
            name = table.seat(position).name
            decision = games.decision_of(rules, state, name)
            if decision is None or until(state):
                return
            move = games.move_body(games.bot_move(rules, state, name, "heuristic"))
            flows.play.move(
                session=session,
                game_id=table.game_id,
                seat=position,
                move=move,
                decision=decision.id,
                source="page",
            )


def test_the_front_page_leads_to_how_to_play(phone: Browse) -> None:  # noqa: F811 (a fixture)
    page = phone.page
    phone.open("/")
    link = page.locator("#games").get_by_role("link", name="How to play Call to Glory")
    with page.expect_navigation(wait_until="load"):
        link.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Call to Glory")
    shot(phone, "1-how-to-play")


def test_a_turn_tells_the_card_drawn_and_the_others_moves_above_the_choices(
    app: Flask,
    phone: Browse,  # noqa: F811 (a fixture)
) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    table = new_table(app, specs, seed=3, first_player="bob")
    for position in (1, 2):  # bob's and cy's whole turns
        play_for(app, table, position, until=lambda s: False)
    page = phone.page
    phone.open(f"/play/{table.personal(0)}")
    recent = page.locator(".recent")
    expect(recent).to_contain_text(re.compile(r"\bbob\b"))
    expect(recent).to_contain_text(re.compile(r"\bcy\b"))

    click_move(page, re.compile(r"^Draw from draw pile 1"))
    drawn = table.state().hands[0]
    mine = page.locator(".recent li.mine")
    expect(mine.first).to_contain_text(re.compile(r"You drew an? \w+ from draw pile 1"))
    name = re.search(r"You drew an? (\w+)", mine.first.inner_text())
    assert name is not None
    marked = page.locator(".hand .card.drawn")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text(name.group(1))
    assert sum(drawn) >= 1
    choices = page.locator(".choices")
    assert bottom(recent) <= top(choices), "what happened comes before the choices"
    assert top(mine.first) < HEIGHT, "the card drawn is on the first screen"
    expect(recent).to_contain_text(re.compile(r"\bbob\b"))  # the others' moves are still told
    shot(phone, "2-glory-drawn")
    phone.assert_clean()


def test_a_cast_is_shown_before_the_choice_it_leads_to(app: Flask, phone: Browse) -> None:  # noqa: F811 (a fixture)
    seed, challenge = _situation()
    table = adventure_table(app, ["ann", "bob"], {"first_player": "ann"}, seed=seed)
    with app.app_context(), db.write_session() as session:
        for position, name in ((1, "bob"), (0, "ann")):
            state = state_of(table)
            choose = _first(state, name, "choose")
            assert choose is not None
            flows.play.move(
                session=session, game_id=table.game_id, seat=position, move=choose, decision=None, source="page"
            )
    state = state_of(table)
    with app.app_context(), db.write_session() as session:
        names = {m.do for m in ADVENTURE.legal_moves(state, "ann")}
        steps = (
            [{"do": "challenge", **challenge, "dark": "1"}]
            if "challenge" in names
            else [{"do": "attempt", **challenge}, {"do": "dark"}, {"do": "cast"}]
        )
        for step in steps:
            decision = ADVENTURE.waiting_for(state_of(table))["ann"]
            flows.play.move(
                session=session, game_id=table.game_id, seat=0, move=step, decision=decision.id, source="page"
            )
    assert state_of(table).phase == "facing"
    page = phone.page
    phone.open(f"/play/{table.personal(0)}")
    attempt = page.locator("#attempt")
    expect(attempt).to_contain_text("You attempt")
    expect(attempt.locator(".cta-rune").first).to_be_visible()
    expect(attempt.locator(".cta-total")).to_contain_text(re.compile(r"Total \d+ against difficulty \d+"))
    assert bottom(attempt) <= top(page.locator(".choices")), "the cast's result comes before the next choice"
    shot(phone, "3-adventure-cast")
    phone.assert_clean()


def test_the_game_over_page_starts_with_the_ranking(app: Flask, phone: Browse) -> None:  # noqa: F811 (a fixture)
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob", kind="heuristic")]
    table = new_table(app, specs, seed=5, options={"rounds": 1})
    play_for(app, table, 0, until=lambda s: False)
    assert table.state().status == "finished"
    page = phone.page
    phone.open(f"/play/{table.personal(0)}")
    result = page.locator("#result")
    expect(result.get_by_role("heading", name="Final ranking")).to_be_visible()
    rows = result.locator("table.ranking tbody tr")
    expect(rows).to_have_count(2)
    assert bottom(result) < HEIGHT * 1.5 and top(result) < HEIGHT / 2, "the ranking is at the top"
    assert top(result) < top(page.locator(".board, .hand, .log").first)
    expect(page.locator(".flash.done:not(.headline)")).to_have_count(0)
    shot(phone, "4-game-over")
    phone.assert_clean()


BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}"""
"""The words under ``selector`` that the browser broke over two lines."""


def test_french_card_names_never_break_inside_a_word_on_a_phone(app: Flask, phone: Browse) -> None:  # noqa: F811
    names = ["ann", "bob", "cy"]
    options = GLORY.parse_options({"first_player": "ann"}, names)
    seed = next(s for s in range(1, 200) if GLORY.new_game(names, options, s).hands[0][1])  # ann holds an Empress
    specs = [games.SeatSpec(n, email=f"{n}@example.com", language="fr") for n in names]
    glory = new_table(app, specs, seed=seed, first_player="ann")
    assert glory.state().hands[0][1], "the Empress is in ann's hand"
    adventure = new_table(app, specs[:2], seed=seed, game="call-to-adventure", options={})
    page = phone.page
    phone.open(f"/play/{glory.personal(0)}")
    expect(page.locator(".hand .card", has_text="Impératrice")).to_be_visible()
    assert page.evaluate(BROKEN_WORDS, ".card span, .choices button") == []
    shot(phone, "5-french-cards")
    phone.open(f"/play/{adventure.personal(0)}")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    assert page.evaluate(BROKEN_WORDS, ".cta-card header b, .choices button") == []
    shot(phone, "6-french-adventure")
    phone.assert_clean()
