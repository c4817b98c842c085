"""Legal moves and applying them: turns, lays, discards, Ninjas, reveals, scoring (R4-R10)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NoReturn

from ..errors import IllegalMove
from .cards import (
    DISCARD1,
    DISCARD2,
    END_TYPES,
    NINJA,
    PILES,
    PREFERENCES,
    TASK_BONUS,
    TASK_DECKS,
    TYPES,
    VALUES,
    kinds,
)
from .moves import Move
from .state import ACT, DRAW, FINISHED, PLAYING, REVEALING, State, setup_round
from .words import EN

Events = list[dict[str, Any]]


def legal_moves(state: State, player: str | None = None) -> list[Move]:
    """Every move the player who must act may make now, in a fixed order; given ``player``, none unless they are
    that player (the protocol's ``legal_moves``).

    Preference moves (R7) are left out: any player may make one at any time
    before the game is finished (see ``can_apply``).
    """
    status = state.status
    p = state.current
    if player is not None and player != state.players[p]:
        return []
    if status == PLAYING:
        moves = _draws(state, p) if state.step == DRAW else _lays_and_discards(state, p)
        if state.ninjas and state.ninjas[p]:
            _add_ninja_uses(state, p, moves)
        return moves
    if status == REVEALING:
        return _reveals(state, p)
    return []


def _draws(state: State, p: int) -> list[Move]:
    """R5.1: from any pile but the one of the first draw, if it holds cards (a discard pile may be empty, a draw
    pile only once the first draw emptied it)."""
    draws = state.moves.draws[p][state.first_pile]
    dp1, dp2 = state.draw_piles
    cp1, cp2 = state.discard_piles
    if dp1 and dp2 and cp1 and cp2:
        return list(draws)
    full = (dp1, dp2, cp1, cp2)
    moves = []
    for m in draws:
        if full[m.pile_id]:
            moves.append(m)
    return moves


def _lays_and_discards(state: State, p: int) -> list[Move]:
    """For each type held: R5.2 lays (at least the minimum, more than the set on the table), then the R5.3 discard
    to the discard pile or piles R6 allows."""
    table = state.moves
    lays = table.lays[p]
    minimum = state.minimum
    owner = state.owner
    tables = state.tables
    d1, d2 = state.discard_piles
    discards = table.discards[p][2 if d1 and d2 else 1 if d1 else 0]
    moves: list[Move] = []
    for t, held in enumerate(state.hands[p]):
        if held:
            if held > 1:  # every lay minimum is at least 2 (R1)
                low = minimum[t]
                o = owner[t]
                if o >= 0:
                    size = tables[o][t]
                    if size >= low:
                        low = size + 1
                if held >= low:
                    moves += lays[t][low : held + 1]  # type: ignore[arg-type]
            moves += discards[t]
    return moves


def _reveals(state: State, p: int) -> list[Move]:
    """R8 (V1): one of the player's unrevealed task cards."""
    reveals = state.moves.reveals[p]
    return [reveals[d] for d in TASK_DECKS if d in state.tasks[p]]


def _add_ninja_uses(state: State, p: int, moves: list[Move]) -> None:
    """R9: a card of any opponent's set."""
    per_target = state.moves.ninjas[p]
    for q, row in enumerate(state.tables):
        if q != p:
            uses = per_target[q]
            for t, size in enumerate(row):
                if size:
                    moves.append(uses[t])


def verify(state: State, move: Move) -> int:
    """Raise IllegalMove (naming the rule) unless ``move`` may be applied now; the seat of its player if it may."""
    return _VERIFY[move.do](state, move)


def can_apply(state: State, move: Move) -> bool:
    """True if ``move`` may be applied now."""
    try:
        _VERIFY[move.do](state, move)
    except IllegalMove:
        return False
    return True


def apply(state: State, move: Move, events: Events | None = None) -> None:
    """Apply a legal move to ``state`` in place, or raise IllegalMove and change nothing.

    If ``events`` is a list, what happened is appended to it as JSON-ready dicts
    (draws with the card drawn; ``player_view`` masks hidden ones).
    """
    do = move.do
    if do == "draw":
        _draw(state, verify_draw(state, move), move.pile_id, events)
    elif do == "discard":
        _discard(state, verify_discard(state, move), move, events)
    elif do == "lay":
        _lay(state, verify_lay(state, move), move, events)
    elif do == "ninja":
        _ninja(state, verify_ninja(state, move), move, events)
    elif do == "reveal_task":
        _reveal(state, verify_reveal(state, move), move.deck or "", events, auto=False)
    else:
        state.preferences[verify_preference(state, move)] = PREFERENCES.index(move.discard_preference or "")
        if events is not None:
            events.append({"event": "preference", "player": move.player, "discard_preference": move.discard_preference})
        return
    state.ply += 1


# Why not: one ``verify_<kind>`` per kind of move. Each returns the seat of the move's player, or raises the
# IllegalMove that says why the move is not allowed now, as a key with parameters that the game's words put into a
# sentence in each language (``Words.refusal``): what is wrong and what is possible now. The common case passes in a
# few comparisons; the choices' closed reasons come from the same functions (``why_not``).


def verify_draw(state: State, move: Move) -> int:
    """A draw (R5.1): in one's turn, twice, each from a different pile that is not empty."""
    p = state.index.get(move.player)
    if p != state.current or state.status != PLAYING:
        _refuse_turn(state, move)
    if state.step != DRAW:
        raise _illegal("R5", "drawn_twice")
    i = move.pile_id
    if i == state.first_pile:
        raise _illegal("R5.1", "draw_same_pile", pile=PILES[i], piles=_drawable(state))
    if not (state.draw_piles[i] if i < DISCARD1 else state.discard_piles[i - DISCARD1]):
        raise _illegal("R5.1", "pile_empty", pile=PILES[i], piles=_drawable(state))
    return p


def verify_lay(state: State, move: Move) -> int:
    """A lay (R5.2): after the draws, at least the lay minimum, more cards than the set of that type on the table."""
    p = state.index.get(move.player)
    if p != state.current or state.status != PLAYING:
        _refuse_turn(state, move)
    if state.step != ACT:
        _refuse_before_draws(state)
    t = move.type_id
    held = state.hands[p][t]
    count = move.count or 0
    if held < count:
        raise _illegal("R5.2", "lay_not_held", type=TYPES[t], count=count, held=held)
    minimum = state.minimum[t]
    o = state.owner[t]
    size = state.tables[o][t] if o >= 0 else 0
    if count <= size and size >= minimum:  # the set on the table, not the minimum, asks for more
        owner = state.players[o]
        params = {"type": TYPES[t], "size": size, "next": size + 1, "owner": owner, "player": move.player}
        raise _illegal("R5.2", "lay_beaten", held=held, **params)
    if count < minimum:
        raise _illegal("R5.2", "lay_minimum", type=TYPES[t], minimum=minimum, players=state.n, held=held)
    return p


def verify_discard(state: State, move: Move) -> int:
    """A discard (R5.3): after the draws, a card in hand, on the discard pile R6 allows."""
    p = state.index.get(move.player)
    if p != state.current or state.status != PLAYING:
        _refuse_turn(state, move)
    if state.step != ACT:
        _refuse_before_draws(state)
    t = move.type_id
    if not state.hands[p][t]:
        raise _illegal("R5.3", "discard_not_held", type=TYPES[t])
    d1, d2 = state.discard_piles
    if move.pile is None:
        if d1 and d2:
            raise _illegal("R6", "discard_choose")
    elif move.pile_id != discard_target(state, move.pile_id):
        if not d1 and not d2:
            raise _illegal("R6", "discard_first_pile")
        raise _illegal("R6", "discard_start_pile", pile=PILES[DISCARD1 if not d1 else DISCARD2])
    return p


def verify_ninja(state: State, move: Move) -> int:
    """A Ninja use (R9): in one's turn before the lay or discard, a miniature, a card of an opponent's set."""
    p = state.index.get(move.player)
    if p != state.current or state.status != PLAYING:
        _refuse_turn(state, move)
    if not state.options.ninja_power:
        raise _illegal("R9", "ninja_off")
    if not state.ninjas[p]:
        raise _illegal("R9", "ninja_none")
    q = state.index.get(move.target or "")
    if q is None:
        raise _illegal("R9", "ninja_stranger", target=move.target)
    if q == p:
        raise _illegal("R9", "ninja_own")
    t = move.type_id
    if not state.tables[q][t]:
        raise _illegal("R9", "ninja_no_set", target=move.target, type=TYPES[t])
    return p


def verify_reveal(state: State, move: Move) -> int:
    """A task reveal (R8, V1): at the end of a round, in turn, one of one's unrevealed task cards."""
    p = state.index.get(move.player)
    if p != state.current or state.status != REVEALING:
        _refuse_turn(state, move)
    if move.deck not in state.tasks[p]:
        raise _illegal("R8", "reveal_no_card", deck=move.deck, decks=sorted(state.tasks[p]))
    return p


def verify_preference(state: State, move: Move) -> int:
    """A change of one's discard preference (R7): any player, at any time before the game ends."""
    p = state.index.get(move.player)
    if p is None or state.status == FINISHED:
        _refuse_turn(state, move)
    return p


def why_not(state: State, move: Move) -> IllegalMove | None:
    """Why ``move`` may not be made now (the IllegalMove ``apply`` would raise), or None if it may."""
    try:
        _VERIFY[move.do](state, move)
    except IllegalMove as exc:
        return exc
    return None


def _illegal(rule: str, key: str, **params: Any) -> IllegalMove:
    """The refusal ``key`` (with ``params``, JSON-ready) citing ``rule``; its message is the English sentence."""
    return IllegalMove(rule, EN.refusal(key, params), key, params)


def _drawable(state: State) -> list[str]:
    """The piles the player may draw from now (R5.1)."""
    return [m.pile or "" for m in _draws(state, state.current)]


def _refuse_turn(state: State, move: Move) -> NoReturn:
    """Why ``move.player`` may make no move of this kind now (R4, R8, R10); called only when they may not."""
    p = state.index.get(move.player)
    if p is None:
        raise _illegal("R4", "stranger", player=move.player)
    status = state.status
    if status == FINISHED:
        raise _illegal("R10", "game_over")
    current = state.players[state.current]
    if p != state.current:
        if status == REVEALING:
            raise _illegal("R8", "reveal_turn", current=current)
        raise _illegal("R4", "not_your_turn", current=current)
    if status == REVEALING:
        raise _illegal("R8", "reveal_now", decks=sorted(state.tasks[p]))
    raise _illegal("R8", "reveal_not_now", step=state.step)


def _refuse_before_draws(state: State) -> NoReturn:
    """R5: a lay or discard ends the turn, after both draws."""
    raise _illegal("R5", "draw_first", left=state.draws_left)


_VERIFY: Final[dict[str, Callable[[State, Move], int]]] = {
    "draw": verify_draw,
    "lay": verify_lay,
    "discard": verify_discard,
    "ninja": verify_ninja,
    "reveal_task": verify_reveal,
    "preference": verify_preference,
}


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
    i = move.pile_id if move.pile is not None else discard_target(state, DISCARD1)  # verify_discard checked it
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
    if kinds(state.tables[p]) >= END_TYPES[state.n]:
        reasons.append("types")
    if state.on_table == len(TYPES):
        reasons.append("all_types")
    if not state.draw_piles[0] or not state.draw_piles[1]:
        reasons.append("draw_pile_empty")
    return reasons


def _end_turn(state: State, p: int, laid: bool, events: Events | None) -> None:
    """End ``p``'s turn: end the round (R8) or pass to the next player (R4)."""
    n = len(state.players)
    if (
        state.draw_piles[0]
        and state.draw_piles[1]
        and not (laid and (state.on_table == 9 or kinds(state.tables[p]) >= END_TYPES[n]))
    ):
        state.current = (p + 1) % n
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
