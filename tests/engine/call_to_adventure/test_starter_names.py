"""The starter set speaks Dutch and French: every card name and every text has an nl and an fr translation."""

from __future__ import annotations

import tomllib
from collections import Counter

import pytest

from engine.call_to_adventure.files import packaged_set

STARTER = packaged_set()
TRANSLATED = ("nl", "fr")


def _duplicates(names: list[str]) -> list[str]:
    return sorted(n for n, k in Counter(n.casefold() for n in names).items() if k > 1)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_card_has_a_name_in_the_language(lang: str) -> None:
    missing = [c.id for c in STARTER.cards.values() if not c.name.get(lang, "").strip()]
    assert missing == []


@pytest.mark.parametrize("lang", ("en", *TRANSLATED))
def test_card_names_are_distinct_within_a_language(lang: str) -> None:
    assert _duplicates([c.title(lang) for c in STARTER.cards.values()]) == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_names_of_several_words_are_translated_not_copied(lang: str) -> None:
    copied = [c.id for c in STARTER.cards.values() if len(c.name["en"].split()) > 1 and c.title(lang) == c.name["en"]]
    assert copied == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_text_and_flavour_and_the_rise_card_are_translated(lang: str) -> None:
    tables = [c.text for c in STARTER.cards.values()] + [c.flavour for c in STARTER.cards.values()]
    tables.append(STARTER.solo["rise"])
    present = [t for t in tables if t]
    assert present, "the starter set has a text to translate"
    assert [t["en"] for t in present if not t.get(lang, "").strip() or t[lang] == t["en"]] == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_set_name_is_translated(lang: str) -> None:
    name = tomllib.loads(STARTER.text)["set"]["name"]
    assert name[lang].strip() and name[lang] != name["en"]
