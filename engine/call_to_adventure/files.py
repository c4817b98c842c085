"""The one edge of the game that reads files: the card sets shipped as package data (``sets/*.toml``).

A game's state names its packaged card set by the digest of its text (``state.to_json``), so a set must never
change under a game in progress: when a packaged set's text changes, its former text is kept in
``sets/archive/`` (any file name), where ``packaged_by_digest`` still finds it.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Final

from .cardset import CardSet, CardSetError, parse

PACKAGED: Final = ("starter",)
"""The card sets shipped with the engine, by name."""


@lru_cache(maxsize=4)
def packaged_set(name: str = "starter") -> CardSet:
    """A card set shipped with the engine, parsed (``CardSetError`` for an unknown name)."""
    if name not in PACKAGED:
        raise CardSetError(f"unknown card set {name!r} (expected one of {', '.join(PACKAGED)})")
    text = resources.files(__package__).joinpath("sets", f"{name}.toml").read_text(encoding="utf-8")
    return parse(text, f"{name}.toml")


def sets_in(folder: Traversable) -> dict[str, CardSet]:
    """The card sets of the ``*.toml`` files in ``folder`` (none if it does not exist), by digest."""
    found: dict[str, CardSet] = {}
    if folder.is_dir():
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".toml"):
                cards = parse(entry.read_text(encoding="utf-8"), entry.name)
                found[cards.digest] = cards
    return found


@lru_cache(maxsize=1)
def _archived() -> dict[str, CardSet]:
    return sets_in(resources.files(__package__).joinpath("sets", "archive"))


def packaged_by_digest(digest: str) -> CardSet | None:
    """The packaged card set, current or archived, whose text has this digest; None if there is none."""
    for name in PACKAGED:
        cards = packaged_set(name)
        if cards.digest == digest:
            return cards
    return _archived().get(digest)
