"""The rules of Call to Adventure (ADVENTURE_RULES.md A3–A10): legal moves, applying a move, the score.

``apply`` accepts exactly the moves of ``legal_moves`` (anything else raises ``IllegalMove`` naming the
section, and changes nothing). Runes are cast from the game's seeded stream (or from the casts a record
gives), so a game is a pure function of its seed, its set and its moves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, permutations
from typing import Any, Final

from .. import rng
from ..errors import FormatError, IllegalMove
from ..protocol import Event
from .cardset import ABILITIES, NEUTRAL, STORY_ICONS, Card, CardSet, Face
from .moves import DARK, DECKS, PATHS, Move
from .state import (
    FINISHED,
    NAMESPACE,
    OPPONENT_EFFECTS,
    PLAYING,
    SETUP,
    Attempt,
    Player,
    State,
    draw_into,
    hosts_for,
    only_allies_left,
    settle,
    tuck,
)
from .words import EN, ROMAN

SET_SCORES: Final = {0: 0, 1: 0, 2: 2, 3: 4}
"""Points for a set of one story icon: 2 icons → 2, 3 → 4, 4 or more → 8 (A10)."""
_TARGETED: Final = OPPONENT_EFFECTS
_SELF: Final = ("experience", "draw", "virtue", "corruption")


# Story and icons ----------------------------------------------------------------------------------------


def icons(cards: CardSet, p: Player, destiny: bool = False) -> Counter[str]:
    """The icons of a player's Story (A4.2): Origin, Motivation, visible paths, allies (sacrificed ones too, A9),
    and the Destiny if revealed."""
    table = cards.cards
    shown = [
        i for c in (p.origin, p.motivation, p.destiny if destiny else None) if c is not None for i in table[c].icons
    ]
    shown += [i for c, path in p.story for i in table[c].paths[path].icons]
    if p.allies or p.sacrificed:
        shown += [i for c in p.allies + p.sacrificed for i in table[c].icons]
    return Counter(shown)


def set_score(count: int) -> int:
    """Points for ``count`` icons of one story icon kind (A10)."""
    return 8 if count >= 4 else SET_SCORES[count]


def destiny_points(cards: CardSet, p: Player, seen: Counter[str]) -> int:
    """What the player's Destiny card awards for the conditions met (A10)."""
    if p.destiny is None:
        return 0
    total = 0
    for cond in cards.cards[p.destiny].scoring:
        kind, points = cond["kind"], cond["points"]
        if kind == "per_icon":
            total += points * seen[cond["icon"]]
        elif kind == "per_ability_kind":
            total += points * sum(1 for a in ABILITIES if seen[a] >= cond["at_least"])
        elif kind == "threshold":
            total += points if seen[cond["icon"]] >= cond["at_least"] else 0
        elif kind == "track":
            total += points if cond["at_least"] <= p.level - NEUTRAL <= cond["at_most"] else 0
        elif kind == "under":
            start = ("origin", "motivation", "destiny").index(cond["character"]) * 3
            under = p.story[start : start + 3]
            total += points * sum(cards.cards[c].paths[path].icons.count(cond["icon"]) for c, path in under)
    return total


def breakdown(cards: CardSet, p: Player) -> dict[str, int]:
    """The Destiny score of A10 part by part (Triumph and Tragedy printed, icon sets, cards played, experience,
    track level, Destiny conditions) and its ``total``."""
    seen = icons(cards, p, destiny=True)
    parts = {
        "triumph": sum(cards.cards[c].paths[path].triumph for c, path in p.story),
        "tragedy": sum(cards.cards[c].paths[path].tragedy for c, path in p.story),
        "icon_sets": sum(set_score(seen[i]) for i in STORY_ICONS),
        "cards_played": len(p.played),
        "experience": p.xp,
        "track": cards.track[p.level].score,
        "destiny": destiny_points(cards, p, seen),
    }
    parts["total"] = sum(parts.values())
    return parts


def score(cards: CardSet, p: Player) -> dict[str, int]:
    """The Destiny score of A10 as the record format prints it (``printed`` = Triumph + Tragedy), and its ``total``."""
    b = breakdown(cards, p)
    return {
        "printed": b["triumph"] + b["tragedy"],
        "icon_sets": b["icon_sets"],
        "played_cards": b["cards_played"],
        "experience": b["experience"],
        "track": b["track"],
        "destiny": b["destiny"],
        "total": b["total"],
    }


# Small helpers ------------------------------------------------------------------------------------------


def _ev(events: list[Event] | None, event: str, player: str, **fields: Any) -> None:
    if events is not None:
        events.append({"event": event, "player": player, **fields})


def _move_level(state: State, p: Player, delta: int, events: list[Event] | None) -> None:
    level = max(0, min(len(state.cards.track) - 1, p.level + delta))
    if level != p.level:
        p.level = level
        _ev(events, "track", p.name, level=state.cards.track[level].name)


def _draw(state: State, p: Player, deck: str, events: list[Event] | None) -> None:
    pile = state.decks[deck]
    if pile:
        card = pile.pop()
        p.hand.append(card)
        _ev(events, "draw", p.name, deck=deck, card=card)
    else:
        _ev(events, "draw", p.name, deck=deck, card=None)


def _refill(state: State, act: int, slot: int, events: list[Event] | None) -> None:
    """Refill the place a card left, then any place left empty before (A4.4: an empty place is refilled the
    next time a card leaves that row), left to right."""
    draw_into(state, act, slot, events)
    settle(state, act, events)
    row = state.rows[act]
    if None not in row:
        return
    waiting = {s for a, _ally, s in state.tucks if a == act}
    for other, c in enumerate(row):
        if c is None and other != slot and other not in waiting and not only_allies_left(state, act):
            draw_into(state, act, other, events)
            settle(state, act, events)


def _leave_row(state: State, act: int, slot: int, events: list[Event] | None) -> None:
    """A row card is discarded (failed, journeyed, replaced): an ally under it goes with it (A4)."""
    card = state.rows[act][slot]
    assert card is not None
    state.discards[act].append(card)
    ally = state.under.pop(card, None)
    if ally is not None:
        state.discards[act].append(ally)
    _refill(state, act, slot, events)


def _find(state: State, card: str) -> tuple[int, int] | None:
    for a in range(3):
        if state.up[a]:
            row = state.rows[a]
            for slot, c in enumerate(row):
                if c == card:
                    return a, slot
    return None


def _open_act(state: State, p: Player, act: int) -> bool:
    return state.up[act] and (state.any_act or len(p.story) < 3 * (act + 1))


def meets(state: State, p: Player, card: Card, seen: Counter[str] | None = None) -> bool:
    """Whether ``p`` meets the prerequisite of a trait (A4.1); ``seen``: the Story's icons, if counted already."""
    pre = card.prerequisite
    if pre is None:
        return True
    kind = pre["kind"]
    if kind == "spend":
        return p.xp >= int(pre["experience"])
    if kind == "icon":
        return (seen if seen is not None else icons(state.cards, p))[pre["icon"]] >= int(pre["count"])
    if kind == "corruption":
        return p.level - NEUTRAL >= int(pre["at_least"])
    if kind == "virtue":
        return NEUTRAL - p.level >= int(pre["at_least"])
    return True


def runes(cards: CardSet, p: Player, card: Card, dark: int) -> list[tuple[str, str]]:
    """The runes of an attempt (A5.3): 3 core, ability runes per icon (the third is special), dark runes."""
    seen = icons(cards, p)
    out = [("core", "0"), ("core", "1"), ("core", "2")]
    for ability in card.abilities:
        k = min(3, seen[ability])
        out += [("ability", ability)] * min(k, 2)
        if k >= 3:
            out.append(("special", ability))
    return out + [("dark", "")] * dark


def faces(cards: CardSet, rune: tuple[str, str]) -> tuple[Face, ...]:
    """The faces of one rune (A5, data of the card set)."""
    kind, which = rune
    if kind == "core":
        return cards.core[int(which)]
    if kind == "ability":
        return cards.ability
    if kind == "special":
        return cards.special[which]
    return cards.dark


def total(state: State) -> int:
    """The total of the attempt under way: faces shown plus card bonuses (A5.5)."""
    a = state.attempt
    assert a is not None
    return sum(faces(state.cards, r)[f].value for r, f in zip(a.runes, a.faces, strict=True)) + a.bonus


def difficulty(state: State, a: Attempt) -> int:
    """The difficulty of the declared path (A5.1): +1 for an ally under it, + what face-up adversaries add."""
    card = state.cards.cards[a.card]
    extra = 1 if a.card in state.under else 0
    for c in state.rows[a.act] if a.act >= 0 else ():
        other = state.cards.cards[c] if c is not None and c != a.card else None
        if other is not None and other.aura is not None and other.aura["kind"] == "harder":
            extra += other.aura["n"]
    return card.difficulty + (1 if card.paths[a.path].harder else 0) + extra


def sums(cards: CardSet, rs: Sequence[tuple[str, str]]) -> dict[int, int]:
    """How many of the equally likely ways the runes ``rs`` can fall give each total (exact convolution)."""
    dist = {0: 1}
    for rune in rs:
        out: dict[int, int] = {}
        for value, ways in dist.items():
            for face in faces(cards, rune):
                out[value + face.value] = out.get(value + face.value, 0) + ways
        dist = out
    return dist


def chance(cards: CardSet, rs: Sequence[tuple[str, str]], need: int) -> int:
    """The chance, in whole percent rounded down, that the runes ``rs`` total at least ``need``."""
    dist = sums(cards, rs)
    return 100 * sum(w for v, w in dist.items() if v >= need) // sum(dist.values())


def cursed(state: State, seat: int) -> int:
    """What the curses waiting for the player at ``seat`` will take from their next cast (A11.3)."""
    return sum((state.cards.cards[c].effect or {}).get("n", 0) for _b, t, c in state.curses if t == seat)


def timings_now(state: State) -> tuple[str, ...]:
    """The timings of the cards and powers playable in this step of the turn (A8)."""
    if state.phase == "after" and state.attempted:
        return _AFTER_ATTEMPT
    return _TIMINGS.get(state.phase, ())


def may_play(state: State, p: Player, card: Card) -> bool:
    """Whether ``p``'s track level allows playing this kind of card (A7)."""
    return _may_play(state, p, card)


# Legal moves --------------------------------------------------------------------------------------------


def _may_play(state: State, p: Player, card: Card) -> bool:
    level = state.cards.track[p.level]
    return level.hero if card.type == "hero" else level.antihero


def _powered(state: State, p: Player) -> list[str]:
    """The cards whose powers are the player's: Origin, Motivation (when they have one) and allies (A9)."""
    table = state.cards.cards
    out = p.allies
    if p.motivation is not None and table[p.motivation].power is not None:
        out = [p.motivation, *out]
    if p.origin is not None and table[p.origin].power is not None:
        out = [p.origin, *out]
    return out


def _trigger(state: State, p: Player, when: str, events: list[Event] | None, shown: Sequence[str] = ()) -> None:
    """Apply the player's powers that trigger ``when`` (for ``on_gain_icon``, on a path showing its icon)."""
    for c in _powered(state, p):
        power = state.cards.cards[c].power
        assert power is not None
        if power["timing"] != when or (when == "on_gain_icon" and power["icon"] not in shown):
            continue
        if power["once_per_turn"]:
            if c in state.used:
                continue
            state.used.append(c)
        _ev(events, "trigger", p.name, card=c, when=when)
        _effect(state, p, Move(p.name, "use", card=c), power["effect"], events)


_TIMINGS: Final = {
    "main": ("any", "opponent"),
    "prepare": ("before",),
    "facing": ("facing",),
    "after": ("any", "opponent"),
}
"""The timings of cards and powers playable in each step of a turn (after an attempt, "after" ones too)."""
_AFTER_ATTEMPT: Final = ("any", "opponent", "after")


# Candidates ---------------------------------------------------------------------------------------------
# ``legal_moves`` lists the moves of the shapes that could be legal in this step and keeps those that the
# verify functions below accept: the verify functions are the only judges of what is legal.


def _effect_variants(state: State, p: Player, c: str, do: str, effect: dict[str, Any]) -> list[Move]:
    """The moves that play a card or use a power with ``effect``, with each value its fields may take now."""
    kind = effect["kind"]
    if kind == "recast":
        a = state.attempt
        if a is None or not a.runes:
            return [Move(p.name, do, card=c)]
        k = min(effect["n"], len(a.runes))
        return [
            Move(p.name, do, card=c, runes=",".join(map(str, which))) for which in combinations(range(len(a.runes)), k)
        ]
    if kind == "peek":
        return [Move(p.name, do, card=c, act=str(a + 1)) for a in range(3)]
    if kind in _SELF and do == "play" and state.adversary is not None:
        # naming yourself is naming no one (A14.3): accepted by verify, listed once
        return [Move(p.name, do, card=c), *(Move(p.name, do, card=c, target=o.name) for o in state.ps if o is not p)]
    if kind in _TARGETED:
        return [Move(p.name, do, card=c, target=o.name) for o in state.ps if o is not p]
    if kind == "replace_row":
        return [Move(p.name, do, card=c, row=r) for a in range(3) if state.up[a] for r in state.rows[a] if r]
    return [Move(p.name, do, card=c)]


def _plays(state: State, p: Player, first: bool = False) -> list[Move]:
    """The cards ``p`` may play and the powers they may use now (A8, A9), as ``verify_play`` and ``verify_use``
    judge them (their checks after the turn's, which hold here: ``p`` is the player to move); with ``first``,
    those of the first card or power that has any (is anything playable?)."""
    timings = timings_now(state)
    if not timings:
        return []
    table = state.cards.cards
    out: list[Move] = []
    for c in p.hand:
        card = table[c]
        if card.timing in timings and card.effect is not None and _may_play(state, p, card):
            # _playable holds for this card (in hand, its kind allowed, its timing now): each variant's values
            out += _open_variants(state, p, c, "play", card.effect)
            if first and out:
                return out
    for owned in _powered(state, p):
        power = table[owned].power
        if power is None or power["timing"] not in timings:
            continue
        if _power_closed(state, p, owned, power) is not None:  # what _use_body asks beyond the card and its timing
            continue
        out += _open_variants(state, p, owned, "use", power["effect"])
        if first and out:
            return out
    return out


_CHECKED: Final = ("recast", "peek", "free_dark")
"""The effects of which ``_verify_effect`` may refuse a move ``_effect_variants`` lists (no runes cast yet, an
empty deck, no dark rune to add): it accepts every variant of the others."""


def _open_variants(state: State, p: Player, c: str, do: str, effect: dict[str, Any]) -> list[Move]:
    """The moves of ``_effect_variants`` that ``_verify_effect`` accepts."""
    variants = _effect_variants(state, p, c, do, effect)
    if effect["kind"] not in _CHECKED:
        return variants
    rule = "A8" if do == "play" else "A9"
    out = []
    for m in variants:
        try:
            _verify_effect(state, p, m, effect, rule)
        except _No:
            continue
        out.append(m)
    return out


def _main_takes(state: State, p: Player) -> list[Move]:
    """The traits and challenges open to ``p`` as their main action now (A4): the row cards ``_may_take``
    accepts (``verify_trait`` and ``verify_attempt`` after their checks of the turn and the step, which hold
    here: ``p`` is the player to move, in the main step). The rows of an Act closed to ``p``, and every row while
    the Adversary must be faced, are refused by ``_may_take`` for all their cards alike: asked once per row."""
    name = p.name
    table = state.cards.cards
    out: list[Move] = []
    adv = state.adversary
    if adv is not None and adv["defeated_by"] is None:
        if _takes(state, p, -1, table[adv["card"]], "attempt"):
            out.append(Move(name, "attempt", card=adv["card"], path="top"))
        if len(p.story) >= 8:
            return out  # A13.3: no row card is open (_may_take: "adversary")
    seen: Counter[str] | None = None
    for a in range(3):
        if not _open_act(state, p, a):
            continue  # A6 (_may_take: "act_over"), or a face-down row
        for c in state.rows[a]:
            if c is None:
                continue
            card = table[c]
            kind = card.type
            if kind == "trait":
                pre = card.prerequisite
                if seen is None and pre is not None and pre["kind"] == "icon":
                    seen = icons(state.cards, p)
                if meets(state, p, card, seen):  # all _take_refusal still asks in an open Act
                    out.append(Move(name, "trait", c))
            elif kind in ("challenge", "adversary"):
                out.append(Move(name, "attempt", c, "top"))
                if len(card.paths) > 1:
                    out.append(Move(name, "attempt", c, "bottom"))
    return out


def _takes(state: State, p: Player, act: int, card: Card, do: str, seen: Counter[str] | None = None) -> bool:
    return _take_refusal(state, p, act, card, do, seen) is None


def _candidates(state: State, p: Player) -> list[Move]:
    """The legal moves of ``p`` in this step of their turn: the moves of each shape that may be legal now, kept
    when ``verify`` accepts them. The ``challenge`` moves are the accepted ``attempt`` moves with each number of
    dark runes up to ``max_dark``: exactly what ``verify_challenge`` accepts, so they are not checked again.
    Nor are the moves of the other steps whose ``verify_<kind>`` checks nothing that does not hold here (``p``
    is the player to move, in this step): only what it asks beyond that is asked (a dark rune's cost, say)."""
    name = p.name
    phase = state.phase
    if state.tucks:
        tucks = [Move(name, "tuck", card=h) for h in hosts_for(state, state.tucks[0][0])]
        return [m for m in tucks if _passes(state, m)]
    out: list[Move] = []
    if phase == "main":
        out = _main_takes(state, p)
        if out:
            most = max_dark(state, p)
            out += [
                Move(name, "challenge", m.card, m.path, dark=dark)
                for m in out
                if m.do == "attempt"
                for dark in DARK[: most + 1]
            ]
        else:  # verify_discard and verify_pass accept these: no trait or challenge is open
            out = [Move(name, "discard", card=c) for a in range(3) if state.up[a] for c in state.rows[a] if c]
            out = out or [Move(name, "pass")]
    elif phase == "prepare":
        a = state.attempt
        if a is not None and _dark_closed(state, p, a) is None:  # all verify_dark asks beyond the step
            out = [Move(name, "dark")]
        out.append(Move(name, "cast"))
    elif phase == "draw":
        out = [Move(name, "draw", deck=d) for d in DECKS]
    elif phase == "peek":
        assert state.peek is not None
        act, k, _back = state.peek
        top = state.decks[f"act{act + 1}"][-k:][::-1] if k else []
        out = [Move(name, "order", order=",".join(o)) for o in permutations(top)]
        out = [m for m in out if _passes(state, m)]
    elif phase == "facing":
        out = [Move(name, "resolve"), Move(name, "resolve", end="yes")]
    elif phase == "after":
        out = [Move(name, "end")]
    if phase in ("main", "after") and not state.journeyed and p.xp >= 1:
        # verify_journey's checks of the step, the turn's journey and its cost hold: every card of a face-up row
        out += [Move(name, "journey", c) for a in range(3) if state.up[a] for c in state.rows[a] if c]
    return out + _plays(state, p)


def max_dark(state: State, p: Player) -> int:
    """How many dark runes ``p`` could buy before a cast now (A5.3: at most 3, 1 experience each, none at C4)."""
    bought = state.attempt.dark if state.attempt is not None else 0
    return max(0, min(3 - bought, p.xp)) if state.cards.track[p.level].dark else 0


def legal_moves(state: State, player: str, only: str | None = None) -> list[Move]:
    """Every move ``player`` may make now (none when they have no open decision): the candidates of this step
    that ``verify`` accepts; with ``only``, just the moves of that kind."""
    if state.status == FINISHED:
        return []
    p = state.ps[state.index(player)]
    if state.status == SETUP:
        if p.origin is not None:
            return []
        o, m, d = (p.offers[k] for k in ("origin", "motivation", "destiny"))
        return [Move(player, "choose", origin=x, motivation=y, destiny=z) for x in o for y in m for z in d]
    if state.current != state.index(player):
        return []
    out = _candidates(state, p)
    state.listed = (player, out)
    return out if only is None else [m for m in out if m.do == only]


# Why not: one ``verify_<kind>`` per kind of move ----------------------------------------------------------
# Each returns the player of a move that may be made now, or raises the refusal that says why not: the section
# of ADVENTURE_RULES.md that forbids it, a words key with JSON-ready values (``Words.refusal`` puts them into
# sentences in each language, ``Words.reason`` into the short reason a page shows), and what is possible now.
# ``legal_moves``, the page's closed cards and reasons, and ``apply``'s IllegalMove all come from these.


class _No(Exception):
    """A refusal on its way: the rule, the words key and its values (an IllegalMove once put into words)."""

    def __init__(self, rule: str, key: str, **params: Any) -> None:
        super().__init__(key)
        self.rule = rule
        self.key = key
        self.params = params


_STEP_RULES: Final = {
    "choose": "A3",
    "trait": "A4",
    "attempt": "A4",
    "challenge": "A4",
    "discard": "A4",
    "pass": "A4",
    "journey": "A4",
    "dark": "A5.3",
    "cast": "A5.5",
    "draw": "A5.5",
    "resolve": "A5.7",
    "play": "A8",
    "use": "A9",
    "order": "A8",
    "tuck": "A4.4",
    "end": "A10",
}
"""The section of each kind of move: cited when it is made at a step where it is not possible."""


def _step(state: State) -> str:
    """The step a refusal says what is possible in: ``tuck`` while allies wait, else the turn's step."""
    if state.status == SETUP:
        return "setup"
    return "tuck" if state.tucks else state.phase


def _wrong_step(state: State, move: Move) -> _No:
    return _No(_STEP_RULES[move.do], "step", do=move.do, now=_step(state))


def _turn(state: State, move: Move) -> Player:
    """The player of ``move`` if it is their turn and no ally or peek waits for another kind of move."""
    if move.player not in state.players:
        raise _No("A4", "stranger", player=move.player)
    if state.status == FINISHED:
        raise _No("A10", "game_over")
    if move.do not in _STEP_RULES:
        raise _No("A4", "unknown_move", value=move.do, moves=list(_STEP_RULES))
    if state.status == SETUP:
        if move.do != "choose":
            raise _No("A3", "setup_first", now="setup")
        return state.ps[state.index(move.player)]
    if move.do == "choose":
        raise _No("A3", "chosen")
    if state.players[state.current] != move.player:
        raise _No("A4", "not_your_turn", current=state.players[state.current])
    p = state.ps[state.current]
    if state.tucks and move.do != "tuck":
        act, ally, _slot = state.tucks[0]
        raise _No("A4.4", "tuck_first", ally=ally, cards=hosts_for(state, act), now="tuck")
    if state.phase == "peek" and move.do != "order":
        raise _wrong_step(state, move)
    return p


def _row_card(state: State, move: Move, card: str | None) -> tuple[int, int, Card]:
    """Where a card named by a move lies in a face-up row (A4.4, A6)."""
    table = state.cards.cards
    if card is None or card not in table:
        raise _No(_STEP_RULES[move.do], "unknown_card", value=card, now=_step(state))
    for a in range(3):
        if card in state.rows[a]:
            if not state.up[a]:
                raise _No("A6", "face_down", card=card, act=ROMAN[a], now=_step(state))
            return a, state.rows[a].index(card), table[card]
    raise _No("A4.4", "not_in_row", card=card, now=_step(state))


def _may_take(state: State, p: Player, act: int, card: Card, do: str, seen: Counter[str] | None = None) -> None:
    """Whether ``p`` may gain (``trait``) or attempt this row card (Act ``act``; -1: the Adversary of A13) on
    their own turn, whoever's turn it is now: the reasons that do not depend on the step (A4.1, A5, A6, A13.3)."""
    no = _take_refusal(state, p, act, card, do, seen)
    if no is not None:
        raise no


def _take_refusal(
    state: State, p: Player, act: int, card: Card, do: str, seen: Counter[str] | None = None
) -> _No | None:
    """``_may_take``'s refusal, returned (None: the card is open to ``p``)."""
    adv = state.adversary
    if act < 0:
        return _No("A13.3", "adversary_later") if len(p.story) < 8 else None
    if adv is not None and adv["defeated_by"] is None and len(p.story) >= 8:
        return _No("A13.3", "adversary")
    if not (state.up[act] and (state.any_act or len(p.story) < 3 * (act + 1))):  # _open_act
        return _No("A6", "act_over", act=ROMAN[act])
    if do == "trait":
        if card.type != "trait":
            return _No("A4", "not_trait", card=card.id, type=card.type)
        pre = card.prerequisite
        if pre is None or meets(state, p, card, seen):
            return None
        kind = pre["kind"]
        if kind == "spend":
            return _No("A4.1", "spend", card=card.id, n=int(pre["experience"]), xp=p.xp)
        if kind == "icon":
            return _No("A4.1", "icon", card=card.id, count=int(pre["count"]), icon=pre["icon"])
        at = NEUTRAL + int(pre["at_least"]) * (1 if kind == "corruption" else -1)
        level = state.cards.track[max(0, min(len(state.cards.track) - 1, at))].name
        return _No("A4.1", kind, card=card.id, level=level)
    if card.type not in ("challenge", "adversary"):
        return _No("A4", "not_challenge", card=card.id, type=card.type)
    return None


def _take(state: State, p: Player, act: int, card: Card, do: str) -> None:
    """``_may_take`` on the player's turn: a refusal also says what is possible now."""
    try:
        _may_take(state, p, act, card, do)
    except _No as no:
        no.params["now"] = _step(state)
        raise


def why_closed(state: State, p: Player, act: int, card: Card) -> tuple[str, str, dict[str, Any]] | None:
    """Why ``p`` may not take this row card (Act ``act``; -1: the Adversary) on their turn, as (rule, words key,
    values), or None when it is open to them: what the page shows beside a closed card."""
    try:
        _may_take(state, p, act, card, "trait" if card.type == "trait" else "attempt")
    except _No as no:
        return no.rule, no.key, no.params
    return None


def verify_choose(state: State, move: Move) -> Player:
    """Setup (A3.2): one of each character card dealt, once."""
    p = _turn(state, move)
    if p.origin is not None:
        raise _No("A3", "chosen")
    for field in ("origin", "motivation", "destiny"):
        offered = p.offers.get(field, [])
        if getattr(move, field) not in offered:
            raise _No("A3", "not_offered", field=field, kind=field, cards=list(offered), now="setup")
    return p


def verify_trait(state: State, move: Move) -> Player:
    """Gain a trait (A4, A4.1): the main action, from a face-up row of an open Act, its prerequisite met."""
    p = _turn(state, move)
    if state.phase != "main":
        raise _wrong_step(state, move)
    act, _slot, card = _row_card(state, move, move.card)
    _take(state, p, act, card, "trait")
    return p


def _verify_attempt(state: State, move: Move) -> tuple[Player, Card]:
    p = _turn(state, move)
    if state.phase != "main":
        raise _wrong_step(state, move)
    if move.path not in PATHS:
        raise _No("A5.2", "path", value=move.path, now=_step(state))
    adv = state.adversary
    if adv is not None and adv["defeated_by"] is None and move.card == adv["card"]:
        act, card = -1, state.cards.cards[adv["card"]]
    else:
        act, _slot, card = _row_card(state, move, move.card)
    _take(state, p, act, card, "attempt")
    if move.path != "top" and len(card.paths) < 2:
        raise _No("A5.2", "one_path", card=card.id, now=_step(state))
    return p, card


def verify_attempt(state: State, move: Move) -> Player:
    """Declare a challenge and its path (A5.2): the main action; the Adversary only on a last turn (A13.3)."""
    return _verify_attempt(state, move)[0]


def verify_challenge(state: State, move: Move) -> Player:
    """Attempt, buy ``dark`` dark runes and cast at once (A5.2, A5.3, A5.5)."""
    p, _card = _verify_attempt(state, move)
    if move.dark not in DARK:
        raise _No("A5.3", "dark_value", value=move.dark, now=_step(state))
    most = max_dark(state, p)
    if int(move.dark) > most:
        if not state.cards.track[p.level].dark:
            raise _No("A7", "dark_level", level=state.cards.track[p.level].name, now=_step(state))
        raise _No("A5.3", "dark_count", most=most, now=_step(state))
    return p


def _verify_main_fallback(state: State, move: Move) -> Player:
    p = _turn(state, move)
    if state.phase != "main":
        raise _wrong_step(state, move)
    if _main_takes(state, p):
        raise _No("A4", f"{move.do}_open", now=_step(state))
    return p


def verify_discard(state: State, move: Move) -> Player:
    """Discard a row card as the main action (A4): only when no trait or challenge is open to the player."""
    p = _turn(state, move)
    if state.phase != "main":
        raise _wrong_step(state, move)
    _row_card(state, move, move.card)
    _verify_main_fallback(state, move)
    return p


def verify_pass(state: State, move: Move) -> Player:
    """Pass as the main action (A4): only when no face-up row card is left."""
    p = _verify_main_fallback(state, move)
    if any(c for a in range(3) if state.up[a] for c in state.rows[a]):
        raise _No("A4", "pass_open", now=_step(state))
    return p


def verify_journey(state: State, move: Move) -> Player:
    """Journey (A4): once per turn, before or after the main action, 1 experience, a face-up row card."""
    p = _turn(state, move)
    if state.phase not in ("main", "after"):
        raise _wrong_step(state, move)
    if state.journeyed:
        raise _No("A4", "journeyed", now=_step(state))
    if p.xp < 1:
        raise _No("A4", "journey_cost", now=_step(state))
    _row_card(state, move, move.card)
    return p


def verify_dark(state: State, move: Move) -> Player:
    """Buy a dark rune (A5.3): before the cast, at most 3, 1 experience, not at a level without dark runes."""
    p = _turn(state, move)
    a = state.attempt
    if state.phase != "prepare" or a is None:
        raise _wrong_step(state, move)
    why = _dark_closed(state, p, a)
    if why == "dark_max":
        raise _No("A5.3", why, now=_step(state))
    if why == "dark_level":
        raise _No("A7", why, level=state.cards.track[p.level].name, now=_step(state))
    if why == "dark_cost":
        raise _No("A5.3", why, xp=p.xp, now=_step(state))
    return p


def _dark_closed(state: State, p: Player, a: Attempt) -> str | None:
    """Why ``p`` may not buy a dark rune for the attempt ``a`` (the refusal's key), None if they may (A5.3)."""
    if a.dark >= 3:
        return "dark_max"
    if not state.cards.track[p.level].dark:
        return "dark_level"
    if p.xp < 1:
        return "dark_cost"
    return None


def verify_cast(state: State, move: Move) -> Player:
    """Cast the runes (A5.5): once the challenge is declared and before-cards are played."""
    p = _turn(state, move)
    if state.phase != "prepare":
        raise _wrong_step(state, move)
    return p


def verify_draw(state: State, move: Move) -> Player:
    """Draw for a card face (A5 runes, A14.1): a Hero or an Antihero card, before anything else."""
    p = _turn(state, move)
    if state.phase != "draw":
        raise _wrong_step(state, move)
    if move.deck not in DECKS:
        raise _No("A5.5", "deck", value=move.deck, now=_step(state))
    return p


def verify_resolve(state: State, move: Move) -> Player:
    """Take the result (A5.7): after the cast and every card face drawn for (A14.1)."""
    p = _turn(state, move)
    if state.phase != "facing":
        raise _wrong_step(state, move)
    if move.end is not None and move.end != "yes":
        raise _No("A10", "end_value", value=move.end, now=_step(state))
    return p


def verify_order(state: State, move: Move) -> Player:
    """Put the cards looked at back (a peek, A8/A9): each of them once, top first."""
    p = _turn(state, move)
    if state.phase != "peek" or state.peek is None:
        raise _wrong_step(state, move)
    act, k, _back = state.peek
    top = state.decks[f"act{act + 1}"][-k:][::-1] if k else []
    named = (move.order or "").split(",")
    if sorted(named) != sorted(top):
        raise _No("A8", "order_cards", cards=top, now=_step(state))
    return p


def verify_tuck(state: State, move: Move) -> Player:
    """Put an ally turned up under a challenge of its row without one (A4.4)."""
    p = _turn(state, move)
    if not state.tucks:
        raise _wrong_step(state, move)
    act, ally, _slot = state.tucks[0]
    hosts = hosts_for(state, act)
    if move.card not in hosts:
        raise _No("A4.4", "tuck_host", ally=ally, cards=hosts, now="tuck")
    return p


def verify_end(state: State, move: Move) -> Player:
    """End the turn (A10): after the main action, outside a challenge."""
    p = _turn(state, move)
    if state.phase != "after":
        raise _wrong_step(state, move)
    return p


_FIELDS_OF: Final = {"recast": ("runes",), "peek": ("act",), "replace_row": ("row",)}


def _verify_effect(state: State, p: Player, move: Move, effect: dict[str, Any], rule: str) -> None:
    """The values a played card or used power names fit its effect (targets, runes, an Act, a row card)."""
    kind = effect["kind"]
    card = move.card
    targeted = kind in _TARGETED or (kind in _SELF and move.do == "play" and state.adversary is not None)
    used = _FIELDS_OF.get(kind, ("target",) if targeted else ())
    for field in ("target", "runes", "act", "row"):
        if getattr(move, field) is not None and field not in used:
            raise _No(rule, "field_unused", card=card, field=field, now=_step(state))
    if kind == "recast":
        a = state.attempt
        assert a is not None  # timing "facing": after the cast
        k = min(effect["n"], len(a.runes))
        last = len(a.runes) - 1
        parts = (move.runes or "").split(",")
        if not all(r.isdigit() and len(r) < 4 for r in parts):
            raise _No("A5", "runes_needed", count=k, last=last, now=_step(state))
        named = [int(r) for r in parts]
        if len(set(named)) != len(named):
            raise _No("A5", "runes_twice", now=_step(state))
        if any(r > last for r in named):
            raise _No("A5", "runes_unknown", last=last, now=_step(state))
        if len(named) != k:
            raise _No("A5", "runes_needed", count=k, last=last, now=_step(state))
    elif kind == "peek":
        acts = [str(a + 1) for a in range(3) if state.decks[f"act{a + 1}"]]
        if move.act not in acts:
            raise _No(rule, "act_needed", acts=acts, now=_step(state))
    elif kind == "replace_row":
        if move.row is None or _find(state, move.row) is None:
            cards = [r for a in range(3) if state.up[a] for r in state.rows[a] if r]
            raise _No(rule, "row_needed", cards=cards, now=_step(state))
    elif kind in _TARGETED:
        others = [o.name for o in state.ps if o is not p]
        if move.target not in others:
            raise _No(rule, "target_needed", players=others, now=_step(state))
    elif targeted:
        if move.target is not None and move.target not in state.players:
            raise _No("A13.4", "target_any", players=list(state.players), now=_step(state))
    elif kind == "free_dark":
        a = state.attempt
        level = state.cards.track[p.level]
        if a is None or a.dark >= 3 or not level.dark:
            raise _No("A5.3", "free_dark", level=level.name, now=_step(state))


def verify_play(state: State, move: Move) -> Player:
    """Play a Hero or Antihero card (A8): in hand, allowed at the player's level (A7), at its timing."""
    p = _turn(state, move)
    _play_body(state, p, move)
    return p


def _play_body(state: State, p: Player, move: Move) -> None:
    card = _playable(state, p, move.card)
    assert card.effect is not None
    _verify_effect(state, p, move, card.effect, "A8")


def _playable(state: State, p: Player, card_id: str | None) -> Card:
    """The card ``p`` plays if it is in their hand, their level allows its kind (A7) and its timing is now (A8)."""
    if card_id not in p.hand:
        raise _No("A8", "not_in_hand", card=card_id, now=_step(state))
    card = state.cards.cards[card_id]
    if not _may_play(state, p, card):
        raise _No("A7", "level", level=state.cards.track[p.level].name, type=card.type, now=_step(state))
    if card.timing not in timings_now(state) or card.effect is None:
        raise _No("A8", "timing", card=card_id, timing=card.timing, now=_step(state))
    return card


def verify_use(state: State, move: Move) -> Player:
    """Use a power of one's Origin, Motivation or ally (A9): at its timing, once per turn if it says so, paid."""
    p = _turn(state, move)
    _use_body(state, p, move)
    return p


def _use_body(state: State, p: Player, move: Move) -> None:
    card_id = move.card
    if card_id is None or card_id not in _powered(state, p):
        raise _No("A9", "not_yours", card=card_id, now=_step(state))
    power = state.cards.cards[card_id].power
    if power is None:
        raise _No("A9", "not_yours", card=card_id, now=_step(state))
    if power["timing"] not in _USED_TIMINGS:
        raise _No("A9", "power_triggered", card=card_id, now=_step(state))
    if power["timing"] not in timings_now(state):
        raise _No("A9", "power_timing", card=card_id, timing=power["timing"], now=_step(state))
    why = _power_closed(state, p, card_id, power)
    if why == "used":
        raise _No("A9", why, card=card_id, now=_step(state))
    if why == "power_cost":
        raise _No("A9", why, card=card_id, n=power["cost"], xp=p.xp, now=_step(state))
    _verify_effect(state, p, move, power["effect"], "A9")


def _power_closed(state: State, p: Player, card_id: str, power: dict[str, Any]) -> str | None:
    """Why ``p`` may not use the power of ``card_id`` at its timing now (the refusal's key: used this turn already,
    or not paid), None if they may (A9)."""
    if power["once_per_turn"] and card_id in state.used:
        return "used"
    if power["cost"] != "sacrifice" and p.xp < power["cost"]:
        return "power_cost"
    return None


_USED_TIMINGS: Final = ("before", "facing", "after", "any", "opponent")
"""The timings of powers used with the move ``use`` (the others are triggers)."""


_VERIFY: Final[dict[str, Callable[[State, Move], Player]]] = {
    "choose": verify_choose,
    "trait": verify_trait,
    "attempt": verify_attempt,
    "challenge": verify_challenge,
    "discard": verify_discard,
    "pass": verify_pass,
    "journey": verify_journey,
    "dark": verify_dark,
    "cast": verify_cast,
    "draw": verify_draw,
    "resolve": verify_resolve,
    "order": verify_order,
    "tuck": verify_tuck,
    "end": verify_end,
    "play": verify_play,
    "use": verify_use,
}


def _check(state: State, move: Move) -> Player:
    verify = _VERIFY.get(move.do)
    if verify is None:
        _turn(state, move)  # raises: an unknown kind of move
        raise _No("A4", "unknown_move", value=move.do, moves=list(_STEP_RULES))
    return verify(state, move)


def _passes(state: State, move: Move) -> bool:
    try:
        _check(state, move)
    except _No:
        return False
    return True


def _illegal(state: State, no: _No) -> IllegalMove:
    return IllegalMove(no.rule, EN.refusal(no.key, no.params, state.cards), no.key, no.params)


def verify(state: State, move: Move) -> Player:
    """The player of ``move`` if it may be made now, else IllegalMove naming the rule and what is wrong."""
    try:
        return _check(state, move)
    except _No as no:
        raise _illegal(state, no) from None


def why_not(state: State, move: Move) -> IllegalMove | None:
    """Why ``move`` may not be made now (the IllegalMove ``apply`` would raise), or None if it may."""
    try:
        _check(state, move)
    except _No as no:
        return _illegal(state, no)
    return None


# Applying -----------------------------------------------------------------------------------------------


def apply(state: State, move: Move, events: list[Event] | None = None) -> None:
    """Apply a legal move in place; anything else raises IllegalMove and changes nothing. A move among those
    ``legal_moves`` listed for this state is not verified again."""
    listed = state.listed
    if listed is not None and listed[0] == move.player and move in listed[1]:
        p = state.ps[state.index(move.player)]
    else:
        p = verify(state, move)
    state.listed = None
    _accepted(state, p, move, events)


def _accepted(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
    """``apply`` of a move already accepted (verified, or listed as legal for this state; for a step of a compound
    move, accepted by its ``verify_*``): not checked again."""
    p.decided += 1
    getattr(_Do, move.do)(state, p, move, events)


def _start_turn(state: State, seat: int, events: list[Event] | None) -> None:
    state.current = seat
    state.turn += 1
    state.phase = "main"
    state.gained = state.journeyed = state.attempted = state.any_act = False
    state.used = []
    state.attempt = None
    p = state.ps[seat]
    for act, need in ((1, 3), (2, 6)):
        if not state.up[act] and len(p.story) >= need:
            state.up[act] = True
            _ev(events, "act", p.name, act=act + 1, row=[c for c in state.rows[act] if c])
            settle(state, act, events)
    _ev(events, "turn", p.name, turn=state.turn)


def _nothing_open(state: State, p: Player) -> bool:
    """After the main action: no journey affordable and no card playable now (A10)."""
    if state.tucks:
        return False
    if not state.journeyed and p.xp >= 1 and any(c for a in range(3) if state.up[a] for c in state.rows[a]):
        return False
    return not _plays(state, p, first=True)


def _reachable(state: State) -> bool:
    for a in range(3):
        up = state.up[a] or any(len(p.story) >= 3 * a for p in state.ps)
        if not up or not any(len(p.story) < 3 * (a + 1) for p in state.ps):
            continue
        if state.decks[f"act{a + 1}"] or state.discards[a] or any(state.rows[a]):
            return True
    return False


def _adversary_card(state: State, p: Player, events: list[Event] | None) -> None:
    """A13.2: after a card face, the top card of the adversary's deck is revealed and applied."""
    deck, pile = state.decks["adversary"], state.decks["adversary_discard"]
    adv = state.adversary
    assert adv is not None
    if not deck and pile:
        deck[:] = rng.shuffled(pile, state.seed, f"adversary-reshuffle{adv['reshuffles']}", NAMESPACE)
        adv["reshuffles"] += 1
        pile.clear()
    if not deck:
        return
    card = deck.pop()
    pile.append(card)
    effect = state.cards.cards[card].effect or {}
    kind, n = effect["kind"], effect["n"]
    if kind == "adversary_experience":
        adv["experience"] += n
    elif kind == "lose_experience":
        p.xp = max(0, p.xp - n)
    elif kind == "corruption":
        _move_level(state, p, n, events)
    elif kind == "curse" and state.attempt is not None:
        state.attempt.bonus -= n
    _ev(events, "adversary_card", p.name, card=card, experience=adv["experience"], goal=adv["goal"])


def _finish(state: State, why: str, events: list[Event] | None) -> None:
    state.status = FINISHED
    state.ended_by = why
    state.attempt = None
    state.scores = [breakdown(state.cards, p)["total"] for p in state.ps]
    best = max(state.scores)
    state.winners = [i for i, s in enumerate(state.scores) if s == best]
    if state.adversary is not None:  # A13.3: all win against a defeated Adversary, else all lose
        state.winners = list(range(state.n)) if state.adversary["defeated_by"] is not None else []
    scores = dict(zip(state.players, state.scores, strict=True))
    _ev(events, "game_over", state.players[state.current], reason=why, scores=scores)


def _end_turn(state: State, events: list[Event] | None) -> None:
    p = state.ps[state.current]
    _ev(events, "end", p.name)
    state.stall = 0 if state.attempted or state.gained else state.stall + 1
    nxt = (state.current + 1) % state.n
    adv = state.adversary
    if adv is not None and adv["defeated_by"] is None and adv["experience"] >= adv["goal"]:
        _finish(state, "adversary", events)
    elif state.final is not None and nxt == state.final:
        _finish(state, "destiny" if adv is None else "adversary_defeated", events)
    elif not _reachable(state):
        _finish(state, "no_cards", events)
    elif state.stall >= 3 * state.n:
        _finish(state, "stalled", events)
    else:
        _start_turn(state, nxt, events)


def _after_main(state: State, events: list[Event] | None) -> None:
    """The main action is done: A10 ends the turn by itself when nothing more is open."""
    state.phase = "after"
    state.attempt = None
    p = state.ps[state.current]
    if len(p.story) >= 9 and state.final is None:
        state.final = state.current
        _ev(events, "final", p.name)
    if _nothing_open(state, p):
        _end_turn(state, events)


def _gain(state: State, p: Player, act: int, slot: int, path: int, events: list[Event] | None) -> None:
    """Gain a row card (or, with ``act`` -1, the Adversary, A13.3) with its path's rewards (A4.2, A4.3)."""
    card_id = state.rows[act][slot] if act >= 0 else (state.adversary or {})["card"]
    assert card_id is not None
    card = state.cards.cards[card_id]
    rewards = card.paths[path]
    p.story.append((card_id, path))
    state.gained = True
    _ev(events, "gain", p.name, card=card_id, path=PATHS[path] if card.type == "challenge" else None)
    if act >= 0:
        _refill(state, act, slot, events)
    if rewards.experience:
        p.xp += rewards.experience
    if rewards.virtue:
        _move_level(state, p, -rewards.virtue, events)
    if rewards.corruption:
        _move_level(state, p, rewards.corruption, events)
    for _ in range(rewards.hero):
        _draw(state, p, "hero", events)
    for _ in range(rewards.antihero):
        _draw(state, p, "antihero", events)
    _trigger(state, p, "on_gain_icon", events, rewards.icons)


_MARKS: Final = ("card", "experience", "hero", "antihero", "corruption")
"""What a rune's face may show besides its value (docs/card-sets.md, "Runes")."""


def _check_given_cast(state: State, p: Player, card: str, dark: int) -> None:
    """FormatError, before anything changes, if the record's next cast (if it gives one) does not fit the runes
    ``p`` casts at ``card`` with ``dark`` dark runes."""
    k = state.casts
    if k < len(state.given_casts):
        rs = runes(state.cards, p, state.cards.cards[card], dark)
        given = state.given_casts[k]
        if len(given) != len(rs) or any(
            not 0 <= f < len(faces(state.cards, r)) for f, r in zip(given, rs, strict=True)
        ):
            raise FormatError(f"cast {k} of the record does not fit the {len(rs)} runes cast")


def _roll(state: State, count: Sequence[int]) -> list[int]:
    """Faces for runes with ``count`` faces each: the record's next given cast, else the seeded stream."""
    k = state.casts
    state.casts += 1
    if k < len(state.given_casts):
        given = state.given_casts[k]
        if len(given) != len(count) or any(not 0 <= f < c for f, c in zip(given, count, strict=False)):
            raise FormatError(f"cast {k} of the record does not fit the {len(count)} runes cast")
        return list(given)
    stream = rng.words(state.seed, f"cast{k}", NAMESPACE)
    return [rng.below(stream, c) for c in count]


def _show(state: State, p: Player, which: list[int], events: list[Event] | None) -> None:
    """Cast the runes at positions ``which`` and apply what their faces do (A5.5)."""
    a = state.attempt
    assert a is not None
    all_faces = [faces(state.cards, a.runes[i]) for i in which]
    rolled = _roll(state, [len(f) for f in all_faces])
    for i, f, options in zip(which, rolled, all_faces, strict=True):
        a.faces[i] = f
        face = options[f]
        if face.card:
            a.pending += 1
        if face.experience:
            p.xp += face.experience
        for _ in range(face.hero):
            _draw(state, p, "hero", events)
        for _ in range(face.antihero):
            _draw(state, p, "antihero", events)
        if face.corruption:
            _move_level(state, p, face.corruption, events)
    if events is None:
        return
    shown = [options[f] for f, options in zip(rolled, all_faces, strict=True)]
    marks = [next((m for m in _MARKS if getattr(face, m)), "") for face in shown]
    values = [face.value for face in shown]
    _ev(
        events,
        "cast",
        p.name,
        runes=[list(a.runes[i]) for i in which],
        faces=rolled,
        values=values,
        marks=marks,
        total=total(state),
    )


def _to_facing(state: State, p: Player, events: list[Event] | None) -> None:
    a = state.attempt
    assert a is not None
    if a.pending:
        state.phase = "draw"
        return
    state.phase = "facing"
    if not _plays(state, p, first=True):
        _resolve(state, p, events)


def _resolve(state: State, p: Player, events: list[Event] | None) -> None:
    a = state.attempt
    assert a is not None
    slot = state.rows[a.act].index(a.card) if a.act >= 0 else 0
    got, need = total(state), difficulty(state, a)
    if a.act < 0:  # the Adversary (A13.3): defeated, or it stays
        _ev(events, "overcome" if got >= need else "fail", p.name, card=a.card, total=got, difficulty=need)
        if got >= need:
            assert state.adversary is not None
            state.adversary["defeated_by"] = state.current
            _gain(state, p, -1, 0, 0, events)
            _trigger(state, p, "on_success", events)
        else:
            p.xp += 1
            _trigger(state, p, "on_fail", events)
        _after_main(state, events)
        return
    if got >= need:
        _ev(events, "overcome", p.name, card=a.card, total=got, difficulty=need)
        ally = state.under.pop(a.card, None)
        if ally is not None:  # A5.7: the ally joins the tableau, its powers are yours
            p.allies.append(ally)
            _ev(events, "ally_joins", p.name, card=ally)
        _gain(state, p, a.act, slot, a.path, events)
        _trigger(state, p, "on_success", events)
    else:
        _ev(events, "fail", p.name, card=a.card, total=got, difficulty=need)
        corrupting = any(
            c is not None and c != a.card and (state.cards.cards[c].aura or {}).get("kind") == "corrupting"
            for c in state.rows[a.act]
        )
        _leave_row(state, a.act, slot, events)
        p.xp += 1
        if corrupting:
            _move_level(state, p, 1, events)
        _trigger(state, p, "on_fail", events)
    _after_main(state, events)


class _Do:
    """One function per kind of move; each is called only for a legal move."""

    @staticmethod
    def choose(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        p.origin, p.motivation, p.destiny = move.origin, move.motivation, move.destiny
        for kind, chosen in (("origin", move.origin), ("motivation", move.motivation), ("destiny", move.destiny)):
            for c in p.offers.pop(kind):
                if c != chosen:
                    state.decks[kind].insert(0, c)  # leaves the game (A3.2)
        _ev(events, "choose", p.name, origin=p.origin, motivation=p.motivation, destiny=p.destiny)
        if all(q.origin is not None for q in state.ps):
            state.status = PLAYING
            _start_turn(state, state.first, events)

    @staticmethod
    def trait(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert move.card is not None
        act, slot = _find(state, move.card) or (0, 0)
        pre = state.cards.cards[move.card].prerequisite or {}
        if pre.get("kind") == "spend":
            p.xp -= pre["experience"]
        _gain(state, p, act, slot, 0, events)
        _after_main(state, events)

    @staticmethod
    def attempt(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert move.card is not None and move.path is not None
        act, _slot = _find(state, move.card) or (-1, 0)  # not in a row: the Adversary (A13)
        state.attempt = Attempt(move.card, act, PATHS.index(move.path))
        state.attempted = True
        state.phase = "prepare"
        if events is not None:
            _ev(events, "attempt", p.name, card=move.card, path=move.path, difficulty=difficulty(state, state.attempt))

    @staticmethod
    def discard(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert move.card is not None
        act, slot = _find(state, move.card) or (0, 0)
        _ev(events, "discard", p.name, card=move.card)
        _leave_row(state, act, slot, events)
        _after_main(state, events)

    @staticmethod
    def journey(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert move.card is not None
        act, slot = _find(state, move.card) or (0, 0)
        p.xp -= 1
        state.journeyed = True
        _ev(events, "journey", p.name, card=move.card)
        _leave_row(state, act, slot, events)
        if state.phase == "after" and _nothing_open(state, p):
            _end_turn(state, events)

    @staticmethod
    def dark(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert state.attempt is not None
        p.xp -= 1
        state.attempt.dark += 1
        _ev(events, "dark", p.name, count=state.attempt.dark)

    @staticmethod
    def cast(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        a = state.attempt
        assert a is not None
        a.runes = runes(state.cards, p, state.cards.cards[a.card], a.dark)
        a.faces = [0] * len(a.runes)
        a.cast = True
        _show(state, p, list(range(len(a.runes))), events)
        seat = state.current
        for by, target, card in state.curses:  # A11.3: in the order played, after the cast
            if target == seat:
                effect = state.cards.cards[card].effect or {}
                a.bonus -= effect.get("n", 0)
                _ev(events, "curse", state.players[by], target=p.name, card=card, total=total(state))
        state.curses = [c for c in state.curses if c[1] != seat]
        _to_facing(state, p, events)

    @staticmethod
    def draw(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert state.attempt is not None and move.deck is not None
        state.attempt.pending -= 1
        _draw(state, p, move.deck, events)
        if state.adversary is not None:
            _adversary_card(state, p, events)
        _to_facing(state, p, events)

    @staticmethod
    def order(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert state.peek is not None and move.order is not None
        act, k, back = state.peek
        deck = state.decks[f"act{act + 1}"]
        deck[len(deck) - k :] = move.order.split(",")[::-1]
        state.peek = None
        state.phase = back
        _ev(events, "order", p.name, act=act + 1, order=move.order.split(","))
        if back == "after" and _nothing_open(state, p):
            _end_turn(state, events)

    @staticmethod
    def tuck(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        act, ally, slot = state.tucks.pop(0)
        tuck(state, act, ally, move.card, events)
        draw_into(state, act, slot, events)
        settle(state, act, events)
        while state.tucks and len(hosts_for(state, state.tucks[0][0])) < 2:  # no choice left to make
            act, ally, slot = state.tucks.pop(0)
            hosts = hosts_for(state, act)
            tuck(state, act, ally, hosts[0] if hosts else None, events)
            draw_into(state, act, slot, events)
            settle(state, act, events)
        if not state.tucks and state.phase == "after" and _nothing_open(state, p):
            _end_turn(state, events)

    @staticmethod
    def resolve(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        turn = state.turn
        _resolve(state, p, events)
        if move.end is not None and state.turn == turn and _passes(state, Move(p.name, "end")):
            apply(state, Move(p.name, "end"), events)  # the turn had not ended by itself

    @staticmethod
    def challenge(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        """Attempt, buy the dark runes and cast as the separate moves would. ``verify_challenge`` accepted the
        attempt and the dark runes; only a record's cast that does not fit the runes could fail later, and that
        is checked before anything changes, so no copy of the state is needed."""
        assert move.card is not None and move.path is not None
        p.decided -= 1  # each step counts as the decision it is
        dark = int(move.dark or 0)
        _check_given_cast(state, p, move.card, dark)
        _accepted(state, p, Move(p.name, "attempt", card=move.card, path=move.path), events)
        for _ in range(dark):
            _accepted(state, p, Move(p.name, "dark"), events)
        _accepted(state, p, Move(p.name, "cast"), events)

    @staticmethod
    def end(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        _end_turn(state, events)

    @staticmethod
    def pass_(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        _ev(events, "pass", p.name)
        _after_main(state, events)

    @staticmethod
    def play(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert move.card is not None
        p.hand.remove(move.card)
        p.played.append(move.card)
        _ev(events, "play", p.name, card=move.card, target=move.target, row=move.row)
        _effect(state, p, move, state.cards.cards[move.card].effect or {}, events)

    @staticmethod
    def use(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        assert move.card is not None
        power = state.cards.cards[move.card].power or {}
        if power["once_per_turn"]:
            state.used.append(move.card)
        if power["cost"] == "sacrifice":
            p.allies.remove(move.card)
            p.sacrificed.append(move.card)
        else:
            p.xp -= power["cost"]
        _ev(events, "use", p.name, card=move.card, target=move.target, row=move.row, cost=power["cost"])
        _effect(state, p, move, power["effect"], events)


def _effect(state: State, p: Player, move: Move, effect: dict[str, Any], events: list[Event] | None) -> None:
    """What a played card or a used power does (docs/card-sets.md, "Effects")."""
    kind, n = effect["kind"], effect.get("n", 1)
    target = state.ps[state.index(move.target)] if move.target else None
    a = state.attempt
    if kind == "modify":
        assert a is not None
        per = effect.get("per")
        if per is None:
            a.bonus += n
        elif per.startswith("rune:"):
            a.bonus += n * sum(1 for rune, _ in a.runes if rune == per[5:])
        else:
            a.bonus += n * icons(state.cards, p)[per]
    elif kind == "free_dark":
        assert a is not None
        a.dark += 1
    elif kind == "recast":
        assert a is not None and move.runes is not None
        _show(state, p, sorted(int(i) for i in move.runes.split(",")), events)  # A14.4: a set
    elif kind == "take_other_act":
        state.any_act = True
    elif kind == "peek":
        assert move.act is not None
        act = int(move.act) - 1
        state.peek = [act, min(n, len(state.decks[f"act{act + 1}"])), state.phase]
        state.phase = "peek"
        return
    elif kind == "reattempt":
        assert a is not None
        _show(state, p, list(range(len(a.runes))), events)
    elif kind == "experience":
        (target or p).xp += n
    elif kind == "lose_experience":
        assert target is not None
        target.xp = max(0, target.xp - n)
    elif kind == "steal":
        assert target is not None
        took = min(n, target.xp)
        target.xp -= took
        p.xp += took
    elif kind == "draw":
        for _ in range(n):
            _draw(state, target or p, effect["deck"], events)
    elif kind == "virtue":
        _move_level(state, target or p, -n, events)
    elif kind == "corruption":
        _move_level(state, target or p, n, events)
    elif kind == "replace_row":
        assert move.row is not None
        act, slot = _find(state, move.row) or (0, 0)
        _leave_row(state, act, slot, events)
    elif kind == "curse":
        assert target is not None
        assert move.card is not None
        state.curses.append((state.current, state.index(target.name), move.card))
    if a is not None and a.pending and state.phase == "facing":
        state.phase = "draw"  # A14.1: a card face shown again is drawn for before the result
    if state.phase == "draw" or (a is not None and a.pending):
        return
    if state.phase == "after" and _nothing_open(state, p):
        _end_turn(state, events)


setattr(_Do, "pass", _Do.pass_)
