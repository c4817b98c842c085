"""Racing clicks against the live server: one decision is made once, every other POST says "Already played".

Each simulated browser has its own ``requests.Session`` (its own session cookie and CSRF token), opens the
move link first, then all of them wait on a barrier and confirm at the same instant. Both databases.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import requests

from pbem import db
from pbem.core import games
from tests.apps import Table, form_fields

ALREADY = "Already played"
DONE = "Done: "
TIMEOUT = 60


@dataclass
class Click:
    """What one browser saw: the POST's status, the final status after redirects, and the final page."""

    token: str
    first_status: int
    final_status: int
    text: str

    @property
    def outcome(self) -> str:
        """ "done", "already", or "other" (with the status, for a readable assertion message)."""
        if self.final_status == 200 and DONE in self.text and ALREADY not in self.text:
            return "done"
        if self.final_status == 200 and ALREADY in self.text and DONE not in self.text:
            return "already"
        return f"other {self.first_status}->{self.final_status}"


def _race(base: str, tokens: list[str]) -> list[Click]:
    """One thread per token: GET the move link, wait for all, POST the confirm form, follow the 303."""
    barrier = threading.Barrier(len(tokens))

    def click(token: str) -> Click:
        with requests.Session() as browser:
            page = browser.get(f"{base}/play/{token}", timeout=TIMEOUT)
            assert page.status_code == 200, page.text
            assert "Confirm your move" in page.text
            csrf, _decision = form_fields(page.text)
            barrier.wait(timeout=TIMEOUT)
            posted = browser.post(f"{base}/play/{token}", data={"csrf_token": csrf}, timeout=TIMEOUT)
            first = posted.history[0].status_code if posted.history else posted.status_code
            return Click(token, first, posted.status_code, posted.text)

    with ThreadPoolExecutor(max_workers=len(tokens)) as pool:
        return list(pool.map(click, tokens))


def _check_no_server_errors(clicks: list[Click]) -> None:
    errors = [
        (c.first_status, c.final_status, c.text[:300]) for c in clicks if max(c.first_status, c.final_status) >= 500
    ]
    assert errors == [], f"{len(errors)} responses >= 500, e.g. {errors[:1]}"
    assert all(c.first_status == 303 for c in clicks), Counter(c.first_status for c in clicks)


def test_fifty_clicks_on_one_move_link_apply_it_once(live_server: str, table: Table) -> None:
    version, logged = table.version(), table.moves_logged()
    token = table.move_token(0, {"do": "draw", "pile": "draw1"})

    clicks = _race(live_server, [token] * 50)

    _check_no_server_errors(clicks)
    assert Counter(c.outcome for c in clicks) == {"done": 1, "already": 49}
    assert table.moves_logged() == logged + 1
    assert table.version() == version + 1
    assert table.state().draws_left == 1
    assert table.verify()


def test_two_different_moves_for_one_decision_only_one_wins(live_server: str, table: Table) -> None:
    version, logged = table.version(), table.moves_logged()
    draw1 = table.move_token(0, {"do": "draw", "pile": "draw1"})
    draw2 = table.move_token(0, {"do": "draw", "pile": "draw2"})

    clicks = _race(live_server, [draw1, draw2] * 10)

    _check_no_server_errors(clicks)
    assert Counter(c.outcome for c in clicks) == {"done": 1, "already": 19}
    winner = next(c for c in clicks if c.outcome == "done")
    expected_pile = "draw1" if winner.token == draw1 else "draw2"
    assert table.moves_logged() == logged + 1
    assert table.version() == version + 1
    with table.app.app_context():
        last = games.move_log(session=db.get_session(), game_id=table.game_id)[-1]
    assert last.move["pile"] == expected_pile
    assert table.verify()
