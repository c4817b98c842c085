"""Call to Adventure against the live server: fifty racing confirmations of one challenge move link cast the runes
once; opening (GET, HEAD) every link of every email of a game writes nothing. Both databases."""

from __future__ import annotations

import random
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from flask import Flask
from sqlalchemy import func as sqlfunc
from sqlalchemy import inspect, select
from sqlalchemy import table as sqltable

from pbem import db
from tests.adventure_helpers import RULES, Page, adventure_table, log_of, move_token, state_of
from tests.apps import listen_writes
from tests.mail.conftest import SMTPServer, make_mail_app, smtp_app, smtp_server  # noqa: F401  (fixtures shared with tests/mail)
from tests.mail.test_adventure_whole_game import Party, asks_to_move
from tests.mail.test_end_to_end import text_and_html

CLICKS = 50
TIMEOUT = 60
URL = re.compile(r"http://127\.0\.0\.1:5000(/[^\s\"<>]*)")


def _open_challenge(seed_from: int = 1) -> tuple[int, dict[str, Any]]:
    """A seed of a two-player first game whose first player may attempt a challenge at once, and that move: the
    compound ``challenge`` with no dark rune where the engine has it, else ``attempt``."""
    for seed in range(seed_from, seed_from + 200):
        state = RULES.new_game(["ann", "bob"], RULES.parse_options({"first_game": True}, ["ann", "bob"]), seed)
        player = state.players[state.current]
        bodies = [{k: v for k, v in m.to_json().items() if k != "player"} for m in RULES.legal_moves(state, player)]
        for kind in ("challenge", "attempt"):
            found = [b for b in bodies if b["do"] == kind and b.get("dark", "0") == "0"]
            if found:
                return seed, found[0]
    raise AssertionError("no seed opens with a challenge")


def _confirm_button(html: str, path: str) -> dict[str, str]:
    """The fields of the confirm page's button for the link's own move (no dark rune, if it offers variants)."""
    buttons = Page(html).confirm_buttons(path)
    assert buttons, "the move link opens a page with a button to confirm it"
    plain = [b for b in buttons if b.fields.get("dark", "0") == "0"]
    return (plain or buttons)[0].fields


def _race(base: str, token: str) -> list[tuple[int, int, str]]:
    """Fifty browsers open the move link, wait for each other, and confirm at once: (first status, final status,
    final page) of each."""
    barrier = threading.Barrier(CLICKS)
    path = f"/play/{token}"

    def click(_: int) -> tuple[int, int, str]:
        with requests.Session() as browser:
            page = browser.get(base + path, timeout=TIMEOUT)
            assert page.status_code == 200, page.text[:500]
            fields = _confirm_button(page.text, path)
            barrier.wait(timeout=TIMEOUT)
            posted = browser.post(base + path, data=fields, timeout=TIMEOUT)
            first = posted.history[0].status_code if posted.history else posted.status_code
            return first, posted.status_code, posted.text

    with ThreadPoolExecutor(max_workers=CLICKS) as pool:
        return list(pool.map(click, range(CLICKS)))


def _count(events: list[dict[str, Any]], kind: str) -> int:
    return sum(1 for e in events if e.get("event") == kind)


def test_fifty_confirmations_of_one_challenge_cast_once(live_server: str, app: Flask) -> None:
    seed, move = _open_challenge()
    table = adventure_table(app, ["ann", "bob"], {"first_game": True}, seed=seed)
    player = state_of(table).current
    logged = table.moves_logged()

    clicks = _race(live_server, move_token(table, player, move))

    assert [c for c in clicks if max(c[0], c[1]) >= 500] == [], "no server error"
    assert all(c[0] == 303 for c in clicks), Counter(c[0] for c in clicks)
    outcomes = Counter(
        "done" if "Done: " in text and "Already played" not in text else "already" if "Already played" in text else s
        for _f, s, text in clicks
    )
    assert outcomes == {"done": 1, "already": CLICKS - 1}, outcomes
    assert table.moves_logged() == logged + 1
    events = log_of(table)
    assert _count(events, "attempt") == 1
    if move["do"] == "attempt":  # the engine casts in a move of its own: race its link too
        state = state_of(table)
        cast = {"do": "cast"}
        assert any(m.do == "cast" for m in RULES.legal_moves(state, state.players[player]))
        clicks = _race(live_server, move_token(table, player, cast))
        assert [c for c in clicks if max(c[0], c[1]) >= 500] == []
        assert table.moves_logged() == logged + 2
        events = log_of(table)
    assert _count(events, "cast") == 1, "exactly one cast in the log"
    assert table.verify()


def _row_counts(app: Flask) -> dict[str, int]:
    with app.app_context():
        session = db.get_session()
        names = inspect(session.get_bind()).get_table_names()
        return {n: int(session.execute(select(sqlfunc.count()).select_from(sqltable(n))).scalar_one()) for n in names}


def _email_paths(party: Party) -> list[str]:
    """Every link of every email received (text and HTML parts), as paths, each once."""
    paths: dict[str, None] = {}
    for message in party.received:
        for part in text_and_html(message):
            for path in URL.findall(part):
                paths[path.replace("&amp;", "&")] = None
    return list(paths)


@pytest.mark.usefixtures("smtp_app", "smtp_server")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_opening_every_link_of_every_email_writes_nothing(
    request: pytest.FixtureRequest, write_counter_of: Callable[[Flask], list[str]], method: str
) -> None:
    mail_app: Flask = request.getfixturevalue("smtp_app")
    server: SMTPServer = request.getfixturevalue("smtp_server")
    table = adventure_table(mail_app, ["Ann", "Bob", "Cy"], {"allies_adversaries": True}, seed=21, name="Quest")
    party = Party(mail_app, server, table, ("Ann", "Bob", "Cy"))
    rng = random.Random(21)
    new = party.deliver()
    for _round in range(5):  # the setup choices, then some turns: emails of several kinds
        for message in [m for m in new if asks_to_move(m)]:
            party.take_turn(message, rng)
        new = party.deliver()
    paths = _email_paths(party)
    assert len(paths) > 30 and any(p.startswith("/settings/") for p in paths)
    before, writes = _row_counts(mail_app), write_counter_of(mail_app)
    client = mail_app.test_client()
    statuses: Counter[int] = Counter()
    for path in paths:
        response = client.open(urlsplit(path).path, method=method)
        statuses[response.status_code] += 1
        assert response.status_code < 500, (path, response.status_code)
    assert writes == [], f"{method} of the email links wrote: {writes[:3]}"
    assert _row_counts(mail_app) == before
    assert statuses[200] > 0, statuses


@pytest.fixture
def write_counter_of() -> Iterator[Callable[[Flask], list[str]]]:
    """``write_counter_of(app)``: the list of writing statements that app's engine runs from now on."""
    stops: list[Callable[[], None]] = []

    def start(app: Flask) -> list[str]:
        statements, stop = listen_writes(app)
        stops.append(stop)
        return statements

    yield start
    for stop in stops:
        stop()
