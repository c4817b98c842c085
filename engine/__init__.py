"""Pure game rules, one package per game, behind one protocol (``engine.protocol``).

Importing ``engine`` imports every package under ``engine/``; each is a game that registers itself
(``register_game``), so ``GAMES`` maps each game's key to its protocol object::

    game = GAMES["call-to-glory"]
    state = game.new_game(["ann", "bob", "cy"], {"ninja_power": True}, seed=7)
    for player, decision in game.waiting_for(state).items():
        move = game.legal_moves(state, player)[0]
        game.apply(state, move)          # in place; IllegalMove names the rule
    view = game.player_view(state, "bob")

No module here does I/O, reads the clock or uses global randomness: randomness comes from the seed.
"""

import importlib
import pkgutil

from .errors import FormatError, IllegalMove, OptionsError, RecordError
from .protocol import GAMES, Bot, Command, Decision, Event, Game, LogEntry, Milestone, Move, OptionField, Result
from .protocol import register_game as register

GAME_PACKAGES: tuple[str, ...] = tuple(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg)
"""The packages under ``engine/``: each is a game."""

for _name in GAME_PACKAGES:
    importlib.import_module(f"{__name__}.{_name}")


def game_of_format(record_format: object) -> Game | None:
    """The game whose records have this ``format`` (``"call-to-glory/1"``), or None."""
    return next((g for g in GAMES.values() if g.record_format == record_format), None)


__all__ = [
    "GAMES",
    "GAME_PACKAGES",
    "Bot",
    "Command",
    "Decision",
    "Event",
    "FormatError",
    "Game",
    "IllegalMove",
    "LogEntry",
    "Milestone",
    "Move",
    "OptionField",
    "OptionsError",
    "RecordError",
    "Result",
    "game_of_format",
    "register",
]
