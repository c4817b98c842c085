"""Call to Glory through the game protocol (engine/protocol.py): the object registered as ``call-to-glory``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..errors import FormatError, OptionsError
from ..protocol import Bot, ChoiceGroup, Decision, Event, LogEntry, Milestone, Note, OptionField, Result
from . import bots, codec, present, record, rules, view, words
from .cards import DEFAULT_TASK_TABLE, TASK_DECKS, TYPES, VALUES
from .moves import Move
from .state import FINISHED, REVEALING, Options, State, check_players, new_game

_REVEAL: Final = "Reveal a task card"
_DRAW: Final = {2: "Draw a card (2 of 2 left)", 1: "Draw a card (1 of 2 left)"}
_ACT: Final = "Lay a set or discard a card"
_OPTION_KEYS: Final = ("rounds", "imperial_tasks", "ninja_power", "first_player", "task_decks")


def task_table_text(table: Mapping[str, Sequence[str]] | None = None) -> str:
    """The task-card table as a form shows it: one line per deck, ``A: Emperor, Empress, Daimyo, Shogun``."""
    shown: Mapping[str, Sequence[str]] = table or DEFAULT_TASK_TABLE
    return "\n".join(f"{deck}: {', '.join(t.capitalize() for t in shown[deck])}" for deck in TASK_DECKS)


def parse_task_table(text: str) -> dict[str, list[str]]:
    """Read a form's task-card table: decks A, B and C, four card types each (R1)."""
    table: dict[str, list[str]] = {}
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    if len(lines) > len(TASK_DECKS):
        raise FormatError("the task-card table has three lines: A, B and C")
    for number, line in enumerate(lines, start=1):
        deck, sep, rest = line.partition(":")
        deck = deck.strip().upper()
        if not sep or deck not in TASK_DECKS:
            raise FormatError(f"line {number} must start with A:, B: or C:")
        if deck in table:
            raise FormatError(f"deck {deck} is listed twice")
        cards = [c.strip().lower() for c in rest.split(",") if c.strip()]
        for card in cards:
            if card not in TYPES:
                known = ", ".join(t.capitalize() for t in TYPES)
                raise FormatError(f"deck {deck}: {card[:40]!r} is not a card type ({known})")
        if len(cards) != 4:
            raise FormatError(f"deck {deck} must list 4 card types, not {len(cards)}")
        table[deck] = cards
    missing = [d for d in TASK_DECKS if d not in table]
    if missing:
        raise FormatError(f"the task-card table has no line for deck {', '.join(missing)}")
    return table


def _form_options(data: Mapping[str, Any], errors: dict[str, str]) -> dict[str, Any]:
    """A form's option values made a record's: the task-card table as text (read only with Imperial Tasks; the
    default table is not stored), and the number of rounds checked against the variant (R2)."""
    out = dict(data)
    decks = out.get("task_decks")
    if isinstance(decks, str):
        del out["task_decks"]
        if out.get("imperial_tasks") is True and decks.strip():
            try:
                table = parse_task_table(decks)
            except FormatError as exc:
                errors["task_decks"] = str(exc)
            else:
                if table != {d: list(DEFAULT_TASK_TABLE[d]) for d in TASK_DECKS}:
                    out["task_decks"] = table
    rounds = out.get("rounds")
    top = 3 if out.get("imperial_tasks") is True else 4
    if type(rounds) is int and not 1 <= rounds <= top:
        extra = " with Imperial Tasks" if top == 3 else ""
        errors["rounds"] = f"a game has 1 to {top} rounds{extra} (R2)"
    return out


class _Bot:
    """A Call to Glory bot behind the protocol's ``choose(state, player)``."""

    def __init__(self, bot: bots.Bot) -> None:
        self.bot = bot

    def choose(self, state: State, player: str) -> Move:
        """The bot's move for ``player``, who must be the one to act."""
        if state.current_player != player:
            raise ValueError(f"{player} has no decision to make now")
        return self.bot.choose(state, player)


def _random_bot(seed: int) -> _Bot:
    return _Bot(bots.RandomBot(seed))


def _heuristic_bot(_seed: int) -> _Bot:
    return _Bot(bots.HeuristicBot())


class CallToGlory:
    """Call to Glory (RULES.md) for 2 to 4 players."""

    key = "call-to-glory"
    title = "Call to Glory"
    record_format = record.RECORD_FORMAT
    min_players = 2
    max_players = 4
    option_fields: Sequence[OptionField] = (
        OptionField(
            "rounds",
            "Rounds",
            "int",
            None,
            (("", "Standard: 4, or 3 with Imperial Tasks"), *((str(n), str(n)) for n in range(1, 5))),
        ),
        OptionField("imperial_tasks", "Imperial Tasks (V1)", "bool", False),
        OptionField("ninja_power", "The power of the Ninja (V2)", "bool", False),
        OptionField(
            "first_player", "First player", "player", None, help="who starts round 1 (default: the first seat)"
        ),
        OptionField(
            "task_decks",
            "Task cards (with Imperial Tasks)",
            "text",
            task_table_text(),
            help="One line per deck, four card types each. Replace them to use other task cards.",
        ),
    )
    bots: Mapping[str, Callable[[int], Bot]] = {"heuristic": _heuristic_bot, "random": _random_bot}

    # Rules -----------------------------------------------------------------------------------------

    def parse_options(self, data: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
        """The options of a record or a form (the task-card table may be the text ``task_table_text`` shows),
        checked for these players (R2), defaults resolved; every problem at once."""
        if not isinstance(data, Mapping):
            raise OptionsError({"": "the options must be an object"})
        errors: dict[str, str] = {}
        for key in data:
            if key not in _OPTION_KEYS:
                errors[str(key)] = f"unknown option {key!r}"
        data = _form_options(data, errors)
        try:
            options = Options.from_json(dict(data))
        except FormatError as exc:
            raise OptionsError({**errors, "options": str(exc)}) from None
        if errors:
            raise OptionsError(errors)
        try:
            names = check_players(players)
            state = new_game(names, options, seed=0)
        except FormatError as exc:
            message = str(exc)
            field = next((k for k in _OPTION_KEYS if k in message), "players")
            raise OptionsError({field: message}) from None
        return state.options.to_json()

    def variants(self, players: Sequence[str]) -> list[dict[str, Any]]:
        """Each variant on and off, with the standard number of rounds."""
        return [{"imperial_tasks": v1, "ninja_power": v2} for v1 in (False, True) for v2 in (False, True)]

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        """A new game (R2, R3)."""
        return new_game(players, Options.from_json(dict(options)), seed=seed)

    def to_json(self, state: State) -> dict[str, Any]:
        """The whole state (hidden cards included)."""
        return codec.to_json(state)

    def from_json(self, data: Any) -> State:
        """A state written by ``to_json``."""
        return codec.from_json(data)

    def clone(self, state: State) -> State:
        """An independent copy."""
        return state.clone()

    def waiting_for(self, state: State) -> dict[str, Decision]:
        """The one player who must act: a decision per move (``ply``), one wait per turn or task reveal."""
        status = state.status
        if status == FINISHED:
            return {}
        prompt = _REVEAL if status == REVEALING else _DRAW[state.draws_left] if state.step == "draw" else _ACT
        wait = f"{status[0]}{state.round}.{state.turn}"
        return {state.players[state.current]: Decision(str(state.ply), prompt, wait)}

    def legal_moves(self, state: State, player: str) -> list[Move]:
        """The legal moves of ``player`` (none unless they must act; preference changes are not listed)."""
        if state.status == FINISHED or state.players[state.current] != player:
            return []
        return rules.legal_moves(state)

    def parse_move(self, player: str, data: Any) -> Move:
        """A move from a record entry or a form."""
        if not isinstance(data, Mapping):
            raise FormatError("a move must be a JSON object")
        return Move.from_json({**data, "player": player})

    def is_standing(self, move: Move) -> bool:
        """The discard preference (R7) may be changed at any time."""
        return move.do == "preference"

    def settings(self, state: State, player: str) -> list[ChoiceGroup]:
        """Where the player's displaced cards go."""
        return present.settings(state, player)

    def apply(self, state: State, move: Move, events: list[Event] | None = None) -> None:
        """Apply a move in place (``IllegalMove`` changes nothing)."""
        rules.apply(state, move, events)

    def player_view(self, state: State, player: str, log: Sequence[Event] | None = None) -> dict[str, Any]:
        """What ``player`` may see (R11)."""
        return view.player_view(state, player, log)

    def summary(self, state: State) -> dict[str, Any]:
        """The state of GAME_RECORD.md."""
        return view.state_summary(state)

    def result(self, state: State) -> Result | None:
        """Totals best first (ties in seat order), and the winners of R10."""
        if state.status != FINISHED:
            return None
        order = sorted(range(state.n), key=lambda p: -state.totals[p])
        return Result(
            ranking=tuple(state.players[p] for p in order),
            scores=dict(zip(state.players, state.totals, strict=True)),
            winners=tuple(state.players[w] for w in state.winners),
        )

    def milestones(self, before: State, after: State) -> list[Milestone]:
        """Each round scored in between (with its score sheet), and the end of the game."""
        out = []
        details = view.round_details(after) if len(after.round_scores) > len(before.round_scores) else []
        for number in range(len(before.round_scores) + 1, len(after.round_scores) + 1):
            out.append(Milestone("round_scored", f"Round {number} scores", number, details[number - 1]))
        if after.status == FINISHED and before.status != FINISHED:
            out.append(Milestone("game_over", "Game over"))
        return out

    # Words -----------------------------------------------------------------------------------------

    def headline(self, state: State, viewer: str | None, log: Sequence[Event]) -> str:
        """While the first turns of a new round are played, that the last round is over and how it scored."""
        return present.round_over(state, log)

    def template_data(self) -> Mapping[str, Any]:
        """Each card type's value (the cards show it)."""
        return {"values": dict(zip(TYPES, VALUES, strict=True))}

    def describe(self, event: Event, viewer: str | None) -> str:
        """One event in plain words."""
        return words.describe_event(event, viewer)

    def narrate(self, entries: Sequence[LogEntry], viewer: str | None, notes: Sequence[Note] = ()) -> list[str]:
        """Logged moves in plain words, one sentence per turn, with the notes in their place by time."""
        return words.narrative((words.LogEntry(e.player, e.source, e.events, e.at) for e in entries), viewer, notes)

    def choices(self, state: State, player: str) -> list[ChoiceGroup]:
        """The player's moves grouped for buttons, with what each does and why others are closed."""
        return present.choices(state, player)

    def progress(self, state: State, viewer: str | None) -> list[str]:
        """Points on each table now and how near the round's end is."""
        return present.progress(state, viewer)

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A move as an instruction."""
        return words.describe_move(dict(move))

    # Records ---------------------------------------------------------------------------------------

    def record(self, start: State, moves: Sequence[Move]) -> dict[str, Any]:
        """The ``call-to-glory/1`` record of a game started as ``start``."""
        return record.record_of(start, moves).to_json()

    def replay(self, data: Any) -> tuple[State, State, list[Move]]:
        """Replay a decoded record."""
        played, final = record.replay(data)
        return played.start(), final, played.moves

    def reshuffle_hidden(self, state: State, viewer: str, seed: int) -> State:
        """A copy in which the other players' hands and the draw piles are dealt anew from their cards, and the
        other players' unrevealed task cards are swapped with the tasks left out of the game (R11)."""
        copy = state.clone()
        me = copy.index[viewer]
        rng = random.Random(seed)
        others = [p for p in range(copy.n) if p != me]
        pool = [t for p in others for t, c in enumerate(copy.hands[p]) for _ in range(c)]
        pool += [t for pile in copy.draw_piles for t in pile]
        rng.shuffle(pool)
        for p in others:
            size = sum(copy.hands[p])
            hand = [0] * len(copy.hands[p])
            for t in pool[:size]:
                hand[t] += 1
            del pool[:size]
            copy.hands[p] = hand
        for pile in copy.draw_piles:
            size = len(pile)
            pile[:] = pool[:size]
            del pool[:size]
        if copy.tasks:
            for deck in TASK_DECKS:
                spare = list(copy.task_table[deck])  # the deck's cards the viewer cannot place
                if deck in copy.tasks[me]:
                    spare.remove(copy.tasks[me][deck])
                for _p, d, t, _round in copy.revealed:
                    if d == deck:
                        spare.remove(t)
                rng.shuffle(spare)
                held = [p for p in others if deck in copy.tasks[p]]
                for p, t in zip(held, spare, strict=False):
                    copy.tasks[p][deck] = t
        return copy


GAME: Final = CallToGlory()
