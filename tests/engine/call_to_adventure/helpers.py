"""A small card set made for tests, and games built from it with explicit decks and rune casts; the Dutch glossary
check (GLOSSARY.md) of the engine's words and of the server's Dutch texts of the game."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from engine.call_to_adventure import Move, State, apply, new_game, parse
from engine.call_to_adventure.cardset import CardSet
from engine.call_to_adventure.files import packaged_set

NAMES = ("ann", "bob", "cy", "dee")
# Faces of the default runes (index into the face list): core 0 -> 1, 1 -> 0 (core 2: 1 -> the card face);
# ability 0 -> 2, 1 -> 1; special 0 -> 2, 1 -> 0 and its special effect; dark 0 -> 2 and a corruption, 1 -> 1.
ONE, ZERO = 0, 1

NOT_GLOSSARY_NL = re.compile(r"\b(?:kracht(?:en)?|\w*icoon\w*|\w*iconen\w*|\w*kaartzijden?\w*)\b", re.IGNORECASE)
"""Dutch words GLOSSARY.md gives other words for: power is "vermogen" (kracht/krachten would also read as the
Strength ability, "Kracht"), icon is "symbool" (icoon, iconen, verhaaliconen …), card face is "kaartvlak"."""
OPPONENT_NL = re.compile(r"\btegenstanders?\b")
"""Another player is a "tegenspeler"; "Tegenstander", capitalised, is the Adversary of solo and co-op games."""
GLOSSARY_NL = ((r"\bpowers?\b", "vermogen"), (r"\bicons?\b", "symbo"), (r"\bcard faces?\b(?! down)", "kaartvlak"))
"""The three English terms and the Dutch word GLOSSARY.md gives each ("card face down" is a card, not a rune's
face)."""


def not_glossary_nl(dutch: str, english: str = "") -> list[str]:
    """The words of a Dutch text that are not the glossary's: any kracht/krachten but "Kracht" as the Strength
    ability's name (where the English says Strength, or, without English, capitalised as that name is),
    icoon/iconen/kaartzijde in any word, and a lowercase tegenstander."""
    found = NOT_GLOSSARY_NL.findall(dutch) + OPPONENT_NL.findall(dutch)
    return [w for w in found if not (w == "Kracht" and (not english or re.search(r"\bStrength\b", english)))]


def _runes_and_track() -> str:
    text = packaged_set().text
    return text[text.index("[runes]") : text.index("# Origins")]


def _card(kind: str, cid: str, body: str) -> str:
    return f'[[{kind}]]\nid = "{cid}"\nname = {{ en = "{cid} card", nl = "{cid} kaart" }}\n{body}\n'


def set_text(extra: str = "", act_fill: int = 6) -> str:
    """The TOML of the test set: 8 plain characters of each kind, named story cards, fillers, Hero cards."""
    out = ['[set]\nid = "test"\n', _runes_and_track()]
    out.append(_card("origin", "o-str", 'icons = ["strength", "strength"]'))
    out.append(_card("origin", "o-wis", 'icons = ["wisdom", "nature"]'))
    out += [_card("origin", f"o{i}", 'icons = ["dexterity"]') for i in range(6)]
    out.append(_card("motivation", "m-str", 'icons = ["strength"]'))
    out += [_card("motivation", f"m{i}", 'icons = ["charisma"]') for i in range(7)]
    out.append(
        _card(
            "destiny", "d-nature", 'icons = ["nature"]\nscoring = [{ kind = "per_icon", icon = "nature", points = 1 }]'
        )
    )
    out += [_card("destiny", f"d{i}", 'icons = ["justice"]') for i in range(7)]
    story = {
        "t-free": 'kind = "trait"\nact = 1\npath = { icons = ["nature"], experience = 1 }',
        "t-spend": 'kind = "trait"\nact = 1\nprerequisite = { kind = "spend", experience = 2 }\npath = { triumph = 3 }',
        "t-icon": 'kind = "trait"\nact = 1\nprerequisite = { kind = "icon", icon = "wisdom" }\n'
        'path = { icons = ["arcana"] }',
        "t-corr": 'kind = "trait"\nact = 1\nprerequisite = { kind = "corruption", at_least = 2 }\n'
        "path = { tragedy = 2 }",
        "t-virt": 'kind = "trait"\nact = 1\nprerequisite = { kind = "virtue", at_least = 1 }\npath = { triumph = 2 }',
        "c-easy": 'kind = "challenge"\nact = 1\ndifficulty = 1\nabilities = ["strength"]\n'
        'top = { icons = ["strength"], triumph = 2, harder = true, hero = 1 }\n'
        'bottom = { icons = ["villainy"], tragedy = 1, corruption = 1 }',
        "c-five": 'kind = "challenge"\nact = 1\ndifficulty = 5\nabilities = ["strength", "wisdom"]\n'
        "top = { triumph = 1 }\nbottom = { tragedy = 1, virtue = 1 }",
        "t3-free": 'kind = "trait"\nact = 3\npath = { icons = ["arcana"], triumph = 1 }',
        "c-hard": 'kind = "challenge"\nact = 1\ndifficulty = 20\nabilities = ["charisma"]\ntop = { triumph = 5 }\n'
        "bottom = { tragedy = 5 }",
    }
    story |= {
        "al-wise": 'kind = "ally"\nact = 1\nicons = ["wisdom"]\n'
        'power = { timing = "facing", cost = 1, effect = { kind = "modify", n = 2 } }',
        "al-hound": 'kind = "ally"\nact = 1\nicons = ["nature"]\n'
        'power = { timing = "facing", cost = "sacrifice", effect = { kind = "modify", n = 3 } }',
        "ad-baron": 'kind = "adversary"\nact = 2\ndifficulty = 6\nabilities = ["strength"]\n'
        'path = { icons = ["royalty"], triumph = 3 }\naura = { kind = "harder", n = 1 }',
        "ad-hag": 'kind = "adversary"\nact = 2\ndifficulty = 6\nabilities = ["wisdom"]\n'
        'path = { triumph = 2 }\naura = { kind = "corrupting" }',
    }
    out += [_card("story", cid, body) for cid, body in story.items()]
    for act in (1, 2, 3):
        for i in range(act_fill):
            body = (
                f'kind = "challenge"\nact = {act}\ndifficulty = {act + 1}\nabilities = ["constitution"]\n'
                'top = { icons = ["justice"], triumph = 1 }\nbottom = { icons = ["royalty"], tragedy = 1 }'
            )
            out.append(_card("story", f"f{act}-{i}", body))
    heroes = {
        "h-plus2": 'timing = "facing"\neffect = { kind = "modify", n = 2 }',
        "h-again": 'timing = "facing"\neffect = { kind = "reattempt" }',
        "h-per": 'timing = "before"\neffect = { kind = "modify", n = 1, per = "strength" }',
        "h-xp": 'timing = "any"\neffect = { kind = "experience", n = 2 }',
        "h-recast": 'timing = "facing"\neffect = { kind = "recast", n = 1 }',
        "h-after": 'timing = "after"\neffect = { kind = "virtue", n = 1 }',
    }
    out += [_card("hero", cid, body) for cid, body in heroes.items()]
    antiheroes = {
        "a-curse2": 'timing = "opponent"\neffect = { kind = "curse", n = 2 }',
        "a-curse1": 'timing = "opponent"\neffect = { kind = "curse", n = 1 }',
        "a-dark": 'timing = "before"\neffect = { kind = "free_dark" }',
        "a-steal": 'timing = "any"\neffect = { kind = "steal", n = 2 }',
        "a-row": 'timing = "any"\neffect = { kind = "replace_row" }',
        "a-peek": 'timing = "any"\neffect = { kind = "peek", n = 2 }',
        "a-take": 'timing = "any"\neffect = { kind = "take_other_act" }',
        "a-lose": 'timing = "any"\neffect = { kind = "lose_experience", n = 2 }',
        "a-draw": 'timing = "after"\neffect = { kind = "draw", deck = "antihero", n = 2 }',
        "a-fall": 'timing = "any"\neffect = { kind = "corruption", n = 2 }',
    }
    out += [_card("antihero", cid, body) for cid, body in antiheroes.items()]
    return "\n".join(out) + extra


def small_set() -> CardSet:
    """The parsed test set."""
    return parse(set_text(), "test.toml")


def order(full: Sequence[str], top: Sequence[str]) -> list[str]:
    """A deck of ``full`` with ``top`` first (in that order), the rest after in the set's order."""
    return list(top) + [c for c in full if c not in top]


def game(
    n: int = 2,
    *,
    act1: Sequence[str] = (),
    act2: Sequence[str] = (),
    act3: Sequence[str] = (),
    heroes: Sequence[str] = (),
    antiheroes: Sequence[str] = (),
    origins: Sequence[str] = (),
    motivations: Sequence[str] = (),
    casts: Sequence[list[int]] = (),
    first_game: bool = True,
    allies: bool = False,
    seed: int = 1,
) -> State:
    """A game of the test set, ann first, the named cards on top of their decks (rows are dealt from them)."""
    cards = small_set()
    given: dict[str, list[str]] = {}
    for key, top, full in (
        ("act1", act1, cards.acts[0]),
        ("act2", act2, cards.acts[1]),
        ("act3", act3, cards.acts[2]),
        ("hero", heroes, cards.heroes),
        ("antihero", antiheroes, cards.antiheroes),
        ("origin", origins, cards.origins),
        ("motivation", motivations, cards.motivations),
    ):
        if top:
            if key.startswith("act") and not allies:
                full = tuple(c for c in full if cards.cards[c].type in ("trait", "challenge"))
            given[key] = order(full, top)
    options: dict[str, Any] = {"first_game": first_game and not allies, "first_player": "ann"}
    if allies:
        options["allies_adversaries"] = True
    state = new_game(NAMES[:n], options, seed, cards, given, list(casts))
    if allies:  # everyone keeps the first card dealt of each kind
        for p in state.ps:
            o, m, d = (p.offers[k][0] for k in ("origin", "motivation", "destiny"))
            apply(state, Move(p.name, "choose", origin=o, motivation=m, destiny=d))
    return state


def do(state: State, player: str, kind: str, **fields: str) -> list[dict[str, Any]]:
    """Apply one move; return its events."""
    events: list[dict[str, Any]] = []
    apply(state, Move(player, kind, **fields), events)
    return events


def finish_turn(state: State, player: str) -> None:
    """Cast, take the result and end the turn of ``player`` without playing any card."""
    from engine.call_to_adventure import legal_moves

    turn = state.turn
    while state.status == "playing" and state.players[state.current] == player and state.turn == turn:
        legal = {m.do: m for m in legal_moves(state, player)}
        move = next(legal[k] for k in ("cast", "draw", "resolve", "end") if k in legal)
        apply(state, move)
