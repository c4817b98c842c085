"""The choices a player is offered: labels, what each does, and why the others are closed (one test per rule)."""

from __future__ import annotations

from engine.call_to_glory import GAME, State
from engine.protocol import ChoiceGroup
from tests.conftest import arrange, game, play
from tests.engine.call_to_glory.turn_helpers import at_act


def groups(state: State, player: str) -> dict[str, ChoiceGroup]:
    return {g.key: g for g in GAME.choices(state, player)}


def notes(group: ChoiceGroup) -> dict[str, str]:
    return {c.label: c.note for c in group.choices}


def reasons(group: ChoiceGroup) -> dict[str, tuple[str, str]]:
    return {c.label: (c.reason, c.rule) for c in group.closed}


def test_only_the_player_to_act_has_choices() -> None:
    state = game(("ann", "bob"))
    assert GAME.choices(state, "bob") == []
    assert list(groups(state, "ann")) == ["draw"]


def test_r5_1_a_pile_drawn_from_cannot_be_used_again_and_empty_piles_are_closed() -> None:
    state = game(("ann", "bob"), hands=[["monk"]])
    draw = groups(state, "ann")["draw"]
    assert draw.title == "Draw a card (2 of 2 left)"
    assert reasons(draw) == {
        "Take from discard pile 1": ("discard pile 1 is empty", "R5.1"),
        "Take from discard pile 2": ("discard pile 2 is empty", "R5.1"),
    }
    assert notes(draw)["Draw from draw pile 1"] == "face down, 52 cards"
    play(state, "ann draw draw1")
    draw = groups(state, "ann")["draw"]
    assert draw.title == "Draw a card (1 of 2 left)"
    assert reasons(draw)["Draw from draw pile 1"] == (
        "you drew from draw pile 1 already: the second card comes from another pile",
        "R5.1",
    )
    assert [c.label for c in draw.choices] == ["Draw from draw pile 2"]


def test_r5_1_a_discard_pile_offers_its_top_card_by_name() -> None:
    state = game(("ann", "bob"))
    arrange(state, discards=[["farmer", "empress"], []])
    draw = groups(state, "ann")["draw"]
    assert notes(draw)["Take the Empress from discard pile 1"] == "face up, 2 cards"


def test_r5_2_a_lay_below_the_minimum_says_how_many_are_needed() -> None:
    state = at_act(("ann", "bob", "cy"), hands={"ann": {"samurai": 2, "farmer": 1}})
    lay = groups(state, "ann")["lay"]
    assert reasons(lay)["Lay Samurai"] == ("Samurai need 3 cards with 3 players: you hold 2", "R5.2")
    assert reasons(lay)["Lay Farmers"] == ("Farmers need 2 cards with 3 players: you hold 1", "R5.2")
    assert not lay.choices


def test_r5_2_a_set_on_the_table_must_be_beaten_by_more() -> None:
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 5}}, tables={"bob": {"monk": 5}})
    lay = groups(state, "ann")["lay"]
    assert reasons(lay)["Lay Monks"] == ("bob has 5 Monks: lay 6 or more to beat them (you hold 5)", "R5.2")
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 3}}, tables={"ann": {"monk": 3}})
    assert reasons(groups(state, "ann")["lay"])["Lay Monks"] == (
        "your set of 3 Monks is only beaten by 4 or more: you hold 3",
        "R5.2",
    )


def test_r7_a_lay_that_beats_a_set_says_where_the_beaten_cards_go() -> None:
    state = at_act(
        ("ann", "bob"),
        hands={"ann": {"monk": 6}},
        tables={"bob": {"monk": 5}},
        discards=[["farmer", "farmer"], ["envoy"]],
    )
    lay = groups(state, "ann")["lay"]
    assert notes(lay) == {"Lay 6 Monks": "beats bob's 5 Monks, which go to discard pile 2"}
    play(state, "bob pref larger")
    assert notes(groups(state, "ann")["lay"])["Lay 6 Monks"] == "beats bob's 5 Monks, which go to discard pile 1"


def test_r8_a_lay_says_when_it_ends_the_round() -> None:
    state = at_act(
        ("ann", "bob", "cy"),
        hands={"ann": {"farmer": 2}},
        tables={"ann": {"monk": 2, "emperor": 2, "empress": 2, "daimyo": 2}},
    )
    lay = groups(state, "ann")["lay"]
    assert notes(lay)["Lay 2 Farmers"] == "scores 20 at the round's end; ends the round: you would have 5 types"


def test_r6_a_discard_says_which_pile_it_must_go_on() -> None:
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 1}})
    discard = groups(state, "ann")["discard"]
    assert notes(discard) == {"Discard a Monk": "goes on discard pile 1: both discard piles are empty"}
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 1}}, discards=[["farmer"], []])
    assert notes(groups(state, "ann")["discard"]) == {
        "Discard a Monk": "goes on discard pile 2: discard pile 2 is empty and must be started"
    }
    state = at_act(("ann", "bob"), hands={"ann": {"emperor": 1}}, discards=[["farmer"], ["envoy"]])
    assert notes(groups(state, "ann")["discard"]) == {
        "Discard an Emperor on discard pile 1": "on top of the Farmer",
        "Discard an Emperor on discard pile 2": "on top of the Envoy",
    }


def test_r9_a_ninja_use_says_what_it_removes_and_where_the_card_goes() -> None:
    state = at_act(
        ("ann", "bob"), hands={"ann": {"monk": 1}}, tables={"bob": {"farmer": 3, "envoy": 1}}, ninja_power=True
    )
    state.ninjas[0] = 1
    state.ninja_supply -= 1
    ninja = groups(state, "ann")["ninja"]
    assert ninja.title == "Use a Ninja miniature (1 left)"
    assert notes(ninja) == {
        "Remove a Farmer from bob's set": "bob's 3 Farmers become 2; the card goes to discard pile 1",
        "Remove an Envoy from bob's set": "bob's set is gone; the card goes to discard pile 1",
    }


def test_r9_a_ninja_lay_says_it_takes_a_miniature() -> None:
    state = at_act(("ann", "bob"), hands={"ann": {"ninja": 2}}, ninja_power=True)
    assert notes(groups(state, "ann")["lay"])["Lay 2 Ninjas"] == "scores 14 at the round's end; takes a Ninja miniature"


def test_r8_a_task_reveal_says_what_every_player_scores() -> None:
    state = at_act(("ann", "bob"), tables={"ann": {"farmer": 3}, "bob": {"farmer": 0}}, imperial_tasks=True)
    state.status, state.step = "revealing", None
    state.tasks[0] = {"C": 8, "A": 0}  # farmer (type 8) in deck C, emperor in deck A
    reveal = groups(state, "ann")["reveal"]
    assert (
        notes(reveal)["Reveal task card C: Farmer"] == "every player scores 3 per Farmer in front of them: you 9, bob 0"
    )
    assert (
        notes(reveal)["Reveal task card A: Emperor"]
        == "every player scores 5 per Emperor in front of them: you 0, bob 0"
    )


def test_r8_progress_says_what_each_table_scores_now_and_how_near_the_end_is() -> None:
    state = at_act(
        ("ann", "bob", "cy"),
        tables={"ann": {"monk": 2, "emperor": 2, "empress": 2, "daimyo": 2}, "bob": {"farmer": 3}},
    )
    lines = GAME.progress(state, "bob")
    assert lines[0] == "If round 1 ended now: ann 39, you 20, cy 0."
    assert lines[1] == "The round ends when a player has 5 types: ann has 4 of 5."
    assert lines[2].startswith("It also ends when all nine types are on the table (5 of 9 now) or a draw pile is empty")
    assert GAME.progress(state, "ann")[1] == "The round ends when a player has 5 types: you have 4 of 5."
