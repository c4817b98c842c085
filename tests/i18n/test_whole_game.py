"""Issue 14 end to end: a one-round game with an English, a Dutch (Amsterdam) and a French (Paris) seat, played from
the emails' links and the page buttons through a real SMTP server, on both databases.

Every email each seat receives (invitation, turns, score sheet, game over, the French seat's daily digest) has its
subject, text and HTML parts in the seat's language, ``<html lang=…>`` right and its dates in the seat's language
and zone; every page shown to the Dutch and French seats is in their language. Then the untranslated-text scan:
no English sentence of the catalog (``messages.pot``) appears in anything the Dutch or French seat got.
"""

from __future__ import annotations

import html as htmllib
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient

from engine.call_to_glory import Options
from pbem import timing
from pbem.core import games
from pbem.mail import sender
from pbem.scheduler import sweeps
from tests.apps import Table, new_table
from tests.mail.conftest import Received, SMTPServer
from tests.mail.test_end_to_end import text_and_html
from tests.web.test_settings import forms

ANN, DAAN, CLAIRE = "ann@example.com", "daan@example.com", "claire@example.com"
SEATS = (
    games.SeatSpec("Ann", email=ANN, language="en", timezone="UTC"),
    games.SeatSpec("Daan", email=DAAN, language="nl", timezone="Europe/Amsterdam"),
    games.SeatSpec("Claire", email=CLAIRE, language="fr", timezone="Europe/Paris"),
)
LANGUAGE = {ANN: "en", DAAN: "nl", CLAIRE: "fr"}
ZONE = {ANN: "UTC", DAAN: "Europe/Amsterdam", CLAIRE: "Europe/Paris"}
GAME = "Friday game"

DATE = {
    "en": r"(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d",
    "nl": r"(maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag) \d{1,2} [a-z]+ \d{4}, \d\d:\d\d",
    "fr": r"(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) \d{1,2} [a-zéû]+ \d{4}, \d\d:\d\d",
}

# The subject after the game's name, by kind (a score sheet's is the engine's milestone title, in the reader's
# language too), then a sentence of the catalog each kind says in its text part and one in its HTML part (read
# with its tags taken out).
SUBJECT = {
    "invitation": {"en": "You are invited", "nl": "Je bent uitgenodigd", "fr": "Vous êtes invité·e"},
    "game_over": {"en": "Game over", "nl": "Spel afgelopen", "fr": "Partie terminée"},
    "digest": {"en": "What happened", "nl": "Wat er gebeurde", "fr": "Ce qui s'est passé"},
    "scores": {"en": "Round 1 scores", "nl": "Score van ronde 1", "fr": "Scores de la manche 1"},
}
SAYS = {  # kind: language: (in the text part, in the HTML part); spaces are compared as one (U+202F too)
    "invitation": {
        "en": ("You are invited to a game of Call to Glory by email", "You are invited to Friday game"),
        "nl": ("Je bent uitgenodigd voor een spel Call to Glory per e-mail", "Je bent uitgenodigd voor Friday game"),
        "fr": ("Vous êtes invité·e à une partie de Call to Glory par e-mail", "Vous êtes invité·e à Friday game"),
    },
    "turn": {
        "en": ("It is your turn in Friday game, round 1 of 1.", "Then a bot plays the rest of your turn"),
        "nl": (
            "Je bent aan de beurt in Friday game, ronde 1 van 1.",
            "Dan speelt een bot de rest van je beurt voor je.",
        ),
        "fr": (
            "C'est à vous de jouer dans Friday game, manche 1 sur 1.",
            "Ensuite, un bot joue le reste de votre tour",
        ),
    },
    "scores": {
        "en": ("Round 1 of 1 of Friday game is over. The score sheet:", "Ranking after round 1"),
        "nl": ("Ronde 1 van 1 van Friday game is voorbij. Het scoreblad:", "Stand na ronde 1"),
        "fr": ("La manche 1 sur 1 de Friday game est terminée. La feuille de score :", "Classement après la manche 1"),
    },
    "game_over": {
        "en": ("The seed was 14.", "Thank you for playing."),
        "nl": ("De seed was 14.", "Bedankt voor het spelen."),
        "fr": ("La graine était 14.", "Merci d'avoir joué."),
    },
    "digest": {"fr": ("Votre résumé quotidien du", "Vous recevez un e-mail quand c'est de nouveau à vous de jouer.")},
}
MONTH = {
    "nl": r"\d{1,2} (januari|februari|maart|april|mei|juni|juli|augustus|september|oktober|november|december) \d{4}",
    "fr": r"\d{1,2} (janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre) \d{4}",
}
TURN_SUBJECT = {"en": "Round 1 · Your turn", "nl": "Ronde 1 · Jouw beurt", "fr": "Manche 1 · À vous de jouer"}
TURN_WORDS = {lang: says[0] for lang, says in SAYS["turn"].items()}
# What the player's page says in each language, whatever the moment.
PAGE_SAYS = {"nl": ["Tafelpraat", "Wat er gebeurde", "Gedaan: "], "fr": ["Discussion à la table", "Fait : "]}
LINK = re.compile(r"^(.+):\n(http://127\.0\.0\.1:5000/play/\S+)$", re.MULTILINE)
HOW_TO_PLAY = re.compile(r"(http://127\.0\.0\.1:5000/play/\S+)/how-to-play$", re.MULTILINE)
SETTINGS = re.compile(r"http://127\.0\.0\.1:5000(/settings/[^\s\"<]+)")
POT = Path(__file__).resolve().parents[2] / "pbem" / "translations"


@dataclass
class Seen:
    """Everything one seat got during the game: emails (with their kind) and pages (with where they came from)."""

    emails: list[tuple[str, Received]] = field(default_factory=list)
    pages: list[tuple[str, str]] = field(default_factory=list)


class Club:
    """The three players' mailboxes and browsers."""

    def __init__(self, app: Flask, server: SMTPServer, table: Table) -> None:
        self.app, self.server, self.table = app, server, table
        self.browsers: dict[str, FlaskClient] = {addr: app.test_client() for addr in LANGUAGE}
        self.seen: dict[str, Seen] = defaultdict(Seen)
        self.count = 0

    def deliver(self) -> list[Received]:
        with self.app.app_context():
            report = sender.send_due(limit=500)
        assert report.sent == report.claimed, report
        new = self.server.messages[self.count :]
        self.count += len(new)
        for message in new:
            [addr] = message.envelope_to
            self.seen[addr].emails.append((kind_of(message, LANGUAGE[addr]), message))
        return new

    def get(self, addr: str, path: str) -> str:
        response = self.browsers[addr].get(path)
        assert response.status_code == 200, (path, response.status_code)
        self.seen[addr].pages.append((f"GET {path}", response.text))
        return response.text

    def post(self, addr: str, path: str, data: dict[str, str]) -> str:
        response = self.browsers[addr].post(path, data=data)
        assert response.status_code == 303, (path, response.status_code, response.text[:500])
        return urlsplit(response.headers["Location"]).path

    def take_turn(self, message: Received, rng: random.Random) -> None:
        """Follow a move link of the turn email, confirm it, then finish the turn with the page's buttons."""
        [addr] = message.envelope_to
        text, _ = text_and_html(message)
        how_to_play = HOW_TO_PLAY.search(text)
        assert how_to_play, "a turn email links to the rules, under the player's page"
        moves = [url for _label, url in LINK.findall(text) if url != how_to_play.group(1)]
        assert moves, "a turn email has one link per first decision"
        path = urlsplit(rng.choice(moves)).path
        page = self.get(addr, path)
        [confirm] = [fields for action, fields in forms(page) if action == path]
        personal = self.post(addr, path, confirm)
        state = self.table.state()
        decision = (state.turn, state.round, state.status)
        while (state.turn, state.round, state.status) == decision and not state.is_finished:
            page = self.get(addr, personal)
            choices = [(a, f) for a, f in forms(page) if f.get("decision") and f.get("do")]
            assert choices, "the page carries the player through the turn"
            action, fields = rng.choice(choices)
            personal = self.post(addr, action, fields)
            state = self.table.state()
        self.get(addr, personal)  # the page after the turn, with its "done" message


def kind_of(message: Received, lang: str) -> str:
    subject = str(message["Subject"])
    for kind, endings in SUBJECT.items():
        if subject == f"{GAME} · {endings[lang]}":
            return kind
    return "turn" if TURN_WORDS[lang] in " ".join(text_and_html(message)[0].split()) else "scores"


def visible(html: str) -> str:
    """The text a reader sees: tags out (as spaces), entities read, whitespace collapsed."""
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.DOTALL | re.IGNORECASE)
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", html)).split())


# The untranslated-text scan.

PLACEHOLDER = re.compile(r"%\(\w+\)[sdif]|%[sd]|<[^>]+>|\{\w*\}")
MIN_PART = 12
MIN_WORDS = 3
# Game words the engine names itself are the engine's (its own tests check them in every language); none is left out.
GAME_WORDS: set[str] = set()


def _catalog(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def english_parts(lang: str) -> list[tuple[str, str]]:
    """(literal part, msgid) for each catalog text of at least three words that ``lang`` translates differently:
    the parts between placeholders and tags of at least MIN_PART characters, whitespace collapsed."""
    translated = _catalog(POT / lang / "LC_MESSAGES" / "messages.po")
    parts: list[tuple[str, str]] = []
    for message in _catalog(POT / "messages.pot"):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        theirs = translated.get(message.id)
        strings = theirs.string if theirs is not None else ()
        strings = strings if isinstance(strings, tuple) else (strings,)
        for msgid in ids:
            if len(msgid.split()) < MIN_WORDS or msgid in strings:
                continue
            for part in PLACEHOLDER.split(msgid):
                literal = " ".join(part.split())
                kept = any(literal in " ".join(s.split()) for s in strings if s)  # a command, a name: not English
                if len(literal) >= MIN_PART and not kept and literal not in GAME_WORDS:
                    parts.append((literal, msgid))
    return parts


def untranslated(documents: list[tuple[str, str]], lang: str) -> list[str]:
    """Each catalog English text found in the (where, text) documents, as written or in capitals (the text
    part's headings): "where: part (of msgid)"."""
    parts = english_parts(lang)
    found: dict[str, str] = {}
    for where, document in documents:
        readable = visible(document) + "\n" + " ".join(document.split())
        for literal, msgid in parts:
            if (literal in readable or literal.upper() in readable) and literal not in found:
                found[literal] = f"{where}: {literal!r} (of {msgid!r})"
    return list(found.values())


def documents_of(seen: Seen, addr: str) -> list[tuple[str, str]]:
    docs = list(seen.pages)
    for kind, message in seen.emails:
        text, html = text_and_html(message)
        where = f"email {kind} «{message['Subject']}» to {addr}"
        docs += [(f"{where} (subject)", str(message["Subject"])), (f"{where} (text)", text), (f"{where} (html)", html)]
    return docs


def test_the_scan_catches_one_english_sentence_on_a_dutch_page() -> None:
    dutch = (
        '<html lang="nl"><body><h1>Jouw beurt, <bdi>Daan</bdi></h1><p>Je bent aan de beurt in Friday game, ronde 1'
        " van 1.</p><p>Tafelpraat</p></body></html>"
    )
    assert untranslated([("page", dutch)], "nl") == []
    english = dutch.replace("<p>Tafelpraat</p>", "<p>Earlier moves are in the log on your page.</p>")
    [caught] = untranslated([("page", english)], "nl")
    assert caught.startswith("page: 'Earlier moves are in the log on your page.'")
    # A sentence with placeholders is caught by its literal parts, tags and entities too.
    with_name = dutch.replace(
        "<p>Tafelpraat</p>", "<p>Round 1 of 1 of <bdi>Friday game</bdi> is over. The score sheet:</p>"
    )
    assert any("is over. The score sheet:" in c for c in untranslated([("page", with_name)], "nl"))
    assert untranslated([("page", english)], "fr"), "the French scan catches it too"
    shouted = dutch.replace("<p>Tafelpraat</p>", "<h2>WHAT HAPPENED SINCE YOUR LAST TURN</h2>")
    assert untranslated([("text", shouted)], "nl"), "a heading in capitals (the text part's) is caught"


# The game.


def check_email(kind: str, message: Received, addr: str) -> None:
    lang = LANGUAGE[addr]
    text, html = text_and_html(message)
    subject = str(message["Subject"])
    where = f"{kind} email to {addr} «{subject}»"
    assert subject.startswith(f"{GAME} · "), where
    assert re.search(rf'<html\b[^>]*\blang="{lang}"', html), where
    if kind in SUBJECT:
        assert subject == f"{GAME} · {SUBJECT[kind][lang]}", where
    if kind == "turn":
        assert subject == f"{GAME} · {TURN_SUBJECT[lang]}", where
    in_text, in_html = SAYS[kind][lang]
    assert in_text in " ".join(text.split()), f"{where}: the text part says {in_text!r}\n{text}"
    assert in_html in visible(html), f"{where}: the HTML part says {in_html!r}\n{visible(html)}"
    for other, pattern in DATE.items():
        if other != lang:
            for part, body in (("text", text), ("html", visible(html))):
                assert not re.search(pattern, body), f"{where}: a {other} date in the {part} part"
    if kind == "turn":
        for part, body in (("text", " ".join(text.split())), ("html", visible(html))):
            assert re.search(DATE[lang] + rf" \({re.escape(ZONE[addr])}\)", body), f"{where}: {part} part's deadline"
    if kind == "digest":
        for part, body in (("text", text), ("html", visible(html))):
            assert re.search(MONTH[lang], body), f"{where}: the {part} part's day"


@pytest.mark.slow
def test_a_whole_game_in_three_languages(smtp_app: Flask, smtp_server: SMTPServer) -> None:
    table = new_table(smtp_app, list(SEATS), name=GAME, options=Options(rounds=1), seed=14)
    club = Club(smtp_app, smtp_server, table)
    rng = random.Random(14)
    new = club.deliver()
    assert sorted(m.envelope_to[0] for m in new if kind_of(m, LANGUAGE[m.envelope_to[0]]) == "invitation") == sorted(
        LANGUAGE
    )

    # Claire chooses the daily digest on her settings page (the link of her invitation).
    [invitation] = [m for k, m in club.seen[CLAIRE].emails if k == "invitation"]
    found = SETTINGS.search(text_and_html(invitation)[0])
    assert found, "the invitation links to the settings page"
    settings = found.group(1)
    [(action, fields)] = [(a, f) for a, f in forms(club.get(CLAIRE, settings)) if f.get("action") == "choices"]
    club.post(CLAIRE, action, {**fields, "reminders": "on", "score_sheets": "separate", "digest": "daily"})
    assert "Vos choix d'e-mails sont enregistrés." in visible(club.get(CLAIRE, settings))

    digests = 0
    turns = 0
    while True:
        over = [m for m in new if kind_of(m, LANGUAGE[m.envelope_to[0]]) == "game_over"]
        if over:
            break
        asked = [m for m in new if kind_of(m, LANGUAGE[m.envelope_to[0]]) == "turn"]
        assert len(asked) == 1, [(m.envelope_to, m["Subject"]) for m in new]
        club.take_turn(asked[0], rng)
        turns += 1
        assert turns < 300, "the game ends"
        if not digests:  # Claire's digest, once it has something to tell and it is not her turn
            due = timing.utc(table.seat(2).next_digest_at)
            if due is not None:
                with smtp_app.app_context():
                    digests = sweeps.digest_sweep(now=max(due, datetime.now(UTC)))
        new = club.deliver()
        for addr in (DAAN, CLAIRE):
            for message in new:
                if message.envelope_to == [addr]:
                    personal = HOW_TO_PLAY.search(text_and_html(message)[0])
                    if personal:
                        club.get(addr, urlsplit(personal.group(1)).path)

    assert table.state().is_finished and table.verify()
    for addr in LANGUAGE:
        kinds = [k for k, _m in club.seen[addr].emails]
        assert {"invitation", "turn", "scores", "game_over"} <= set(kinds), (addr, kinds)
        for kind, message in club.seen[addr].emails:
            check_email(kind, message, addr)
    assert digests and "digest" in [k for k, _m in club.seen[CLAIRE].emails], "Claire got her daily digest"

    for addr in (DAAN, CLAIRE):
        lang = LANGUAGE[addr]
        assert club.seen[addr].pages
        for where, page in club.seen[addr].pages:
            assert f'<html lang="{lang}">' in page, where
            assert not re.search(DATE["en"], visible(page)), f"{where}: an English date"
        plays = [(w, p) for w, p in club.seen[addr].pages if "/settings/" not in w]
        for text in PAGE_SAYS[lang]:
            assert any(text in p for _w, p in plays), f"the {lang} pages say {text!r}"
        deadline = re.compile(DATE[lang] + rf" \({re.escape(ZONE[addr])}\)")
        assert any(deadline.search(visible(p)) for _w, p in plays), f"a {lang} page shows a deadline on its clock"
        problems = untranslated(documents_of(club.seen[addr], addr), lang)
        assert not problems, "English catalog texts for a {} seat:\n{}".format(lang, "\n".join(problems))
