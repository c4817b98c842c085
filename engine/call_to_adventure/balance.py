"""The balance report: heuristic bots play many games; win rates per Origin and Destiny, turns per game, the
share of challenges overcome per Act and how often each end condition fires (pure: the caller prints)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from ..protocol import Event
from .bots import HeuristicBot
from .files import packaged_set
from .rules import apply
from .state import FINISHED, State, new_game


def play(n: int, seed: int) -> tuple[State, list[Event]]:
    """One game of ``n`` heuristic bots (first game off), with its events."""
    state = new_game([f"p{i + 1}" for i in range(n)], {}, seed, packaged_set())
    bots = [HeuristicBot(seed * 7 + i) for i in range(n)]
    events: list[Event] = []
    while state.status != FINISHED:
        if state.status == "setup":
            for i, p in enumerate(state.ps):
                if p.origin is None:
                    apply(state, bots[i].choose(state, p.name), events)
            continue
        apply(state, bots[state.current].choose(state, state.players[state.current]), events)
    return state, events


def report(n: int, games: int, seed: int = 1) -> dict[str, Any]:
    """Figures over ``games`` games of ``n`` players."""
    cards = packaged_set()
    wins: defaultdict[str, float] = defaultdict(float)
    seats: Counter[str] = Counter()
    ends: Counter[str] = Counter()
    tried: Counter[int] = Counter()
    overcome: Counter[int] = Counter()
    turns = 0
    for g in range(games):
        state, events = play(n, seed * 1_000_003 + g)
        turns += state.turn
        ends[state.ended_by or ""] += 1
        for i, p in enumerate(state.ps):
            for c in (p.origin, p.destiny):
                assert c is not None
                seats[c] += 1
                if i in state.winners:
                    wins[c] += 1 / len(state.winners)
        for e in events:
            if e["event"] in ("overcome", "fail"):
                act = cards.cards[e["card"]].act
                tried[act] += 1
                overcome[act] += e["event"] == "overcome"
    rate = {c: round(wins[c] / seats[c], 3) for c in sorted(seats)}
    return {
        "players": n,
        "games": games,
        "turns_per_game": round(turns / games, 1),
        "overcome_per_act": {f"act{a}": round(overcome[a] / tried[a], 3) if tried[a] else None for a in (1, 2, 3)},
        "ends": dict(ends),
        "win_rate_origin": {c: r for c, r in rate.items() if c.startswith("o-")},
        "win_rate_destiny": {c: r for c, r in rate.items() if c.startswith("d-")},
    }
