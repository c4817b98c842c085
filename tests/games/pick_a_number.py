"""A tiny test-only game with simultaneous secret choices, registered by the tests as ``pick-a-number``.

Each round every player picks a number from 1 to ``highest`` at the same time, in secret; when all have
picked, the picks are revealed and each player whose number nobody else picked scores it. After
``rounds`` rounds the highest total wins (a tie is shared). It exists to prove that the protocol and the
server handle several players waiting at once and information that is private until a reveal, and that a
game needs no more than this: everything else comes from the protocol's defaults (``engine.protocol.Game``).
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import FormatError, IllegalMove
from engine.protocol import (
    Bot,
    Decision,
    Event,
    Game,
    Milestone,
    OptionField,
    Result,
    register_game,
)

FORMAT = "pick-a-number/1"
STATE_FORMAT = "pick-a-number-state/1"


@dataclass(frozen=True)
class Pick:
    """A player picks ``number`` for the current round."""

    player: str
    number: int

    def to_json(self) -> dict[str, Any]:
        """The move as a record entry."""
        return {"player": self.player, "do": "pick", "number": self.number}


@dataclass
class State:
    """Players, options, the round, this round's secret picks, and every revealed round."""

    players: tuple[str, ...]
    rounds: int
    highest: int
    round: int = 1
    picks: dict[str, int] = field(default_factory=dict)
    history: list[dict[str, int]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        """True after the last round's reveal."""
        return len(self.history) == self.rounds


def _scores(picks: Mapping[str, int]) -> dict[str, int]:
    counts: dict[int, int] = {}
    for n in picks.values():
        counts[n] = counts.get(n, 0) + 1
    return {p: (n if counts[n] == 1 else 0) for p, n in picks.items()}


class _RandomBot:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State, player: str) -> Pick:
        return Pick(player, self.rng.randint(1, state.highest))


class _HighBot:
    """Picks the highest number nobody has picked in a revealed round lately (a deterministic bot)."""

    def __init__(self, _seed: int) -> None:
        pass

    def choose(self, state: State, player: str) -> Pick:
        seen = set(state.history[-1].values()) if state.history else set()
        free = [n for n in range(state.highest, 0, -1) if n not in seen]
        return Pick(player, free[0] if free else state.highest)


class PickANumber(Game):
    """The test-only game (see the module docstring)."""

    key = "pick-a-number"
    title = "Pick a Number"
    record_format = FORMAT
    min_players = 2
    max_players = 5
    option_fields: Sequence[OptionField] = (
        OptionField("rounds", "Rounds", "int", 2, (("1", "1"), ("2", "2"), ("3", "3"))),
        OptionField("highest", "Highest number", "int", 5, (("3", "3"), ("5", "5"), ("9", "9"))),
    )
    bots: Mapping[str, Callable[[int], Bot]] = {"random": _RandomBot, "heuristic": _HighBot}

    def variants(self, players: Sequence[str]) -> list[dict[str, Any]]:
        """One round with few numbers (many ties), three rounds with many."""
        return [{"rounds": 1, "highest": 3}, {"rounds": 3, "highest": 9}]

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        """A new game for 2-5 players with unique names."""
        names = tuple(players)
        if not self.min_players <= len(names) <= self.max_players:
            raise FormatError(f"Pick a Number is for 2 to 5 players, not {len(names)}")
        if len(set(names)) != len(names) or any(
            not isinstance(n, str) or not n or any(unicodedata.category(c)[0] == "C" for c in n) for n in names
        ):
            raise FormatError("players need different, printable names")
        opts = self.parse_options(options, names)
        return State(names, opts["rounds"], opts["highest"], totals=dict.fromkeys(names, 0))

    def to_json(self, state: State) -> dict[str, Any]:
        """The whole state, secret picks included."""
        return {
            "format": STATE_FORMAT,
            "players": list(state.players),
            "rounds": state.rounds,
            "highest": state.highest,
            "round": state.round,
            "picks": dict(state.picks),
            "history": [dict(h) for h in state.history],
            "totals": dict(state.totals),
        }

    def from_json(self, data: Any) -> State:
        """A state written by ``to_json``."""
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise FormatError(f"not a state of format {STATE_FORMAT}")
        try:
            return State(
                tuple(data["players"]),
                int(data["rounds"]),
                int(data["highest"]),
                int(data["round"]),
                {str(k): int(v) for k, v in data["picks"].items()},
                [{str(k): int(v) for k, v in h.items()} for h in data["history"]],
                {str(k): int(v) for k, v in data["totals"].items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise FormatError(f"not a valid state: {exc}") from None

    def waiting_for(self, state: State) -> dict[str, Decision]:
        """Everyone who has not picked yet this round."""
        if state.finished:
            return {}
        prompt = f"Pick a number from 1 to {state.highest}"
        decision = f"round-{state.round}"
        return {p: Decision(decision, prompt, decision) for p in state.players if p not in state.picks}

    def legal_moves(self, state: State, player: str) -> list[Pick]:
        """Every number, for a player who has not picked this round."""
        if state.finished or player not in state.players or player in state.picks:
            return []
        return [Pick(player, n) for n in range(1, state.highest + 1)]

    def parse_move(self, player: str, data: Any) -> Pick:
        """``{"do": "pick", "number": N}``."""
        if not isinstance(data, Mapping) or data.get("do") != "pick" or set(data) - {"do", "number", "player"}:
            raise FormatError("a move is {'do': 'pick', 'number': N}")
        number = data.get("number")
        if isinstance(number, str) and number.isdigit() and len(number) < 3:
            number = int(number)
        if type(number) is not int:
            raise FormatError("'number' must be a whole number")
        return Pick(player, number)

    def apply(self, state: State, move: Pick, events: list[Event] | None = None) -> None:
        """Record a pick; when the last player has picked, reveal and score the round."""
        if not isinstance(move, Pick):
            raise IllegalMove("P1", "not a move of this game")
        if state.finished:
            raise IllegalMove("P3", "the game is over")
        if move.player not in state.players:
            raise IllegalMove("P1", f"{move.player!r} does not play in this game")
        if move.player in state.picks:
            raise IllegalMove("P1", "you have picked already this round")
        if not 1 <= move.number <= state.highest:
            raise IllegalMove("P1", f"pick a number from 1 to {state.highest}")
        state.picks[move.player] = move.number
        if events is not None:
            events.append({"event": "picked", "player": move.player, "number": move.number})
        if len(state.picks) < len(state.players):
            return
        picks = {p: state.picks[p] for p in state.players}
        scores = _scores(picks)
        for p, s in scores.items():
            state.totals[p] += s
        state.history.append(picks)
        state.picks = {}
        if events is not None:
            events.append({"event": "revealed", "round": state.round, "picks": picks, "scores": scores})
        if not state.finished:
            state.round += 1
        elif events is not None:
            result = self.result(state)
            assert result is not None
            events.append({"event": "game_end", "winners": list(result.winners)})

    def player_view(self, state: State, player: str, log: Sequence[Event] | None = None) -> dict[str, Any]:
        """Everything but the other players' picks of the current round."""
        if player not in state.players:
            raise FormatError(f"{player!r} does not play in this game")
        out: dict[str, Any] = {
            "round": state.round,
            "rounds": state.rounds,
            "highest": state.highest,
            "my_pick": state.picks.get(player),
            "picked": [p for p in state.players if p in state.picks],
            "history": [dict(h) for h in state.history],
            "totals": dict(state.totals),
        }
        if log is not None:
            out["log"] = [
                {**e, "number": None} if e.get("event") == "picked" and e.get("player") != player else dict(e)
                for e in log
            ]
        return out

    def result(self, state: State) -> Result | None:
        """Totals best first; every player with the best total wins."""
        if not state.finished:
            return None
        ranking = tuple(sorted(state.players, key=lambda p: -state.totals[p]))
        best = state.totals[ranking[0]]
        return Result(ranking, dict(state.totals), tuple(p for p in ranking if state.totals[p] == best))

    def milestones(self, before: State, after: State) -> list[Milestone]:
        """Each round revealed, and the end."""
        out = [
            Milestone("round_scored", f"Round {r} revealed", r, {"picks": after.history[r - 1]})
            for r in range(len(before.history) + 1, len(after.history) + 1)
        ]
        if after.finished and not before.finished:
            out.append(Milestone("game_over", "Game over"))
        return out

    def headline(self, state: State, viewer: str | None, log: Sequence[Event]) -> str:
        """The latest reveal, until someone picks in the next round."""
        if not log or log[-1].get("event") not in ("revealed", "game_end"):
            return ""
        last = next(e for e in reversed(log) if e.get("event") == "revealed")
        scores = ", ".join(f"{p} {n}" for p, n in last["scores"].items())
        return f"Round {last['round']} is revealed: {scores}."

    def describe(self, event: Event, viewer: str | None) -> str:
        """One event in plain words."""
        kind = event.get("event")
        who = "You" if event.get("player") == viewer else str(event.get("player"))
        if kind == "picked":  # another player's pick stays secret in the log, even after the reveal
            shown = event.get("number") is not None and event.get("player") == viewer
            return f"{who} picked {event['number']}." if shown else f"{who} picked."
        if kind == "revealed":
            picks = ", ".join(f"{p} {n}" for p, n in event["picks"].items())
            return f"Round {event['round']} revealed: {picks}."
        if kind == "game_end":
            return f"The game is over. Winners: {', '.join(event['winners'])}."
        return str(kind)

    def progress(self, state: State, viewer: str | None) -> list[str]:
        """The round, and who has picked."""
        if state.finished:
            return []
        return [f"Round {state.round} of {state.rounds}: {len(state.picks)} of {len(state.players)} have picked."]

    def reshuffle_hidden(self, state: State, viewer: str, seed: int) -> State:
        """Other players' picks of this round drawn anew."""
        copy = self.clone(state)
        rng = random.Random(seed)
        for p in copy.picks:
            if p != viewer:
                copy.picks[p] = rng.randint(1, copy.highest)
        return copy


GAME = register_game(PickANumber())
