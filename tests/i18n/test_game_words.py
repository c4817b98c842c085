"""One translation path for a game's words: the engine's. No game's templates translate (``_``, ``ngettext``,
``{% trans %}``) a word that the game's ``page_texts`` already gives, nor import a file of such translations; the
server's own texts stay in the catalogs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract

import engine
from engine.protocol import Game

from .helpers import strings

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates" / "games"
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
IMPORTS = re.compile(r"""{%-?\s*(?:from|import|include)\s+["']([^"']+)["']""")


def _templates(key: str) -> list[Path]:
    folder = TEMPLATES / key
    paths = folder.iterdir() if folder.is_dir() else iter(())
    return sorted(p for p in paths if p.suffix in (".html", ".txt") and not p.name.startswith("how_to_play"))


def _msgids(path: Path) -> Iterator[str]:
    with path.open("rb") as f:
        for _line, message, _comments, _context in extract("jinja2", f, DEFAULT_KEYWORDS):
            yield from (m for m in (message if isinstance(message, tuple) else (message,)) if m)


def _pattern(msgid: str) -> re.Pattern[str]:
    """The texts a msgid gives, whatever its placeholders hold."""
    parts = PLACEHOLDER.split(msgid)
    return re.compile("".join(".+" if i % 2 else re.escape(part) for i, part in enumerate(parts)) + r"\Z")


def _engine_texts(rules: Game, moves: int = 300) -> set[str]:
    """Every text ``page_texts`` gives (in English) for each player's view and the organiser's along a game the
    game's first bot plays out."""
    players = ["ann", "bob"]
    state = rules.new_game(players, rules.parse_options({}, players), 1)
    bot = next(iter(rules.bots.values()))(1) if rules.bots else None
    out: set[str] = set()
    for _ in range(moves):
        views = [rules.player_view(state, p) for p in players] + [rules.organiser_view(state)]
        out.update(s for view in views for s in strings(rules.page_texts(view, "ann")))
        waiting = rules.waiting_for(state)
        if not waiting or bot is None:
            break
        player = next(iter(waiting))
        rules.apply(state, bot.choose(state, player))
    return {s for s in out if s.strip()}


@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_no_game_template_translates_a_word_its_engine_gives(key: str) -> None:
    given = _engine_texts(engine.GAMES[key])
    translated = []
    for path in _templates(key):
        for msgid in _msgids(path):
            pattern = _pattern(msgid)
            found = sorted(s for s in given if pattern.match(s))
            if found:
                translated.append((path.name, msgid, found[:3]))
    assert translated == [], "words the game's page_texts gives, translated again by its templates"


@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_no_game_template_imports_a_file_of_words(key: str) -> None:
    imports = [(p.name, name) for p in _templates(key) for name in IMPORTS.findall(p.read_text())]
    assert [(where, name) for where, name in imports if Path(name).stem.strip("_") == "words"] == []


def test_call_to_adventure_has_no_words_template_and_its_engine_gives_the_words_checked() -> None:
    assert not (TEMPLATES / "call-to-adventure" / "_words.html").exists()
    given = _engine_texts(engine.GAMES["call-to-adventure"])
    for word in ("Act I", "trait", "top path:", "core rune", "no icons yet", "Sets of story icons", "Destiny score"):
        assert word in given, word
    assert any(re.fullmatch(r"\d+ experience", s) for s in given)


def test_the_check_is_not_vacuous() -> None:
    assert _pattern("%(num)d Triumph").match("2 Triumph")
    assert _pattern("%(label)s:").match("Origin:")
    assert not _pattern("Act %(act)s").match("The Act I row")
