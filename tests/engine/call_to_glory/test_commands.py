"""Commands for replies by email: one short command per open choice in the reader's language, and a reply's lines
read back liberally (case, accents, plurals, added words, English in every language, the number alone); a clear
move that cannot be made now is read as that move, so that its refusal says why; table talk is no command."""

from __future__ import annotations

from typing import Any

import pytest

from engine.call_to_glory import GAME, TYPES, IllegalMove, State
from tests.conftest import arrange, game, play
from tests.engine.call_to_glory.turn_helpers import at_act, drain_draw2, take_turn


def texts(state: State, player: str, lang: str = "en") -> list[str]:
    return [c.text for c in GAME.speaking(lang).commands(state, player)]


def read(state: State, text: str, lang: str = "en", player: str = "ann") -> dict[str, Any] | None:
    found = GAME.speaking(lang).parse_command(state, player, text)
    return None if found is None else dict(found)


def draws() -> State:
    state = game(("ann", "bob", "cy"))
    return arrange(state, discards=[["farmer", "emperor"], ["monk"]])


def acting() -> State:
    state = at_act(
        ("ann", "bob", "cy"),
        hands={"ann": {"samurai": 4, "monk": 1, "daimyo": 2}},
        tables={"bob": {"farmer": 2}},
        discards=[["farmer"], []],
        ninja_power=True,
    )
    state.ninjas[0], state.ninja_supply = 1, 3  # as if ann had laid Ninjas
    return state


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", ["draw pile 1", "draw pile 2", "take emperor", "take monk"]),
        ("nl", ["trek stapel 1", "trek stapel 2", "pak keizer", "pak monnik"]),
        ("fr", ["pioche 1", "pioche 2", "prendre empereur", "prendre moine"]),
    ],
)
def test_r5_1_draws_name_the_pile_or_the_card_on_top(lang: str, expected: list[str]) -> None:
    assert texts(draws(), "ann", lang) == expected
    assert texts(draws(), "bob", lang) == []


def test_r5_1_two_discard_piles_showing_the_same_type_are_told_apart_by_number() -> None:
    state = arrange(game(("ann", "bob")), discards=[["emperor"], ["emperor"]])
    assert texts(state, "ann")[2:] == ["take emperor from pile 1", "take emperor from pile 2"]
    assert texts(state, "ann", "fr")[2:] == ["prendre empereur sur défausse 1", "prendre empereur sur défausse 2"]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            [
                "lay daimyo",
                "lay 3 samurai",
                "lay 4 samurai",
                "discard daimyo",
                "discard samurai",
                "discard monk",
                "ninja bob farmer",
            ],
        ),
        (
            "nl",
            [
                "speel daimyo uit",
                "speel 3 samoerai uit",
                "speel 4 samoerai uit",
                "leg daimyo af",
                "leg samoerai af",
                "leg monnik af",
                "ninja bob boer",
            ],
        ),
        (
            "fr",
            [
                "poser daimyos",
                "poser 3 samouraïs",
                "poser 4 samouraïs",
                "défausser daimyo",
                "défausser samouraï",
                "défausser moine",
                "ninja bob paysan",
            ],
        ),
    ],
)
def test_r5_2_r5_3_r9_lays_say_the_count_only_when_there_is_a_choice(lang: str, expected: list[str]) -> None:
    """R5.2: three players lay at least 3 Samurai (two counts open) and 2 Daimyo (one); R6: the one empty discard pile
    takes the card, so a discard names no pile; R9: a Ninja names its target and the type."""
    assert texts(acting(), "ann", lang) == expected


def test_r6_with_both_discard_piles_in_use_a_discard_names_its_pile() -> None:
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 1}}, discards=[["farmer"], ["envoy"]])
    assert texts(state, "ann") == ["discard monk on pile 1", "discard monk on pile 2"]
    assert texts(state, "ann", "nl") == ["leg monnik af op stapel 1", "leg monnik af op stapel 2"]


def test_r8_a_task_reveal_names_the_deck() -> None:
    state = game(("ann", "bob"), imperial_tasks=True)
    drain_draw2(state, 1)
    take_turn(state)
    assert texts(state, "ann") == ["reveal task a", "reveal task b", "reveal task c"]
    assert texts(state, "ann", "fr") == ["révéler mission a", "révéler mission b", "révéler mission c"]
    assert read(state, "Reveal A") == {"do": "reveal_task", "deck": "A"}
    assert read(state, "draai b om", "nl") == {"do": "reveal_task", "deck": "B"}
    state.tasks[0] = {"A": TYPES.index("empress"), "B": TYPES.index("ninja"), "C": TYPES.index("ninja")}
    assert read(state, "reveal the empress") == {"do": "reveal_task", "deck": "A"}
    assert read(state, "reveal ninja") is None, "two task cards name the Ninja: the deck must say which"


DRAW_LINES = [
    ("en", "draw 1", {"do": "draw", "pile": "draw1"}),
    ("en", "pile 2", {"do": "draw", "pile": "draw2"}),
    ("en", "Draw from draw pile 1!", {"do": "draw", "pile": "draw1"}),
    ("en", "take the Emperor", {"do": "draw", "pile": "discard1"}),
    ("en", "take 2", {"do": "draw", "pile": "discard2"}),
    ("en", "draw discard pile 2", {"do": "draw", "pile": "discard2"}),
    ("en", "take monk from pile 2", {"do": "draw", "pile": "discard2"}),
    ("nl", "trek van trekstapel 2", {"do": "draw", "pile": "draw2"}),
    ("nl", "pak de Keizer", {"do": "draw", "pile": "discard1"}),
    ("nl", "take monk", {"do": "draw", "pile": "discard2"}),
    ("fr", "Piocher 1", {"do": "draw", "pile": "draw1"}),
    ("fr", "piocher dans la défausse 2", {"do": "draw", "pile": "discard2"}),
    ("fr", "prendre l'EMPEREUR", {"do": "draw", "pile": "discard1"}),
    ("fr", "prendre empereur sur defausse 1", {"do": "draw", "pile": "discard1"}),
    ("fr", "1", {"do": "draw", "pile": "draw1"}),
]


@pytest.mark.parametrize(("lang", "text", "move"), DRAW_LINES)
def test_draw_lines_are_read_liberally(lang: str, text: str, move: dict[str, Any]) -> None:
    assert read(draws(), text, lang) == move


ACT_LINES = [
    ("en", "lay samurai", {"do": "lay", "type": "samurai", "count": 4}),
    ("en", "Lay 3 Samurais", {"do": "lay", "type": "samurai", "count": 3}),
    ("en", "lay daimyos", {"do": "lay", "type": "daimyo", "count": 2}),
    ("en", "discard the monk", {"do": "discard", "type": "monk", "pile": "discard2"}),
    ("en", "remove a farmer from bob", {"do": "ninja", "target": "bob", "type": "farmer"}),
    ("en", "use a ninja on bob's farmers", {"do": "ninja", "target": "bob", "type": "farmer"}),
    ("en", "ninja farmer", {"do": "ninja", "target": "bob", "type": "farmer"}),
    ("nl", "speel 3 samoerai uit", {"do": "lay", "type": "samurai", "count": 3}),
    ("nl", "speel daimyo's uit", {"do": "lay", "type": "daimyo", "count": 2}),
    ("nl", "leg monnik af", {"do": "discard", "type": "monk", "pile": "discard2"}),
    ("nl", "haal een boer weg bij bob", {"do": "ninja", "target": "bob", "type": "farmer"}),
    ("nl", "lay 4 samurai", {"do": "lay", "type": "samurai", "count": 4}),
    ("fr", "poser 3 samouraïs", {"do": "lay", "type": "samurai", "count": 3}),
    ("fr", "Poser 3 SAMOURAIS", {"do": "lay", "type": "samurai", "count": 3}),
    ("fr", "défausser le moine", {"do": "discard", "type": "monk", "pile": "discard2"}),
    ("fr", "retirer un paysan à bob", {"do": "ninja", "target": "bob", "type": "farmer"}),
    ("fr", "discard monk", {"do": "discard", "type": "monk", "pile": "discard2"}),
]


@pytest.mark.parametrize(("lang", "text", "move"), ACT_LINES)
def test_lay_discard_and_ninja_lines_are_read_liberally(lang: str, text: str, move: dict[str, Any]) -> None:
    assert read(acting(), text, lang) == move


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("lay 7 samurai", "lay_not_held"),
        ("lay emperors", "lay_not_held"),
        ("lay 2 samurai", "lay_minimum"),
        ("ninja bob empress", "ninja_no_set"),
        ("reveal task a", "reveal_not_now"),
    ],
)
def test_a_clear_move_that_cannot_be_made_is_read_so_that_its_refusal_says_why(text: str, key: str) -> None:
    state = acting()
    move = read(state, text)
    assert move is not None
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, GAME.parse_move("ann", move))
    assert info.value.key == key


def test_r6_a_discard_that_names_no_pile_where_there_is_a_choice_is_refused_asking_which() -> None:
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 1}}, discards=[["farmer"], ["envoy"]])
    move = read(state, "discard monk")
    assert move == {"do": "discard", "type": "monk"}
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, GAME.parse_move("ann", move))
    assert GAME.speaking("nl").explain(info.value).startswith("Op beide aflegstapels liggen kaarten: zeg op welke")
    assert read(state, "discard monk 2") == {"do": "discard", "type": "monk", "pile": "discard2"}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "thanks, nice move!",
        "lay low",
        "take care",
        "draw",
        "draw 3",
        "lay 3",
        "99",
        "0",
        "discard monk and samurai",
        "take emperor from pile 2",
        "preference",
    ],
)
def test_table_talk_and_unclear_lines_are_no_command(text: str) -> None:
    assert read(draws() if "draw" in text or "take" in text else acting(), text) is None


@pytest.mark.parametrize(
    ("lang", "text", "value"),
    [
        ("en", "preference larger", "larger"),
        ("en", "prefer the smaller pile", "smaller"),
        ("en", "preference pile 2", "pile2"),
        ("nl", "voorkeur kleinste stapel", "smaller"),
        ("fr", "préférence plus grande", "larger"),
        ("fr", "preference pile 1", "pile1"),
    ],
)
def test_r7_the_discard_preference_is_read_from_anyone_at_any_time(lang: str, text: str, value: str) -> None:
    """A standing move: no decision lists it (bob has no commands), but any player's reply may change it."""
    state = draws()
    assert texts(state, "bob") == []
    move = read(state, text, lang, player="bob")
    assert move == {"do": "preference", "discard_preference": value}
    play(state, f"bob pref {value}")
    assert read(state, "preference", lang, player="bob") is None


def test_no_command_for_someone_who_does_not_play() -> None:
    assert read(draws(), "draw pile 1", player="zed") is None
    assert GAME.commands(draws(), "zed") == []
