"""Pure game rules, one package per game, behind one protocol (``engine.protocol``).

``GAMES`` maps each game's key to its protocol object::

    game = GAMES["call-to-glory"]
    state = game.new_game(["ann", "bob", "cy"], {"ninja_power": True}, seed=7)
    for player, decision in game.waiting_for(state).items():
        move = game.legal_moves(state, player)[0]
        game.apply(state, move)          # in place; IllegalMove names the rule
    view = game.player_view(state, "bob")

No module here does I/O, reads the clock or uses global randomness: randomness comes from the seed.
"""

from .call_to_adventure import GAME as CALL_TO_ADVENTURE
from .call_to_glory import GAME as CALL_TO_GLORY
from .errors import FormatError, IllegalMove, OptionsError, RecordError
from .protocol import Bot, Decision, Event, Game, LogEntry, Milestone, Move, OptionField, Result

GAMES: dict[str, Game] = {CALL_TO_GLORY.key: CALL_TO_GLORY, CALL_TO_ADVENTURE.key: CALL_TO_ADVENTURE}
"""Every game by its key."""


def register(game: Game) -> None:
    """Add a game to ``GAMES`` (a key may be registered once)."""
    if game.key in GAMES and GAMES[game.key] is not game:
        raise ValueError(f"a game with the key {game.key!r} is registered already")
    GAMES[game.key] = game


def game_of_format(record_format: object) -> Game | None:
    """The game whose records have this ``format`` (``"call-to-glory/1"``), or None."""
    return next((g for g in GAMES.values() if g.record_format == record_format), None)


__all__ = [
    "GAMES",
    "Bot",
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
