"""Short text commands for replies by email: the commands of a player's open choices, and a reply's line read back.

Each open choice gets one short command in the reader's language ("draw pile 1", "take emperor", "lay 3 samurai",
"discard monk", "ninja bob samurai", "reveal task a"); a line is read liberally: case, accents and punctuation do
not matter, a card type may be singular or plural, words such as "from" or "the" may be added, the English words
are understood in every language, and the command's number alone picks it. A line that names a move clearly but
one that cannot be made now ("lay 5 samurai" holding 3) is read as that move, so that the refusal says why; a line
that is not clearly a move is no command (table talk). The discard preference (R7) is a standing move: never listed
(it is no decision), but "preference larger" is read from any player at any time.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..protocol import Command, command_words
from .cards import PILES, TASK_DECKS, TYPES
from .moves import Move
from .present import choices
from .rules import can_apply, discard_target
from .state import State
from .words import EN, Words

Entry = dict[str, Any]
"""A move as a record entry without its player."""


def fold(text: str) -> str:
    """``text`` as commands compare it: ``command_words`` without accents ("Défausser l'Émissaire!" → "defausser l
    emissaire")."""
    decomposed = unicodedata.normalize("NFKD", command_words(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def commands(state: State, player: str, w: Words = EN) -> list[Command]:
    """One command per open choice of ``player``, in the order of the page's choices; distinct, as a Ninja command
    names a type and only one set of a type lies on the table."""
    out: list[Command] = []
    for group in choices(state, player, w):
        lays = Counter(c.move.get("type") for c in group.choices if c.move.get("do") == "lay")
        for choice in group.choices:
            text = command_words(_text(state, choice.move, w, lays[choice.move.get("type")]))
            out.append(Command(text, choice.move, choice.label))
    return out


def _text(state: State, move: Mapping[str, Any], w: Words, lays: int) -> str:
    """A choice's command; ``lays``: how many lays of its type are offered (one: "lay samurai" says it)."""
    do = move.get("do")
    if do == "draw":
        i = PILES.index(str(move["pile"]))
        if i < 2:
            return w.text("cmd_draw", n=i + 1)
        top = TYPES[state.discard_piles[i - 2][-1]]
        tops = [p[-1] for p in state.discard_piles if p]
        same = len(tops) == 2 and tops[0] == tops[1]
        return w.text("cmd_take_from" if same else "cmd_take", name=_word(w, top), n=i - 1)
    if do == "lay":
        type_ = str(move["type"])
        if lays == 1:
            return w.text("cmd_lay", plural=_word(w, type_, plural=True))
        return w.text("cmd_lay_count", count=move["count"], plural=_word(w, type_, plural=True))
    if do == "discard":
        type_ = str(move["type"])
        d1, d2 = state.discard_piles
        if d1 and d2:
            return w.text("cmd_discard_on", name=_word(w, type_), n=PILES.index(str(move["pile"])) - 1)
        return w.text("cmd_discard", name=_word(w, type_))
    if do == "ninja":
        return w.text("cmd_ninja", target=move["target"], name=_word(w, str(move["type"])))
    return w.text("cmd_reveal", deck=move.get("deck", ""))


def _word(w: Words, type_: str, plural: bool = False) -> str:
    """A type's name for a command: its plural for a set, unless the plural is not one word ("Daimyo's")."""
    name = w.plural(type_) if plural else w.name(type_)
    return name if command_words(name) == name.casefold() else w.name(type_)


# Reading a line ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    """The words of one language (with English) that a command may use, folded (no accents, lower case)."""

    verbs: Mapping[str, str]
    """A command's first word → its kind: draw, take, lay, discard, ninja, reveal, preference."""
    words: Mapping[str, str]
    """Any other word → its role: drawpile, discardpile, pile, task, smaller, larger, or "" (a word to skip)."""
    types: Mapping[tuple[str, ...], str]
    """A card type's name, singular or plural, as words → the type."""


@lru_cache(maxsize=8)
def vocabulary(w: Words) -> Vocabulary:
    """The words ``w``'s players may use, English included (made once per language)."""
    verbs: dict[str, str] = {}
    words: dict[str, str] = {}
    types: dict[tuple[str, ...], str] = {}
    for lang in (EN, w):
        verbs.update({fold(k): v for k, v in lang.COMMAND_VERBS.items()})
        words.update(dict.fromkeys(fold(lang.COMMAND_FILLER).split(), ""))
        words.update({fold(k): v for k, v in lang.COMMAND_WORDS.items()})
        for t in TYPES:
            for name in (t, lang.name(t), lang.plural(t), f"{lang.name(t)}s"):  # "samurais" too
                types.setdefault(tuple(fold(name).split()), t)
    return Vocabulary(verbs, words, types)


def parse(state: State, player: str, text: str, w: Words = EN) -> Entry | None:
    """The move a line of a reply asks for (a record entry without its player), or None if it is no command:
    a command's number or words (in ``w``'s language or English), or a move said in other words."""
    said = fold(text)
    if not said:
        return None
    listed = commands(state, player, w)
    if said.isdigit():
        n = int(said)
        return dict(listed[n - 1].move) if 1 <= n <= len(listed) else None
    english = commands(state, player, EN) if w is not EN else []
    for command in (*listed, *english):
        if fold(command.text) == said:
            return dict(command.move)
    return _read(state, player, said.split(), vocabulary(w))


@dataclass
class _Line:
    """What the words of a line name, after its first word (the kind of move)."""

    numbers: list[int]
    types: list[str]
    names: list[str]
    decks: list[str]
    roles: set[str]


def _read(state: State, player: str, words: list[str], vocab: Vocabulary) -> Entry | None:
    kind = vocab.verbs.get(words[0])
    if kind is None or player not in state.index:
        return None
    line = _words(state, words[1:], vocab, kind)
    if line is None:
        return None
    if kind == "draw" and ("discardpile" in line.roles or line.types):
        kind = "take"
    if kind == "draw":
        return _pile("draw", line.numbers)
    if kind == "take":
        return _take(state, line)
    if kind == "preference":
        return _preference(line)
    if kind == "ninja" and len(line.types) > 1 and "ninja" in line.types:
        line.types.remove("ninja")  # "use a ninja on bob's farmers": the first names the miniature
    if len(line.types) > 1 or (kind != "reveal" and not line.types):
        return None
    type_ = line.types[0] if line.types else None
    if kind == "reveal":
        return _reveal(state, player, type_, line.decks)
    assert type_ is not None
    if kind == "lay":
        return _lay(state, player, type_, line.numbers)
    if kind == "discard":
        return _discard(state, type_, line.numbers)
    return _ninja(state, type_, line.names)


def _words(state: State, words: list[str], vocab: Vocabulary, kind: str) -> _Line | None:
    """Sort a line's words (after the first) into numbers, card types, players, task decks and roles; None if a
    word is none of these."""
    line = _Line([], [], [], [], set())
    names = {tuple(fold(name).split()): name for name in state.players}
    longest = max(len(k) for k in (*vocab.types, *names))
    i = 0
    while i < len(words):
        for size in range(min(longest, len(words) - i), 0, -1):
            part = tuple(words[i : i + size])
            if part in names and kind == "ninja":
                line.names.append(names[part])
                break
            if part in vocab.types:
                line.types.append(vocab.types[part])
                break
        else:
            size = 1
            word = words[i]
            if kind == "reveal" and word.upper() in TASK_DECKS:
                line.decks.append(word.upper())
            elif word.isdigit() and len(word) < 4:
                line.numbers.append(int(word))
            elif word in vocab.words:
                line.roles.add(vocab.words[word])
            else:
                return None
        i += size
    return line


def _pile(kind: str, numbers: list[int]) -> Entry | None:
    """Draw pile or discard pile 1 or 2, from the one number of a line."""
    if len(numbers) != 1 or numbers[0] not in (1, 2):
        return None
    return {"do": "draw", "pile": f"{kind}{numbers[0]}"}


def _take(state: State, line: _Line) -> Entry | None:
    """The top card of a discard pile, named by its number or by its card type (or both, if they agree)."""
    if len(line.types) > 1:
        return None
    if line.numbers:
        entry = _pile("discard", line.numbers)
        if entry is None or not line.types:
            return entry
        pile = state.discard_piles[line.numbers[0] - 1]
        return entry if pile and TYPES[pile[-1]] == line.types[0] else None
    for i, pile in enumerate(state.discard_piles):
        if line.types and pile and TYPES[pile[-1]] == line.types[0]:
            return {"do": "draw", "pile": PILES[2 + i]}
    return None


def _lay(state: State, player: str, type_: str, numbers: list[int]) -> Entry | None:
    """A set of ``type_``: the number given, else as many as may be laid now (all held, as a rule), else all held
    (or the minimum, holding none), for the refusal to say why not."""
    if len(numbers) > 1 or (numbers and numbers[0] < 1):
        return None
    if numbers:
        return {"do": "lay", "type": type_, "count": numbers[0]}
    held = state.hands[state.index[player]][TYPES.index(type_)]
    legal = [c for c in range(held, 0, -1) if can_apply(state, Move.lay(player, type_, c))]
    count = legal[0] if legal else held or state.minimum[TYPES.index(type_)]
    return {"do": "lay", "type": type_, "count": count}


def _discard(state: State, type_: str, numbers: list[int]) -> Entry | None:
    """One card of ``type_``: on the discard pile given, else where R6 sends it (none given where there is a choice:
    the refusal asks which)."""
    if numbers:
        entry = _pile("discard", numbers)
        return None if entry is None else {"do": "discard", "type": type_, "pile": entry["pile"]}
    d1, d2 = state.discard_piles
    if d1 and d2:
        return {"do": "discard", "type": type_}
    return {"do": "discard", "type": type_, "pile": PILES[discard_target(state, 2)]}


def _ninja(state: State, type_: str, names: list[str]) -> Entry | None:
    """A card of the set of ``type_``: of the player named, else of whoever has that set (there is one at most)."""
    if len(names) > 1:
        return None
    if names:
        return {"do": "ninja", "target": names[0], "type": type_}
    owner = state.owner[TYPES.index(type_)]
    if owner < 0:
        return None
    return {"do": "ninja", "target": state.players[owner], "type": type_}


def _reveal(state: State, player: str, type_: str | None, decks: list[str]) -> Entry | None:
    """A task card, by its deck letter or by its card type (if only one of the player's unrevealed cards has it)."""
    if len(decks) == 1:
        return {"do": "reveal_task", "deck": decks[0]}
    tasks = state.tasks[state.index[player]] if state.tasks else {}
    found = [d for d, t in sorted(tasks.items()) if TYPES[t] == type_]
    return {"do": "reveal_task", "deck": found[0]} if len(found) == 1 else None


def _preference(line: _Line) -> Entry | None:
    """Where one's displaced cards go (R7): the smaller or larger discard pile, or discard pile 1 or 2."""
    roles = line.roles & {"smaller", "larger"}
    if line.types or (len(roles) + len(line.numbers)) != 1:
        return None
    if roles:
        return {"do": "preference", "discard_preference": roles.pop()}
    if line.numbers[0] not in (1, 2):
        return None
    return {"do": "preference", "discard_preference": f"pile{line.numbers[0]}"}
