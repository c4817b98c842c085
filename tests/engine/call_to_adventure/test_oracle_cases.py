"""The records an independent implementation of the rules disagreed on (A4.4, A10, A14): each replays as the
rules page says, through the same replay as ``python -m engine replay`` (and one through the real command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, RecordError
from engine.call_to_adventure import rules
from engine.call_to_adventure.state import State

GAME = GAMES["call-to-adventure"]
CASES = Path(__file__).resolve().parent / "oracle_cases"
ROOT = Path(__file__).resolve().parents[3]


def case(name: str) -> dict[str, Any]:
    found = list(CASES.glob(f"{name}-*.json"))
    assert len(found) == 1, name
    data: dict[str, Any] = json.loads(found[0].read_text())
    return data


def replayed(name: str) -> tuple[State, dict[str, Any]]:
    _, state, _ = GAME.replay(case(name))
    return state, GAME.summary(state)


def refused(name: str) -> RecordError:
    with pytest.raises(RecordError) as caught:
        GAME.replay(case(name))
    return caught.value


def no_ally_in_a_row(state: State) -> bool:
    table = state.cards.cards
    return all(c is None or table[c].type != "ally" for a in range(3) if state.up[a] for c in state.rows[a])


# A14.1: a rune cast again shows the card face again, and the caster draws for it ---------------------------


def test_f1_a_recast_card_face_is_drawn_for() -> None:
    state, summary = replayed("F1")
    assert summary["attempt"]["card_faces_to_draw"] == 0
    assert summary["step"] == "facing"
    assert len(state.ps[0].hand) == 1  # Try Again played, one Hero card drawn for the card face


def test_f1b_after_the_recast_the_caster_draws_before_anything_else() -> None:
    state, summary = replayed("F1b")
    assert summary["step"] == "draw" and summary["attempt"]["card_faces_to_draw"] == 1
    assert {m.do for m in rules.legal_moves(state, "ann")} == {"draw"}


def test_f1c_the_result_waits_for_the_card_drawn() -> None:
    error = refused("F1c")
    assert (error.move, error.rule) == (2, "A5.7")
    assert "draw a Hero or Antihero card" in error.message


def test_f1d_a_reattempt_card_face_is_drawn_for() -> None:
    _, summary = replayed("F1d")
    assert summary["attempt"]["card_faces_to_draw"] == 0


# A14.2: a card with timing `any` after the main action -----------------------------------------------------


def test_f2_take_other_act_after_the_main_action() -> None:
    state, summary = replayed("F2")
    assert summary["step"] == "after" and summary["current_player"] == "ann"
    assert state.any_act and "a-shortcut-through-the-dark" in state.ps[0].played


def test_f2b_a_turn_with_such_a_card_in_hand_does_not_end_by_itself() -> None:
    state, summary = replayed("F2b")
    assert summary["current_player"] == "ann" and summary["step"] == "after"
    assert any(m.card == "a-shortcut-through-the-dark" for m in rules.legal_moves(state, "ann"))


def test_f2c_the_card_and_the_power_in_one_turn() -> None:
    state, summary = replayed("F2c")
    assert summary["current_player"] == "ann" and state.any_act
    assert "a-shortcut-through-the-dark" in state.ps[0].played


# A14.3: co-op and solo targets ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["F3", "F3b"])
def test_f3_a_coop_card_may_name_yourself_or_a_partner(name: str) -> None:
    state, _ = replayed(name)
    assert "h-call-for-aid" in state.ps[0].played


def test_f3_naming_yourself_draws_for_yourself() -> None:
    mine, _ = replayed("F3")
    theirs, _ = replayed("F3b")
    assert len(mine.ps[0].hand) == len(theirs.ps[0].hand) + 1


# A4.4: an ally never stays in a row -------------------------------------------------------------------------


def test_f4_the_ally_with_no_challenge_is_discarded_and_the_place_stays_empty() -> None:
    state, summary = replayed("F4")
    assert no_ally_in_a_row(state)
    assert None in summary["rows"][0]
    assert "s1-stray-hound" in state.discards[0]


@pytest.mark.parametrize("name", ["F4b", "F4c"])
def test_f4_that_ally_can_be_neither_attempted_nor_discarded(name: str) -> None:
    error = refused(name)
    assert (error.move, error.rule) == (6, "A4.4")
    assert "row" in error.message


def test_f4_a_card_leaving_that_row_comes_back_through_the_discards_and_no_ally_stays() -> None:
    state, _ = replayed("F4")
    GAME.apply(state, GAME.parse_move("ann", {"do": "journey", "card": "s1-old-songs"}))
    assert no_ally_in_a_row(state)
    assert "s1-old-songs" in state.rows[0]  # the only card of Act I that is no ally turns up again
    assert state.rows[0].count(None) == 1


# A14.4: runes named in any order ----------------------------------------------------------------------------


def test_f5_runes_in_descending_order_are_the_same_set() -> None:
    down, _ = replayed("F5")
    up, _ = replayed("F5b")
    assert GAME.to_json(down) == GAME.to_json(up)


def test_f5_a_rune_named_twice_or_not_cast_is_refused() -> None:
    for runes, word in (("1,1", "twice"), ("0,9", "not in the cast")):
        data = case("F5")
        data["moves"][-1]["runes"] = runes
        with pytest.raises(RecordError) as caught:
            GAME.replay(data)
        assert (caught.value.move, caught.value.rule) == (1, "A5") and word in caught.value.message


# Through the real command -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(CASES.glob("*.json")), ids=lambda p: p.stem.split("-")[0])
def test_every_case_replays_through_the_command_without_a_traceback(path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)], cwd=ROOT, capture_output=True, timeout=120, check=False
    )
    assert b"Traceback" not in done.stderr
    out = json.loads(done.stdout)
    refuses = path.stem.split("-")[0] in ("F1c", "F4b", "F4c")
    assert done.returncode == (2 if refuses else 0)
    assert ("error" in out) == refuses
