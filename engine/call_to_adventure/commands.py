"""Short text commands for replies by email: one per open choice of a player, and a reply's line read back.

Each choice and each variant of a challenge (its dark runes) gets a command in the reader's language, made of a
verb and the card's name: "gain quick hands", "attempt fire at the ferry top 2" (two dark runes), "journey old
songs", "play try again runes 3", "draw hero", "result", "end". A line is read liberally: case, accents and
punctuation do not matter, small words ("the", "with", "dark runes" …) may be added or left out, the English
commands are understood in every language, and a command's number alone picks it. A line that is no command of
the player's now gives None (table talk), so a whole turn can be played by replies.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..protocol import Choice, ChoiceGroup, Command, command_words
from .cardset import CardSet
from .words import ROMAN, Words

Entry = Mapping[str, Any]
"""A move as a record entry without its player."""


def fold(text: str) -> str:
    """``text`` as commands compare it: ``command_words`` without accents ("Réessaie!" → "reessaie")."""
    decomposed = unicodedata.normalize("NFKD", command_words(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _text(move: Entry, w: Words, cards: CardSet | None) -> str:
    """The command of one move, in ``w``'s language."""
    do = str(move.get("do"))
    card = w.name(cards, move.get("card"))
    if do == "choose":
        names = {k: w.name(cards, move.get(k)) for k in ("origin", "motivation", "destiny")}
        return w.text("cmd_choose", **names)
    if do in ("challenge", "attempt"):
        path = w.text(f"cmd_{move.get('path')}")
        dark = str(move.get("dark") or "0")
        if do == "attempt":
            return w.text("cmd_declare", card=card, path=path)
        return w.text("cmd_attempt" if dark == "0" else "cmd_attempt_dark", card=card, path=path, dark=dark)
    if do in ("play", "use"):
        out = w.text(f"cmd_{do}", card=card)
        if move.get("target"):
            out += " " + w.text("cmd_on", target=move["target"])
        if move.get("runes"):  # rune numbers from 1, as a player counts them
            runes = " ".join(str(int(r) + 1) for r in str(move["runes"]).split(",") if r.isdigit())
            out += " " + w.text("cmd_runes", runes=runes)
        if move.get("act") in ("1", "2", "3"):
            out += " " + w.text("cmd_act", act=ROMAN[int(move["act"]) - 1])
        if move.get("row"):
            out += " " + w.text("cmd_row", card=w.name(cards, move["row"]))
        return out
    if do == "draw":
        return w.text("cmd_draw", deck=w.text(f"cmd_{move.get('deck')}"))
    if do == "resolve":
        return w.text("cmd_resolve_end" if move.get("end") else "cmd_resolve")
    if do == "order":
        return w.text("cmd_order", cards=" ".join(w.name(cards, c) for c in str(move.get("order")).split(",")))
    return w.text(f"cmd_{do}", card=card)


def commands(
    groups: Sequence[ChoiceGroup], refine: Callable[[Entry], list[Choice]], w: Words, cards: CardSet | None
) -> list[Command]:
    """One command per choice of ``groups`` (each challenge once per number of dark runes, as its confirm page
    offers them), in the page's order, in ``w``'s language."""
    out: list[Command] = []
    for group in groups:
        for choice in group.choices:
            for c in (refine(choice.move) if choice.confirm else []) or [choice]:
                out.append(Command(command_words(_text(c.move, w, cards)), c.move, c.label))
    return out


def _key(text: str, filler: frozenset[str]) -> tuple[str, ...]:
    return tuple(word for word in fold(text).split() if word not in filler)


def parse(text: str, listed: Sequence[Command], english: Sequence[Command], w: Words, en: Words) -> Entry | None:
    """The move a line of a reply asks for, or None: the number of a command of ``listed``, or a command's words
    (of ``listed``, in ``w``'s language, or of ``english``), small words aside."""
    said = fold(text)
    if not said:
        return None
    if said.isdigit():
        n = int(said)
        return listed[n - 1].move if 1 <= n <= len(listed) else None
    for command in (*listed, *english):
        if fold(command.text) == said:
            return command.move
    filler = frozenset(fold(w.text("cmd_filler")).split()) | frozenset(fold(en.text("cmd_filler")).split())
    wanted = _key(said, filler)
    found = [c.move for c in (*listed, *english) if _key(c.text, filler) == wanted]
    return found[0] if found and all(m == found[0] for m in found) else None
