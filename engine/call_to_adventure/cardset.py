"""Card sets (docs/card-sets.md): parse and validate a set from its TOML text, purely (no file is read here).

``parse(text, source)`` returns a ``CardSet`` or raises ``CardSetError`` with one message that names the
file, the card and the field. Parsed sets are cached by their text (they are immutable).
"""

from __future__ import annotations

import hashlib
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from ..errors import FormatError

ABILITIES: Final = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")
STORY_ICONS: Final = ("divinity", "justice", "nature", "arcana", "royalty", "villainy")
ICONS: Final = ABILITIES + STORY_ICONS
LANGUAGES: Final = ("en", "nl", "fr")
TIMINGS: Final = ("before", "facing", "after", "any", "opponent")
"""Hero/Antihero timing: before a cast, facing (after the cast, before the result), after a challenge, any
time in your turn, or aimed at an opponent's next challenge (A11.3)."""
EFFECTS: Final = (
    "modify",
    "recast",
    "reattempt",
    "free_dark",
    "experience",
    "lose_experience",
    "steal",
    "draw",
    "virtue",
    "corruption",
    "replace_row",
    "curse",
    "take_other_act",
    "peek",
)
PREREQUISITES: Final = ("none", "spend", "icon", "corruption", "virtue")
PER_RUNE: Final = ("rune:core", "rune:ability", "rune:special", "rune:dark")
"""A ``modify`` effect's ``per`` may name a kind of rune: +n for each rune of that kind in the cast (so it is played
as you are facing the challenge, once the runes have fallen)."""
CONDITIONS: Final = ("per_icon", "per_ability_kind", "threshold", "track", "under")
TRIGGERS: Final = ("on_success", "on_fail", "on_gain_icon")
"""Powers that act by themselves: after overcoming a challenge, after failing one, on gaining a card whose path
shows ``icon``."""
TRIGGER_EFFECTS: Final = ("experience", "draw", "virtue", "corruption")
POWER_TIMINGS: Final = ("before", "facing", "after", "any", *TRIGGERS)
AURAS: Final = ("harder", "corrupting")
"""What a face-up adversary does to its Act's row: ``harder`` adds ``n`` to the difficulty of the row's other
challenges, ``corrupting`` gives a corruption to whoever fails a challenge of that Act."""
STORY_KINDS: Final = ("trait", "challenge", "ally", "adversary")
CHARACTERS: Final = ("origin", "motivation", "destiny")
TRACK_LEVELS: Final = 7
NEUTRAL: Final = 2
"""The index of the neutral level on the corruption track (the third from the top, A7)."""
MIN_CHARACTERS: Final = 8
MIN_ACT: Final = 5
MIN_HEROES: Final = 4
_PATH_KEYS: Final = ("icons", "triumph", "tragedy", "virtue", "corruption", "hero", "antihero", "experience", "harder")
_FACE_KEYS: Final = ("value", "card", "experience", "hero", "antihero", "corruption")


class CardSetError(FormatError):
    """A card set that cannot be used; the message names the file, the card and the field."""


@dataclass(frozen=True, slots=True)
class Path:
    """The rewards of one path of a story card (A4.3); ``harder`` adds 1 to a challenge's difficulty."""

    icons: tuple[str, ...] = ()
    triumph: int = 0
    tragedy: int = 0
    virtue: int = 0
    corruption: int = 0
    hero: int = 0
    antihero: int = 0
    experience: int = 0
    harder: bool = False


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a rune: its value and what else it does (A5)."""

    value: int
    card: bool = False
    experience: int = 0
    hero: int = 0
    antihero: int = 0
    corruption: int = 0


@dataclass(frozen=True, slots=True)
class Level:
    """One level of the corruption track (A7)."""

    name: str
    hero: bool
    antihero: bool
    dark: bool
    score: int


@dataclass(frozen=True, slots=True)
class Card:
    """Any card of a set; the fields that do not apply to its ``type`` keep their defaults."""

    id: str
    type: str
    name: dict[str, str]
    text: dict[str, str]
    flavour: dict[str, str]
    act: int = 0
    icons: tuple[str, ...] = ()
    prerequisite: dict[str, Any] | None = None
    paths: tuple[Path, ...] = ()
    difficulty: int = 0
    abilities: tuple[str, ...] = ()
    timing: str = ""
    effect: dict[str, Any] | None = None
    scoring: tuple[dict[str, Any], ...] = ()
    power: dict[str, Any] | None = None
    aura: dict[str, Any] | None = None
    adversary: str = ""

    def title(self, lang: str = "en") -> str:
        """The card's name in ``lang`` (English when it has no translation)."""
        return self.name.get(lang, self.name["en"])


@dataclass(frozen=True, slots=True)
class CardSet:
    """A whole card set, validated; ``text`` and ``source`` are what it was parsed from, ``digest`` names the text
    (a game's state refers to a set it can find again by its digest instead of holding its text)."""

    source: str
    text: str
    digest: str
    id: str
    cards: dict[str, Card]
    origins: tuple[str, ...]
    motivations: tuple[str, ...]
    destinies: tuple[str, ...]
    acts: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    heroes: tuple[str, ...]
    antiheroes: tuple[str, ...]
    quests: tuple[str, ...]
    adversary_deck: tuple[str, ...]
    solo: dict[str, Any]
    """The victory-conditions table and the rise card (A13): ``goal``, ``per_player``, ``rise`` (texts)."""
    core: tuple[tuple[Face, ...], ...]
    ability: tuple[Face, ...]
    special: dict[str, tuple[Face, ...]]
    dark: tuple[Face, ...]
    track: tuple[Level, ...]


class _Where:
    def __init__(self, source: str, card: str | None = None) -> None:
        self.source = source
        self.card = card

    def fail(self, field: str, message: str) -> CardSetError:
        where = f"card {self.card!r}: " if self.card else ""
        return CardSetError(f"{self.source}: {where}field {field!r}: {message}")


def _int(w: _Where, table: dict[str, Any], key: str, default: int | None = 0, lo: int = 0, hi: int = 99) -> int:
    value = table.get(key, default)
    if value is None:
        raise w.fail(key, "is missing")
    if type(value) is not int or not lo <= value <= hi:
        raise w.fail(key, f"must be a whole number from {lo} to {hi}, not {value!r}")
    return value


def _str(w: _Where, table: dict[str, Any], key: str, choices: tuple[str, ...] | None = None, at: str = "") -> str:
    value = table.get(key)
    field = f"{at}.{key}" if at else key
    if not isinstance(value, str) or not value:
        raise w.fail(field, "is missing" if value is None else f"must be a text, not {value!r}")
    if choices is not None and value not in choices:
        raise w.fail(field, f"unknown {key} {value[:40]!r} (expected one of {', '.join(choices)})")
    if key == "id" and (len(value) > ID_LENGTH or not value.isprintable() or any(c.isspace() for c in value)):
        raise w.fail(field, f"must be at most {ID_LENGTH} printable characters without spaces")
    return value


def _keys(w: _Where, table: Any, field: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise w.fail(field, f"must be a table, not {table!r}")
    for key in table:
        if key not in allowed:
            raise w.fail(f"{field}.{key}" if field else key, "is not a field of this card kind")
    return table


def _texts(w: _Where, table: dict[str, Any], key: str, required: bool) -> dict[str, str]:
    value = table.get(key)
    if value is None and not required:
        return {}
    if isinstance(value, str):
        value = {"en": value}
    if not isinstance(value, dict) or "en" not in value:
        raise w.fail(key, "needs an English text (en)")
    for lang, text in value.items():
        if lang not in LANGUAGES:
            raise w.fail(f"{key}.{lang}", f"unknown language (expected one of {', '.join(LANGUAGES)})")
        if not isinstance(text, str) or not text.strip():
            raise w.fail(f"{key}.{lang}", "must be a non-empty text")
        _plain(w, f"{key}.{lang}", text, NAME_LENGTH if key == "name" else TEXT_LENGTH, key != "name")
    return dict(value)


NAME_LENGTH: Final = 60
"""The longest name of a card or a set, in characters."""
TEXT_LENGTH: Final = 600
"""The longest text (a card's text, flavour, the rise card), in characters."""
ID_LENGTH: Final = 60
"""The longest card or set id."""
_BIDI: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _plain(w: _Where, field: str, text: str, longest: int, lines: bool = False) -> None:
    """A text shown to players: at most ``longest`` characters, no control or bidirectional-override characters
    (which could make a name read as something else on a page or in an email); line breaks only in ``lines``."""
    if len(text) > longest:
        raise w.fail(field, f"is {len(text)} characters long (at most {longest})")
    for ch in text:
        if ch in _BIDI:
            raise w.fail(field, f"contains the bidirectional control character U+{ord(ch):04X}")
        if unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") and not (lines and ch == "\n"):
            raise w.fail(field, f"contains the control character U+{ord(ch):04X}")


def _icons(w: _Where, value: Any, field: str, choices: tuple[str, ...] = ICONS) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(i, str) for i in value):
        raise w.fail(field, "must be a list of icon names")
    for icon in value:
        if icon not in choices:
            raise w.fail(field, f"unknown icon {icon!r} (expected one of {', '.join(choices)})")
    return tuple(value)


def _path(w: _Where, value: Any, field: str) -> Path:
    table = _keys(w, value, field, _PATH_KEYS)
    harder = table.get("harder", False)
    if not isinstance(harder, bool):
        raise w.fail(f"{field}.harder", "must be true or false")
    numbers = {k: _int(w, table, k, 0, 0, 20) for k in _PATH_KEYS[1:-1]}
    return Path(icons=_icons(w, table.get("icons", []), f"{field}.icons"), harder=harder, **numbers)


def _effect(w: _Where, value: Any) -> dict[str, Any]:
    table = _keys(w, value, "effect", ("kind", "n", "per", "deck"))
    kind = _str(w, table, "kind", EFFECTS)
    out: dict[str, Any] = {"kind": kind}
    counted = ("modify", "recast", "experience", "lose_experience", "steal", "draw", "virtue", "corruption", "curse")
    if kind in (*counted, "peek"):
        lo = -10 if kind == "modify" else 1
        out["n"] = _int(w, {"n": table.get("n", 1)}, "n", 1, lo, 5 if kind == "peek" else 10)
    if kind == "modify" and "per" in table:
        out["per"] = _str(w, table, "per", (*ICONS, *PER_RUNE))
    if kind == "draw":
        out["deck"] = _str(w, table, "deck", ("hero", "antihero"))
    for key in ("per", "deck"):
        if key in table and key not in out:
            raise w.fail(f"effect.{key}", f"does not apply to a {kind} effect")
    return out


def _prerequisite(w: _Where, value: Any) -> dict[str, Any]:
    table = _keys(w, value, "prerequisite", ("kind", "experience", "icon", "count", "at_least"))
    kind = _str(w, table, "kind", PREREQUISITES)
    if kind == "spend":
        return {"kind": kind, "experience": _int(w, table, "experience", None, 1, 9)}
    if kind == "icon":
        return {"kind": kind, "icon": _str(w, table, "icon", ICONS), "count": _int(w, table, "count", 1, 1, 9)}
    if kind in ("corruption", "virtue"):
        return {"kind": kind, "at_least": _int(w, table, "at_least", None, 1, 4 if kind == "corruption" else 2)}
    return {"kind": kind}


def _condition(w: _Where, value: Any, i: int) -> dict[str, Any]:
    field = f"scoring[{i}]"
    table = _keys(w, value, field, ("kind", "icon", "points", "at_least", "at_most", "level", "character"))
    kind = _str(w, table, "kind", CONDITIONS)
    out: dict[str, Any] = {"kind": kind, "points": _int(w, table, "points", None, 1, 20)}
    if kind in ("per_icon", "threshold", "under"):
        out["icon"] = _str(w, table, "icon", ICONS)
    if kind in ("threshold", "per_ability_kind"):
        out["at_least"] = _int(w, table, "at_least", None, 1, 12)
    if kind == "track":
        out["at_least"] = _int(w, table, "at_least", None, -2, 4)  # -2 = V2 ... 4 = C4 (corruption levels)
        out["at_most"] = _int(w, table, "at_most", None, -2, 4)
    if kind == "under":
        out["character"] = _str(w, table, "character", CHARACTERS)
    return out


_EFFECT_TIMINGS: Final = {
    "modify": ("before", "facing"),
    "recast": ("facing",),
    "reattempt": ("facing",),
    "free_dark": ("before",),
    "curse": ("opponent",),
    "lose_experience": ("any", "after"),
    "steal": ("any", "after"),
    "take_other_act": ("any",),
    "peek": ("any", "after"),
}
_COMMON: Final = ("id", "name", "text", "flavour")


def _timings_for(effect: dict[str, Any]) -> tuple[str, ...]:
    """The timings an effect may be played at: counting runes needs them cast."""
    if effect["kind"] == "modify" and str(effect.get("per", "")).startswith("rune:"):
        return ("facing",)
    return _EFFECT_TIMINGS.get(effect["kind"], ("before", "facing", "after", "any"))


_FIELDS: Final = {
    "origin": (*_COMMON, "icons", "power"),
    "motivation": (*_COMMON, "icons", "power"),
    "destiny": (*_COMMON, "icons", "scoring"),
    "trait": (*_COMMON, "kind", "act", "prerequisite", "path"),
    "challenge": (*_COMMON, "kind", "act", "difficulty", "abilities", "top", "bottom"),
    "ally": (*_COMMON, "kind", "act", "icons", "power"),
    "adversary": (*_COMMON, "kind", "act", "difficulty", "abilities", "path", "aura"),
    "quest": (*_COMMON, "adversary"),
    "adversary_deck": (*_COMMON, "effect"),
    "hero": (*_COMMON, "timing", "effect"),
    "antihero": (*_COMMON, "timing", "effect"),
}


def _power(w: _Where, value: Any, ally: bool) -> dict[str, Any]:
    """A power of an ally, Origin or Motivation (A9): used with a cost at a timing, or triggered."""
    power = _keys(w, value, "power", ("timing", "cost", "effect", "once_per_turn", "icon"))
    timing = _str(w, power, "timing", POWER_TIMINGS, "power")
    cost = power.get("cost", 0)
    if cost == "sacrifice" and not ally:
        raise w.fail("power.cost", "only an ally can be sacrificed")
    if cost != "sacrifice" and (type(cost) is not int or not 0 <= cost <= 5):
        raise w.fail("power.cost", f'must be experience from 0 to 5 or "sacrifice", not {cost!r}')
    once = power.get("once_per_turn", False)
    if not isinstance(once, bool):
        raise w.fail("power.once_per_turn", "must be true or false")
    effect = _effect(w, power.get("effect"))
    out: dict[str, Any] = {"timing": timing, "cost": cost, "effect": effect, "once_per_turn": once}
    if timing in TRIGGERS:
        if effect["kind"] not in TRIGGER_EFFECTS:
            raise w.fail("power.effect", f"a triggered power does one of {', '.join(TRIGGER_EFFECTS)}")
        if cost != 0:
            raise w.fail("power.cost", "a triggered power costs nothing")
        if timing == "on_gain_icon":
            out["icon"] = _str(w, power, "icon", ICONS, "power")
    else:
        need = _timings_for(effect)
        if timing not in need:
            raise w.fail("power.timing", f"a {effect['kind']} effect needs the timing {' or '.join(need)}")
    if "icon" in power and "icon" not in out:
        raise w.fail("power.icon", "only an on_gain_icon power names an icon")
    return out


def _card(source: str, kind: str, table: Any, seen: set[str]) -> Card:
    w = _Where(source)
    if not isinstance(table, dict):
        raise w.fail(kind, "every card must be a table")
    card_id = table.get("id")
    if not isinstance(card_id, str) or not card_id or not all(c.isalnum() or c in "-_" for c in card_id):
        raise w.fail(f"{kind}.id", f"every card needs an id of letters, digits, - and _ (got {card_id!r})")
    w.card = card_id
    if card_id in seen:
        raise w.fail("id", "duplicate id")
    seen.add(card_id)
    ctype = kind
    if kind == "story":
        ctype = _str(w, table, "kind", STORY_KINDS)
    _keys(w, table, "", _FIELDS[ctype])
    common: dict[str, Any] = {
        "id": card_id,
        "type": ctype,
        "name": _texts(w, table, "name", True),
        "text": _texts(w, table, "text", False),
        "flavour": _texts(w, table, "flavour", False),
    }
    if ctype in ("origin", "motivation", "destiny", "ally"):
        common["icons"] = _icons(w, table.get("icons", []), "icons")
    if ctype == "destiny":
        scoring = table.get("scoring", [])
        if not isinstance(scoring, list):
            raise w.fail("scoring", "must be a list of conditions")
        common["scoring"] = tuple(_condition(w, c, i) for i, c in enumerate(scoring))
    if ctype in ("trait", "challenge"):
        common["act"] = _int(w, table, "act", None, 1, 3)
    if ctype == "ally":
        common["act"] = _int(w, table, "act", None, 1, 2)
        common["power"] = _power(w, table.get("power"), ally=True)
    if ctype == "quest":
        common["adversary"] = _str(w, table, "adversary")
    if ctype == "adversary_deck":
        effect = _keys(w, table.get("effect"), "effect", ("kind", "n"))
        common["effect"] = {
            "kind": _str(w, effect, "kind", ADVERSARY_EFFECTS, "effect"),
            "n": _int(w, effect, "n", 1, 1, 5),
        }
    if ctype in ("origin", "motivation") and "power" in table:
        common["power"] = _power(w, table["power"], ally=False)
    if ctype == "adversary":
        common["act"] = _int(w, table, "act", None, 2, 3)
        if "path" not in table:
            raise w.fail("path", "an adversary needs its path")
        common["paths"] = (_path(w, table["path"], "path"),)
        common["difficulty"] = _int(w, table, "difficulty", None, 0, 30)
        abilities = _icons(w, table.get("abilities"), "abilities", ABILITIES)
        if not 1 <= len(abilities) <= 2 or len(set(abilities)) != len(abilities):
            raise w.fail("abilities", "an adversary lists one or two different abilities")
        common["abilities"] = abilities
        aura = _keys(w, table.get("aura", {"kind": "harder"}), "aura", ("kind", "n"))
        common["aura"] = {"kind": _str(w, aura, "kind", AURAS), "n": _int(w, aura, "n", 1, 1, 3)}
    if ctype == "trait":
        if "path" not in table:
            raise w.fail("path", "a trait needs its path")
        common["prerequisite"] = _prerequisite(w, table.get("prerequisite", {"kind": "none"}))
        common["paths"] = (_path(w, table["path"], "path"),)
    if ctype == "challenge":
        for side in ("top", "bottom"):
            if side not in table:
                raise w.fail(side, "a challenge needs a top and a bottom path")
        common["paths"] = (_path(w, table["top"], "top"), _path(w, table["bottom"], "bottom"))
        common["difficulty"] = _int(w, table, "difficulty", None, 0, 30)
        abilities = _icons(w, table.get("abilities"), "abilities", ABILITIES)
        if not 1 <= len(abilities) <= 2 or len(set(abilities)) != len(abilities):
            raise w.fail("abilities", "a challenge lists one or two different abilities")
        common["abilities"] = abilities
    if ctype in ("hero", "antihero"):
        common["timing"] = _str(w, table, "timing", TIMINGS)
        if "effect" not in table:
            raise w.fail("effect", "is missing")
        common["effect"] = _effect(w, table["effect"])
        need = _timings_for(common["effect"])
        if common["timing"] not in need:
            raise w.fail("timing", f"a {common['effect']['kind']} effect needs the timing {' or '.join(need)}")
    return Card(**common)


def _faces(w: _Where, value: Any, field: str) -> tuple[Face, ...]:
    if not isinstance(value, list) or len(value) < 2:
        raise w.fail(field, "a rune needs a list of at least two faces")
    out = []
    for i, face in enumerate(value):
        table = _keys(w, face, f"{field}[{i}]", _FACE_KEYS)
        card = table.get("card", False)
        if not isinstance(card, bool):
            raise w.fail(f"{field}[{i}].card", "must be true or false")
        numbers = {k: _int(w, table, k, 0, 0, 5) for k in _FACE_KEYS[2:]}
        out.append(Face(value=_int(w, table, "value", None, 0, 9), card=card, **numbers))
    return tuple(out)


def _runes(source: str, value: Any) -> dict[str, Any]:
    w = _Where(source)
    table = _keys(w, value, "runes", ("core", "ability", "special", "dark"))
    core = table.get("core")
    if not isinstance(core, list) or len(core) != 3:
        raise w.fail("runes.core", "needs exactly three core runes")
    special = _keys(w, table.get("special"), "runes.special", ABILITIES)
    for ability in ABILITIES:
        if ability not in special:
            raise w.fail(f"runes.special.{ability}", "is missing")
    return {
        "core": tuple(_faces(w, r, f"runes.core[{i}]") for i, r in enumerate(core)),
        "ability": _faces(w, table.get("ability"), "runes.ability"),
        "special": {a: _faces(w, special[a], f"runes.special.{a}") for a in ABILITIES},
        "dark": _faces(w, table.get("dark"), "runes.dark"),
    }


def _track(source: str, value: Any) -> tuple[Level, ...]:
    w = _Where(source)
    if not isinstance(value, list) or len(value) != TRACK_LEVELS:
        raise w.fail("track", f"the corruption track has exactly {TRACK_LEVELS} levels")
    out = []
    for i, level in enumerate(value):
        table = _keys(w, level, f"track[{i}]", ("level", "hero", "antihero", "dark", "score"))
        flags = {}
        for key in ("hero", "antihero", "dark"):
            if not isinstance(table.get(key), bool):
                raise w.fail(f"track[{i}].{key}", "must be true or false")
            flags[key] = table[key]
        name = _str(w, table, "level")
        out.append(Level(name, score=_int(w, table, "score", None, -20, 20), **flags))
    return tuple(out)


_SECTIONS: Final = (
    "set",
    "runes",
    "track",
    "origin",
    "motivation",
    "destiny",
    "story",
    "hero",
    "antihero",
    "solo",
    "quest",
    "adversary_deck",
)
ADVERSARY_EFFECTS: Final = ("adversary_experience", "lose_experience", "corruption", "curse")
"""What a card of the adversary's deck does (A13.2): the adversary gains experience, or the active player loses
experience, takes a corruption, or takes ``-n`` on the cast under way."""


MAX_NESTING: Final = 16
"""How deep arrays and inline tables may nest in a card set (the format needs 4)."""


def nesting(text: str) -> int:
    """The deepest nesting of TOML arrays and inline tables in ``text`` (strings and comments skipped), counted
    without recursion so that any text can be measured."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            i += len(quote)
            while i < n and text[i : i + len(quote)] != quote:
                i += 2 if c == '"' and text[i] == "\\" else 1
            i += len(quote)
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest


def digest(text: str) -> str:
    """The name of a card set's TOML text: its SHA-256, in hex."""
    return hashlib.sha256(text.encode()).hexdigest()


@lru_cache(maxsize=16)
def parse(text: str, source: str) -> CardSet:
    """Parse and validate a card set from its TOML ``text``; ``source`` (a file name) is named in errors."""
    if not isinstance(text, str):
        raise CardSetError(f"{source}: a card set is a TOML text")
    if nesting(text) > MAX_NESTING:
        raise CardSetError(f"{source}: arrays and tables nest more than {MAX_NESTING} deep")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardSetError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise CardSetError(f"{source}: arrays and tables nest too deep") from None
    w = _Where(source)
    for key in data:
        if key not in _SECTIONS:
            raise w.fail(key, f"unknown section (expected {', '.join(_SECTIONS)})")
    meta = _keys(w, data.get("set", {}), "set", ("id", "name", "text"))
    set_id = _str(w, meta, "id")
    seen: set[str] = set()
    cards: dict[str, Card] = {}
    groups: dict[str, list[str]] = {}
    for kind in ("origin", "motivation", "destiny", "story", "hero", "antihero", "quest", "adversary_deck"):
        entries = data.get(kind, [])
        if not isinstance(entries, list):
            raise w.fail(kind, "must be an array of tables ([[{kind}]])")
        for entry in entries:
            card = _card(source, kind, entry, seen)
            cards[card.id] = card
            groups.setdefault(f"act{card.act}" if kind == "story" else kind, []).append(card.id)
    for kind, least in (("origin", 8), ("motivation", 8), ("destiny", 8), ("hero", MIN_HEROES), ("antihero", 1)):
        if len(groups.get(kind, [])) < least:
            raise w.fail(kind, f"needs at least {least} cards for 4 players, has {len(groups.get(kind, []))}")
    for act in (1, 2, 3):
        plain = [c for c in groups.get(f"act{act}", []) if cards[c].type in ("trait", "challenge")]
        if len(plain) < MIN_ACT:
            raise w.fail("story", f"Act {act} needs at least {MIN_ACT} cards for a row of 4 players")
    if "runes" not in data:
        raise w.fail("runes", "is missing")
    if "track" not in data:
        raise w.fail("track", "is missing")
    runes = _runes(source, data["runes"])
    solo = _keys(w, data.get("solo", {}), "solo", ("goal", "per_player", "rise"))
    solo_out = {
        "goal": _int(w, solo, "goal", 5, 1, 50),
        "per_player": _int(w, solo, "per_player", 2, 0, 20),
        "rise": _texts(w, solo, "rise", False),
    }
    for quest in groups.get("quest", []):
        target = cards[quest].adversary
        if target not in cards or cards[target].type != "adversary":
            raise CardSetError(
                f"{source}: card {quest!r}: field 'adversary': {target!r} is not an adversary of the set"
            )
    if groups.get("quest") and not groups.get("adversary_deck"):
        raise w.fail("adversary_deck", "quests need the adversary's deck")
    return CardSet(
        source=source,
        text=text,
        digest=digest(text),
        id=set_id,
        cards=cards,
        origins=tuple(groups["origin"]),
        motivations=tuple(groups["motivation"]),
        destinies=tuple(groups["destiny"]),
        acts=(tuple(groups["act1"]), tuple(groups["act2"]), tuple(groups["act3"])),
        heroes=tuple(groups["hero"]),
        antiheroes=tuple(groups["antihero"]),
        quests=tuple(groups.get("quest", [])),
        adversary_deck=tuple(groups.get("adversary_deck", [])),
        solo=solo_out,
        track=_track(source, data["track"]),
        **runes,
    )
