"""Game records (GAME_RECORD.md, format ``call-to-glory/1``): parse, replay, write."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..errors import FormatError, RecordError
from ..records import apply_all, check_shape
from .cards import names
from .codec import tasks_json
from .moves import Move
from .rules import apply
from .state import Options, State, new_game, round_deck

RECORD_FORMAT: Final = "call-to-glory/1"
_KEYS: Final = {"format", "players", "options", "seed", "decks", "tasks", "moves"}
PUBLIC_KEYS: Final = ("format", "players", "options", "moves")
"""What of a record anyone may see while the game is played: the seed, explicit decks and the task deal tell hidden
and future cards; the moves do not (a draw names its pile, not its card; the rest is what every log shows)."""


@dataclass
class Record:
    """A parsed game record: the game's inputs and its moves."""

    players: tuple[str, ...]
    options: Options
    seed: int | None = None
    decks: list[list[str]] | None = None
    tasks: dict[str, dict[str, str]] | None = None
    moves: list[Move] = field(default_factory=list)

    def start(self) -> State:
        """The state before the first move."""
        return new_game(self.players, self.options, self.seed, self.decks, self.tasks)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready object, keys in the documented order."""
        out: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "players": list(self.players),
            "options": self.options.to_json(),
        }
        if self.seed is not None:
            out["seed"] = self.seed
        if self.decks is not None:
            out["decks"] = self.decks
        if self.tasks is not None:
            out["tasks"] = self.tasks
        out["moves"] = [m.to_json() for m in self.moves]
        return out


def record_of(state: State, moves: Sequence[Move]) -> Record:
    """The record of a game started as ``state`` was, with ``moves`` (its players, options, seed, decks, deal)."""
    last = max((i for i, d in enumerate(state.decks) if d is not None), default=-1)
    decks = [names(list(round_deck(state, r + 1))) for r in range(last + 1)] or None
    tasks = None if state.task_deal is None else tasks_json(state.players, state.task_deal)
    return Record(state.players, state.options, state.seed, decks, tasks, list(moves))


def public_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` with only ``PUBLIC_KEYS``; what it leaves out is named under ``omitted`` (such a record is not
    replayed: ``check_shape`` says why)."""
    left_out = [key for key in record if key not in PUBLIC_KEYS]
    public = {key: record[key] for key in PUBLIC_KEYS if key in record}
    return {**public, "omitted": {"keys": left_out}} if left_out else public


def parse_record(data: Any) -> Record:
    """Check a decoded record's shape and inputs; a problem raises RecordError with ``move`` None."""
    try:
        return _parse(data)
    except FormatError as exc:
        raise RecordError(None, None, str(exc)) from None


def _parse(data: Any) -> Record:
    data = check_shape(data, RECORD_FORMAT, _KEYS)
    options = Options.from_json(data.get("options", {}))
    seed = data.get("seed")
    if seed is not None and type(seed) is not int:
        raise FormatError("'seed' must be a whole number")
    decks = data.get("decks")
    if decks is not None and (not isinstance(decks, list) or any(not isinstance(d, list) for d in decks)):
        raise FormatError("'decks' must be a list of decks, each a list of card names")
    tasks = data.get("tasks")
    if tasks is not None and not isinstance(tasks, dict):
        raise FormatError("'tasks' must map each player to their task cards")
    record = Record(tuple(data["players"]), options, seed, decks, tasks)
    record.start()  # checks players, options, decks and tasks
    return record


def replay(data: Any) -> tuple[Record, State]:
    """Parse a decoded record and apply its moves; the first bad move raises RecordError."""
    record = parse_record(data)
    state = record.start()
    record.moves = apply_all(state, data["moves"], Move.from_json, apply)
    return record, state
