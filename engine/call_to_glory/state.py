"""The game state, game options, the start of a game and of each round (R2, R3, R4)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..errors import FormatError
from ..rng import shuffled
from .cards import (
    DECK_SIZE,
    DEFAULT_TASK_TABLE,
    FULL_DECK,
    LAY_MINIMUM,
    MINIATURES,
    TASK_DECKS,
    TYPE_INDEX,
    TYPES,
    VALUES,
)
from .moves import MoveTable, move_table

PLAYING: Final = "playing"
REVEALING: Final = "revealing"
FINISHED: Final = "finished"
DRAW: Final = "draw"
ACT: Final = "act"
MAX_NAME: Final = 40
MAX_SEED: Final = 10**100
STATE_FORMAT: Final = "call-to-glory-state/1"


@dataclass(frozen=True)
class Options:
    """Game options of R2, plus the round-1 start player and the task-card table of R1."""

    rounds: int | None = None
    imperial_tasks: bool = False
    ninja_power: bool = False
    first_player: str | None = None
    task_decks: Mapping[str, Sequence[str]] | None = None

    def resolved_rounds(self) -> int:
        """Number of rounds, with the default of R2 applied."""
        if self.rounds is not None:
            return self.rounds
        return 3 if self.imperial_tasks else 4

    def to_json(self) -> dict[str, Any]:
        """The options as a record's ``options`` object, defaults resolved."""
        out: dict[str, Any] = {
            "rounds": self.resolved_rounds(),
            "imperial_tasks": self.imperial_tasks,
            "ninja_power": self.ninja_power,
        }
        if self.first_player is not None:
            out["first_player"] = self.first_player
        if self.task_decks is not None:
            out["task_decks"] = {d: list(self.task_decks[d]) for d in TASK_DECKS}
        return out

    @classmethod
    def from_json(cls, data: Any) -> Options:
        """Parse a record's ``options`` object; unknown keys and wrong types are refused."""
        if not isinstance(data, dict):
            raise FormatError("'options' must be a JSON object")
        extra = set(data) - {"rounds", "imperial_tasks", "ninja_power", "first_player", "task_decks"}
        if extra:
            raise FormatError(f"unknown option {sorted(extra)[0]!r}")
        for key in ("imperial_tasks", "ninja_power"):
            if key in data and type(data[key]) is not bool:
                raise FormatError(f"option {key!r} must be true or false")
        rounds = data.get("rounds")
        if rounds is not None and type(rounds) is not int:
            raise FormatError("option 'rounds' must be a whole number")
        first = data.get("first_player")
        if first is not None and not isinstance(first, str):
            raise FormatError("option 'first_player' must be a player's name")
        decks = data.get("task_decks")
        if decks is not None and (not isinstance(decks, dict) or not all(isinstance(v, list) for v in decks.values())):
            raise FormatError("option 'task_decks' must map A, B and C to lists of card types")
        return cls(
            rounds=rounds,
            imperial_tasks=data.get("imperial_tasks", False),
            ninja_power=data.get("ninja_power", False),
            first_player=first,
            task_decks=decks,
        )


def check_players(players: Sequence[str]) -> tuple[str, ...]:
    """Validate the seat order: 2-4 unique names of 1-40 characters."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise FormatError("'players' must be a list of names")
    names = tuple(players)
    if not 2 <= len(names) <= 4:
        raise FormatError(f"Call to Glory is for 2 to 4 players, not {len(names)}")
    for name in names:
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
            raise FormatError(f"a player's name must be 1 to {MAX_NAME} characters: {name!r}")
        if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
            raise FormatError(f"a player's name may not contain control characters: {name!r}")
    if len(set(names)) != len(names):
        raise FormatError("players' names must be different")
    return names


def _check_options(options: Options, players: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
    rounds = options.resolved_rounds()
    top = 3 if options.imperial_tasks else 4
    if type(rounds) is not int or not 1 <= rounds <= top:
        extra = " with Imperial Tasks" if options.imperial_tasks else ""
        raise FormatError(f"rounds must be 1 to {top}{extra} (R2), not {rounds!r}")
    if options.first_player is not None and options.first_player not in players:
        raise FormatError(f"first_player {options.first_player!r} is not one of the players")
    table = options.task_decks if options.task_decks is not None else DEFAULT_TASK_TABLE
    if not isinstance(table, Mapping) or set(table) != set(TASK_DECKS):
        raise FormatError("task_decks must have exactly the decks A, B and C")
    out: dict[str, tuple[int, ...]] = {}
    for deck in TASK_DECKS:
        cards = table[deck]
        if isinstance(cards, str) or not isinstance(cards, Sequence) or len(cards) != 4:
            raise FormatError(f"task deck {deck} must list 4 card types")
        out[deck] = tuple(_type_id(c, f"task deck {deck}") for c in cards)
    return out


def _type_id(name: Any, where: str) -> int:
    if not isinstance(name, str) or name not in TYPE_INDEX:
        raise FormatError(f"{where}: unknown card type {name!r}")
    return TYPE_INDEX[name]


def parse_deck(cards: Any, where: str) -> tuple[int, ...]:
    """A deck of 110 card names, top first, as type ids; anything else is refused."""
    if not isinstance(cards, list):
        raise FormatError(f"{where} must be a list of {DECK_SIZE} card names")
    ids = tuple(_type_id(c, where) for c in cards)
    counts = [0] * len(TYPES)
    for t in ids:
        counts[t] += 1
    if len(ids) != DECK_SIZE or counts != list(VALUES):
        wrong = [f"{TYPES[t]} {counts[t]} (not {VALUES[t]})" for t in range(len(TYPES)) if counts[t] != VALUES[t]]
        raise FormatError(f"{where} is not the {DECK_SIZE} cards of R1: {', '.join(wrong)}")
    return ids


@dataclass(slots=True, eq=False)
class State:
    """The whole state of one game. Mutable: ``apply`` changes it in place.

    Internally players and types are indexes, draw piles keep their top card last.
    Use ``to_json``/``from_json`` for storage and ``player_view`` for anything a
    player is shown.
    """

    players: tuple[str, ...]
    options: Options
    seed: int | None
    decks: tuple[tuple[int, ...] | None, ...]
    task_deal: tuple[dict[str, int], ...] | None
    task_table: dict[str, tuple[int, ...]]
    rounds: int
    minimum: tuple[int, ...]
    index: dict[str, int]
    moves: MoveTable
    """The moves of this seat order, made once (``legal_moves`` picks from them)."""
    status: str = PLAYING
    round: int = 0
    turn: int = 0
    ply: int = 0
    start_player: int = 0
    current: int = 0
    step: str | None = DRAW
    draws_left: int = 2
    first_pile: int = -1
    hands: list[list[int]] = field(default_factory=list)
    tables: list[list[int]] = field(default_factory=list)
    owner: list[int] = field(default_factory=list)
    on_table: int = 0
    draw_piles: list[list[int]] = field(default_factory=list)
    discard_piles: list[list[int]] = field(default_factory=list)
    round_scores: list[list[int]] = field(default_factory=list)
    round_tables: list[list[list[int]]] = field(default_factory=list)
    round_starts: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    preferences: list[int] = field(default_factory=list)
    ninjas: list[int] = field(default_factory=list)
    ninja_supply: int = MINIATURES
    tasks: list[dict[str, int]] = field(default_factory=list)
    revealed: list[tuple[int, str, int, int]] = field(default_factory=list)

    @property
    def n(self) -> int:
        """Number of players."""
        return len(self.players)

    @property
    def current_player(self) -> str | None:
        """Name of the player who must act now, or None once the game is finished."""
        return None if self.status == FINISHED else self.players[self.current]

    @property
    def is_finished(self) -> bool:
        """True once the last round has been scored (R10)."""
        return self.status == FINISHED

    def clone(self) -> State:
        """An independent copy (``apply`` mutates the state it is given)."""
        return State(
            self.players,
            self.options,
            self.seed,
            self.decks,
            self.task_deal,
            self.task_table,
            self.rounds,
            self.minimum,
            self.index,
            self.moves,
            self.status,
            self.round,
            self.turn,
            self.ply,
            self.start_player,
            self.current,
            self.step,
            self.draws_left,
            self.first_pile,
            [h[:] for h in self.hands],
            [t[:] for t in self.tables],
            self.owner[:],
            self.on_table,
            [p[:] for p in self.draw_piles],
            [p[:] for p in self.discard_piles],
            [r[:] for r in self.round_scores],
            [[t[:] for t in r] for r in self.round_tables],
            self.round_starts[:],
            self.totals[:],
            self.winners[:],
            self.preferences[:],
            self.ninjas[:],
            self.ninja_supply,
            [dict(t) for t in self.tasks],
            self.revealed[:],
        )


def new_game(
    players: Sequence[str],
    options: Options | None = None,
    seed: int | None = None,
    decks: Sequence[Sequence[str] | None] | None = None,
    tasks: Mapping[str, Mapping[str, str]] | None = None,
) -> State:
    """Start a game: check players and options, deal the tasks (V1) and set up round 1.

    ``decks`` fixes the shuffled deck of round 1, 2, … (110 names, top first);
    rounds without one (missing or None) are shuffled from ``seed``. ``tasks``
    fixes the V1 deal.
    """
    state = prepare(players, options, seed, decks, tasks)
    first = state.start_player
    if state.options.imperial_tasks:
        deal = state.task_deal or _deal_tasks(state.task_table, state.n, first, state.seed)
        state.tasks = [dict(d) for d in deal]
    setup_round(state, 1, first)
    return state


def prepare(
    players: Sequence[str],
    options: Options | None = None,
    seed: int | None = None,
    decks: Sequence[Sequence[str] | None] | None = None,
    tasks: Mapping[str, Mapping[str, str]] | None = None,
) -> State:
    """Check a game's inputs and build its state before anything is dealt."""
    names = check_players(players)
    options = options if options is not None else Options()
    table = _check_options(options, names)
    rounds = options.resolved_rounds()
    if seed is not None and (type(seed) is not int or not -MAX_SEED < seed < MAX_SEED):
        raise FormatError("the seed must be a whole number of at most 100 digits")
    explicit: list[tuple[int, ...] | None] = []
    if decks is not None:
        if isinstance(decks, str) or not isinstance(decks, Sequence):
            raise FormatError("'decks' must be a list of decks")
        if len(decks) > rounds:
            raise FormatError(f"{len(decks)} decks given for a game of {rounds} rounds")
        explicit = [None if d is None else parse_deck(d, f"deck of round {i + 1}") for i, d in enumerate(decks)]
    explicit += [None] * (rounds - len(explicit))
    if seed is None and any(d is None for d in explicit):
        raise FormatError("a seed is needed for the rounds without an explicit deck")
    index = {name: i for i, name in enumerate(names)}
    deal = None
    if tasks is not None:
        if not options.imperial_tasks:
            raise FormatError("a task deal is given but Imperial Tasks are not in play")
        deal = _parse_task_deal(tasks, names, table)
    elif options.imperial_tasks and seed is None:
        raise FormatError("a seed (or an explicit task deal) is needed for Imperial Tasks")
    n = len(names)
    first = index[options.first_player] if options.first_player is not None else 0
    return State(
        players=names,
        options=options,
        seed=seed,
        decks=tuple(explicit),
        task_deal=deal,
        task_table=table,
        rounds=rounds,
        minimum=LAY_MINIMUM[n],
        index=index,
        moves=move_table(names),
        totals=[0] * n,
        preferences=[0] * n,
        ninjas=[0] * n if options.ninja_power else [],
        start_player=first,
        current=first,
    )


def _parse_task_deal(
    tasks: Mapping[str, Mapping[str, str]], names: tuple[str, ...], table: dict[str, tuple[int, ...]]
) -> tuple[dict[str, int], ...]:
    if not isinstance(tasks, Mapping) or set(tasks) != set(names):
        raise FormatError("the task deal must give task cards to exactly the players")
    out = []
    for name in names:
        hand = tasks[name]
        if not isinstance(hand, Mapping) or set(hand) != set(TASK_DECKS):
            raise FormatError(f"{name} must get one task card from each of decks A, B and C")
        out.append({d: _type_id(hand[d], f"task card {d} of {name}") for d in TASK_DECKS})
    for deck in TASK_DECKS:
        left = list(table[deck])
        for hand_ids in out:
            if hand_ids[deck] not in left:
                raise FormatError(f"the task deal uses a {TYPES[hand_ids[deck]]} that deck {deck} does not hold")
            left.remove(hand_ids[deck])
    return tuple(out)


def _deal_tasks(table: dict[str, tuple[int, ...]], n: int, first: int, seed: int | None) -> list[dict[str, int]]:
    """Each player, from the round-1 start player on, gets the next card of each shuffled deck (R3.4)."""
    assert seed is not None
    hands: list[dict[str, int]] = [{} for _ in range(n)]
    for deck in TASK_DECKS:
        cards = shuffled(table[deck], seed, f"tasks-{deck}")
        for k in range(n):
            hands[(first + k) % n][deck] = cards[k]
    return hands


def round_deck(state: State, number: int) -> tuple[int, ...]:
    """The shuffled deck of round ``number``, top first: explicit, or from the seed."""
    explicit = state.decks[number - 1]
    if explicit is not None:
        return explicit
    assert state.seed is not None
    return tuple(shuffled(FULL_DECK, state.seed, f"round-{number}"))


def setup_round(state: State, number: int, start: int) -> None:
    """Set up round ``number`` with start player ``start`` from a fresh deck (R3)."""
    n = state.n
    deck = round_deck(state, number)
    hands = [[0] * len(TYPES) for _ in range(n)]
    for k in range(n):
        for t in deck[3 * k : 3 * k + 3]:
            hands[(start + k) % n][t] += 1
    rest = deck[3 * n :]
    half = (len(rest) + 1) // 2
    state.hands = hands
    state.tables = [[0] * len(TYPES) for _ in range(n)]
    state.owner = [-1] * len(TYPES)
    state.on_table = 0
    state.draw_piles = [list(reversed(rest[:half])), list(reversed(rest[half:]))]
    state.discard_piles = [[], []]
    state.status = PLAYING
    state.round = number
    state.turn += 1
    state.start_player = start
    state.round_starts.append(start)
    state.current = start
    state.step = DRAW
    state.draws_left = 2
    state.first_pile = -1
