"""French punctuation, everywhere a French reader sees it: a narrow no-break space (U+202F) before : ; ? and !,
in the server's French catalog and in each game's French words (the engine's own, its page texts included)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import ModuleType

import pytest
from babel.messages.pofile import read_po

from engine.call_to_adventure import page as adventure_page
from engine.call_to_adventure import words_fr as adventure_fr
from engine.call_to_glory import words_fr as glory_fr
from pbem import i18n

from .helpers import strings

SPACED = re.compile(r"[ \u00a0][:;?!]")
"""A plain or a (wide) no-break space before the mark: the narrow one is wanted."""
BARE = re.compile(r"[^\s\u202f\d][:;?!](?=\s|$|»)")
"""A mark that ends a word with no space before it (not a time, a link or a style: those are followed by more)."""
TYPED = ("A:, B: ou C:",)
"""Text a player types as it is (a command's syntax), not French prose."""


def _engine_texts(module: ModuleType) -> Iterator[tuple[str, str]]:
    for name, obj in vars(module).items():
        if isinstance(obj, type) and obj.__module__ == module.__name__:
            for key, value in vars(obj).items():
                if not key.startswith("__"):
                    yield from ((f"{module.__name__}.{name}.{key}", s) for s in strings(value))
        elif not name.startswith("__") and not callable(obj):
            yield from ((f"{module.__name__}.{name}", s) for s in strings(obj))


def _catalog_texts() -> Iterator[tuple[str, str]]:
    with i18n.po_path("fr").open("rb") as f:
        catalog = read_po(f)
    for message in catalog:
        if message.id:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            yield from ((str(message.id), s) for s in strings)


def _wrong(texts: Iterator[tuple[str, str]]) -> list[tuple[str, str]]:
    out = []
    for where, text in texts:
        plain = text
        for typed in TYPED:
            plain = plain.replace(typed, "")
        if SPACED.search(plain) or BARE.search(plain):
            out.append((where, text))
    return out


@pytest.mark.parametrize("module", [adventure_fr, glory_fr], ids=lambda m: m.__name__)
def test_each_games_french_words_put_a_narrow_space_before_double_marks(module: ModuleType) -> None:
    texts = list(_engine_texts(module))
    assert len(texts) > 100, "the words were found"
    assert _wrong(iter(texts)) == []


def test_call_to_adventures_french_page_texts_put_a_narrow_space_before_double_marks() -> None:
    texts = list(adventure_page.PAGE_TEXTS["fr"].items())
    assert len(texts) > 30, "the page texts were found"
    assert _wrong(iter(texts)) == []
    assert adventure_page.PAGE_TEXTS["fr"]["colon"] == "\u202f:"


def test_the_french_catalog_puts_a_narrow_space_before_double_marks() -> None:
    texts = list(_catalog_texts())
    assert len(texts) > 500, "the catalog was read"
    assert _wrong(iter(texts)) == []


def test_the_check_is_not_vacuous() -> None:
    samples = [("a", "Total : 3"), ("b", "Total: 3"), ("c", "Prêt ?"), ("d", "Total\u202f: 3"), ("e", "à 10:30")]
    assert [where for where, _ in _wrong(iter(samples))] == ["a", "b", "c"]
