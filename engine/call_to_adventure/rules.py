"""The rules of Call to Adventure (ADVENTURE_RULES.md A3–A10): legal moves, applying a move, the score.

``apply`` accepts exactly the moves of ``legal_moves`` (anything else raises ``IllegalMove`` naming the
section, and changes nothing). Runes are cast from the game's seeded stream (or from the casts a record
gives), so a game is a pure function of its seed, its set and its moves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, permutations
from typing import Any, Final

from .. import rng
from ..errors import FormatError, IllegalMove
from ..protocol import Event
from .cardset import ABILITIES, NEUTRAL, STORY_ICONS, Card, CardSet, Face
from .moves import DECKS, PATHS, Move
from .state import (
    FINISHED,
    NAMESPACE,
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

SET_SCORES: Final = {0: 0, 1: 0, 2: 2, 3: 4}
"""Points for a set of one story icon: 2 icons → 2, 3 → 4, 4 or more → 8 (A10)."""
_TARGETED: Final = ("lose_experience", "steal", "curse")
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


def closed_reason(state: State, p: Player, act: int, card: Card) -> tuple[str, dict[str, Any]] | None:
    """Why ``p`` may not take this card (in Act ``act``'s row; -1: the Adversary of A13) on their turn: a words
    key and its values, or None when it is open (A4.1, A6, A13.3)."""
    adv = state.adversary
    if act < 0:
        return None if len(p.story) >= 8 else ("closed_adversary_later", {})
    if adv is not None and adv["defeated_by"] is None and len(p.story) >= 8:
        return "closed_adversary", {}
    if not _open_act(state, p, act):
        return "closed_act_over", {"act": ("I", "II", "III")[act]}
    pre = card.prerequisite
    if card.type != "trait" or pre is None or meets(state, p, card):
        return None
    kind = pre["kind"]
    if kind == "spend":
        return "closed_spend", {"count": int(pre["experience"])}
    if kind == "icon":
        return "closed_icon", {"count": int(pre["count"]), "icon": pre["icon"]}
    at = NEUTRAL + int(pre["at_least"]) * (1 if kind == "corruption" else -1)
    return f"closed_{kind}", {"level": state.cards.track[max(0, min(len(state.cards.track) - 1, at))].name}


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


def _plays(state: State, p: Player) -> list[Move]:
    powered = _powered(state, p)
    if not p.hand and not p.allies and not powered:
        return []
    phase = state.phase
    timings = _AFTER_ATTEMPT if phase == "after" and state.attempted else _TIMINGS.get(phase, ())
    out: list[Move] = []
    sources: list[tuple[str, str, dict[str, Any]]] = []
    for c in p.hand:
        card = state.cards.cards[c]
        if card.timing in timings and _may_play(state, p, card):
            assert card.effect is not None
            sources.append((c, "play", card.effect))
    for c in powered:
        power = state.cards.cards[c].power
        assert power is not None
        if power["timing"] not in timings or (power["once_per_turn"] and c in state.used):
            continue
        if power["cost"] == "sacrifice" or p.xp >= power["cost"]:
            sources.append((c, "use", power["effect"]))
    for c, do, effect in sources:
        kind = effect["kind"]
        if kind == "free_dark":
            a = state.attempt
            if a is None or a.dark >= 3 or not state.cards.track[p.level].dark:
                continue
        if kind == "recast":
            a = state.attempt
            assert a is not None
            k = min(effect["n"], len(a.runes))
            out += [
                Move(p.name, do, card=c, runes=",".join(map(str, which)))
                for which in combinations(range(len(a.runes)), k)
            ]
        elif kind == "peek":
            out += [Move(p.name, do, card=c, act=str(a + 1)) for a in range(3) if state.decks[f"act{a + 1}"]]
        elif kind in _SELF and do == "play" and state.adversary is not None:
            # A13.4: in co-op and solo a card aimed at "you" may aim at any player (naming yourself is the same
            # as naming no one, A14.3: accepted, see _legal)
            out += [
                Move(p.name, do, card=c),
                *(Move(p.name, do, card=c, target=o.name) for o in state.ps if o is not p),
            ]
        elif kind in _TARGETED:
            out += [Move(p.name, do, card=c, target=o.name) for o in state.ps if o is not p]
        elif kind == "replace_row":
            out += [Move(p.name, do, card=c, row=r) for a in range(3) if state.up[a] for r in state.rows[a] if r]
        else:
            out.append(Move(p.name, do, card=c))
    return out


def _main_moves(state: State, p: Player, player: str) -> list[Move]:
    """The main actions open to ``p`` (A4): traits, challenges, else a discard, else a pass."""
    adv = state.adversary
    if adv is not None and adv["defeated_by"] is None and len(p.story) >= 8:
        faced = [Move(player, "attempt", card=adv["card"], path="top")]  # A13.3: the last turn faces it
        return faced + _challenges(state, p, faced)
    out: list[Move] = []
    seen: Counter[str] | None = None
    table = state.cards.cards
    for a in range(3):
        if not _open_act(state, p, a):
            continue
        for c in state.rows[a]:
            if c is None:
                continue
            card = table[c]
            if card.type == "trait":
                pre = card.prerequisite
                if seen is None and pre is not None and pre["kind"] == "icon":
                    seen = icons(state.cards, p)
                if meets(state, p, card, seen):
                    out.append(Move(player, "trait", c))
            elif card.type == "adversary":
                out.append(Move(player, "attempt", card=c, path="top"))
            elif card.type == "challenge":
                out += [Move(player, "attempt", c, "top"), Move(player, "attempt", c, "bottom")]
    if not out:
        out = [Move(player, "discard", card=c) for a in range(3) if state.up[a] for c in state.rows[a] if c]
        if not out:
            out = [Move(player, "pass")]
    return out + _challenges(state, p, out)


def max_dark(state: State, p: Player) -> int:
    """How many dark runes ``p`` could buy before a cast now (A5.3: at most 3, 1 experience each, none at C4)."""
    bought = state.attempt.dark if state.attempt is not None else 0
    return max(0, min(3 - bought, p.xp)) if state.cards.track[p.level].dark else 0


def _challenges(state: State, p: Player, main: Sequence[Move]) -> list[Move]:
    """The ``challenge`` moves (attempt, dark runes and cast at once) of the ``attempt`` moves in ``main``."""
    most = max_dark(state, p)
    return [
        Move(m.player, "challenge", card=m.card, path=m.path, dark=str(k))
        for m in main
        if m.do == "attempt"
        for k in range(most + 1)
    ]


_MAIN: Final = frozenset({"trait", "attempt", "discard", "pass", "challenge"})


def legal_moves(state: State, player: str, only: str | None = None) -> list[Move]:
    """Every move ``player`` may make now (none when they have no open decision); with ``only``, just the
    moves of that kind (what ``apply`` checks a move against)."""
    if state.status == FINISHED:
        return []
    p = state.ps[state.index(player)]
    if state.status == SETUP:
        if p.origin is not None:
            return []
        o, m, d = (p.offers[k] for k in ("origin", "motivation", "destiny"))
        return [Move(player, "choose", origin=x, motivation=y, destiny=z) for x in o for y in m for z in d]
    if state.players[state.current] != player:
        return []
    if state.tucks:  # A4.4: the allies turned up go under a challenge first
        return [Move(player, "tuck", card=h) for h in hosts_for(state, state.tucks[0][0])]
    phase = state.phase
    out: list[Move] = []
    if phase == "main":
        if only is None or only in _MAIN:
            out = _main_moves(state, p, player)
    elif phase == "prepare":
        att = state.attempt
        assert att is not None
        if att.dark < 3 and p.xp >= 1 and state.cards.track[p.level].dark:
            out.append(Move(player, "dark"))
        out.append(Move(player, "cast"))
    elif phase == "draw":
        return [Move(player, "draw", deck=d) for d in DECKS]
    elif phase == "peek":
        assert state.peek is not None
        act, k, _back = state.peek
        top = state.decks[f"act{act + 1}"][-k:][::-1]
        return [Move(player, "order", order=",".join(o)) for o in permutations(top)]
    elif phase == "facing":
        out += [Move(player, "resolve"), Move(player, "resolve", end="yes")]
    else:
        out.append(Move(player, "end"))
    if phase in ("main", "after") and not state.journeyed and p.xp >= 1 and only in (None, "journey"):
        out += [Move(player, "journey", c) for a in range(3) if state.up[a] for c in state.rows[a] if c]
    return out + _plays(state, p) if only in (None, "play", "use") else out


_BARE: Final = {"end": "after", "cast": "prepare", "resolve": "facing"}
_ENDING: Final = Move("", "resolve", end="yes")


def _legal(state: State, move: Move) -> bool:
    """Whether ``move`` is one of ``legal_moves`` now, answered directly for the simplest kinds."""
    do = move.do
    if move.runes is not None:  # A14.4: the runes of a recast are a set, named in any order
        named = [int(r) for r in move.runes.split(",")]
        if len(set(named)) != len(named):
            return False
        move = move._replace(runes=",".join(map(str, sorted(named))))
    if move.target is not None and move.target == move.player and do == "play" and state.adversary is not None:
        move = move._replace(target=None)  # A14.3: in co-op and solo, naming yourself is naming "you"
    if state.status != PLAYING or state.players[state.current] != move.player or state.phase == "peek" or state.tucks:
        return move in legal_moves(state, move.player, do)
    if do in _BARE:
        ending = do == "resolve" and move == _ENDING._replace(player=move.player)
        return state.phase == _BARE[do] and (ending or move == Move(move.player, do))
    if do == "dark":
        p, att = state.ps[state.current], state.attempt
        return (
            state.phase == "prepare"
            and att is not None
            and att.dark < 3
            and p.xp >= 1
            and state.cards.track[p.level].dark
            and move == Move(move.player, do)
        )
    if do == "draw":
        return state.phase == "draw" and move.deck in DECKS and move == Move(move.player, do, deck=move.deck)
    if do == "journey":
        p = state.ps[state.current]
        return (
            state.phase in ("main", "after")
            and not state.journeyed
            and p.xp >= 1
            and move.card is not None
            and _find(state, move.card) is not None
            and move == Move(move.player, do, card=move.card)
        )
    return move in legal_moves(state, move.player, do)


def _why(state: State, move: Move) -> tuple[str, str]:
    """The section and words for a move that is not legal now."""
    if state.status == FINISHED:
        return "A10", "the game is over"
    p = state.ps[state.index(move.player)]
    if state.status == SETUP:
        if move.do != "choose":
            return "A3", "every player first chooses their Origin, Motivation and Destiny"
        if p.origin is not None:
            return "A3", "you have chosen your characters already"
        return "A3", "choose one of each of the character cards you were dealt"
    if state.players[state.current] != move.player:
        return "A4", f"it is {state.players[state.current]}'s turn"
    if move.do == "play":
        if move.card not in p.hand:
            return "A8", "that card is not in your hand"
        card = state.cards.cards[move.card]
        if not _may_play(state, p, card):
            return "A7", f"at {state.cards.track[p.level].name} you may not play {card.type} cards"
        return "A8", f"that card's timing ({card.timing}) does not allow it now, or its target is not valid"
    if move.do == "journey":
        if state.journeyed:
            return "A4", "you journeyed this turn already"
        if p.xp < 1:
            return "A4", "a journey costs 1 experience"
    if move.do == "dark":
        if state.phase != "prepare":
            return "A5.3", "dark runes are bought before the cast"
        if state.attempt is not None and state.attempt.dark >= 3:
            return "A5.3", "at most 3 dark runes"
        if not state.cards.track[p.level].dark:
            return "A7", "no dark runes at this level of the corruption track"
        return "A5.3", "a dark rune costs 1 experience"
    if move.do == "challenge" and state.phase == "main":
        step = Move(move.player, "attempt", card=move.card, path=move.path)
        if step not in legal_moves(state, move.player, "attempt"):
            return _why(state, step)
        if not state.cards.track[p.level].dark:
            return "A7", "no dark runes at this level of the corruption track"
        return "A5.3", f"you may buy at most {max_dark(state, p)} dark runes now (1 experience each, at most 3)"
    if move.do in ("trait", "attempt", "discard", "pass", "challenge"):
        if state.phase != "main":
            return "A4", "you made your main action already"
        if move.card is not None:
            found = _find(state, move.card)
            if found is None:
                return "A4.4", "that card is not in a face-up row"
            if not _open_act(state, p, found[0]):
                return "A6", f"you have finished Act {found[0] + 1}"
            card = state.cards.cards[move.card]
            if move.do == "trait" and card.type == "trait":
                return "A4.1", "you do not meet that trait's prerequisite"
            if move.do == "discard":
                return "A4", "you may discard a row card only when no trait or challenge is open to you"
            return "A4", f"that card is a {card.type}"
        return "A4", "you may pass only when no row card is left"
    return "A4", f"you cannot {move.do} now (step: {state.phase})"


# Applying -----------------------------------------------------------------------------------------------


def apply(state: State, move: Move, events: list[Event] | None = None) -> None:
    """Apply a legal move in place; anything else raises IllegalMove and changes nothing."""
    if state.status != FINISHED and move.player not in state.players:
        raise IllegalMove("A4", f"{move.player!r} does not play in this game")
    if not _legal(state, move):
        raise IllegalMove(*_why(state, move))
    p = state.ps[state.index(move.player)]
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
    return not _plays(state, p)


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
    if not _plays(state, p):
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
        if move.end is not None and state.turn == turn and _legal(state, Move(p.name, "end")):
            apply(state, Move(p.name, "end"), events)  # the turn had not ended by itself

    @staticmethod
    def challenge(state: State, p: Player, move: Move, events: list[Event] | None) -> None:
        """Attempt, buy the dark runes and cast as the separate moves would, on a copy kept only if all succeed."""
        p.decided -= 1  # each step counts as the decision it is (and a failed step leaves the count as it was)
        trial = state.clone()
        steps: list[Event] = []
        apply(trial, Move(p.name, "attempt", card=move.card, path=move.path), steps)
        for _ in range(int(move.dark or 0)):
            apply(trial, Move(p.name, "dark"), steps)
        apply(trial, Move(p.name, "cast"), steps)
        state.__dict__.update(trial.__dict__)
        if events is not None:
            events += steps

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
