"""Call to Adventure: the rules of ADVENTURE_RULES.md as a pure, replayable library, cards from a card set.

Registered in ``engine.GAMES`` as ``"call-to-adventure"`` (``GAME``, the protocol object). The card-set
format is documented in docs/card-sets.md; ``cardset.parse(text, source)`` reads one.
"""

from .cardset import CardSet, CardSetError, parse
from .game import GAME, CallToAdventure
from .moves import Move
from .record import RECORD_FORMAT
from .rules import apply, legal_moves, score
from .state import State, new_game

__all__ = [
    "GAME",
    "RECORD_FORMAT",
    "CallToAdventure",
    "CardSet",
    "CardSetError",
    "Move",
    "State",
    "apply",
    "legal_moves",
    "new_game",
    "parse",
    "score",
]
