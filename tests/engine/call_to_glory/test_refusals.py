"""Every refused move says why, in English, Dutch and French: one ``verify_*`` per kind of move gives the rule, a
key and parameters (``IllegalMove``), and ``explain`` words them: what is wrong, what is possible now, and the rule
after the words where it helps. The closed choices of a page give the same reasons."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.call_to_glory import GAME, IllegalMove, Move, State, apply
from engine.call_to_glory.words import EN
from engine.call_to_glory.words_fr import FR
from engine.call_to_glory.words_nl import NL
from tests.conftest import game, move, play
from tests.engine.call_to_glory.turn_helpers import at_act, drain_draw2, take_turn

WORDS = {"en": EN, "nl": NL, "fr": FR}


def start() -> State:
    return game(("ann", "bob"))


def finished() -> State:
    state = game(("ann", "bob"), rounds=1)
    drain_draw2(state, 1)
    take_turn(state)
    assert state.is_finished
    return state


def revealing() -> State:
    state = game(("ann", "bob"), imperial_tasks=True)
    drain_draw2(state, 1)
    take_turn(state)
    assert state.status == "revealing" and state.current_player == "ann"
    return state


def drawn_once() -> State:
    state = start()
    play(state, "ann draw draw1")
    return state


def ninjas(**tables: dict[str, int]) -> State:
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 2}}, tables=tables or None, ninja_power=True)
    state.ninjas[0], state.ninja_supply = 1, 3  # as if ann had laid Ninjas
    return state


def act(**kwargs: object) -> Callable[[], State]:
    return lambda: at_act(**kwargs)  # type: ignore[arg-type]


def task_a_revealed() -> State:
    state = revealing()
    del state.tasks[0]["A"]  # as if ann had revealed it in an earlier round
    return state


CASES: list[tuple[str, Callable[[], State], str, str, dict[str, str]]] = [
    (
        "stranger",
        start,
        "zed draw draw1",
        "R4",
        {
            "en": "zed does not play in this game.",
            "nl": "zed speelt niet mee in dit spel.",
            "fr": "zed ne joue pas dans cette partie.",
        },
    ),
    (
        "game_over",
        finished,
        "ann draw draw1",
        "R10",
        {
            "en": "The game is over: no more moves can be made.",
            "nl": "Het spel is voorbij: er kan geen zet meer gedaan worden.",
            "fr": "La partie est terminée\u202f: plus aucun coup n'est possible.",
        },
    ),
    (
        "not_your_turn",
        start,
        "bob draw draw1",
        "R4",
        {
            "en": "It is ann's turn, not yours: you can move when it is your turn.",
            "nl": "ann is aan de beurt, niet jij: je kunt spelen als jij aan de beurt bent.",
            "fr": "C'est à ann de jouer, pas à vous\u202f: vous pourrez jouer à votre tour.",
        },
    ),
    (
        "reveal_turn",
        revealing,
        "bob reveal A",
        "R8",
        {
            "en": "ann must reveal a task card now, not you (R8).",
            "nl": "ann moet nu een opdrachtkaart omdraaien, niet jij (R8).",
            "fr": "C'est à ann de révéler une carte Mission, pas à vous (R8).",
        },
    ),
    (
        "reveal_now",
        revealing,
        "ann draw draw1",
        "R8",
        {
            "en": "The round is over: reveal task card A, B or C now (R8).",
            "nl": "De ronde is voorbij: draai nu opdrachtkaart A, B of C om (R8).",
            "fr": "La manche est terminée\u202f: révélez maintenant la carte Mission A, B ou C (R8).",
        },
    ),
    (
        "reveal_not_now",
        lambda: game(("ann", "bob"), imperial_tasks=True),
        "ann reveal A",
        "R8",
        {
            "en": "Task cards are revealed only at the end of a round: now draw a card (R8).",
            "nl": "Opdrachtkaarten draai je pas aan het eind van een ronde om: trek nu een kaart (R8).",
            "fr": (
                "Les cartes Mission ne sont révélées qu'à la fin d'une manche\u202f: piochez maintenant une carte (R8)."
            ),
        },
    ),
    (
        "reveal_not_now",
        act(imperial_tasks=True),
        "ann reveal A",
        "R8",
        {
            "en": "Task cards are revealed only at the end of a round: now lay a set or discard a card (R8).",
            "nl": (
                "Opdrachtkaarten draai je pas aan het eind van een ronde om: speel nu een set uit of leg een kaart af "
                "(R8)."
            ),
            "fr": (
                "Les cartes Mission ne sont révélées qu'à la fin d'une manche\u202f: posez maintenant une série ou "
                "défaussez une carte (R8)."
            ),
        },
    ),
    (
        "reveal_no_card",
        task_a_revealed,
        "ann reveal A",
        "R8",
        {
            "en": "You have no unrevealed task card A: reveal task card B or C (R8).",
            "nl": "Je hebt geen opdrachtkaart A meer om om te draaien: draai opdrachtkaart B of C om (R8).",
            "fr": "Vous n'avez pas de carte Mission A à révéler\u202f: révélez la carte Mission B ou C (R8).",
        },
    ),
    (
        "drawn_twice",
        act(),
        "ann draw draw1",
        "R5",
        {
            "en": "You have drawn twice: now lay a set or discard a card.",
            "nl": "Je hebt twee keer getrokken: speel nu een set uit of leg een kaart af.",
            "fr": "Vous avez pioché deux fois\u202f: posez maintenant une série ou défaussez une carte.",
        },
    ),
    (
        "draw_same_pile",
        drawn_once,
        "ann draw draw1",
        "R5.1",
        {
            "en": "Your second card must come from another pile than draw pile 1: draw from draw pile 2 (R5.1).",
            "nl": "Je tweede kaart moet van een andere stapel komen dan trekstapel 1: trek van trekstapel 2 (R5.1).",
            "fr": (
                "Votre seconde carte doit venir d'une autre pile que la pioche 1\u202f: piochez dans la pioche "
                "2 (R5.1)."
            ),
        },
    ),
    (
        "pile_empty",
        start,
        "ann draw discard1",
        "R5.1",
        {
            "en": "Discard pile 1 is empty: draw from draw pile 1 or draw pile 2 (R5.1).",
            "nl": "Aflegstapel 1 is leeg: trek van trekstapel 1 of trekstapel 2 (R5.1).",
            "fr": "La défausse 1 est vide\u202f: piochez dans la pioche 1 ou la pioche 2 (R5.1).",
        },
    ),
    (
        "draw_first",
        start,
        "ann lay farmer 2",
        "R5",
        {
            "en": "Draw first: you have 2 draws left this turn.",
            "nl": "Trek eerst: je mag deze beurt nog 2 keer trekken.",
            "fr": "Piochez d'abord\u202f: il vous reste 2 pioches ce tour-ci.",
        },
    ),
    (
        "draw_first",
        drawn_once,
        "ann discard farmer",
        "R5",
        {
            "en": "Draw first: you have 1 draw left this turn.",
            "nl": "Trek eerst: je mag deze beurt nog 1 keer trekken.",
            "fr": "Piochez d'abord\u202f: il vous reste 1 pioche ce tour-ci.",
        },
    ),
    (
        "lay_not_held",
        act(hands={"ann": {"samurai": 2}}),
        "ann lay samurai 3",
        "R5.2",
        {
            "en": "You hold 2 Samurai, not 3.",
            "nl": "Je hebt 2 Samoerai, geen 3.",
            "fr": "Vous avez 2 Samouraïs, pas 3.",
        },
    ),
    (
        "lay_not_held",
        act(hands={"ann": {"samurai": 1}}),
        "ann lay samurai 2",
        "R5.2",
        {"en": "You hold 1 Samurai, not 2.", "nl": "Je hebt 1 Samoerai, geen 2.", "fr": "Vous avez 1 Samouraï, pas 2."},
    ),
    (
        "lay_not_held",
        act(hands={"ann": {"samurai": 2}}),
        "ann lay empress 2",
        "R5.2",
        {"en": "You hold no Empresses.", "nl": "Je hebt geen Keizerinnen.", "fr": "Vous n'avez aucune Impératrice."},
    ),
    (
        "lay_minimum",
        act(players=("ann", "bob", "cy"), hands={"ann": {"samurai": 4}}),
        "ann lay samurai 2",
        "R5.2",
        {
            "en": "A set of Samurai needs at least 3 cards with 3 players: you hold 4 (R5.2).",
            "nl": "Een set Samoerai telt met 3 spelers minstens 3 kaarten: je hebt er 4 (R5.2).",
            "fr": "À 3 joueurs, une série de Samouraïs compte au moins 3 cartes\u202f: vous en avez 4 (R5.2).",
        },
    ),
    (
        "lay_beaten",
        act(hands={"ann": {"monk": 5}}, tables={"bob": {"monk": 5}}),
        "ann lay monk 5",
        "R5.2",
        {
            "en": "bob has 5 Monks: lay 6 or more to beat them; you hold 5 (R5.2).",
            "nl": "bob heeft 5 Monniken: speel er 6 of meer uit om die te verslaan; je hebt er 5 (R5.2).",
            "fr": "bob a 5 Moines\u202f: posez-en 6 ou plus pour la battre\u202f; vous en avez 5 (R5.2).",
        },
    ),
    (
        "lay_beaten",
        act(hands={"ann": {"monk": 3}}, tables={"ann": {"monk": 3}}),
        "ann lay monk 3",
        "R5.2",
        {
            "en": "Your set of 3 Monks is only beaten by 4 or more: you hold 3 (R5.2).",
            "nl": "Je set van 3 Monniken is alleen te verslaan met 4 of meer: je hebt er 3 (R5.2).",
            "fr": "Votre série de 3 Moines ne peut être battue que par 4 cartes ou plus\u202f: vous en avez 3 (R5.2).",
        },
    ),
    (
        "discard_not_held",
        act(hands={"ann": {"monk": 2}}),
        "ann discard empress",
        "R5.3",
        {"en": "You hold no Empresses.", "nl": "Je hebt geen Keizerinnen.", "fr": "Vous n'avez aucune Impératrice."},
    ),
    (
        "discard_choose",
        act(hands={"ann": {"monk": 2}}, discards=[["farmer"], ["envoy"]]),
        "ann discard monk",
        "R6",
        {
            "en": "Both discard piles hold cards: say which one, discard pile 1 or discard pile 2 (R6).",
            "nl": "Op beide aflegstapels liggen kaarten: zeg op welke, aflegstapel 1 of aflegstapel 2 (R6).",
            "fr": (
                "Les deux défausses contiennent des cartes\u202f: dites laquelle, la défausse 1 ou la défausse 2 (R6)."
            ),
        },
    ),
    (
        "discard_first_pile",
        act(hands={"ann": {"monk": 2}}, discards=[[], []]),
        "ann discard monk discard2",
        "R6",
        {
            "en": "Both discard piles are empty: the first card goes on discard pile 1 (R6).",
            "nl": "Beide aflegstapels zijn leeg: de eerste kaart gaat op aflegstapel 1 (R6).",
            "fr": "Les deux défausses sont vides\u202f: la première carte va sur la défausse 1 (R6).",
        },
    ),
    (
        "discard_start_pile",
        act(hands={"ann": {"monk": 2}}, discards=[["farmer"], []]),
        "ann discard monk discard1",
        "R6",
        {
            "en": "Discard pile 2 is empty: it must be started before the other discard pile is used again (R6).",
            "nl": (
                "Aflegstapel 2 is leeg: die moet eerst beginnen voordat de andere aflegstapel weer gebruikt wordt (R6)."
            ),
            "fr": "La défausse 2 est vide\u202f: elle doit être commencée avant de réutiliser l'autre défausse (R6).",
        },
    ),
    (
        "ninja_off",
        act(hands={"ann": {"monk": 2}}, tables={"bob": {"farmer": 2}}),
        "ann ninja bob farmer",
        "R9",
        {
            "en": "The power of the Ninja (V2) is not played in this game.",
            "nl": "De kracht van de Ninja (V2) wordt in dit spel niet gespeeld.",
            "fr": "Le pouvoir des Ninjas (V2) n'est pas joué dans cette partie.",
        },
    ),
    (
        "ninja_none",
        act(hands={"ann": {"monk": 2}}, tables={"bob": {"farmer": 2}}, ninja_power=True),
        "ann ninja bob farmer",
        "R9",
        {
            "en": "You have no Ninja miniature: laying a set of Ninjas gives you one (R9).",
            "nl": "Je hebt geen Ninja-miniatuur: die krijg je door een set Ninja's uit te spelen (R9).",
            "fr": "Vous n'avez aucune figurine Ninja\u202f: poser une série de Ninjas vous en donne une (R9).",
        },
    ),
    (
        "ninja_stranger",
        lambda: ninjas(bob={"farmer": 2}),
        "ann ninja zed farmer",
        "R9",
        {
            "en": "zed does not play in this game.",
            "nl": "zed speelt niet mee in dit spel.",
            "fr": "zed ne joue pas dans cette partie.",
        },
    ),
    (
        "ninja_own",
        lambda: ninjas(ann={"farmer": 2}),
        "ann ninja ann farmer",
        "R9",
        {
            "en": "A Ninja removes a card from an opponent's set, not from your own (R9).",
            "nl": "Een Ninja haalt een kaart weg uit de set van een tegenstander, niet uit je eigen set (R9).",
            "fr": "Un Ninja retire une carte de la série d'un adversaire, pas de la vôtre (R9).",
        },
    ),
    (
        "ninja_no_set",
        lambda: ninjas(bob={"farmer": 2}),
        "ann ninja bob empress",
        "R9",
        {
            "en": "bob has no set of Empresses (R9).",
            "nl": "bob heeft geen set Keizerinnen (R9).",
            "fr": "bob n'a pas de série d'Impératrices (R9).",
        },
    ),
]
"""One case per refusal (and per form of its words): the state, the move, the rule, and the sentence per language."""


@pytest.mark.parametrize(("key", "setup", "text", "rule", "words"), CASES, ids=[c[0] for c in CASES])
def test_each_refusal_in_three_languages(
    key: str, setup: Callable[[], State], text: str, rule: str, words: dict[str, str]
) -> None:
    state = setup()
    with pytest.raises(IllegalMove) as info:
        apply(state, move(text))
    error = info.value
    assert (error.rule, error.key) == (rule, key)
    assert error.message == EN.refusal(error.key, error.params)
    for lang, sentence in words.items():
        assert GAME.speaking(lang).explain(error) == sentence


def test_every_refusal_has_words_in_every_language() -> None:
    keys = {key for key, *_ in CASES}
    for words in WORDS.values():
        refusals = {k.removeprefix("refuse_").split("/")[0] for k in words.TEXTS if k.startswith("refuse_")}
        assert refusals == keys, words.lang
        assert keys >= words.CITED


def test_a_refusal_of_another_game_is_its_message() -> None:
    error = IllegalMove("A5", "no such thing", "unknown_key", {"x": 1})
    assert GAME.speaking("nl").explain(error) == "no such thing"
    assert GAME.explain(IllegalMove("R4", "old error without a key")) == "old error without a key"


def test_rule_codes_only_where_they_help() -> None:
    """The rule code follows the words of refusals that follow from a rule, not of "it is ann's turn"."""
    turn = IllegalMove("R4", "", "not_your_turn", {"current": "ann"})
    draw = IllegalMove("R5.1", "", "pile_empty", {"pile": "discard1", "piles": ["draw1"]})
    assert "R4" not in GAME.explain(turn) and GAME.explain(draw).endswith("(R5.1).")


def test_closed_choices_give_the_reasons_of_the_refusals() -> None:
    """The reason beside a closed choice and the refusal of that move come from the same verify_*."""
    state = drawn_once()
    closed = {c.label: c for g in GAME.speaking("nl").choices(state, "ann") for c in g.closed}
    same = closed["Trek van trekstapel 1"]
    assert (same.reason, same.rule) == (
        "je trok al van trekstapel 1: je tweede kaart komt van een andere stapel",
        "R5.1",
    )
    with pytest.raises(IllegalMove) as info:
        apply(state, Move.draw("ann", "draw1"))
    assert (info.value.key, info.value.rule) == ("draw_same_pile", same.rule)
    state = at_act(("ann", "bob"), hands={"ann": {"monk": 2}}, tables={"bob": {"monk": 3}})
    closed = {c.label: c for g in GAME.choices(state, "ann") for c in g.closed}
    assert closed["Lay Monks"].reason == "bob has 3 Monks: lay 4 or more to beat them (you hold 2)"
