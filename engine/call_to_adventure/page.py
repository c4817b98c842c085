"""The texts of a Call to Adventure view in the game's words: a player's page, their emails, the organiser's board.

A page or an email shows each card with its kind, Act, the abilities its runes test, its icons and each path's
rewards, the reader's odds, the runes cast, the Stories' icons and at the end the Destiny scores part by part: put
into words here, once per page or email, from the engine's own words (``Words``: icons, card types, marks) and the
few sentences below, so that the templates (``templates/games/call-to-adventure/``) show finished texts and
translate none of the game's words. ``texts(view, words)`` is what ``CallToAdventure.page_texts`` gives (the
protocol's ``Game.page_texts``). Pure: no gettext, no request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .words import ROMAN, Words

PAGE_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "tests": "Ability runes: {abilities}",
        "harder": "harder",
        "no_reward": "no reward",
        "side_top": "top path",
        "side_bottom": "bottom path",
        "side_only": "path",
        "colon": ":",
        "score": "Destiny score",
        "breakdown_triumph": "Triumph",
        "breakdown_tragedy": "Tragedy",
        "breakdown_icon_sets": "Sets of story icons",
        "breakdown_cards_played": "Hero and Antihero cards played",
        "breakdown_experience": "Experience left",
        "breakdown_track": "Corruption track",
        "breakdown_destiny": "Destiny",
        "your_chance": "Your chance: {odds}",
        "ally_under": "Ally under it: {ally} (+1 difficulty on both paths)",
        "act": "Act {act}",
        "rune_core": "core rune",
        "rune_dark": "dark rune",
        "rune_special": "special rune of {ability}",
        "rune_ability": "rune of {ability}",
        "no_icons": "no icons yet",
        "triumph/one": "{num} Triumph",
        "triumph": "{num} Triumph",
        "tragedy/one": "{num} Tragedy",
        "tragedy": "{num} Tragedy",
        "virtue/one": "{num} virtue",
        "virtue": "{num} virtues",
        "corruption/one": "{num} corruption",
        "corruption": "{num} corruptions",
        "hero/one": "{num} Hero card",
        "hero": "{num} Hero cards",
        "antihero/one": "{num} Antihero card",
        "antihero": "{num} Antihero cards",
        "experience/one": "{num} experience",
        "experience": "{num} experience",
        "with_dark/one": "with {num} dark rune",
        "with_dark": "with {num} dark runes",
    },
    "nl": {
        "tests": "Vaardigheidsrunen: {abilities}",
        "harder": "moeilijker",
        "no_reward": "geen beloning",
        "side_top": "bovenste pad",
        "side_bottom": "onderste pad",
        "side_only": "pad",
        "colon": ":",
        "score": "Score van de Bestemming",
        "breakdown_triumph": "Triomf",
        "breakdown_tragedy": "Tragedie",
        "breakdown_icon_sets": "Sets van verhaalsymbolen",
        "breakdown_cards_played": "Gespeelde Helden- en Antiheldkaarten",
        "breakdown_experience": "Overgebleven ervaring",
        "breakdown_track": "Verdorvenheidsspoor",
        "breakdown_destiny": "Bestemming",
        "your_chance": "Je kans: {odds}",
        "ally_under": "Bondgenoot eronder: {ally} (+1 moeilijkheid op beide paden)",
        "act": "Akte {act}",
        "rune_core": "kernrune",
        "rune_dark": "duistere rune",
        "rune_special": "speciale rune van {ability}",
        "rune_ability": "rune van {ability}",
        "no_icons": "nog geen symbolen",
        "triumph/one": "{num} Triomf",
        "triumph": "{num} Triomf",
        "tragedy/one": "{num} Tragedie",
        "tragedy": "{num} Tragedie",
        "virtue/one": "{num} deugd",
        "virtue": "{num} deugden",
        "corruption/one": "{num} verdorvenheid",
        "corruption": "{num} verdorvenheden",
        "hero/one": "{num} Heldenkaart",
        "hero": "{num} Heldenkaarten",
        "antihero/one": "{num} Antiheldkaart",
        "antihero": "{num} Antiheldkaarten",
        "experience/one": "{num} ervaring",
        "experience": "{num} ervaring",
        "with_dark/one": "met {num} duistere rune",
        "with_dark": "met {num} duistere runen",
    },
    "fr": {
        "tests": "Runes d'aptitude\u202f: {abilities}",
        "harder": "plus difficile",
        "no_reward": "aucune récompense",
        "side_top": "voie du haut",
        "side_bottom": "voie du bas",
        "side_only": "voie",
        "colon": "\u202f:",
        "score": "Score de Destinée",
        "breakdown_triumph": "Triomphe",
        "breakdown_tragedy": "Tragédie",
        "breakdown_icon_sets": "Séries d'icônes d'histoire",
        "breakdown_cards_played": "Cartes Héros et Antihéros jouées",
        "breakdown_experience": "Expérience restante",
        "breakdown_track": "Piste de corruption",
        "breakdown_destiny": "Destinée",
        "your_chance": "Vos chances\u202f: {odds}",
        "ally_under": "Allié dessous\u202f: {ally} (+1 de difficulté sur les deux voies)",
        "act": "Acte {act}",
        "rune_core": "rune de base",
        "rune_dark": "rune sombre",
        "rune_special": "rune spéciale de {ability}",
        "rune_ability": "rune de {ability}",
        "no_icons": "pas encore d'icônes",
        "triumph/one": "{num} Triomphe",
        "triumph": "{num} Triomphe",
        "tragedy/one": "{num} Tragédie",
        "tragedy": "{num} Tragédie",
        "virtue/one": "{num} vertu",
        "virtue": "{num} vertus",
        "corruption/one": "{num} corruption",
        "corruption": "{num} corruptions",
        "hero/one": "{num} carte Héros",
        "hero": "{num} cartes Héros",
        "antihero/one": "{num} carte Antihéros",
        "antihero": "{num} cartes Antihéros",
        "experience/one": "{num} expérience",
        "experience": "{num} expérience",
        "with_dark/one": "avec {num} rune sombre",
        "with_dark": "avec {num} runes sombres",
    },
}
"""The page's own sentences in each language the game speaks (a key ``<key>/one``: the form for a count of one)."""

REWARDS = ("triumph", "tragedy", "virtue", "corruption", "hero", "antihero", "experience")
"""A path's rewards in the order a page lists them."""
NO_ICONS_SHOWN = ("challenge", "adversary", "trait")
"""Card types whose icons a page does not list under the name (they come with a path)."""
BREAKDOWN = ("triumph", "tragedy", "icon_sets", "cards_played", "experience", "track", "destiny")
"""The parts of a Destiny score (A10) in the order a breakdown lists them (the view's ``breakdown`` keys)."""
SIDES = ("top", "bottom", "only")
"""A card's paths."""


class PageWords:
    """The page's words in one language: the engine's ``Words`` and the page's own sentences."""

    def __init__(self, words: Words) -> None:
        self.words = words
        self.table = PAGE_TEXTS.get(words.lang, PAGE_TEXTS["en"])

    def say(self, key: str, /, **params: Any) -> str:
        """The page sentence ``key`` with ``params`` filled in (``num``: the form for one when it is 1)."""
        if params.get("num") == 1 and f"{key}/one" in self.table:
            key = f"{key}/one"
        return self.table[key].format(**params)

    def icon(self, name: str) -> str:
        """An icon (an ability) in words."""
        return self.words.text(f"icon_{name}") if f"icon_{name}" in self.words.TEXTS else name

    def icons(self, names: Sequence[str]) -> str:
        """Icons in words, a repeated one counted: "Dexterity ×2, Nature"."""
        counted = Counter(names)
        return ", ".join(self.icon(n) + (f" ×{k}" if k > 1 else "") for n, k in counted.items())

    def kind(self, card_type: str) -> str:
        """A card's type in words ("trait", "Hero card")."""
        key = f"type_{card_type}"
        return self.words.text(key) if key in self.words.TEXTS else card_type

    def act(self, number: int) -> str:
        """ "Act II"."""
        return self.say("act", act=ROMAN[number - 1] if number in (1, 2, 3) else number)

    def label(self, text: str) -> str:
        """ "Origin:" as the language writes it (French puts a narrow space before the colon)."""
        return text + self.say("colon")

    def rewards(self, path: Mapping[str, Any]) -> str:
        """A path's rewards: "Strength, Nature · 2 Triumph · 1 virtue · harder"."""
        parts = [self.icons(path["icons"])] if path.get("icons") else []
        parts += [self.say(k, num=path[k]) for k in REWARDS if path.get(k)]
        parts += [self.say("harder")] if path.get("harder") else []
        return " · ".join(parts) if parts else self.say("no_reward")

    def rune(self, rune: Mapping[str, Any]) -> str:
        """A cast rune's kind: "core rune", "rune of Strength"."""
        kind = rune.get("rune")
        if kind in ("core", "dark"):
            return self.say(f"rune_{kind}")
        return self.say(
            "rune_special" if kind == "special" else "rune_ability", ability=self.icon(rune.get("ability") or "")
        )

    def mark(self, mark: str) -> str:
        """A rune face's mark in words."""
        key = f"mark_{mark}"
        return self.words.text(key) if key in self.words.TEXTS else mark


def card_texts(w: PageWords, card: Mapping[str, Any]) -> dict[str, Any]:
    """One card's texts: ``kind`` (with its Act; apart: ``type`` and ``act``), ``tests`` (the abilities its runes
    test), ``icons`` and each path's ``label`` and ``rewards``."""
    act = w.act(card["act"]) if card.get("act") else ""
    kind = w.kind(card["type"]) + (f" · {act}" if act else "")
    icons = ""
    if not card.get("abilities") and card.get("icons") and card["type"] not in NO_ICONS_SHOWN:
        icons = w.icons(card["icons"])
    return {
        "kind": kind,
        "type": w.kind(card["type"]),
        "act": act,
        "tests": w.say("tests", abilities=w.icons(card["abilities"])) if card.get("abilities") else "",
        "icons": icons,
        "icon_list": w.icons(card["icons"]) if card.get("icons") else "",
        "paths": [{"label": w.label(w.say(f"side_{p['side']}")), "rewards": w.rewards(p)} for p in card["paths"]],
    }


def odds_texts(w: PageWords, odds: Mapping[str, Any]) -> dict[str, Any]:
    """The odds of one path: its parts ("40 %", "with 1 dark rune 62 %") or why it is closed, and the words
    around them ("Your chance: " … "")."""
    if not odds.get("open"):
        return {"open": False, "parts": [], "reason": odds.get("reason", ""), "before": "", "after": ""}
    parts = [
        f"{c}\u00a0%" if k == 0 else f"{w.say('with_dark', num=k)}\u00a0{c}\u00a0%"
        for k, c in enumerate(odds["chances"])
    ]
    before, _, after = w.say("your_chance", odds="\x00").partition("\x00")
    return {"open": True, "parts": parts, "reason": "", "before": before, "after": after}


def texts(view: Mapping[str, Any], words: Words) -> dict[str, Any]:
    """Every text of a player's page, emails and the organiser's board that is made from the view, each built
    once: ``cards`` (by id), ``odds`` (by id and path), ``acts``, ``act_now`` (the latest Act face up), ``kinds``
    (of the characters), ``labels`` (those with a colon), ``sides`` (of a card's paths), ``runes`` (of the attempt
    under way), ``story_icons`` and ``experience`` (by player), ``ally_under`` (by challenge id), ``breakdown`` (a
    Destiny score's parts by key, in order), ``score`` ("Destiny score") and ``colon`` (after a label: ":")."""
    w = PageWords(words)
    cards = view.get("cards", {})
    players = view.get("players", {})
    attempt = view.get("attempt") or {}
    counted = {
        name: " · ".join(f"{w.icon(n)} {k}" for n, k in p.get("icons", {}).items()) or w.say("no_icons")
        for name, p in players.items()
    }
    under = view.get("allies_under", {})
    face_up = sum(1 for row in view.get("rows", ()) if not isinstance(row, Mapping))
    return {
        "cards": {cid: card_texts(w, card) for cid, card in cards.items()},
        "odds": {
            cid: {key: odds_texts(w, o) for key, o in paths.items()} for cid, paths in view.get("odds", {}).items()
        },
        "acts": {n: w.act(n) for n in (1, 2, 3)},
        "act_now": w.act(max(face_up, 1)),
        "kinds": {k: w.kind(k) for k in ("origin", "motivation", "destiny")},
        "labels": {k: w.label(w.kind(k)) for k in ("origin", "motivation", "destiny")},
        "sides": {s: w.say(f"side_{s}") for s in SIDES},
        "runes": [
            {"kind": w.rune(r), "mark": w.mark(r["mark"]) if r.get("mark") else ""} for r in attempt.get("runes", ())
        ],
        "story_icons": counted,
        "experience": {name: w.say("experience", num=p.get("experience", 0)) for name, p in players.items()},
        "ally_under": {
            cid: w.say("ally_under", ally=cards[ally]["name"]) for cid, ally in under.items() if ally in cards
        },
        "breakdown": {k: w.say(f"breakdown_{k}") for k in BREAKDOWN},
        "score": w.say("score"),
        "colon": w.say("colon"),
    }
