"""Errors raised by every game of the engine."""

from __future__ import annotations

from typing import Any


class IllegalMove(Exception):
    """A move the rules forbid; ``rule`` names the section of the game's rules (R5.2, A5 …)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


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
