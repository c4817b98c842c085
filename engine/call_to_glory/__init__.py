"""Call to Glory: the complete rules as a pure, replayable library (no I/O, no clock, no globals).

Registered in ``engine.GAMES`` as ``"call-to-glory"`` (``GAME``, the protocol object). Used directly::

    state = new_game(["ann", "bob", "cy"], Options(ninja_power=True), seed=7)
    moves = legal_moves(state)          # for state.current_player
    apply(state, moves[0])              # in place; IllegalMove names the rule
    view = player_view(state, "bob")    # the only thing a player is shown
"""

from ..errors import FormatError, IllegalMove, RecordError
from .bots import BOTS, HeuristicBot, RandomBot
from .cards import PILES, PREFERENCES, TYPES, VALUES
from .codec import from_json, to_json
from .game import GAME, CallToGlory
from .moves import Move
from .record import RECORD_FORMAT, Record, parse_record, record_of, replay
from .rules import apply, can_apply, legal_moves, verify
from .state import Options, State, new_game
from .view import mask_event, player_view, round_details, state_summary

__all__ = [
    "BOTS",
    "GAME",
    "PILES",
    "PREFERENCES",
    "RECORD_FORMAT",
    "TYPES",
    "VALUES",
    "CallToGlory",
    "FormatError",
    "HeuristicBot",
    "IllegalMove",
    "Move",
    "Options",
    "RandomBot",
    "Record",
    "RecordError",
    "State",
    "apply",
    "can_apply",
    "from_json",
    "legal_moves",
    "mask_event",
    "new_game",
    "parse_record",
    "player_view",
    "record_of",
    "replay",
    "round_details",
    "state_summary",
    "to_json",
    "verify",
]
