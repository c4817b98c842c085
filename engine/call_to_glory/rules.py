"""Legal moves and applying them: turns, lays, discards, Ninjas, reveals, scoring (R4-R10)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from ..errors import IllegalMove
from .cards import DISCARD1, DISCARD2, END_TYPES, NINJA, PILES, PREFERENCES, TASK_BONUS, TASK_DECKS, TYPES, VALUES
from .moves import Move
from .state import ACT, DRAW, FINISHED, PLAYING, REVEALING, State, setup_round

Events = list[dict[str, Any]]
_PILE_WORDS: Final = ("draw pile 1", "draw pile 2", "discard pile 1", "discard pile 2")
_MAX_COUNT: Final = max(VALUES)


def _name(t: int) -> str:
    return TYPES[t].capitalize()


class _MoveTable:
    """Interned Move objects of one seat order, so listing legal moves allocates little."""

    def __init__(self, players: tuple[str, ...]) -> None:
        self.draws = [[Move.draw(p, pile) for pile in PILES] for p in players]
        self.discards = [[[Move.discard(p, t, pile) for pile in PILES[2:]] for t in TYPES] for p in players]
        self.lays = [
            [[Move.lay(p, t, c) if c else None for c in range(_MAX_COUNT + 1)] for t in TYPES] for p in players
        ]
        self.ninjas = [[[Move.ninja(p, q, t) for t in TYPES] for q in players] for p in players]
        self.reveals = [{d: Move.reveal_task(p, d) for d in TASK_DECKS} for p in players]


@lru_cache(maxsize=256)
def _table(players: tuple[str, ...]) -> _MoveTable:
    return _MoveTable(players)


def legal_moves(state: State) -> list[Move]:
    """Every move the player who must act may make now, in a fixed order.

    Preference moves (R7) are left out: any player may make one at any time
    before the game is finished (see ``can_apply``).
    """
    status = state.status
    p = state.current
    if status == PLAYING:
        table = _table(state.players)
        if state.step == DRAW:
            draws = table.draws[p]
            fp = state.first_pile
            dp1, dp2 = state.draw_piles
            cp1, cp2 = state.discard_piles
            moves = []
            if dp1 and fp != 0:
                moves.append(draws[0])
            if dp2 and fp != 1:
                moves.append(draws[1])
            if cp1 and fp != 2:
                moves.append(draws[2])
            if cp2 and fp != 3:
                moves.append(draws[3])
        else:
            moves = []
            hand = state.hands[p]
            d1, d2 = state.discard_piles
            piles = (0, 1) if d1 and d2 else ((0,) if not d1 else (1,))
            discards = table.discards[p]
            lays = table.lays[p]
            minimum = state.minimum
            owner = state.owner
            tables = state.tables
            for t in range(9):
                c = hand[t]
                if c:
                    o = owner[t]
                    low = minimum[t] if o < 0 else max(minimum[t], tables[o][t] + 1)
                    if c >= low:
                        moves += lays[t][low : c + 1]  # type: ignore[arg-type]
                    for i in piles:
                        moves.append(discards[t][i])
        if state.ninjas and state.ninjas[p]:
            per_target = table.ninjas[p]
            for q, row in enumerate(state.tables):
                if q != p:
                    moves += [per_target[q][t] for t in range(9) if row[t]]
        return moves
    if status == REVEALING:
        reveals = _table(state.players).reveals[p]
        return [reveals[d] for d in TASK_DECKS if d in state.tasks[p]]
    return []


def verify(state: State, move: Move) -> None:
    """Raise IllegalMove (naming the rule) unless ``move`` may be applied now."""
    _check(state, move)


def can_apply(state: State, move: Move) -> bool:
    """True if ``move`` may be applied now."""
    try:
        _check(state, move)
    except IllegalMove:
        return False
    return True


def apply(state: State, move: Move, events: Events | None = None) -> None:
    """Apply a legal move to ``state`` in place, or raise IllegalMove and change nothing.

    If ``events`` is a list, what happened is appended to it as JSON-ready dicts
    (draws with the card drawn; ``player_view`` masks hidden ones).
    """
    p = _check(state, move)
    do = move.do
    if do == "draw":
        _draw(state, p, move.pile_id, events)
    elif do == "discard":
        _discard(state, p, move, events)
    elif do == "lay":
        _lay(state, p, move, events)
    elif do == "ninja":
        _ninja(state, p, move, events)
    elif do == "reveal_task":
        _reveal(state, p, move.deck or "", events, auto=False)
    else:
        state.preferences[p] = PREFERENCES.index(move.discard_preference or "")
        if events is not None:
            events.append({"event": "preference", "player": move.player, "discard_preference": move.discard_preference})
        return
    state.ply += 1


def _check(state: State, move: Move) -> int:
    p = state.index.get(move.player)
    if p is None:
        raise IllegalMove("R4", f"{move.player!r} does not play in this game")
    status = state.status
    do = move.do
    if status == FINISHED:
        raise IllegalMove("R10", "the game is over")
    if do == "preference":
        return p
    if p != state.current:
        if status == REVEALING:
            raise IllegalMove("R8", f"{state.players[state.current]} must reveal a task card now, not {move.player}")
        raise IllegalMove("R4", f"it is {state.players[state.current]}'s turn, not {move.player}'s")
    if status == REVEALING:
        if do != "reveal_task":
            raise IllegalMove("R8", "the round is over: reveal one of your task cards")
        if move.deck not in state.tasks[p]:
            raise IllegalMove("R8", f"you have no unrevealed task card of deck {move.deck}")
        return p
    if do == "reveal_task":
        raise IllegalMove("R8", "task cards are revealed only at the end of a round")
    if do == "draw":
        if state.step != DRAW:
            raise IllegalMove("R5", "you have drawn twice: now lay a set or discard a card")
        i = move.pile_id
        if i == state.first_pile:
            raise IllegalMove("R5.1", f"your second draw must come from another pile than {_PILE_WORDS[i]}")
        if not (state.draw_piles[i] if i < 2 else state.discard_piles[i - 2]):
            raise IllegalMove("R5.1", f"{_PILE_WORDS[i]} is empty")
        return p
    t = move.type_id
    if do == "ninja":
        if not state.options.ninja_power:
            raise IllegalMove("R9", "the Power of the Ninja variant is not in play")
        if not state.ninjas[p]:
            raise IllegalMove("R9", "you have no Ninja miniature")
        q = state.index.get(move.target or "")
        if q is None:
            raise IllegalMove("R9", f"{move.target!r} does not play in this game")
        if q == p:
            raise IllegalMove("R9", "a Ninja removes a card from an opponent's set, not from your own")
        if not state.tables[q][t]:
            raise IllegalMove("R9", f"{move.target} has no {_name(t)} set")
        return p
    if state.step != ACT:
        left = state.draws_left
        raise IllegalMove("R5", f"draw first: {left} draw{'s' if left > 1 else ''} left this turn")
    held = state.hands[p][t]
    if do == "discard":
        if not held:
            raise IllegalMove("R5.3", f"you hold no {_name(t)}")
        if move.pile is not None and move.pile_id != discard_target(state, move.pile_id):
            if not state.discard_piles[0] and not state.discard_piles[1]:
                raise IllegalMove("R6", "both discard piles are empty: the first card goes on discard pile 1")
            empty = "discard pile 1" if not state.discard_piles[0] else "discard pile 2"
            raise IllegalMove("R6", f"{empty} is empty and must be formed before the other is used again")
        if move.pile is None and state.discard_piles[0] and state.discard_piles[1]:
            raise IllegalMove("R6", "both discard piles hold cards: choose discard1 or discard2")
        return p
    count = move.count or 0
    if held < count:
        raise IllegalMove("R5.2", f"you hold {held} {_name(t)}, not {count}")
    low = state.minimum[t]
    if count < low:
        raise IllegalMove("R5.2", f"a set of {_name(t)} needs at least {low} cards with {state.n} players")
    o = state.owner[t]
    if o >= 0 and count <= state.tables[o][t]:
        size = state.tables[o][t]
        whose = "your" if o == p else f"{state.players[o]}'s"
        raise IllegalMove("R5.2", f"{whose} set of {size} {_name(t)} is only beaten by more than {size} cards")
    return p


def discard_target(state: State, wish: int) -> int:
    """The discard pile R6 sends cards to, given the wish where there is a choice."""
    d1, d2 = state.discard_piles
    if not d1:
        return DISCARD1
    if not d2:
        return DISCARD2
    return wish


def preferred_pile(state: State, owner: int) -> int:
    """The pile a displaced set or removed card of ``owner`` goes to (R6, R7)."""
    d1, d2 = state.discard_piles
    if not d1:
        return DISCARD1
    if not d2:
        return DISCARD2
    pref = state.preferences[owner]
    if pref == 0:
        return DISCARD2 if len(d2) < len(d1) else DISCARD1
    if pref == 1:
        return DISCARD2 if len(d2) > len(d1) else DISCARD1
    return DISCARD1 if pref == 2 else DISCARD2


def _draw(state: State, p: int, i: int, events: Events | None) -> None:
    card = (state.draw_piles[i] if i < 2 else state.discard_piles[i - 2]).pop()
    state.hands[p][card] += 1
    if events is not None:
        events.append({"event": "draw", "player": state.players[p], "pile": PILES[i], "card": TYPES[card]})
    if state.draws_left == 2:
        state.draws_left = 1
        state.first_pile = i
    else:
        state.draws_left = 0
        state.first_pile = -1
        state.step = ACT


def _discard(state: State, p: int, move: Move, events: Events | None) -> None:
    t = move.type_id
    i = discard_target(state, move.pile_id)
    state.hands[p][t] -= 1
    state.discard_piles[i - 2].append(t)
    if events is not None:
        events.append({"event": "discard", "player": move.player, "type": move.type, "pile": PILES[i]})
    _end_turn(state, p, False, events)


def _lay(state: State, p: int, move: Move, events: Events | None) -> None:
    t = move.type_id
    count = move.count or 0
    beaten = None
    o = state.owner[t]
    if o >= 0:
        size = state.tables[o][t]
        state.tables[o][t] = 0
        i = preferred_pile(state, o)
        state.discard_piles[i - 2].extend([t] * size)
        beaten = {"player": state.players[o], "count": size, "pile": PILES[i]}
    else:
        state.on_table += 1
    state.hands[p][t] -= count
    state.tables[p][t] = count
    state.owner[t] = p
    took = False
    if t == NINJA and state.ninjas and state.ninja_supply:
        state.ninja_supply -= 1
        state.ninjas[p] += 1
        took = True
    if events is not None:
        events.append(
            {
                "event": "lay",
                "player": move.player,
                "type": move.type,
                "count": count,
                "beaten": beaten,
                "ninja_taken": took,
            }
        )
    _end_turn(state, p, True, events)


def _ninja(state: State, p: int, move: Move, events: Events | None) -> None:
    t = move.type_id
    q = state.index[move.target or ""]
    row = state.tables[q]
    row[t] -= 1
    if not row[t]:
        state.owner[t] = -1
        state.on_table -= 1
    i = preferred_pile(state, q)
    state.discard_piles[i - 2].append(t)
    state.ninjas[p] -= 1
    state.ninja_supply += 1
    if events is not None:
        events.append(
            {
                "event": "ninja",
                "player": move.player,
                "target": move.target,
                "type": move.type,
                "pile": PILES[i],
                "left": row[t],
            }
        )


def end_reasons(state: State, p: int) -> list[str]:
    """Which of the round-end conditions of R8 hold, checking player ``p``'s table for R8.1."""
    reasons = []
    if sum(1 for c in state.tables[p] if c) >= END_TYPES[state.n]:
        reasons.append("types")
    if state.on_table == len(TYPES):
        reasons.append("all_types")
    if not state.draw_piles[0] or not state.draw_piles[1]:
        reasons.append("draw_pile_empty")
    return reasons


def _end_turn(state: State, p: int, laid: bool, events: Events | None) -> None:
    """End ``p``'s turn: end the round (R8) or pass to the next player (R4)."""
    if (
        state.draw_piles[0]
        and state.draw_piles[1]
        and not (laid and (state.on_table == 9 or sum(1 for c in state.tables[p] if c) >= END_TYPES[state.n]))
    ):
        state.current = (p + 1) % state.n
        state.turn += 1
        state.step = DRAW
        state.draws_left = 2
        state.first_pile = -1
        return
    if events is not None:
        events.append({"event": "round_end", "round": state.round, "reasons": end_reasons(state, p)})
    state.step = None
    state.draws_left = 0
    state.first_pile = -1
    if state.tasks and any(state.tasks):
        state.status = REVEALING
        state.current = state.start_player
        _auto_reveal(state, events)
    else:
        _score_round(state, events)


def _auto_reveal(state: State, events: Events | None) -> None:
    """Reveal for every player in turn who has a single card left (R8); stop at a real choice."""
    while state.status == REVEALING:
        left = state.tasks[state.current]
        if len(left) != 1:
            return
        _reveal(state, state.current, next(iter(left)), events, auto=True)


def _reveal(state: State, p: int, deck: str, events: Events | None, auto: bool) -> None:
    t = state.tasks[p].pop(deck)
    state.revealed.append((p, deck, t, state.round))
    if events is not None:
        events.append(
            {"event": "reveal_task", "player": state.players[p], "deck": deck, "type": TYPES[t], "automatic": auto}
        )
    nxt = (p + 1) % state.n
    if nxt == state.start_player:
        _score_round(state, events)
    else:
        state.current = nxt
        if not auto:
            _auto_reveal(state, events)


def round_score(state: State, p: int) -> int:
    """``p``'s score for the round being played now, with task bonuses revealed for it (R8)."""
    row = state.tables[p]
    score = sum(VALUES[t] for t in range(len(TYPES)) if row[t])
    for _, deck, t, rnd in state.revealed:
        if rnd == state.round:
            score += TASK_BONUS[deck] * row[t]
    return score


def _score_round(state: State, events: Events | None) -> None:
    n = state.n
    scores = [round_score(state, p) for p in range(n)]
    state.round_scores.append(scores)
    state.round_tables.append([row[:] for row in state.tables])
    for p in range(n):
        state.totals[p] += scores[p]
    if events is not None:
        events.append(
            {
                "event": "round_scored",
                "round": state.round,
                "scores": dict(zip(state.players, scores, strict=True)),
                "totals": dict(zip(state.players, state.totals, strict=True)),
            }
        )
    if state.round == state.rounds:
        state.status = FINISHED
        state.step = None
        state.draws_left = 0
        state.winners = winners_of(state)
        if events is not None:
            events.append({"event": "game_end", "winners": [state.players[w] for w in state.winners]})
        return
    start = next_start_player(state)
    setup_round(state, state.round + 1, start)
    if events is not None:
        events.append({"event": "round_start", "round": state.round, "start_player": state.players[start]})


def next_start_player(state: State) -> int:
    """Start player of the next round: lowest total, then lowest last-round score, then turn order (R4)."""
    n = state.n
    last = state.round_scores[-1]
    order = [(state.start_player + k) % n for k in range(n)]
    return min(order, key=lambda p: (state.totals[p], last[p]))


def winners_of(state: State) -> list[int]:
    """Players with the most points; ties broken by the best single round, else shared (R10)."""
    best_total = max(state.totals)
    tied = [p for p in range(state.n) if state.totals[p] == best_total]
    best_round = max(max(r[p] for r in state.round_scores) for p in tied)
    return [p for p in tied if max(r[p] for r in state.round_scores) == best_round]
