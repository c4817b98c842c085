"""Bots that make the decision of the player who must act: random and heuristic."""

from __future__ import annotations

import random
from typing import Protocol

from .cards import DISCARD1, NINJA, TASK_BONUS, TYPES, VALUES
from .moves import Move
from .rules import legal_moves
from .state import DRAW, PLAYING, REVEALING, State

_EXPECTED_WEIGHT = [v / 110 for v in VALUES]


class Bot(Protocol):
    """Anything that picks a move for ``state.current_player``."""

    def choose(self, state: State, player: str | None = None) -> Move:
        """One of ``legal_moves(state)`` (``player``, if given, is the player who must act)."""
        ...


class RandomBot:
    """Picks uniformly among the legal moves, from its own seeded generator."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State, player: str | None = None) -> Move:
        """A uniformly random legal move."""
        moves = legal_moves(state)
        return moves[int(self.rng.random() * len(moves))]


class HeuristicBot:
    """Plays sensibly and deterministically: lays that score or beat a set, prefers valuable
    types, keeps useful cards, covers what would help the next player, uses Ninjas on sets
    it can wipe out or then beat, and reveals the task that gains most over its opponents."""

    def choose(self, state: State, player: str | None = None) -> Move:
        """The move this bot thinks best (always one of ``legal_moves(state)``)."""
        moves = legal_moves(state)
        p = state.current
        if state.status == REVEALING:
            return max(moves, key=lambda m: self._reveal_gain(state, p, m))
        assert state.status == PLAYING
        ninja = self._ninja_use(state, p, moves)
        if ninja is not None:
            return ninja
        if state.step == DRAW:
            return max((m for m in moves if m.do == "draw"), key=lambda m: self._draw_value(state, p, m.pile_id))
        lay = self._best_lay(state, p, moves)
        if lay is not None:
            return lay
        return self._best_discard(state, p, moves)

    @staticmethod
    def _reveal_gain(state: State, p: int, move: Move) -> int:
        t = state.tasks[p][move.deck or "A"]
        mine = state.tables[p][t]
        best_other = max(state.tables[q][t] for q in range(state.n) if q != p)
        return TASK_BONUS[move.deck or "A"] * (mine - best_other)

    def _want(self, state: State, p: int, t: int, extra: int = 1) -> float:
        """How much ``p`` wants one more card of type ``t`` (0 … about 2)."""
        held = state.hands[p][t] + extra
        o = state.owner[t]
        if o == p:
            return 0.05
        need = state.minimum[t] if o < 0 else max(state.minimum[t], state.tables[o][t] + 1)
        worth = VALUES[t] / 20 * (2.0 if o >= 0 else 1.0)
        for deck, task_type in state.tasks[p].items() if state.tasks else ():
            if task_type == t:
                worth += TASK_BONUS[deck] / 10
        return worth * min(1.0, held / need)

    def _draw_value(self, state: State, p: int, pile: int) -> float:
        if pile < DISCARD1:
            return sum(_EXPECTED_WEIGHT[t] * self._want(state, p, t) for t in range(len(TYPES))) + 0.05
        top = state.discard_piles[pile - DISCARD1][-1]
        return self._want(state, p, top)

    def _best_lay(self, state: State, p: int, moves: list[Move]) -> Move | None:
        best: tuple[float, int] | None = None
        choice = None
        for m in moves:
            if m.do != "lay":
                continue
            t = m.type_id
            o = state.owner[t]
            if o == p:
                continue
            gain = VALUES[t] * (2.0 if o >= 0 else 1.0)
            if t == NINJA and state.ninjas and state.ninja_supply:
                gain += 6
            for deck, task_type in state.tasks[p].items() if state.tasks else ():
                if task_type == t:
                    gain += TASK_BONUS[deck] * (m.count or 0)
            key = (gain, m.count or 0)
            if best is None or key > best:
                best, choice = key, m
        return choice

    def _danger(self, state: State, nxt: int, t: int) -> float:
        """How much a visible card of type ``t`` would help the next player."""
        o = state.owner[t]
        if o == nxt:
            return 0.0
        return VALUES[t] / 20 * (0.6 if o >= 0 else 0.4)

    def _best_discard(self, state: State, p: int, moves: list[Move]) -> Move:
        nxt = (p + 1) % state.n

        def cost(m: Move) -> float:
            t = m.type_id
            keep = self._want(state, p, t, extra=0)
            pile = state.discard_piles[m.pile_id - DISCARD1]
            covered = self._danger(state, nxt, pile[-1]) if pile else 0.0
            return keep + self._danger(state, nxt, t) - covered

        return min((m for m in moves if m.do == "discard"), key=cost)

    def _ninja_use(self, state: State, p: int, moves: list[Move]) -> Move | None:
        uses = [m for m in moves if m.do == "ninja"]
        if not uses:
            return None
        wipe = [m for m in uses if state.tables[state.index[m.target or ""]][m.type_id] == 1]
        if wipe:
            return max(wipe, key=lambda m: VALUES[m.type_id])
        if state.step != DRAW:
            for m in sorted(uses, key=lambda m: -VALUES[m.type_id]):
                t = m.type_id
                size = state.tables[state.index[m.target or ""]][t]
                if state.hands[p][t] == size >= state.minimum[t]:
                    return m
        return None


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}
"""Bot kinds by name, as the CLI and the web app name them."""

__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot"]
