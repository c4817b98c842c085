"""Errors raised by the engine."""

from __future__ import annotations


class IllegalMove(Exception):
    """A move the rules forbid; ``rule`` names the section of RULES.md."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class FormatError(ValueError):
    """Input (a move, a record, options, a state) that is not of the expected shape."""
