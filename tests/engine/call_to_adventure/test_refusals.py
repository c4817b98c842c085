"""Refusals cite the section that forbids the move and say, in English, Dutch and French, what is wrong and what
is possible now (A14.6): one row of the table per test. Every refusal comes from the one ``verify_<kind>`` of its
kind of move, so the page's closed reasons and ``legal_moves`` say the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, FormatError, IllegalMove, RecordError
from engine.call_to_adventure import rules
from engine.call_to_adventure.state import State

GAME = GAMES["call-to-adventure"]
CASES = Path(__file__).resolve().parent / "oracle_cases"
LANGS = ("en", "nl", "fr")
NOW = {
    "en": {"main": "main action", "facing": "take the result", "draw": "draw a Hero", "peek": "order you choose"},
    "nl": {"main": "hoofdactie", "facing": "aanvaard de uitkomst", "draw": "Trek nu", "peek": "volgorde"},
    "fr": {"main": "action principale", "facing": "acceptez le résultat", "draw": "Piochez", "peek": "ordre"},
}
"""A few words of each language's sentence for what is possible in a step."""


def at(name: str, moves: int) -> State:
    """The state after the first ``moves`` moves of an oracle record."""
    data: dict[str, Any] = json.loads(next(CASES.glob(f"{name}-*.json")).read_text())
    data["moves"] = data["moves"][:moves]
    return GAME.replay(data)[1]


def refusal(state: State, player: str, move: dict[str, Any]) -> IllegalMove:
    before = GAME.to_json(state)
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, GAME.parse_move(player, move))
    assert GAME.to_json(state) == before
    assert rules.why_not(state, GAME.parse_move(player, move)) is not None
    assert GAME.parse_move(player, move) not in GAME.legal_moves(state, player)
    return caught.value


def check(error: IllegalMove, rule: str, words: dict[str, str], now: str | None) -> None:
    """The rule, and in each language the words that say what is wrong (``words``) and what is possible now."""
    assert error.rule == rule, (error.rule, error.message)
    for lang in LANGS:
        text = GAME.speaking(lang).explain(error)
        assert words[lang] in text, (lang, text)
        if now is not None:
            assert NOW[lang][now] in text, (lang, text)
    assert GAME.explain(error) == error.message


# A move at the wrong step cites the section of that step --------------------------------------------------


def test_casting_at_the_wrong_step_cites_a5_5() -> None:
    error = refusal(at("F1", 0), "ann", {"do": "cast"})
    check(error, "A5.5", {"en": "cast the runes", "nl": "de runen werpen", "fr": "lancer les runes"}, "main")


def test_a_dark_rune_at_the_wrong_step_cites_a5_3() -> None:
    error = refusal(at("F1", 1), "ann", {"do": "dark"})
    check(error, "A5.3", {"en": "buy a dark rune", "nl": "duistere rune kopen", "fr": "rune sombre"}, "facing")


def test_taking_the_result_before_the_card_face_is_drawn_cites_a5_7() -> None:
    error = refusal(at("F1", 2), "ann", {"do": "resolve"})
    check(error, "A5.7", {"en": "take the result", "nl": "uitkomst aanvaarden", "fr": "accepter le résultat"}, "draw")


def test_a_card_at_the_wrong_step_cites_a8() -> None:
    error = refusal(at("F1", 0), "ann", {"do": "play", "card": "h-try-again", "runes": "0"})
    check(error, "A8", {"en": "Try Again", "nl": "Probeer opnieuw", "fr": "Réessaie"}, "main")


def test_a_power_at_the_wrong_step_cites_a9() -> None:
    state = at("F2c", 5)  # ann's second turn, main step: her Foundling's power is any time outside a challenge
    GAME.apply(state, GAME.parse_move("ann", {"do": "challenge", "card": "s1-thief-in-the-market", "path": "top"}))
    assert state.phase in ("draw", "facing")
    error = refusal(state, "ann", {"do": "use", "card": "o-foundling-of-the-archive"})
    check(error, "A9", {"en": "power of", "nl": "vermogen van", "fr": "pouvoir de"}, None)


def test_the_adversary_before_its_time_cites_a13_3() -> None:
    state = at("F3", 0)
    assert state.adversary is not None
    error = refusal(state, "ann", {"do": "attempt", "card": state.adversary["card"], "path": "top"})
    check(error, "A13.3", {"en": "last turn", "nl": "laatste beurt", "fr": "dernier tour"}, None)


def test_a_face_down_card_cites_a6() -> None:
    state = at("F1", 0)
    hidden = next(c for c in state.rows[1] if c)
    for move in ({"do": "trait", "card": hidden}, {"do": "journey", "card": hidden}):
        error = refusal(state, "ann", move)
        check(error, "A6", {"en": "face down", "nl": "gesloten", "fr": "face cachée"}, "main")


# A field with a bad value names the field and its allowed values ------------------------------------------


@pytest.mark.parametrize(
    ("move", "rule", "field"),
    [
        ({"do": "attempt", "card": "s1-fire-at-the-ferry", "path": "left"}, "A5.2", "'path'"),
        ({"do": "challenge", "card": "s1-fire-at-the-ferry", "path": "top", "dark": "7"}, "A5.3", "'dark'"),
        ({"do": "play", "card": "h-try-again", "act": "1"}, "A8", "'act'"),
    ],
)
def test_a_bad_field_value_names_the_field(move: dict[str, Any], rule: str, field: str) -> None:
    state = at("F1", 1) if move["do"] == "play" else at("F1", 0)
    error = refusal(state, "ann", move)
    check(error, rule, dict.fromkeys(LANGS, field), None)


def test_a_number_where_a_text_is_expected_names_the_field() -> None:
    with pytest.raises(FormatError, match="'act' must be a non-empty text"):
        GAME.parse_move("ann", {"do": "play", "card": "h-try-again", "act": 1})


def test_a_bad_deck_names_the_field() -> None:
    error = refusal(at("F1", 2), "ann", {"do": "draw", "deck": "joker"})
    check(error, "A5.5", dict.fromkeys(LANGS, "'deck'"), "draw")


def test_an_unknown_kind_of_move_names_the_moves() -> None:
    with pytest.raises(FormatError, match="unknown move 'fly'"):
        GAME.parse_move("ann", {"do": "fly"})  # a form or a reply: the server's answer for bad input
    data: dict[str, Any] = json.loads(next(CASES.glob("F1-*.json")).read_text())
    data["moves"][0]["do"] = "fly"
    with pytest.raises(RecordError) as caught:  # a record: the rule, and the moves there are
        GAME.replay(data)
    assert (caught.value.move, caught.value.rule) == (0, "A4")
    assert "'fly'" in caught.value.message and "journey" in caught.value.message


def test_bad_runes_say_so() -> None:
    for runes, words in (
        ("1,1", {"en": "twice", "nl": "twee keer", "fr": "deux fois"}),
        ("9", {"en": "not in the cast", "nl": "niet geworpen", "fr": "pas été lancée"}),
        ("0,1", {"en": "one of the runes", "nl": "een van de geworpen", "fr": "l'une des runes"}),
    ):
        error = refusal(at("F1", 1), "ann", {"do": "play", "card": "h-try-again", "runes": runes})
        check(error, "A5", words, "facing")


def test_a_bad_target_says_so() -> None:
    error = refusal(at("F3", 0), "ann", {"do": "play", "card": "h-call-for-aid", "target": "zed"})
    check(error, "A13.4", dict.fromkeys(LANGS, "'target'"), "main")
    state = at("F1", 0)  # no co-op: a card aimed at "you" names no one
    card = "h-call-for-aid"
    for pile in [state.decks["hero"], *(p.hand for p in state.ps)]:
        if card in pile:
            pile.remove(card)
    state.ps[0].hand.append(card)
    error = refusal(state, "ann", {"do": "play", "card": card, "target": "bob"})
    check(error, "A8", dict.fromkeys(LANGS, "'target'"), "main")


def test_an_order_naming_the_wrong_cards_says_so() -> None:
    state = at("F1", 0)
    state.peek, state.phase = [0, 2, "after"], "peek"  # a look at the top two cards of Act I
    top = state.decks["act1"][-2:][::-1]
    error = refusal(state, "ann", {"do": "order", "order": "s1-fire-at-the-ferry"})
    check(error, "A8", dict.fromkeys(LANGS, "'order'"), "peek")
    GAME.apply(state, GAME.parse_move("ann", {"do": "order", "order": ",".join(reversed(top))}))
    assert state.decks["act1"][-2:] == top


def test_a_journey_to_a_card_in_no_row_says_so() -> None:
    state = at("F1", 0)
    error = refusal(state, "ann", {"do": "journey", "card": state.decks["act1"][0]})
    check(error, "A4.4", {"en": "no face-up row", "nl": "geen enkele open rij", "fr": "aucune rangée"}, "main")


def test_another_players_move_says_whose_turn_it_is() -> None:
    error = refusal(at("F1", 0), "bob", {"do": "cast"})
    check(error, "A4", dict.fromkeys(LANGS, "ann"), None)


def test_the_page_reasons_come_from_the_same_refusals() -> None:
    state = at("F1", 0)
    hand = state.ps[0].hand
    groups = {g.key: g for g in GAME.choices(state, "ann")}
    closed = {c.label: c for c in groups["play"].closed}
    for card in hand:
        why = rules.why_not(state, GAME.parse_move("ann", {"do": "play", "card": card}))
        if why is not None:
            name = GAME.words.name(state.cards, card)
            assert closed[name].rule == why.rule
            assert closed[name].reason == GAME.words.reason(why.key, why.params, state.cards)
