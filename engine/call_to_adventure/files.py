"""The one edge of the game that reads files: the card sets shipped as package data (``sets/*.toml``)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
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
