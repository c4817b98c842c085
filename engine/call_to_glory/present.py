"""The choices of the player who must act, grouped for buttons, with what each does and why others are closed.

Pages and emails show these labels, notes and reasons as they are: they come from the rules, so that a
button, its confirmation and the reason beside a missing button always say the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..protocol import Choice, ChoiceGroup, Closed
from .cards import DISCARD1, END_TYPES, NINJA, PILES, PREFERENCES, TASK_BONUS, TYPES, VALUES
from .rules import discard_target, preferred_pile, round_score
from .state import DRAW, FINISHED, REVEALING, State
from .words import a, card, plural

_PILE = ("draw pile 1", "draw pile 2", "discard pile 1", "discard pile 2")


def _name(t: int) -> str:
    return TYPES[t].capitalize()


def _whose(state: State, owner: int, me: int) -> str:
    return "your" if owner == me else f"{state.players[owner]}'s"


def choices(state: State, player: str) -> list[ChoiceGroup]:
    """The choices of ``player`` now (none unless they must act): draws, lays, discards, Ninjas, task reveals."""
    if state.status == FINISHED or state.players[state.current] != player:
        return []
    p = state.current
    if state.status == REVEALING:
        return [_reveals(state, p)]
    groups = [_draws(state)] if state.step == DRAW else [_lays(state, p), _discards(state, p)]
    if state.ninjas and state.ninjas[p]:
        groups.append(_ninjas(state, p))
    return [g for g in groups if g.choices or g.closed]


_SETTING_LABELS = (
    ("smaller", "The smaller pile"),
    ("larger", "The larger pile"),
    ("pile1", "Discard pile 1"),
    ("pile2", "Discard pile 2"),
)


def settings(state: State, player: str) -> list[ChoiceGroup]:
    """Where ``player``'s displaced cards go when both discard piles hold cards (R7): a standing choice, open at
    any time until the game ends; the current one is styled ``chosen``."""
    if state.status == FINISHED:
        return []
    mine = PREFERENCES[state.preferences[state.index[player]]]
    offered = tuple(
        Choice({"do": "preference", "discard_preference": value}, label, style="chosen" if value == mine else "")
        for value, label in _SETTING_LABELS
    )
    note = "When another player beats your set, or a Ninja removes your card, and both discard piles hold cards (R7)."
    return [ChoiceGroup("discard_preference", "Where your displaced cards go", offered, (Closed("", note),))]


def _draws(state: State) -> ChoiceGroup:
    offered: list[Choice] = []
    closed: list[Closed] = []
    for i, pile in enumerate(PILES):
        cards = state.draw_piles[i] if i < DISCARD1 else state.discard_piles[i - DISCARD1]
        if i < DISCARD1:
            label = f"Draw from {_PILE[i]}"
        else:
            label = f"Take the {card(TYPES[cards[-1]])} from {_PILE[i]}" if cards else f"Take from {_PILE[i]}"
        if i == state.first_pile:
            closed.append(
                Closed(label, f"you drew from {_PILE[i]} already: the second card comes from another pile", "R5.1")
            )
        elif not cards:
            closed.append(Closed(label, f"{_PILE[i]} is empty", "R5.1"))
        elif i < DISCARD1:
            offered.append(Choice({"do": "draw", "pile": pile}, label, f"face down, {len(cards)} cards", "draw"))
        else:
            offered.append(
                Choice({"do": "draw", "pile": pile}, label, f"face up, {len(cards)} cards", TYPES[cards[-1]])
            )
    return ChoiceGroup("draw", f"Draw a card ({state.draws_left} of 2 left)", tuple(offered), tuple(closed))


def _ends_round(state: State, p: int, t: int) -> str:
    """What laying a set of type ``t`` would do to the round (R8), in words, or ''."""
    if state.owner[t] >= 0:
        return ""
    types = sum(1 for c in state.tables[p] if c) + 1
    if types >= END_TYPES[state.n]:
        return f"ends the round: you would have {types} types"
    if state.on_table + 1 == len(TYPES):
        return "ends the round: all nine types would be on the table"
    return ""


def _lays(state: State, p: int) -> ChoiceGroup:
    offered: list[Choice] = []
    closed: list[Closed] = []
    hand = state.hands[p]
    for t in range(len(TYPES)):
        held = hand[t]
        if not held:
            continue
        owner = state.owner[t]
        minimum = state.minimum[t]
        size = state.tables[owner][t] if owner >= 0 else 0
        low = max(minimum, size + 1)
        if held < low:
            if owner < 0 or size + 1 <= minimum:
                reason = f"{plural(_name(t))} need {minimum} cards with {state.n} players: you hold {held}"
            elif owner == p:
                reason = f"your set of {card(TYPES[t], size)} is only beaten by {size + 1} or more: you hold {held}"
            else:
                reason = (
                    f"{state.players[owner]} has {card(TYPES[t], size)}: lay {size + 1} or more to beat them "
                    f"(you hold {held})"
                )
            closed.append(Closed(f"Lay {plural(_name(t))}", reason, "R5.2"))
            continue
        notes = []
        if owner >= 0:
            pile = _PILE[preferred_pile(state, owner)]
            notes.append(f"beats {_whose(state, owner, p)} {card(TYPES[t], size)}, which go to {pile}")
        else:
            notes.append(f"scores {VALUES[t]} at the round's end")
        if t == NINJA and state.ninjas:
            notes.append("takes a Ninja miniature" if state.ninja_supply else "no Ninja miniature is left to take")
        ending = _ends_round(state, p, t)
        if ending:
            notes.append(ending)
        for count in range(low, held + 1):
            label = f"Lay {card(TYPES[t], count)}"
            offered.append(Choice({"do": "lay", "type": TYPES[t], "count": count}, label, "; ".join(notes), TYPES[t]))
    return ChoiceGroup("lay", "Lay a set", tuple(offered), tuple(closed))


def _discards(state: State, p: int) -> ChoiceGroup:
    offered: list[Choice] = []
    d1, d2 = state.discard_piles
    for t in range(len(TYPES)):
        if not state.hands[p][t]:
            continue
        if d1 and d2:
            for i in (2, 3):
                label = f"Discard {a(_name(t))} on {_PILE[i]}"
                move = {"do": "discard", "type": TYPES[t], "pile": PILES[i]}
                offered.append(
                    Choice(move, label, f"on top of the {card(TYPES[state.discard_piles[i - 2][-1]])}", TYPES[t])
                )
            continue
        i = discard_target(state, DISCARD1)
        why = "both discard piles are empty" if not d1 and not d2 else f"{_PILE[i]} is empty and must be started"
        move = {"do": "discard", "type": TYPES[t], "pile": PILES[i]}
        offered.append(Choice(move, f"Discard {a(_name(t))}", f"goes on {_PILE[i]}: {why}", TYPES[t]))
    return ChoiceGroup("discard", "Or discard a card", tuple(offered))


def _ninjas(state: State, p: int) -> ChoiceGroup:
    offered: list[Choice] = []
    for q, row in enumerate(state.tables):
        if q == p:
            continue
        for t in range(len(TYPES)):
            size = row[t]
            if not size:
                continue
            pile = _PILE[preferred_pile(state, q)]
            target = state.players[q]
            effect = f"{target}'s {card(TYPES[t], size)} become {size - 1}" if size > 1 else f"{target}'s set is gone"
            note = f"{effect}; the card goes to {pile}"
            move = {"do": "ninja", "target": target, "type": TYPES[t]}
            offered.append(Choice(move, f"Remove {a(_name(t))} from {target}'s set", note, TYPES[t]))
    left = state.ninjas[p]
    title = f"Use a Ninja miniature ({left} left)"
    return ChoiceGroup("ninja", title, tuple(offered))


def _reveals(state: State, p: int) -> ChoiceGroup:
    offered: list[Choice] = []
    for deck, t in sorted(state.tasks[p].items()):
        bonus = TASK_BONUS[deck]
        gains = ", ".join(
            f"{'you' if q == p else state.players[q]} {bonus * state.tables[q][t]}" for q in range(state.n)
        )
        note = f"every player scores {bonus} per {_name(t)} in front of them: {gains}"
        offered.append(
            Choice({"do": "reveal_task", "deck": deck}, f"Reveal task card {deck}: {_name(t)}", note, TYPES[t])
        )
    return ChoiceGroup("reveal", "Reveal a task card", tuple(offered))


def progress(state: State, viewer: str | None) -> list[str]:
    """What each table would score if the round ended now, and how near each of the round's ends is (R8)."""
    if state.status == FINISHED:
        return []
    names = ["you" if name == viewer else name for name in state.players]
    scores = ", ".join(f"{names[p]} {round_score(state, p)}" for p in range(state.n))
    lines = [f"If round {state.round} ended now: {scores}."]
    need = END_TYPES[state.n]
    types = [sum(1 for c in row if c) for row in state.tables]
    most = max(range(state.n), key=lambda p: (types[p], -p))
    owner = "you have" if state.players[most] == viewer else f"{state.players[most]} has"
    lines.append(f"The round ends when a player has {need} types: {owner} {types[most]} of {need}.")
    lines.append(f"It also ends when all nine types are on the table ({state.on_table} of 9 now)")
    lines[-1] += f" or a draw pile is empty ({len(state.draw_piles[0])} and {len(state.draw_piles[1])} cards left)."
    return lines


def round_over(state: State, log: Sequence[Mapping[str, Any]]) -> str:
    """While the first turns of a new round are played (fewer turns than players since the last round was
    scored, in ``log``), a line that says the last round is over and how it scored; otherwise ''."""
    turns = 0
    for event in reversed(log):
        kind = event.get("event")
        if kind in ("lay", "discard"):
            turns += 1
        elif kind == "round_scored":
            if turns >= state.n and state.status != FINISHED:
                return ""
            scores = event.get("scores")
            shown = ", ".join(f"{name} {score}" for name, score in scores.items()) if isinstance(scores, dict) else ""
            return f"Round {event.get('round')} is over: {shown}. Its score sheet is in the scores below."
    return ""
