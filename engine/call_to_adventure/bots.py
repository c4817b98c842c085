"""Bots: a random one and a heuristic one that weighs each path's worth against its odds."""

from __future__ import annotations

import random

from .cardset import Card
from .moves import PATHS, Move
from .rules import difficulty, faces, icons, legal_moves, runes, total
from .state import State


class RandomBot:
    """Any legal move, uniformly, from its own seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State, player: str) -> Move:
        """A legal move of ``player``."""
        return self.rng.choice(legal_moves(state, player))


def _mean(state: State, rune: tuple[str, str]) -> float:
    options = faces(state.cards, rune)
    return sum(f.value for f in options) / len(options)


def _worth(card: Card, path: int) -> float:
    p = card.paths[path]
    return p.triumph + p.tragedy + 1.5 * len(p.icons) + p.hero + p.antihero + p.experience - 0.5 * p.corruption


class HeuristicBot:
    """Plays for points: the best path for its odds, dark runes when short, cards when they help."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State, player: str) -> Move:
        """A legal move of ``player``."""
        legal = legal_moves(state, player)
        p = state.ps[state.index(player)]
        by: dict[str, Move] = {}
        for m in legal:  # the first of each kind: a resolve that keeps the turn open, a plain attempt
            by.setdefault(m.do, m)
        if "choose" in by:
            return max(legal, key=lambda m: self._setup(state, m))
        if "tuck" in by or "order" in by:  # an ally to place, cards to put back: the first way will do
            return legal[0]
        phase = state.phase
        if phase == "draw":
            return by["draw"] if state.cards.track[p.level].hero else legal[-1]
        plays = [m for m in legal if m.do in ("play", "use")]
        if phase == "prepare":
            a = state.attempt
            assert a is not None
            card = state.cards.cards[a.card]
            mean = sum(_mean(state, r) for r in runes(state.cards, p, card, a.dark)) + a.bonus
            if mean < difficulty(state, a) + 0.5:
                if plays:
                    return plays[0]
                if "dark" in by and p.level < len(state.cards.track) - 2:
                    return by["dark"]
            return by["cast"]
        if phase == "facing":
            a = state.attempt
            assert a is not None
            if total(state) < difficulty(state, a) and plays:
                return plays[0]
            return by["resolve"]
        good = [m for m in plays if self._good_play(state, m)]
        if good:
            return good[0]
        if phase == "after":
            return by["end"]
        options = [m for m in legal if m.do in ("trait", "attempt")]
        if options:
            return max(options, key=lambda m: self._value(state, player, m))
        discards = [m for m in legal if m.do == "discard"]
        if not discards:
            return next(m for m in legal if m.do == "pass")
        # dig for a card it can use: discard a trait of the latest Act it has not finished
        cards = state.cards.cards

        def useful(m: Move) -> tuple[bool, int]:
            card = cards[m.card or ""]
            return len(p.story) < 3 * card.act, card.act

        return max(discards, key=useful)

    def _setup(self, state: State, move: Move) -> float:
        cards = state.cards.cards
        seen = [i for c in (move.origin, move.motivation) if c for i in cards[c].icons]
        destiny = cards[move.destiny or ""]
        return sum(2 for cond in destiny.scoring if cond.get("icon") in seen) + self.rng.random()

    def _good_play(self, state: State, move: Move) -> bool:
        card = state.cards.cards[move.card or ""]
        kind = (card.effect or {}).get("kind")
        if kind in ("experience", "steal", "draw", "lose_experience", "curse", "virtue"):
            if move.target is not None:
                leader = max((q for q in state.ps if q.name != move.player), key=lambda q: len(q.story))
                return move.target == leader.name
            return True
        return False

    def _value(self, state: State, player: str, move: Move) -> float:
        p = state.ps[state.index(player)]
        card = state.cards.cards[move.card or ""]
        if move.do == "trait":
            pre = card.prerequisite or {}
            return _worth(card, 0) - int(pre.get("experience", 0)) + 0.5
        path = PATHS.index(move.path or "top")
        need = card.difficulty + (1 if card.paths[path].harder else 0)
        mean = sum(_mean(state, r) for r in runes(state.cards, p, card, 0))
        mean += min(3, p.xp) * 1.5 * (mean < need)
        seen = icons(state.cards, p)
        odds = max(0.05, min(0.95, 0.5 + (mean - need) / 3))
        synergy = sum(0.3 for i in card.paths[path].icons if seen[i])
        return odds * (_worth(card, path) + synergy) + (1 - odds) * 1.0
