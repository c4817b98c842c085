"""The full state to and from JSON (for storage), with every invariant checked on the way in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import FormatError
from .cards import DECK_SIZE, MINIATURES, PILES, PREFERENCES, TASK_DECKS, TYPE_INDEX, TYPES, counts_json, names
from .state import ACT, DRAW, FINISHED, PLAYING, REVEALING, STATE_FORMAT, Options, State, prepare


def tasks_json(players: tuple[str, ...], hands: Sequence[dict[str, int]]) -> dict[str, dict[str, str]]:
    """Task cards per player as ``{"ann": {"A": "empress"}}``."""
    return {players[p]: {d: TYPES[t] for d, t in sorted(h.items())} for p, h in enumerate(hands)}


def revealed_json(state: State) -> list[dict[str, Any]]:
    """The revealed task cards, in the order they were revealed."""
    return [{"player": state.players[p], "deck": d, "type": TYPES[t], "round": r} for p, d, t, r in state.revealed]


def to_json(state: State) -> dict[str, Any]:
    """Everything needed to continue the game, including hidden information: keep it private."""
    players = state.players
    return {
        "format": STATE_FORMAT,
        "players": list(players),
        "options": state.options.to_json(),
        "seed": state.seed,
        "decks": [None if d is None else names(list(d)) for d in state.decks],
        "task_deal": None if state.task_deal is None else tasks_json(players, state.task_deal),
        "status": state.status,
        "round": state.round,
        "turn": state.turn,
        "ply": state.ply,
        "start_player": players[state.start_player],
        "current_player": state.current_player,
        "step": state.step,
        "draws_left": state.draws_left,
        "first_pile": PILES[state.first_pile] if state.first_pile >= 0 else None,
        "hands": {players[p]: counts_json(h) for p, h in enumerate(state.hands)},
        "tables": {players[p]: counts_json(t) for p, t in enumerate(state.tables)},
        "draw_piles": [names(pile[::-1]) for pile in state.draw_piles],
        "discard_piles": [names(pile) for pile in state.discard_piles],
        "round_scores": [dict(zip(players, r, strict=True)) for r in state.round_scores],
        "round_tables": [{players[p]: counts_json(row) for p, row in enumerate(r)} for r in state.round_tables],
        "round_starts": [players[s] for s in state.round_starts],
        "totals": dict(zip(players, state.totals, strict=True)),
        "winners": [players[w] for w in state.winners],
        "preferences": {players[p]: PREFERENCES[x] for p, x in enumerate(state.preferences)},
        "ninjas": dict(zip(players, state.ninjas, strict=True)) if state.ninjas else None,
        "ninja_supply": state.ninja_supply,
        "tasks": tasks_json(players, state.tasks),
        "revealed_tasks": revealed_json(state),
    }


def from_json(data: Any) -> State:
    """Rebuild a state written by ``to_json``; anything inconsistent raises FormatError."""
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise FormatError(f"not a game state of format {STATE_FORMAT}")
    try:
        state = _from_json(data)
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise FormatError(f"not a valid game state: {type(exc).__name__} {exc}") from None
    _check_invariants(state)
    return state


def _typecounts_json(obj: Any) -> list[int]:
    if not isinstance(obj, dict):
        raise FormatError("card counts must be an object of type: count")
    row = [0] * len(TYPES)
    for name, c in obj.items():
        if name not in TYPE_INDEX or type(c) is not int or c < 1:
            raise FormatError(f"bad card count {name!r}: {c!r}")
        row[TYPE_INDEX[name]] = c
    return row


def _card_list(obj: Any) -> list[int]:
    if not isinstance(obj, list) or not all(isinstance(c, str) and c in TYPE_INDEX for c in obj):
        raise FormatError("a pile must be a list of card types")
    return [TYPE_INDEX[c] for c in obj]


def _per_player(obj: Any, players: tuple[str, ...]) -> list[Any]:
    if not isinstance(obj, dict) or set(obj) != set(players):
        raise FormatError("per-player data must name exactly the players")
    return [obj[p] for p in players]


def _deck(obj: Any) -> str:
    if obj not in TASK_DECKS:
        raise FormatError(f"unknown task deck {obj!r}")
    return str(obj)


def _int(obj: Any, low: int, high: int) -> int:
    if type(obj) is not int or not low <= obj <= high:
        raise FormatError(f"expected a whole number from {low} to {high}, not {obj!r}")
    return obj


def _from_json(data: dict[str, Any]) -> State:
    options = Options.from_json(data["options"])
    decks = data["decks"]
    if not isinstance(decks, list):
        raise FormatError("'decks' must be a list")
    state = prepare(data["players"], options, seed=data["seed"], decks=decks, tasks=data["task_deal"])
    players = state.players
    index = state.index
    status = data["status"]
    if status not in (PLAYING, REVEALING, FINISHED):
        raise FormatError(f"unknown status {status!r}")
    state.status = status
    state.round = _int(data["round"], 1, state.rounds)
    state.turn = _int(data["turn"], 1, 10**9)
    state.ply = _int(data["ply"], 0, 10**9)
    state.start_player = index[data["start_player"]]
    current = data["current_player"]
    state.current = state.start_player if current is None and status == FINISHED else index[current]
    step = data["step"]
    if status == PLAYING:
        if step not in (DRAW, ACT):
            raise FormatError(f"unknown step {step!r}")
        state.step = DRAW if step == DRAW else ACT
        state.draws_left = _int(data["draws_left"], 1, 2) if step == DRAW else _int(data["draws_left"], 0, 0)
    else:
        if step is not None:
            raise FormatError("a step is only kept while playing")
        state.step = None
        state.draws_left = _int(data["draws_left"], 0, 0)
    first = data["first_pile"]
    state.first_pile = -1 if first is None else PILES.index(first)
    if (state.first_pile >= 0) != (state.step == DRAW and state.draws_left == 1):
        raise FormatError("first_pile must be set exactly between the two draws")
    state.hands = [_typecounts_json(h) for h in _per_player(data["hands"], players)]
    state.tables = [_typecounts_json(t) for t in _per_player(data["tables"], players)]
    piles = data["draw_piles"]
    discards = data["discard_piles"]
    if not (isinstance(piles, list) and len(piles) == 2 and isinstance(discards, list) and len(discards) == 2):
        raise FormatError("there are two draw piles and two discard piles")
    state.draw_piles = [_card_list(p)[::-1] for p in piles]
    state.discard_piles = [_card_list(p) for p in discards]
    if not isinstance(data["round_scores"], list) or not isinstance(data["round_tables"], list):
        raise FormatError("round_scores and round_tables must be lists")
    state.round_scores = [[_int(s, 0, 10**6) for s in _per_player(r, players)] for r in data["round_scores"]]
    state.round_tables = [[_typecounts_json(row) for row in _per_player(r, players)] for r in data["round_tables"]]
    if not isinstance(data["round_starts"], list):
        raise FormatError("round_starts must be a list")
    state.round_starts = [index[s] for s in data["round_starts"]]
    if len(state.round_starts) != state.round:
        raise FormatError("round_starts must name the start player of every round begun")
    state.totals = [_int(s, 0, 10**7) for s in _per_player(data["totals"], players)]
    if not isinstance(data["winners"], list):
        raise FormatError("winners must be a list")
    state.winners = [index[w] for w in data["winners"]]
    state.preferences = [PREFERENCES.index(x) for x in _per_player(data["preferences"], players)]
    if options.ninja_power:
        state.ninjas = [_int(x, 0, MINIATURES) for x in _per_player(data["ninjas"], players)]
        state.ninja_supply = _int(data["ninja_supply"], 0, MINIATURES)
        if sum(state.ninjas) + state.ninja_supply != MINIATURES:
            raise FormatError(f"there are {MINIATURES} Ninja miniatures in all")
    elif data["ninjas"] is not None:
        raise FormatError("Ninja miniatures are kept only with the Power of the Ninja")
    tasks = _per_player(data["tasks"], players) if options.imperial_tasks else []
    if not options.imperial_tasks and data["tasks"]:
        raise FormatError("task cards are kept only with Imperial Tasks")
    state.tasks = []
    for hand in tasks:
        if not isinstance(hand, dict) or not set(hand) <= set(TASK_DECKS):
            raise FormatError("task cards must be an object of deck: type")
        state.tasks.append({d: TYPE_INDEX[t] for d, t in sorted(hand.items())})
    revealed = data["revealed_tasks"]
    if not isinstance(revealed, list):
        raise FormatError("revealed_tasks must be a list")
    state.revealed = [
        (index[r["player"]], _deck(r["deck"]), TYPE_INDEX[r["type"]], _int(r["round"], 1, 4)) for r in revealed
    ]
    return state


def _check_invariants(state: State) -> None:
    n = state.n
    owner = [-1] * len(TYPES)
    for p in range(n):
        for t in range(len(TYPES)):
            if state.tables[p][t]:
                if owner[t] >= 0:
                    raise FormatError(f"two sets of {TYPES[t]} on the table")
                owner[t] = p
    state.owner = owner
    state.on_table = sum(1 for o in owner if o >= 0)
    if state.status != FINISHED:
        total = (
            sum(map(sum, state.hands))
            + sum(map(sum, state.tables))
            + sum(len(p) for p in state.draw_piles)
            + sum(len(p) for p in state.discard_piles)
        )
        if total != DECK_SIZE:
            raise FormatError(f"the state holds {total} character cards, not {DECK_SIZE}")
    if len(state.round_scores) != len(state.round_tables):
        raise FormatError("round_scores and round_tables differ in length")
