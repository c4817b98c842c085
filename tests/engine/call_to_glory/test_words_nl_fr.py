"""Call to Glory in Dutch and French: whole sentences with the printed rulebooks' words (GLOSSARY.md), plurals,
articles and elision, the reader as "je"/"jij" and "vous"; English unchanged."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine import GAMES, IllegalMove, OptionsError
from engine.call_to_glory import GAME, State
from engine.call_to_glory.words import EN
from engine.call_to_glory.words_fr import FR
from engine.call_to_glory.words_nl import NL
from engine.protocol import ChoiceGroup, LogEntry
from tests.conftest import arrange, game, play
from tests.engine.call_to_glory.turn_helpers import at_act, finish_round

DUTCH = GAME.speaking("nl")
FRENCH = GAME.speaking("fr")

TAKE_MONK: dict[str, Any] = {"event": "draw", "player": "ann", "pile": "discard2", "card": "monk"}
LAY_NINJAS: dict[str, Any] = {
    "event": "lay",
    "player": "ann",
    "type": "ninja",
    "count": 3,
    "beaten": {"player": "bob", "count": 2, "pile": "discard1"},
    "ninja_taken": True,
}
NINJA_USE: dict[str, Any] = {"event": "ninja", "player": "bob", "target": "ann", "type": "envoy", "pile": "discard1"}
ROUND_END: dict[str, Any] = {"event": "round_end", "round": 2, "reasons": ["types", "draw_pile_empty"]}


def notes(group: ChoiceGroup) -> dict[str, str]:
    return {c.label: c.note for c in group.choices}


def groups(rules: Any, state: State, player: str) -> dict[str, ChoiceGroup]:
    return {g.key: g for g in rules.choices(state, player)}


def test_one_object_per_language_sharing_the_rules() -> None:
    assert GAMES["call-to-glory"] is GAME and GAME.lang == "en"
    assert (DUTCH.lang, FRENCH.lang) == ("nl", "fr") and DUTCH.speaking("nl") is DUTCH
    assert GAME.speaking("de") is GAME and DUTCH.speaking("en") is GAME and DUTCH.speaking("fr") is FRENCH
    state = game(("ann", "bob"))
    assert [m.to_json() for m in DUTCH.legal_moves(state, "ann")] == [
        m.to_json() for m in GAME.legal_moves(state, "ann")
    ]


def test_plurals_and_articles() -> None:
    assert [NL.card("farmer", 3), NL.card("empress", 2), NL.card("samurai", 4), NL.card("envoy", 2)] == [
        "3 Boeren",
        "2 Keizerinnen",
        "4 Samoerai",
        "2 Bodes",
    ]
    assert [NL.a("monk"), NL.the("envoy"), NL.card("ninja", 2), NL.card("monk", 2)] == [
        "een Monnik",
        "de Bode",
        "2 Ninja's",
        "2 Monniken",
    ]
    assert [FR.card("farmer", 3), FR.card("empress", 2), FR.card("samurai", 2), FR.card("envoy", 5)] == [
        "3 Paysans",
        "2 Impératrices",
        "2 Samouraïs",
        "5 Émissaires",
    ]
    assert [FR.the("envoy"), FR.the("emperor"), FR.the("empress"), FR.the("monk")] == [
        "l'Émissaire",
        "l'Empereur",
        "l'Impératrice",
        "le Moine",
    ]
    assert [FR.a("empress"), FR.a("envoy")] == ["une Impératrice", "un Émissaire"]
    assert FR.whose("Ann", False, "2 Paysans") == "les 2 Paysans d'Ann"
    assert FR.whose("bob", False, "Émissaire", one=True) == "l'Émissaire de bob"
    assert FR.whose("bob", True, "Impératrice", own=True, one=True) == "votre propre Impératrice"


def test_a_draw_from_a_discard_pile() -> None:
    assert DUTCH.describe(TAKE_MONK, "ann") == "Je pakte de Monnik van aflegstapel 2."
    assert DUTCH.describe(TAKE_MONK, "bob") == "ann pakte de Monnik van aflegstapel 2."
    assert FRENCH.describe(TAKE_MONK, "ann") == "Vous avez pris le Moine sur la défausse 2."
    assert FRENCH.describe({**TAKE_MONK, "card": "envoy"}, "bob") == "ann a pris l'Émissaire sur la défausse 2."
    hidden = {"event": "draw", "player": "ann", "pile": "draw1", "card": None}
    assert DUTCH.describe(hidden, "bob") == "ann trok de bovenste kaart van trekstapel 1."
    assert FRENCH.describe(hidden, "bob") == "ann a pioché la carte du dessus de la pioche 1."
    assert GAME.describe(TAKE_MONK, "ann") == "You took the Monk from discard pile 2."


def test_a_lay_of_3_that_beats_a_set_and_takes_a_ninja_miniature() -> None:
    assert DUTCH.describe(LAY_NINJAS, "bob") == (
        "ann speelde 3 Ninja's uit en versloeg je 2 Ninja's, die naar aflegstapel 1 gingen, "
        "en kreeg een Ninja-miniatuur."
    )
    assert FRENCH.describe(LAY_NINJAS, "ann") == (
        "Vous avez posé 3 Ninjas et battu les 2 Ninjas de bob, qui rejoignent la défausse 1, "
        "et pris une figurine Ninja."
    )
    own = {**LAY_NINJAS, "beaten": {"player": "ann", "count": 1, "pile": "discard2"}, "ninja_taken": False}
    assert (
        DUTCH.describe(own, "ann")
        == "Je speelde 3 Ninja's uit en versloeg je eigen Ninja, die naar aflegstapel 2 ging."
    )
    assert FRENCH.describe(own, "bob") == "ann a posé 3 Ninjas et battu son propre Ninja, qui rejoint la défausse 2."
    assert GAME.describe(LAY_NINJAS, "bob") == (
        "ann laid 3 Ninjas and beat your 2 Ninjas, which went to discard pile 1, taking a Ninja miniature."
    )


def test_a_lay_choice_says_what_it_scores_and_beats() -> None:
    state = at_act(("ann", "bob"), hands={"ann": {"ninja": 3}}, tables={"bob": {"ninja": 2}}, ninja_power=True)
    assert notes(groups(DUTCH, state, "ann")["lay"])["Speel 3 Ninja's uit"] == (
        "verslaat de 2 Ninja's van bob, die naar aflegstapel 1 gaan; je krijgt een Ninja-miniatuur"
    )
    assert notes(groups(FRENCH, state, "ann")["lay"])["Poser 3 Ninjas"] == (
        "bat les 2 Ninjas de bob, qui iront sur la défausse 1\u202f; vous prenez une figurine Ninja"
    )


def test_a_task_reveal_gives_bonus_points() -> None:
    state = at_act(("ann", "bob"), tables={"ann": {"farmer": 3}, "bob": {"farmer": 0}}, imperial_tasks=True)
    state.status, state.step = "revealing", None
    state.tasks[0] = {"C": 8, "A": 0}  # farmer in deck C, emperor in deck A
    dutch = notes(groups(DUTCH, state, "ann")["reveal"])
    assert dutch["Draai opdrachtkaart C om: Boer"] == "elke speler krijgt 3 punten per Boer voor zich: jij 9, bob 0"
    french = notes(groups(FRENCH, state, "ann")["reveal"])
    assert french["Révéler la carte Mission A\u202f: Empereur"] == (
        "chaque joueur marque 5 points par Empereur devant lui\u202f: vous 0, bob 0"
    )
    assert DUTCH.waiting_for(state)["ann"].prompt == "Draai een opdrachtkaart om"


def test_a_ninja_use() -> None:
    assert DUTCH.describe({**NINJA_USE, "left": 0}, "ann") == (
        "bob zette een Ninja in tegen je Bodes (de set is weg); de kaart ging naar aflegstapel 1."
    )
    assert FRENCH.describe({**NINJA_USE, "left": 2}, "cy") == (
        "bob a utilisé un Ninja contre les Émissaires d'ann\u202f; la carte est partie sur la défausse 1."
    )
    state = at_act(
        ("ann", "Eve"), hands={"ann": {"monk": 1}}, tables={"Eve": {"farmer": 3, "envoy": 1}}, ninja_power=True
    )
    state.ninjas[0] = 1
    state.ninja_supply -= 1
    assert notes(groups(FRENCH, state, "ann")["ninja"]) == {
        "Retirer un Paysan de la série d'Eve": "les 3 Paysans d'Eve passent à 2\u202f; la carte va sur la défausse 1",
        "Retirer un Émissaire de la série d'Eve": "la série d'Eve disparaît\u202f; la carte va sur la défausse 1",
    }
    assert groups(DUTCH, state, "ann")["ninja"].title == "Zet een Ninja-miniatuur in (je hebt er nog 1)"


def test_a_round_end_and_the_next_round() -> None:
    assert DUTCH.describe(ROUND_END, None) == (
        "Ronde 2 is voorbij (een speler heeft sets van genoeg verschillende soorten en een trekstapel is leeg)."
    )
    assert FRENCH.describe(ROUND_END, None) == (
        "La manche 2 est terminée (un joueur a des séries d'assez de types différents et une pioche est vide)."
    )
    start = {"event": "round_start", "round": 3, "start_player": "ann"}
    assert DUTCH.describe(start, "ann") == "Ronde 3 begint; jij bent startspeler."
    assert FRENCH.describe(start, "bob") == "La manche 3 commence\u202f; ann est premier joueur."
    scored = {"event": "round_scored", "round": 2, "scores": {"ann": 40, "bob": 52}}
    assert FRENCH.describe(scored, "ann") == "Scores de la manche 2\u202f: ann 40, bob 52."
    assert DUTCH.describe({"event": "game_end", "winners": ["ann", "bob"]}, None) == (
        "Het spel is voorbij. Winnaars: ann, bob."
    )


def test_a_turn_reads_as_one_sentence() -> None:
    state = game(("ann", "bob"), hands=[["farmer", "farmer"]], draw1=["farmer"], draw2=["monk"])
    events = play(state, "ann draw draw1", "ann draw draw2", "ann lay farmer 3")
    entries = [LogEntry("ann", "link", events)]
    assert DUTCH.narrate(entries, "ann") == [
        "Je trok een Boer van trekstapel 1 en een Monnik van trekstapel 2, speelde 3 Boeren uit."
    ]
    assert FRENCH.narrate(entries, "ann") == [
        "Vous avez pioché un Paysan dans la pioche 1 et un Moine dans la pioche 2, posé 3 Paysans."
    ]
    timeout = [LogEntry("ann", "timeout", events)]
    assert FRENCH.narrate(timeout, "bob")[0].startswith("Temps écoulé\u202f: un bot a joué pour ann. Il a pioché ")
    assert DUTCH.narrate(timeout, "ann")[0].startswith("De tijd was om: een bot speelde voor jou. Die trok ")


def test_moves_options_and_milestones() -> None:
    assert (
        DUTCH.describe_move({"do": "discard", "type": "envoy", "pile": "discard2"})
        == "Leg een Bode af op aflegstapel 2"
    )
    assert FRENCH.describe_move({"do": "draw", "pile": "draw2"}) == "Piocher dans la pioche 2"
    assert FRENCH.describe_move({"do": "ninja", "target": "Ann", "type": "samurai"}) == (
        "Utiliser un Ninja contre les Samouraïs d'Ann"
    )
    labels = {f.name: f.label for f in FRENCH.option_fields}
    assert (
        labels["imperial_tasks"] == "Missions pour l'Empire (V1)"
        and labels["ninja_power"] == "Le pouvoir des Ninjas (V2)"
    )
    assert {f.name: f.label for f in DUTCH.option_fields}["imperial_tasks"] == "Keizerlijke opdrachten (V1)"
    decks = {f.name: f.default for f in DUTCH.option_fields}["task_decks"]
    assert decks.startswith("A: Keizer, Keizerin, Daimyo, Shogun")
    players = ["ann", "bob"]
    parsed = DUTCH.parse_options({"imperial_tasks": True, "task_decks": decks}, players)
    assert parsed == GAME.parse_options({"imperial_tasks": True}, players), "the Dutch table reads as the default"
    with pytest.raises(OptionsError) as caught:
        FRENCH.parse_options({"imperial_tasks": True, "rounds": 4}, players)
    assert caught.value.errors["rounds"] == "avec les Missions pour l'Empire, une partie compte de 1 à 3 manches (R2)"
    with pytest.raises(OptionsError) as caught:
        DUTCH.parse_options({"imperial_tasks": True, "task_decks": "A: Keizer, Draak"}, players)
    assert caught.value.errors["task_decks"].startswith("stapel A: 'draak' is geen kaartsoort (Keizer, Keizerin,")
    before = game(("ann", "bob"))
    after = before.clone()
    finish_round(after)
    assert [m.title for m in FRENCH.milestones(before, after)] == ["Scores de la manche 1"]


# --- typography, plurals and compounds (issue 27, points 6 and 7) -------------------------------------------

TWO_PART = re.compile(r"(.?)([:;!?])")
"""French sets ':', ';', '?' and '!' after a narrow no-break space (U+202F)."""


def french_marks_are_spaced(text: str) -> bool:
    return all(before == "\u202f" for before, _ in TWO_PART.findall(text))


def test_every_french_sentence_spaces_two_part_punctuation() -> None:
    for key, text in FR.TEXTS.items():
        if key != "err_table_start":  # "A:, B: ou C:" is what the form expects, not French prose
            assert french_marks_are_spaced(text), key
    for key, text in NL.TEXTS.items():  # Dutch and English do not: no narrow space crept in there
        assert "\u202f" not in text, key


def test_what_a_french_player_reads_of_a_whole_game_is_spaced() -> None:
    """The log, choices (labels, notes, closed reasons), progress, refusals and score sheets of a game with both
    variants, as every player reads them in French."""
    state = GAME.new_game(["ann", "bob", "cy"], {"imperial_tasks": True, "ninja_power": True}, seed=3)
    bots = {p: GAME.bots["random"](i) for i, p in enumerate(state.players)}
    texts: list[str] = []
    while waiting := GAME.waiting_for(state):
        before = GAME.clone(state)
        player = next(iter(waiting))
        for group in (*FRENCH.choices(state, player), *FRENCH.settings(state, player)):
            texts += [group.title, *(c.label for c in group.choices), *(c.note for c in group.choices)]
            texts += [x.reason for x in group.closed]
        texts += FRENCH.progress(state, player)
        for bad in ({"do": "draw", "pile": "draw1"}, {"do": "discard", "type": "monk"}):
            try:
                GAME.apply(GAME.clone(state), GAME.parse_move("bob", bad))
            except IllegalMove as error:
                texts.append(FRENCH.explain(error))
        events: list[dict[str, Any]] = []
        GAME.apply(state, bots[player].choose(state, player), events)
        texts += [FRENCH.describe(e, viewer) for e in events for viewer in state.players]
        texts += FRENCH.narrate([LogEntry(player, "page", events)], "ann")
        texts += [str(m.data.get("why", m.title)) for m in FRENCH.milestones(before, state)]
    assert len(texts) > 1000
    assert [t for t in texts if not french_marks_are_spaced(t)] == []


@pytest.mark.parametrize(
    ("words", "zero", "one", "more"),
    [
        (EN, "0 cards", "1 card", "2 cards"),
        (NL, "0 kaarten", "1 kaart", "2 kaarten"),
        (FR, "0 carte", "1 carte", "2 cartes"),
    ],
)
def test_one_card_is_one_card(words: Any, zero: str, one: str, more: str) -> None:
    assert [words.n_cards(0), words.n_cards(1), words.n_cards(2)] == [zero, one, more]
    data = GAME.speaking(words.lang).template_data()
    assert [form.format(n=n) for n, form in enumerate(data["cards"])] == [zero, one, more]


def test_a_pile_of_one_card_says_so() -> None:
    state = game(("ann", "bob"))
    arrange(state, discards=[["monk"], []])
    draws = GAME.choices(state, "ann")[0]
    assert {c.label: c.note for c in draws.choices}["Take the Monk from discard pile 1"] == "face up, 1 card"
    french = {c.label: c.note for c in FRENCH.choices(state, "ann")[0].choices}
    assert french["Prendre le Moine sur la défausse 1"] == "face visible, 1 carte"
    state.draw_piles[1][:-1] = []  # as if draw pile 2 had one card left (what the progress line counts)
    assert GAME.progress(state, "ann")[-1].endswith("(51 cards and 1 card left).")
    assert DUTCH.progress(state, "ann")[-1].endswith("(nog 51 kaarten en 1 kaart).")


def test_dutch_writes_ninja_miniatures_as_one_word() -> None:
    """'Ninja-miniatuur', as the rulebook's compounds ('opdrachtkaart'); never two words."""
    for key, text in NL.TEXTS.items():
        assert "Ninja miniatu" not in text, key
    assert NL.TEXTS["lay_ninja"] == "je krijgt een Ninja-miniatuur"
    assert DUTCH.template_data()["miniatures"][2].format(n=3) == "3 Ninja-miniaturen"


def test_the_chosen_preference_is_marked_in_the_readers_words() -> None:
    """The chosen discard preference says so, agreeing with its label (French 'choisie': la défausse)."""
    state = game(("ann", "bob"))
    for rules, word in ((GAME, "chosen"), (DUTCH, "gekozen"), (FRENCH, "choisie")):
        chosen = [c for c in rules.settings(state, "bob")[0].choices if c.style == "chosen"]
        assert [c.note for c in chosen] == [word]


def test_template_data_gives_the_boards_words() -> None:
    """The templates print the game's words (piles, preferences, counted nouns) instead of translating them again."""
    for rules, pile, prefers in (
        (GAME, "Draw pile 1: 40 cards", "prefers the larger discard pile"),
        (DUTCH, "Trekstapel 1: 40 kaarten", "kiest de grootste aflegstapel"),
        (FRENCH, "Pioche 1\u202f: 40 cartes", "préfère la plus grande défausse"),
    ):
        data = rules.template_data()
        cards = data["cards"][2].format(n=40)
        assert data["words"]["pile"].format(pile=data["piles"]["draw1"], cards=cards) == pile
        assert data["words"]["prefers"].format(choice=data["preferences"]["larger"]) == prefers
        assert data["task_bonus"] == {"A": 5, "B": 4, "C": 3}
