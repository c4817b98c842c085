"""Helpers shared by the language tests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def strings(value: Any) -> Iterator[str]:
    """Every text in ``value``: itself, or the texts in a mapping's values or a list's items, at any depth."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings(item)
