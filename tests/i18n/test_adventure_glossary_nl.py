"""Call to Adventure's Dutch outside the engine keeps to its GLOSSARY.md (engine/call_to_adventure/): the catalog's
Dutch for the texts of its templates and its Dutch how-to-play say "vermogen" for a power (not kracht/krachten,
which would also read as the Strength ability, "Kracht"), "symbool" for an icon (not icoon/iconen), "kaartvlak"
for a rune's card face (not kaartzijde) and "tegenspeler" for another player (not tegenstander: the Adversary).
Call to Glory has its own glossary: its texts are not checked here. The engine's own Dutch is checked in
tests/engine/call_to_adventure/test_words_nl_fr.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from babel.messages.extract import DEFAULT_KEYWORDS, extract
from babel.messages.pofile import read_po

from pbem import i18n
from tests.engine.call_to_adventure.helpers import GLOSSARY_NL, not_glossary_nl

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "templates" / "games" / "call-to-adventure"


def _msgids(path: Path) -> Iterator[str]:
    with path.open("rb") as f:
        for _line, message, _comments, _context in extract("jinja2", f, DEFAULT_KEYWORDS):
            yield from (m for m in (message if isinstance(message, tuple) else (message,)) if m)


def _adventure_messages() -> list[tuple[str, list[str]]]:
    """(English, Dutch) of each catalog message the Call to Adventure templates use; a plural gives both forms."""
    used = {m for p in sorted(FOLDER.iterdir()) if p.suffix in (".html", ".txt") for m in _msgids(p)}
    with i18n.po_path("nl").open("rb") as f:
        catalog = read_po(f, locale="nl")
    out = []
    for message in catalog:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        if ids[0] and ids[0] in used:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            out.append((" ".join(ids), [s for s in strings if s]))
    return out


def test_the_check_reads_the_adventure_templates_texts() -> None:
    english = {en for en, _ in _adventure_messages()}
    assert "Icons in the Story: %(icons)s" in english
    assert "Sacrificed allies (icons only): %(allies)s" in english
    assert any(en.startswith("%(num)d card face: ") for en in english)
    assert sum("use powers before or after" in en.replace("\n", " ") for en in english) == 2
    assert not_glossary_nl("gebruik krachten, 1 kaartzijde, Iconen", "use powers, 1 card face, Icons") == [
        "krachten",
        "kaartzijde",
        "Iconen",
    ]
    assert not_glossary_nl("Kracht 2", "Strength 2") == not_glossary_nl("een Kracht-symbool") == []


def test_the_dutch_catalog_says_vermogen_symbool_and_kaartvlak_for_call_to_adventure() -> None:
    messages = _adventure_messages()
    wrong = {en: found for en, strings in messages if (found := [w for s in strings for w in not_glossary_nl(s, en)])}
    assert wrong == {}
    missing = [
        (en, word)
        for en, strings in messages
        for term, word in GLOSSARY_NL
        if re.search(term, en, re.IGNORECASE) and not all(word in s.lower() for s in strings)
    ]
    assert missing == []


def test_the_dutch_how_to_play_says_vermogen_symbool_and_kaartvlak() -> None:
    pages = sorted(FOLDER.glob("*.nl.*"))
    assert [p.name for p in pages] == ["how_to_play.nl.html"]
    wrong = {p.name: not_glossary_nl(p.read_text(encoding="utf-8")) for p in pages}
    assert wrong == {"how_to_play.nl.html": []}
