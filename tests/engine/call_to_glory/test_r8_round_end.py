"""R8: when a round ends (only at the end of a turn), how it is scored, and the V1 task reveals."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest

from engine.call_to_glory import (
    GAME,
    IllegalMove,
    Move,
    Options,
    State,
    apply,
    can_apply,
    legal_moves,
    new_game,
    round_details,
    state_summary,
)
from tests.conftest import arrange, card_total, deck, game, move, play

NAMES = ("ann", "bob", "cy", "dan")
END_TYPES = {2: 6, 3: 5, 4: 4}
# types that never need more than 2 cards for a lay, in any player count
CHEAP = ("emperor", "empress", "daimyo", "shogun", "monk", "farmer")
ALL_TYPES = ("emperor", "empress", "daimyo", "shogun", "samurai", "ninja", "envoy", "monk", "farmer")


def sets(*types: str, size: int = 2) -> dict[str, int]:
    """Sets of ``size`` cards of each of ``types``."""
    return dict.fromkeys(types, size)


def shrink_draw_pile(state: State, pile: int, left: int) -> None:
    """Leave only the top ``left`` cards on draw pile ``pile`` (0 or 1); the others go under
    discard pile 1, so all 110 cards stay in play."""
    cards = state.draw_piles[pile]
    state.discard_piles[0][0:0] = cards[:-left]
    state.draw_piles[pile] = cards[-left:]


def round_over(state: State, rounds_before: int) -> bool:
    """True if a round was scored since ``rounds_before`` rounds had been."""
    return len(state.round_scores) > rounds_before


# --- R8.1: types in front of one player ---------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_enough_types_in_front_of_one_player_ends_round(n: int) -> None:
    players = NAMES[:n]
    state = game(players, rounds=2)
    need = END_TYPES[n]
    arrange(state, tables={"ann": sets(*CHEAP[: need - 1])}, hands={"ann": {"farmer": 2}})
    events = play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    assert round_over(state, 0)
    assert {"event": "round_end", "round": 1, "reasons": ["types"]} in events
    summary = state_summary(state)
    assert summary["round"] == 2
    assert summary["round_scores"][0]["ann"] == sum((6, 7, 8, 9, 18)[: need - 1]) + 20
    assert card_total(state) == 110


@pytest.mark.parametrize("n", [2, 3, 4])
def test_one_type_short_does_not_end_round(n: int) -> None:
    players = NAMES[:n]
    state = game(players, rounds=2)
    need = END_TYPES[n]
    arrange(state, tables={"ann": sets(*CHEAP[: need - 2])}, hands={"ann": {"farmer": 2}})
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    summary = state_summary(state)
    assert not round_over(state, 0)
    assert summary["round"] == 1
    assert summary["current_player"] == "bob"
    assert len(summary["tables"]["ann"]) == need - 1


@pytest.mark.parametrize("n", [3, 4])
def test_types_are_counted_per_player_not_summed(n: int) -> None:
    """ann and bob together have many types, but nobody reaches the R8.1 threshold, and not all nine lie."""
    state = game(NAMES[:n], rounds=2)
    need = END_TYPES[n]
    arrange(
        state,
        tables={"ann": sets(*CHEAP[: need - 2]), "bob": sets("samurai", "envoy", size=3)},
        hands={"ann": {"farmer": 2}},
    )
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    assert not round_over(state, 0)
    assert state_summary(state)["current_player"] == "bob"


def test_beating_a_set_does_not_add_a_type_for_r8_1() -> None:
    """ann has 5 types and beats her own Farmer set: still 5 types, no round end (2 players)."""
    state = game(("ann", "bob"), rounds=2)
    arrange(state, tables={"ann": sets(*CHEAP[:4], "farmer")}, hands={"ann": {"farmer": 3}})
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 3")
    assert not round_over(state, 0)
    assert state_summary(state)["tables"]["ann"]["farmer"] == 3


# --- R8.2: all nine types on the table -------------------------------------------------------------

NINE_SPLITS = {
    # per player count: what lies in front of each player before the lay, and who lays what
    2: ({"ann": ALL_TYPES[:5], "bob": ALL_TYPES[5:8]}, "bob"),
    3: ({"ann": ALL_TYPES[:3], "bob": ALL_TYPES[3:6], "cy": ALL_TYPES[6:8]}, "ann"),
    4: ({"ann": ALL_TYPES[:3], "bob": ALL_TYPES[3:5], "cy": ALL_TYPES[5:7], "dan": ALL_TYPES[7:8]}, "cy"),
}


def nine_types_state(n: int, missing: str | None) -> tuple[State, str]:
    """All types but Farmer on the table (and not ``missing`` either); the player on turn holds 2 Farmers."""
    layout, layer = NINE_SPLITS[n]
    tables = {name: {t: 3 for t in types if t != missing} for name, types in layout.items()}
    state = game(NAMES[:n], rounds=2, first_player=layer)
    arrange(state, tables=tables, hands={layer: {"farmer": 2}})
    return state, layer


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_nine_types_on_table_ends_round(n: int) -> None:
    state, layer = nine_types_state(n, missing=None)
    events = play(state, f"{layer} draw draw1", f"{layer} draw draw2", f"{layer} lay farmer 2")
    assert round_over(state, 0)
    assert {"event": "round_end", "round": 1, "reasons": ["all_types"]} in events
    tables = state.round_tables[0]
    assert max(sum(1 for c in row if c) for row in tables) < END_TYPES[n]
    assert all(any(row[t] for row in tables) for t in range(9))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_eight_types_on_table_do_not_end_round(n: int) -> None:
    state, layer = nine_types_state(n, missing="emperor")
    play(state, f"{layer} draw draw1", f"{layer} draw draw2", f"{layer} lay farmer 2")
    assert not round_over(state, 0)
    assert state_summary(state)["round"] == 1


# --- R8.3: a draw pile empty, checked at the end of the turn -----------------------------------------


@pytest.mark.parametrize("pile", [0, 1])
@pytest.mark.parametrize("action", ["discard", "lay"])
def test_emptying_a_draw_pile_ends_round_only_after_the_action(pile: int, action: str) -> None:
    state = game(("ann", "bob"), rounds=2)
    arrange(state, hands={"ann": {"monk": 2}})
    shrink_draw_pile(state, pile, 1)
    assert card_total(state) == 110
    first, second = (f"draw{pile + 1}", f"draw{2 - pile}")
    play(state, f"ann draw {first}")
    summary = state_summary(state)
    # the draw pile is empty, but the turn goes on: the second draw is still to come
    assert summary["draw_piles"][pile] == 0
    assert (summary["round"], summary["status"], summary["current_player"]) == (1, "playing", "ann")
    assert (summary["step"], summary["draws_left"]) == ("draw", 1)
    play(state, f"ann draw {second}")
    summary = state_summary(state)
    assert (summary["round"], summary["current_player"], summary["step"]) == (1, "ann", "act")
    assert {m.do for m in legal_moves(state)} >= {"lay", "discard"}
    events = play(state, "ann lay monk 2" if action == "lay" else "ann discard monk discard2")
    assert round_over(state, 0)
    end = next(e for e in events if e["event"] == "round_end")
    assert end["reasons"] == ["draw_pile_empty"]
    assert state.round_tables[0][0][7] == (2 if action == "lay" else 0)


def test_draw_pile_with_one_card_left_after_turn_does_not_end_round() -> None:
    state = game(("ann", "bob"), rounds=2)
    shrink_draw_pile(state, 0, 2)
    play(state, "ann draw draw1", "ann draw draw2", "ann discard farmer discard2")
    assert not round_over(state, 0)
    assert state_summary(state)["draw_piles"][0] == 1
    assert state_summary(state)["current_player"] == "bob"


def test_empty_discard_piles_do_not_end_round() -> None:
    state = game(("ann", "bob"), rounds=2)
    arrange(state, hands={"ann": {"monk": 1}}, discards=[["monk"], []])
    play(state, "ann draw discard1", "ann draw draw1", "ann lay monk 2")
    assert state_summary(state)["discard_piles"] == [[], []]
    assert not round_over(state, 0)
    assert state_summary(state)["current_player"] == "bob"


def test_round_end_condition_is_not_checked_before_the_turn_ends() -> None:
    """With one card on each draw pile, the first draw empties one: ann still draws again and acts."""
    state = game(("ann", "bob"), rounds=2)
    shrink_draw_pile(state, 0, 1)
    shrink_draw_pile(state, 1, 1)
    play(state, "ann draw draw1", "ann draw draw2")
    assert state_summary(state)["draw_piles"] == [0, 0]
    assert state_summary(state)["step"] == "act"
    with pytest.raises(IllegalMove):
        apply(state, move("bob draw discard1"))
    t = next(t for t, c in enumerate(state.hands[0]) if c)
    play(state, f"ann discard {ALL_TYPES[t]} discard2")
    assert round_over(state, 0)


# --- scoring ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 5])
def test_rulebook_scoring_example(size: int) -> None:
    """Monk, Samurai, Shogun, Daimyo, Empress, Emperor = 60; Farmer + Envoy = 36; hands score nothing,
    and a type's value counts once however many cards lie."""
    state = game(("ann", "bob"), rounds=1)
    arrange(
        state,
        tables={
            "ann": {"monk": size, "samurai": 2, "shogun": size, "daimyo": 3, "empress": 2},
            "bob": {"farmer": size, "envoy": 2},
        },
        hands={"ann": {"emperor": 3, "farmer": 4}, "bob": {"monk": 5, "ninja": 6}},
    )
    events = play(state, "ann draw draw1", "ann draw draw2", "ann lay emperor 2")
    summary = state_summary(state)
    assert summary["round_scores"] == [{"ann": 60, "bob": 36}]
    assert summary["totals"] == {"ann": 60, "bob": 36}
    assert {"event": "round_end", "round": 1, "reasons": ["types"]} in events
    scored = next(e for e in events if e["event"] == "round_scored")
    assert scored["scores"] == {"ann": 60, "bob": 36}
    details = round_details(state)[0]["players"]
    assert {d["type"]: d["value"] for d in details["ann"]["types"]} == {
        "emperor": 6,
        "empress": 7,
        "daimyo": 8,
        "shogun": 9,
        "samurai": 12,
        "monk": 18,
    }
    assert details["bob"]["round_score"] == 36


def test_totals_add_up_over_rounds() -> None:
    state = game(("ann", "bob"), rounds=2)
    arrange(state, tables={"ann": sets(*CHEAP[:5]), "bob": {"envoy": 2}}, hands={"ann": {"farmer": 2}})
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    first = 6 + 7 + 8 + 9 + 18 + 20
    assert state_summary(state)["totals"] == {"ann": first, "bob": 16}
    # round 2: bob (lowest total) starts and ends it
    assert state_summary(state)["current_player"] == "bob"
    arrange(state, tables={"bob": sets(*CHEAP[:5]), "ann": {"ninja": 2}}, hands={"bob": {"farmer": 2}})
    play(state, "bob draw draw1", "bob draw draw2", "bob lay farmer 2")
    summary = state_summary(state)
    assert summary["round_scores"] == [{"ann": first, "bob": 16}, {"ann": 14, "bob": first}]
    assert summary["totals"] == {"ann": first + 14, "bob": 16 + first}


# --- V1: Imperial Tasks ------------------------------------------------------------------------------

TASKS3 = {
    "ann": {"A": "emperor", "B": "samurai", "C": "monk"},
    "bob": {"A": "empress", "B": "envoy", "C": "farmer"},
    "cy": {"A": "daimyo", "B": "shogun", "C": "ninja"},
}


def tasks_game(
    players: Sequence[str] = ("ann", "bob", "cy"),
    tasks: Mapping[str, Mapping[str, str]] = TASKS3,
    seed: int = 5,
    **options: object,
) -> State:
    """A V1 game with a fixed task deal; round 1 from the conftest deck, later rounds from ``seed``."""
    opts = Options(imperial_tasks=True, **options)  # type: ignore[arg-type]
    return new_game(list(players), opts, seed=seed, decks=[deck(len(players))], tasks=tasks)


def end_round_by(
    state: State, player: str, tables: Mapping[str, Mapping[str, int]], lay: str = "farmer"
) -> list[dict[str, object]]:
    """Let everyone before ``player`` discard, then ``player`` lays 2 ``lay`` with ``tables`` arranged so
    that the lay completes R8.1 for them. Returns the events of the whole sequence."""
    events: list[dict[str, object]] = []
    while state.current_player != player:
        p = state.current_player
        assert p is not None
        events += play(state, f"{p} draw draw1", f"{p} draw draw2")
        t = next(t for t, c in enumerate(state.hands[state.current]) if c)
        d1, d2 = state.discard_piles
        pile = " discard1" if d1 and d2 else ""
        events += play(state, f"{p} discard {ALL_TYPES[t]}{pile}")
    arrange(state, tables=tables, hands={player: {lay: 2}})
    events += play(state, f"{player} draw draw1", f"{player} draw draw2", f"{player} lay {lay} 2")
    return events


def test_reveal_order_starts_with_start_player_in_turn_order() -> None:
    state = tasks_game(first_player="bob")
    events = end_round_by(
        state,
        "cy",
        {"cy": sets("emperor", "empress", "daimyo", "shogun"), "ann": {"monk": 3}, "bob": {"envoy": 3}},
    )
    assert {"event": "round_end", "round": 1, "reasons": ["types"]} in events
    order = []
    for expected in ("bob", "cy", "ann"):
        summary = state_summary(state)
        assert summary["status"] == "revealing"
        assert summary["current_player"] == expected
        assert (summary["step"], summary["draws_left"]) == (None, None)
        assert legal_moves(state) == [Move.reveal_task(expected, d) for d in ("A", "B", "C")]
        order.append(expected)
        play(state, f"{expected} reveal A")
    assert order == ["bob", "cy", "ann"]
    assert [r["player"] for r in state_summary(state)["revealed_tasks"]] == ["bob", "cy", "ann"]
    assert state_summary(state)["status"] == "playing"
    assert state_summary(state)["round"] == 2


REFUSED_WHILE_REVEALING = [
    "bob draw draw1",
    "bob draw discard1",
    "bob lay monk 2",
    "bob discard monk",
    "bob discard monk discard1",
    "cy reveal A",
    "ann reveal B",
    "cy draw draw1",
    "cy lay farmer 3",
]


@pytest.mark.parametrize("text", REFUSED_WHILE_REVEALING)
def test_only_reveals_are_legal_while_revealing(text: str) -> None:
    state = tasks_game(first_player="bob")
    end_round_by(state, "cy", {"cy": sets("emperor", "empress", "daimyo", "shogun")})
    before = state_summary(state)
    assert before["current_player"] == "bob"
    assert not can_apply(state, move(text))
    with pytest.raises(IllegalMove) as err:
        apply(state, move(text))
    assert err.value.rule == "R8"
    assert state_summary(state) == before


def test_ninja_refused_while_revealing() -> None:
    state = tasks_game(first_player="bob", ninja_power=True)
    end_round_by(state, "cy", {"cy": sets("emperor", "empress", "daimyo", "shogun"), "ann": {"monk": 3}})
    state.ninjas[1] = 1
    state.ninja_supply = 3
    with pytest.raises(IllegalMove) as err:
        apply(state, move("bob ninja ann monk"))
    assert err.value.rule == "R8"


def test_reveal_of_already_revealed_deck_refused() -> None:
    state = tasks_game(("ann", "bob"), {k: TASKS3[k] for k in ("ann", "bob")}, rounds=2)
    end_round_by(state, "ann", {"ann": sets(*CHEAP[:5])})
    play(state, "ann reveal B", "bob reveal C")
    assert state_summary(state)["round"] == 2
    end_round_by(state, state.players[state.start_player], {state.players[state.start_player]: sets(*CHEAP[:5])})
    # round 2 ends: everyone still holds two task cards, so a choice is asked
    assert state_summary(state)["status"] == "revealing"
    who = state_summary(state)["current_player"]
    gone = "B" if who == "ann" else "C"
    with pytest.raises(IllegalMove) as err:
        apply(state, move(f"{who} reveal {gone}"))
    assert err.value.rule == "R8"


def test_reveal_outside_round_end_refused() -> None:
    state = tasks_game()
    with pytest.raises(IllegalMove) as err:
        apply(state, move("ann reveal A"))
    assert err.value.rule == "R8"


def test_task_bonus_goes_to_every_player_with_the_type() -> None:
    state = tasks_game(first_player="ann")
    tables = {
        "ann": {"empress": 3, "monk": 2},
        "bob": {"shogun": 4, "samurai": 3},
        "cy": {"emperor": 2, "daimyo": 2, "envoy": 3, "ninja": 3},
    }
    end_round_by(state, "cy", tables)  # cy lays 2 Farmers: 5 types
    # ann reveals B (Samurai, 4 per card): only bob has Samurai
    # bob reveals A (Empress, 5 per card): only ann has Empress
    # cy reveals C (Ninja, 3 per card): cy has Ninja
    events = play(state, "ann reveal B", "bob reveal A", "cy reveal C")
    base = {"ann": 7 + 18, "bob": 9 + 12, "cy": 6 + 8 + 16 + 14 + 20}
    bonus = {"ann": 5 * 3, "bob": 4 * 3, "cy": 3 * 3}
    expected = {p: base[p] + bonus[p] for p in base}
    assert state_summary(state)["round_scores"] == [expected]
    assert state_summary(state)["totals"] == expected
    assert [e["automatic"] for e in events if e["event"] == "reveal_task"] == [False, False, False]
    details = round_details(state)[0]
    assert details["round"] == 1
    assert details["start_player"] == "ann"
    ann = details["players"]["ann"]
    assert ann["types"] == [{"type": "empress", "cards": 3, "value": 7}, {"type": "monk", "cards": 2, "value": 18}]
    assert ann["round_score"] == expected["ann"]
    assert ann["total"] == expected["ann"]
    points = {p: sum(b["points"] for b in row["task_bonuses"]) for p, row in details["players"].items()}
    assert points == bonus
    bob_bonus = {
        (b["revealed_by"], b["deck"], b["type"]): (b["per_card"], b["cards"])
        for b in details["players"]["bob"]["task_bonuses"]
    }
    assert bob_bonus[("ann", "B", "samurai")] == (4, 3)
    assert bob_bonus[("bob", "A", "empress")] == (5, 0)
    # revealed cards leave the game; the others stay
    assert state_summary(state)["tasks"] == {
        "ann": {"A": "emperor", "C": "monk"},
        "bob": {"B": "envoy", "C": "farmer"},
        "cy": {"A": "daimyo", "B": "shogun"},
    }


@pytest.mark.parametrize(("deck_name", "ann_bonus", "bob_bonus"), [("A", 0, 4 * 5), ("B", 0, 4 * 4), ("C", 2 * 3, 0)])
def test_task_bonus_per_deck(deck_name: str, ann_bonus: int, bob_bonus: int) -> None:
    """ann reveals Shogun (A = 5 or B = 4 per card; bob has 4) or Farmer (C = 3 per card; ann has 2)."""
    tasks = {
        "ann": {"A": "shogun", "B": "shogun", "C": "farmer"},
        "bob": {"A": "emperor", "B": "samurai", "C": "ninja"},
    }
    state = tasks_game(("ann", "bob"), tasks, rounds=1)
    tables = {"ann": sets("emperor", "empress", "daimyo", "monk", "envoy"), "bob": {"shogun": 4}}
    end_round_by(state, "ann", tables, lay="farmer")
    assert state_summary(state)["status"] == "revealing"
    play(state, f"ann reveal {deck_name}", "bob reveal C")  # nobody has Ninja
    scores = state_summary(state)["round_scores"][0]
    assert scores == {"ann": 6 + 7 + 8 + 18 + 16 + 20 + ann_bonus, "bob": 9 + bob_bonus}


def test_last_task_card_is_revealed_automatically() -> None:
    tasks = {k: TASKS3[k] for k in ("ann", "bob")}
    state = tasks_game(("ann", "bob"), tasks)
    assert state.rounds == 3
    end_round_by(state, "ann", {"ann": sets(*CHEAP[:5])})
    assert state_summary(state)["status"] == "revealing"
    play(state, "ann reveal A", "bob reveal B")
    starter = state_summary(state)["start_player"]
    assert state_summary(state)["round"] == 2
    end_round_by(state, starter, {starter: sets(*CHEAP[:5])})
    assert state_summary(state)["status"] == "revealing"
    assert state_summary(state)["current_player"] == starter
    assert len(legal_moves(state)) == 2  # two cards left: a real choice
    other = "bob" if starter == "ann" else "ann"
    play(state, f"{starter} reveal C", f"{other} reveal {'C' if other == 'ann' else 'A'}")
    assert state_summary(state)["round"] == 3
    starter3 = state_summary(state)["start_player"]
    events = end_round_by(state, starter3, {starter3: sets(*CHEAP[:5])})
    # round 3: one card each, no choice asked; the game ends at once
    summary = state_summary(state)
    assert summary["status"] == "finished"
    reveals = [e for e in events if e["event"] == "reveal_task"]
    second = "bob" if starter3 == "ann" else "ann"
    assert [(e["player"], e["automatic"]) for e in reveals] == [(starter3, True), (second, True)]
    assert summary["tasks"] == {"ann": {}, "bob": {}}
    assert [r["round"] for r in summary["revealed_tasks"]] == [1, 1, 2, 2, 3, 3]


def test_round_details_lists_types_values_bonuses_scores_totals() -> None:
    tasks = {k: TASKS3[k] for k in ("ann", "bob")}
    state = tasks_game(("ann", "bob"), tasks)
    end_round_by(state, "ann", {"ann": sets(*CHEAP[:5]), "bob": {"samurai": 4}})
    play(state, "ann reveal B", "bob reveal A")
    # ann: Emperor, Empress, Daimyo, Shogun, Monk, Farmer = 68 + Empress 2 x 5 = 78
    # bob: Samurai = 12 + Samurai 4 x 4 = 28
    details = round_details(state)
    assert len(details) == 1
    rows = details[0]["players"]
    assert rows["ann"]["round_score"] == 78
    assert rows["bob"]["round_score"] == 28
    assert rows["ann"]["total"] == 78
    assert rows["bob"]["types"] == [{"type": "samurai", "cards": 4, "value": 12}]
    assert sorted((b["type"], b["points"]) for b in rows["ann"]["task_bonuses"]) == [("empress", 10), ("samurai", 0)]
    assert sorted((b["type"], b["points"]) for b in rows["bob"]["task_bonuses"]) == [("empress", 0), ("samurai", 16)]
    assert details[0]["ranking"] == ["ann", "bob"]
    assert details[0]["next_start_player"] == "bob"
    assert state_summary(state)["round_scores"] == [{"ann": 78, "bob": 28}]


# --- the score sheet says why the round ended ------------------------------------------------------------


def _ended_by_types() -> State:
    state = game(("ann", "bob"), rounds=2)
    arrange(state, tables={"ann": sets(*CHEAP[:5])}, hands={"ann": {"farmer": 2}})
    play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 2")
    return state


def _ended_by_all_types() -> State:
    state, layer = nine_types_state(2, missing=None)
    play(state, f"{layer} draw draw1", f"{layer} draw draw2", f"{layer} lay farmer 2")
    return state


def _ended_by_a_draw_pile() -> State:
    state = game(("ann", "bob"), rounds=2)
    arrange(state, hands={"ann": {"monk": 2}})
    shrink_draw_pile(state, 1, 1)
    play(state, "ann draw draw2", "ann draw draw1", "ann discard monk discard2")
    return state


@pytest.mark.parametrize(
    ("setup", "end", "why"),
    [
        (
            _ended_by_types,
            {"reason": "types", "players": ["ann"], "types": 6},
            {
                "en": "Round 1 ended: ann had sets of 6 different types.",
                "nl": "Ronde 1 eindigde: ann had sets van 6 verschillende soorten.",
                "fr": "La manche 1 s'est terminée\u202f: ann avait des séries de 6 types différents.",
            },
        ),
        (
            _ended_by_all_types,
            {"reason": "all_types", "players": [], "types": 9},
            {
                "en": "Round 1 ended: all nine types were on the table.",
                "nl": "Ronde 1 eindigde: alle negen soorten lagen op tafel.",
                "fr": "La manche 1 s'est terminée\u202f: les neuf types étaient sur la table.",
            },
        ),
        (
            _ended_by_a_draw_pile,
            {"reason": "draw_pile_empty", "players": [], "types": 0},
            {
                "en": "Round 1 ended: a draw pile ran out.",
                "nl": "Ronde 1 eindigde: een trekstapel was op.",
                "fr": "La manche 1 s'est terminée\u202f: une pioche était vide.",
            },
        ),
    ],
    ids=["types", "all_types", "draw_pile_empty"],
)
def test_the_score_sheet_says_why_the_round_ended(
    setup: Callable[[], State], end: dict[str, object], why: dict[str, str]
) -> None:
    """The round's milestone (its score sheet) says which of R8's conditions ended it, in each language."""
    state = setup()
    assert round_details(state)[0]["end"] == end
    before = new_game(list(state.players), state.options, seed=1)  # no round scored yet
    for lang, sentence in why.items():
        sheet = GAME.speaking(lang).milestones(before, state)[0]
        assert sheet.kind == "round_scored" and sheet.data["why"] == sentence
