"""The catalogs are complete: every text has its Dutch and French translation, none fuzzy; and the check that says
so catches an untranslated and a fuzzy entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import i18n

PO_HEADER = """msgid ""
msgstr ""
"Project-Id-Version: pbem\\n"
"Content-Type: text/plain; charset=utf-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

"""


@pytest.mark.parametrize("lang", [code for code in i18n.SUPPORTED if code != i18n.DEFAULT])
def test_every_supported_language_has_a_complete_catalog(lang: str) -> None:
    report = i18n.check_catalog(lang)
    assert report.total > 0
    assert report.untranslated == ()
    assert report.fuzzy == ()
    assert report.complete


def test_the_catalogs_are_those_of_the_supported_languages() -> None:
    assert sorted(i18n.translated_languages()) == sorted(c for c in i18n.SUPPORTED if c != i18n.DEFAULT)


def _write(root: Path, lang: str, body: str) -> None:
    folder = root / lang / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / f"{i18n.DOMAIN}.po").write_text(PO_HEADER + body, encoding="utf-8")


def test_the_check_catches_untranslated_and_fuzzy_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "TRANSLATIONS", tmp_path)
    _write(
        tmp_path,
        "nl",
        'msgid "Your turn"\nmsgstr "Jij bent aan de beurt"\n\n'
        'msgid "Game over"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Reminder"\nmsgstr "Herinnering"\n\n'
        'msgid "%(num)d card"\nmsgid_plural "%(num)d cards"\nmsgstr[0] "%(num)d kaart"\nmsgstr[1] ""\n',
    )
    report = i18n.check_catalog("nl")
    assert report.total == 4
    assert set(report.untranslated) == {"Game over", "%(num)d card"}
    assert report.fuzzy == ("Reminder",)
    assert not report.complete


def test_the_check_passes_a_complete_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "TRANSLATIONS", tmp_path)
    _write(
        tmp_path,
        "fr",
        'msgid "Your turn"\nmsgstr "À vous de jouer"\n\n'
        'msgid "%(num)d card"\nmsgid_plural "%(num)d cards"\nmsgstr[0] "%(num)d carte"\nmsgstr[1] "%(num)d cartes"\n',
    )
    report = i18n.check_catalog("fr")
    assert (report.total, report.untranslated, report.fuzzy, report.complete) == (2, (), (), True)
