"""The choices of the player who must act, grouped for buttons, with what each does and why others are closed.

Pages and emails show these labels, notes and reasons as they are: they come from the rules, so that a
button, its confirmation and the reason beside a missing button always say the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..protocol import Choice, ChoiceGroup, Closed
from .cards import DISCARD1, END_TYPES, NINJA, PILES, PREFERENCES, TASK_BONUS, TYPES, VALUES, kinds
from .moves import Move
from .rules import discard_target, preferred_pile, round_score, why_not
from .state import DRAW, FINISHED, REVEALING, State
from .words import EN, Words


def choices(state: State, player: str, w: Words = EN) -> list[ChoiceGroup]:
    """The choices of ``player`` now (none unless they must act): draws, lays, discards, Ninjas, task reveals."""
    if state.status == FINISHED or state.players[state.current] != player:
        return []
    p = state.current
    if state.status == REVEALING:
        return [_reveals(state, p, w)]
    groups = [_draws(state, w)] if state.step == DRAW else [_lays(state, p, w), _discards(state, p, w)]
    if state.ninjas and state.ninjas[p]:
        groups.append(_ninjas(state, p, w))
    return [g for g in groups if g.choices or g.closed]


def settings(state: State, player: str, w: Words = EN) -> list[ChoiceGroup]:
    """Where ``player``'s displaced cards go when both discard piles hold cards (R7): a standing choice, open at
    any time until the game ends; the current one is styled ``chosen``."""
    if state.status == FINISHED:
        return []
    mine = PREFERENCES[state.preferences[state.index[player]]]
    offered = tuple(
        Choice(
            {"do": "preference", "discard_preference": value},
            w.text(f"set_{value}"),
            w.text("set_chosen") if value == mine else "",
            style="chosen" if value == mine else "",
        )
        for value in PREFERENCES
    )
    return [ChoiceGroup("discard_preference", w.text("set_title"), offered, (Closed("", w.text("set_note")),))]


def _draws(state: State, w: Words) -> ChoiceGroup:
    offered: list[Choice] = []
    closed: list[Closed] = []
    draws = state.moves.draws[state.current][-1]
    for i, pile in enumerate(PILES):
        cards = state.draw_piles[i] if i < DISCARD1 else state.discard_piles[i - DISCARD1]
        where = w.pile_at(i)
        if i < DISCARD1:
            label = w.text("draw_label", pile=where)
        elif cards:
            label = w.text("take_label", the_card=w.the(TYPES[cards[-1]]), pile=where)
        else:
            label = w.text("take_empty_label", pile=where)
        error = why_not(state, draws[i])
        if error is not None:
            closed.append(Closed(label, w.reason(error.key, error.params), error.rule))
        elif i < DISCARD1:
            offered.append(
                Choice({"do": "draw", "pile": pile}, label, w.text("face_down", cards=w.n_cards(len(cards))), "draw")
            )
        else:
            offered.append(
                Choice(
                    {"do": "draw", "pile": pile},
                    label,
                    w.text("face_up", cards=w.n_cards(len(cards))),
                    TYPES[cards[-1]],
                )
            )
    return ChoiceGroup("draw", w.text("draw_title", left=state.draws_left), tuple(offered), tuple(closed))


def _ends_round(state: State, p: int, t: int, w: Words) -> str:
    """What laying a set of type ``t`` would do to the round (R8), in words, or ''."""
    if state.owner[t] >= 0:
        return ""
    types = kinds(state.tables[p]) + 1
    if types >= END_TYPES[state.n]:
        return w.text("ends_types", types=types)
    if state.on_table + 1 == len(TYPES):
        return w.text("ends_all")
    return ""


def _lays(state: State, p: int, w: Words) -> ChoiceGroup:
    offered: list[Choice] = []
    closed: list[Closed] = []
    hand = state.hands[p]
    for t in range(len(TYPES)):
        held = hand[t]
        if not held:
            continue
        kind = TYPES[t]
        owner = state.owner[t]
        minimum = state.minimum[t]
        size = state.tables[owner][t] if owner >= 0 else 0
        low = max(minimum, size + 1)
        if held < low:
            error = why_not(state, Move.lay(state.players[p], kind, held))
            if error is not None:
                label = w.text("lay_closed", plural=w.plural(kind))
                closed.append(Closed(label, w.reason(error.key, error.params), error.rule))
            continue
        notes = []
        if owner >= 0:
            owner_cards = w.whose(state.players[owner], owner == p, w.card(kind, size), one=size == 1)
            beats = w.counted("lay_beats", size)
            notes.append(w.text(beats, owner_cards=owner_cards, pile=w.pile_at(preferred_pile(state, owner))))
        else:
            notes.append(w.text("lay_scores", value=VALUES[t]))
        if t == NINJA and state.ninjas:
            notes.append(w.text("lay_ninja") if state.ninja_supply else w.text("lay_no_ninja"))
        ending = _ends_round(state, p, t, w)
        if ending:
            notes.append(ending)
        note = w.text("notes").join(notes)
        for count in range(low, held + 1):
            label = w.text("lay_label", cards=w.card(kind, count))
            offered.append(Choice({"do": "lay", "type": kind, "count": count}, label, note, kind))
    return ChoiceGroup("lay", w.text("lay_title"), tuple(offered), tuple(closed))


def _discards(state: State, p: int, w: Words) -> ChoiceGroup:
    offered: list[Choice] = []
    d1, d2 = state.discard_piles
    for t in range(len(TYPES)):
        if not state.hands[p][t]:
            continue
        kind = TYPES[t]
        if d1 and d2:
            for i in (2, 3):
                label = w.text("discard_on", a_card=w.a(kind), pile=w.pile_at(i))
                move = {"do": "discard", "type": kind, "pile": PILES[i]}
                top = w.the(TYPES[state.discard_piles[i - 2][-1]])
                offered.append(Choice(move, label, w.text("discard_on_note", the_card=top), kind))
            continue
        i = discard_target(state, DISCARD1)
        why = w.text("discard_both_empty") if not d1 and not d2 else w.text("discard_start", pile=w.pile_at(i))
        move = {"do": "discard", "type": kind, "pile": PILES[i]}
        note = w.text("discard_note", pile=w.pile_at(i), why=why)
        offered.append(Choice(move, w.text("discard_label", a_card=w.a(kind)), note, kind))
    return ChoiceGroup("discard", w.text("discard_title"), tuple(offered))


def _ninjas(state: State, p: int, w: Words) -> ChoiceGroup:
    offered: list[Choice] = []
    for q, row in enumerate(state.tables):
        if q == p:
            continue
        for t in range(len(TYPES)):
            size = row[t]
            if not size:
                continue
            kind = TYPES[t]
            pile = w.pile_at(preferred_pile(state, q))
            target = state.players[q]
            if size > 1:
                effect = w.text("ninja_smaller", owner_cards=w.whose(target, False, w.card(kind, size)), left=size - 1)
            else:
                effect = w.text("ninja_gone", target=target)
            note = w.text("ninja_note", effect=effect, pile=pile)
            move = {"do": "ninja", "target": target, "type": kind}
            offered.append(Choice(move, w.text("ninja_label", a_card=w.a(kind), target=target), note, kind))
    return ChoiceGroup("ninja", w.text("ninja_title", left=state.ninjas[p]), tuple(offered))


def _reveals(state: State, p: int, w: Words) -> ChoiceGroup:
    offered: list[Choice] = []
    for deck, t in sorted(state.tasks[p].items()):
        bonus = TASK_BONUS[deck]
        gains = ", ".join(
            f"{w.YOU_NAME if q == p else state.players[q]} {bonus * state.tables[q][t]}" for q in range(state.n)
        )
        note = w.text("reveal_note", bonus=bonus, name=w.name(TYPES[t]), gains=gains)
        label = w.text("reveal_label", deck=deck, name=w.name(TYPES[t]))
        offered.append(Choice({"do": "reveal_task", "deck": deck}, label, note, TYPES[t]))
    return ChoiceGroup("reveal", w.text("reveal_title"), tuple(offered))


def progress(state: State, viewer: str | None, w: Words = EN) -> list[str]:
    """What each table would score if the round ended now, and how near each of the round's ends is (R8)."""
    if state.status == FINISHED:
        return []
    names = [w.YOU_NAME if name == viewer else name for name in state.players]
    scores = ", ".join(f"{names[p]} {round_score(state, p)}" for p in range(state.n))
    need = END_TYPES[state.n]
    types = [kinds(row) for row in state.tables]
    most = max(range(state.n), key=lambda p: (types[p], -p))
    you = state.players[most] == viewer
    return [
        w.text("progress_scores", round=state.round, scores=scores),
        w.text("progress_types", you=you, need=need, who=state.players[most], have=types[most]),
        w.text(
            "progress_other_ends",
            on_table=state.on_table,
            left1=w.n_cards(len(state.draw_piles[0])),
            left2=w.n_cards(len(state.draw_piles[1])),
        ),
    ]


def round_over(state: State, log: Sequence[Mapping[str, Any]], w: Words = EN) -> str:
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
            shown = w.scores(scores) if isinstance(scores, dict) else ""
            return w.text("round_over", round=event.get("round"), scores=shown)
    return ""
