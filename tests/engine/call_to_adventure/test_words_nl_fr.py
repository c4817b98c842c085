"""Call to Adventure in Dutch and French: every English text has a translation with the same placeholders, the
reader's own forms, card names from the set, and every card's lines in both languages."""

from __future__ import annotations

import re
from string import Formatter
from typing import Any

import pytest

from engine.call_to_adventure.files import packaged_set
from engine.call_to_adventure.page import PAGE_TEXTS
from engine.call_to_adventure.words import Words
from engine.call_to_adventure.words_fr import FR
from engine.call_to_adventure.words_nl import NL

from .helpers import GLOSSARY_NL, not_glossary_nl

STARTER = packaged_set()
LANGS: tuple[type[Words], ...] = (NL, FR)


def fields(text: str) -> set[str]:
    """The named placeholders of a text."""
    return {name for _, name, _, _ in Formatter().parse(text) if name is not None}


def test_languages_are_words_subclasses_with_their_codes() -> None:
    assert (Words.lang, NL.lang, FR.lang) == ("en", "nl", "fr")
    assert issubclass(NL, Words) and issubclass(FR, Words)


@pytest.mark.parametrize("lang", LANGS, ids=lambda c: c.lang)
def test_every_english_key_is_translated_with_the_same_placeholders(lang: type[Words]) -> None:
    missing = sorted(set(Words.TEXTS) - set(lang.TEXTS))
    assert missing == []
    differ = {
        k: (fields(en), fields(lang.TEXTS[k])) for k, en in Words.TEXTS.items() if fields(en) != fields(lang.TEXTS[k])
    }
    assert differ == {}
    assert [k for k, v in lang.TEXTS.items() if not v.strip()] == []


@pytest.mark.parametrize("lang", LANGS, ids=lambda c: c.lang)
def test_no_sentence_is_left_in_english(lang: type[Words]) -> None:
    words = [k for k, en in Words.TEXTS.items() if len(re.sub(r"\{\w+\}|[^\w ]", "", en).split()) >= 3]
    same = [k for k in words if lang.TEXTS[k] == Words.TEXTS[k]]
    assert same == []


@pytest.mark.parametrize("lang", LANGS, ids=lambda c: c.lang)
def test_extra_keys_are_forms_of_english_keys_and_need_no_new_placeholder(lang: type[Words]) -> None:
    for key in set(lang.TEXTS) - set(Words.TEXTS):
        base, _, form = key.partition("/")
        assert base in Words.TEXTS and form in ("you", "one"), key
        allowed = fields(Words.TEXTS[base]) | ({"n", "count"} if form == "one" else {"who"})
        assert fields(lang.TEXTS[key]) <= allowed, key


def dutch_texts() -> list[tuple[str, str, str]]:
    """(key, English, Dutch) for every Dutch text of the engine: its words and those of its pages."""
    words = [(k, Words.TEXTS[k.partition("/")[0]], nl) for k, nl in NL.TEXTS.items()]
    page = [(f"page {k}", PAGE_TEXTS["en"][k.partition("/")[0]], nl) for k, nl in PAGE_TEXTS["nl"].items()]
    return words + page


def test_the_glossary_check_tells_a_power_from_the_strength_ability() -> None:
    assert not_glossary_nl("De kracht van {card}", "The power of {card}") == ["kracht"]
    assert not_glossary_nl("Krachten ({timing})", "Powers ({timing})") == ["Krachten"]
    assert not_glossary_nl("Kracht", "Strength") == []
    assert not_glossary_nl("Boerenkracht", "Farm Strength") == []
    assert not_glossary_nl("Sets van verhaaliconen, 1 kaartzijde", "Sets of story icons, 1 card face") == [
        "verhaaliconen",
        "kaartzijde",
    ]


def test_dutch_texts_say_vermogen_symbool_and_kaartvlak_as_the_glossary_does() -> None:
    wrong = {key: not_glossary_nl(nl, en) for key, en, nl in dutch_texts() if not_glossary_nl(nl, en)}
    assert wrong == {}
    plain = re.compile(r"\{\w+\}")  # "{icon}" is a placeholder, not the word icon
    missing = [
        (key, word)
        for key, en, nl in dutch_texts()
        for term, word in GLOSSARY_NL
        if re.search(term, plain.sub("", en), re.IGNORECASE) and word not in nl.lower()
    ]
    assert missing == []


def test_events_speak_of_the_reader_and_name_cards_in_the_language() -> None:
    gain: dict[str, Any] = {"event": "gain", "player": "ann", "card": "s1-brawl-at-the-mill", "path": "top"}
    nl, fr = NL(), FR()
    assert nl.describe_event(gain, "bob", STARTER) == "ann verwierf Vechtpartij bij de molen (bovenste pad)."
    assert fr.describe_event(gain, "ann", STARTER) == "Vous avez obtenu Bagarre au moulin (voie du haut)."
    assert fr.describe_event(gain, "bob", STARTER) == "ann a obtenu Bagarre au moulin (voie du haut)."
    turn = {"event": "turn", "player": "ann", "turn": 3}
    assert nl.describe_event(turn, "ann", STARTER) == "Beurt 3: jij bent aan zet."
    assert fr.describe_event(turn, "bob", STARTER) == "Tour 3 : à ann de jouer."
    curse = {"event": "curse", "player": "ann", "target": "bob", "card": "a-hex", "total": 4}
    assert nl.describe_event(curse, "bob", STARTER) == "De vloek Betovering van ann trof jou: totaal 4."
    assert fr.describe_event(curse, "ann", STARTER) == "Malédiction Sortilège, jouée par vous contre bob : total 4."


def test_moves_and_counts_in_the_language() -> None:
    nl, fr = NL(), FR()
    draw = {"do": "draw", "deck": "hero"}
    assert (nl.describe_move(draw, STARTER), fr.describe_move(draw, STARTER)) == (
        "Trek een Heldenkaart",
        "Piocher une carte Héros",
    )
    dark = {"do": "challenge", "card": "s1-fire-at-the-ferry", "path": "bottom", "dark": "1"}
    assert (
        nl.describe_move(dark, STARTER) == "Waag je aan Brand bij het veer (onderste pad) met 1 duistere rune en werp"
    )
    assert fr.describe_move(dark, STARTER) == "Tenter Incendie au bac (voie du bas) avec 1 rune sombre et lancer"
    assert (
        nl.text("closed_icon", count=1, icon=nl.word("icon", "wisdom")) == "vereist een Wijsheid-symbool in je Verhaal"
    )
    assert (
        fr.text("closed_icon", count=2, icon=fr.word("icon", "arcana"))
        == "demande 2 icônes Arcanes dans votre Histoire"
    )


@pytest.mark.parametrize("lang", LANGS, ids=lambda c: c.lang)
def test_every_starter_card_has_its_lines_in_the_language(lang: type[Words]) -> None:
    words, english = lang(), Words()
    for card in STARTER.cards.values():
        lines = words.card_lines(STARTER, card)
        assert len(lines) == len(english.card_lines(STARTER, card)), card.id
        assert not set(lines) & set(english.card_lines(STARTER, card)) - {""}, card.id
