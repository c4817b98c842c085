"""Errors raised by every game of the engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class IllegalMove(Exception):
    """A move the rules forbid: ``rule`` names the section of the game's rules that forbids it (R5.2, A5.5 …),
    ``message`` says what is wrong in English, and ``key`` with ``params`` say it as a code that the game puts into
    words in any language it speaks (``Game.explain``)."""

    def __init__(self, rule: str, message: str, key: str = "", params: Mapping[str, Any] | None = None) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.key = key
        self.params: Mapping[str, Any] = params or {}


class FormatError(ValueError):
    """Input (a move, a record, options, a state) that is not of the expected shape."""


class OptionsError(FormatError):
    """Game options that cannot be used: ``errors`` maps each option's name to its message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


class RecordError(Exception):
    """A record that cannot be replayed: ``move`` is the index of the bad move, or None."""

    def __init__(self, move: int | None, rule: str | None, message: str) -> None:
        super().__init__(message)
        self.move = move
        self.rule = rule
        self.message = message

    def to_json(self) -> dict[str, Any]:
        """The error object that ``python -m engine replay`` prints."""
        return {"error": {"move": self.move, "rule": self.rule, "message": self.message}}
