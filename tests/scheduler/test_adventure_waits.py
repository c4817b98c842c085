"""Call to Adventure's waits: the setup choice is every person's at once, each with their own deadline, and a
timeout lets the bot make only the late person's choice; in play, a timeout lets the bot finish the whole turn."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from flask import Flask

import engine
from pbem import db, flows
from pbem.scheduler import sweeps
from tests.apps import Table

from .conftest import T0, Clock, make_game, timeout_moves, utc, wait_rows

pytestmark = pytest.mark.usefixtures("mail")
H = timedelta(hours=1)
KEY = "call-to-adventure"
GAME = engine.GAMES[KEY]


def time_out(app: Flask, now: datetime) -> int:
    with app.app_context():
        return sweeps.deadline_sweep(now=now)


def move(app: Flask, table: Table, seat: int, body: dict[str, str]) -> None:
    state = table.state()
    name = state.players[seat]
    decision = GAME.waiting_for(state)[name].id
    with app.app_context(), db.write_session() as session:
        flows.play.move(session=session, game_id=table.game_id, seat=seat, move=body, decision=decision, source="page")


def first_choice(table: Table, seat: int) -> dict[str, str]:
    state = table.state()
    (body, *_rest) = [
        {k: v for k, v in m.to_json().items() if k != "player"} for m in GAME.legal_moves(state, state.players[seat])
    ]
    return body


def test_each_person_has_their_own_setup_deadline_and_the_bot_chooses_for_the_late_one(
    app: Flask, clock: Clock
) -> None:
    table = make_game(app, game=KEY, options={})
    rows = wait_rows(app, table.game_id)
    assert [r.seat for r in rows] == [0, 1, 2], "everyone chooses at once"
    assert all(r.wait == "setup" and utc(r.deadline_at) == T0 + 72 * H for r in rows)
    clock.advance(hours=2)
    move(app, table, 0, first_choice(table, 0))
    assert [r.seat for r in wait_rows(app, table.game_id)] == [1, 2], "ann chose: her wait is over"
    assert time_out(app, T0 + 72 * H - timedelta(seconds=1)) == 0
    clock.at(T0 + 72 * H)
    assert time_out(app, clock.now) == 2, "bob's and cy's deadlines"
    moves = timeout_moves(app, table.game_id)
    assert sorted(m.seat for m in moves) == [1, 2] and {m.move["do"] for m in moves} == {"choose"}
    state = table.state()
    assert state.status == "playing" and all(p.origin is not None for p in state.ps)
    (turn,) = wait_rows(app, table.game_id)
    assert turn.seat == state.current and turn.wait == f"turn{state.turn}"


def test_a_timeout_in_the_middle_of_a_turn_lets_the_bot_finish_that_turn(app: Flask, clock: Clock) -> None:
    table = make_game(app, game=KEY, options={"first_game": True}, names=("ann", "bob"))
    for seat, name in enumerate(("ann", "bob")):
        if name in GAME.waiting_for(table.state()) and table.state().status == "setup":
            move(app, table, seat, first_choice(table, seat))
    state = table.state()
    player, turn = state.current, state.turn
    traits = [m for m in GAME.legal_moves(state, state.players[player]) if m.do in ("trait", "attempt", "challenge")]
    assert traits, "a main action is open"
    body = {k: v for k, v in traits[0].to_json().items() if k != "player"}
    clock.advance(hours=1)
    move(app, table, player, body)
    state = table.state()
    if state.turn != turn:
        pytest.skip("this main action ended the turn by itself")
    (wait,) = wait_rows(app, table.game_id)
    assert wait.seat == player and wait.wait == f"turn{turn}", "the turn's wait goes on from its start"
    assert utc(wait.waiting_since) == T0
    clock.at(T0 + 72 * H)
    assert time_out(app, clock.now) >= 1
    state = table.state()
    assert state.turn == turn + 1 and state.current != player, "the bot finished the turn, no more"
    moves = timeout_moves(app, table.game_id)
    assert moves and all(m.seat == player for m in moves)
