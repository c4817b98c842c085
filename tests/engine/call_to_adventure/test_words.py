"""Every text of Call to Adventure comes from its ``Words``: a language is a subclass with other sentences."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from engine import GAMES
from engine.call_to_adventure import CallToAdventure, apply, legal_moves
from engine.call_to_adventure.files import packaged_set
from engine.call_to_adventure.words import EN, Words
from engine.protocol import LogEntry

from .helpers import set_text

GAME = GAMES["call-to-adventure"]


class Marked(Words):
    """English with every sentence marked, to see that no text bypasses the table."""

    lang: ClassVar[str] = "en"
    TEXTS: ClassVar[Mapping[str, str]] = {k: f"~{v}" for k, v in Words.TEXTS.items()}


def test_speaking_gives_one_object_per_language_and_english_for_others() -> None:
    assert GAME.speaking("en") is GAME and GAME.speaking("xx") is GAME
    dutch, french = GAME.speaking("nl"), GAME.speaking("fr")
    assert (dutch.lang, french.lang) == ("nl", "fr") and dutch.speaking("nl") is dutch
    assert dutch.speaking("en") is GAME and french.speaking("nl") is dutch
    assert GAME.lang == "en" and GAME.words is EN


def _own(text: str) -> dict[str, Any]:
    return GAME.parse_options({"card_set": {"source": "mine.toml", "text": text}}, ["ann", "bob"])


def test_a_game_of_its_own_card_set_names_its_own_cards_in_every_language() -> None:
    options = _own(set_text())
    mine = GAME.for_options(options)
    gained = {"event": "gain", "player": "bob", "card": "c-easy"}
    assert GAME.describe(gained, "ann") == "bob gained c-easy."  # the starter set does not know the card
    assert mine.describe(gained, "ann") == "bob gained c-easy card."
    assert mine.speaking("nl").describe(gained, "ann") == "bob verwierf c-easy kaart."
    assert mine.narrate([LogEntry("bob", "bob", [gained])], "ann") == ["bob gained c-easy card."]
    assert "c-easy card" in mine.describe_move({"do": "attempt", "card": "c-easy", "path": "top"})
    assert mine.lang == "en" and mine.key == GAME.key and GAME.for_options(options) is mine
    assert mine.speaking("nl").speaking("en") is mine and mine.speaking("nl").for_options({}) is GAME.speaking("nl")


def test_an_own_card_with_a_starter_card_s_id_goes_by_its_own_name() -> None:
    text = packaged_set().text.replace('en = "Lighthouse Orphan"', 'en = "Our Own Orphan"')
    chose = {"event": "gain", "player": "ann", "card": "o-lighthouse-orphan"}
    assert GAME.describe(chose, "bob") == "ann gained Lighthouse Orphan."
    assert GAME.for_options(_own(text)).describe(chose, "bob") == "ann gained Our Own Orphan."


def test_the_starter_set_and_unreadable_options_name_cards_as_the_registered_game() -> None:
    for options in ({}, {"card_set": "starter"}, {"card_set": {"source": "x.toml", "text": "not toml ["}}, []):
        assert GAME.for_options(options) is GAME  # type: ignore[arg-type]
        assert GAME.speaking("fr").for_options(options) is GAME.speaking("fr")  # type: ignore[arg-type]


def test_every_text_goes_through_the_words() -> None:
    marked = CallToAdventure(Marked())
    texts: list[str] = [f.label for f in marked.option_fields]
    for options in ({"allies_adversaries": True}, {"coop": True}):
        state = marked.new_game(["p1", "p2"], options, 4)
        before = state.clone()
        rng = random.Random(1)
        log: list[dict[str, Any]] = []
        for _step in range(250):
            waiting = marked.waiting_for(state)
            if not waiting:
                break
            texts += [d.prompt for d in waiting.values()]
            for viewer in state.players:
                texts += marked.progress(state, viewer)
                for group in marked.choices(state, viewer):
                    texts.append(group.title)
                    for choice in group.choices:
                        texts += [choice.label, marked.describe_move(choice.move)]
                        texts += [choice.note] if choice.note else []
                        for variant in marked.refine(state, viewer, choice.move):
                            texts += [variant.label, variant.note]
                    texts += [c.reason for c in group.closed]
                view = marked.player_view(state, viewer)
                texts += [line for info in view["cards"].values() for line in info["lines"]]
                texts += [r for per in view.get("odds", {}).values() for side in per.values() if (r := side["reason"])]
            player = sorted(waiting)[0]
            events: list[dict[str, Any]] = []
            apply(state, rng.choice(legal_moves(state, player)), events)
            log += events
        texts += [m.title for m in marked.milestones(before, state)]
        for viewer in [*state.players, None]:
            texts += marked.narrate([LogEntry("p1", "link", log)], viewer)
    unmarked = [t for t in texts if not t.startswith("~")]
    assert not unmarked, unmarked[:5]
    assert len(texts) > 500


def test_events_and_moves_have_their_own_sentences() -> None:
    state = GAME.new_game(["p1", "p2", "p3"], {"allies_adversaries": True}, 8)
    rng = random.Random(5)
    seen: set[str] = set()
    while GAME.waiting_for(state):
        player = sorted(GAME.waiting_for(state))[0]
        for move in legal_moves(state, player):
            body = {k: v for k, v in move.to_json().items() if k != "player"}
            assert GAME.describe_move(body) != move.do, body
        events: list[dict[str, Any]] = []
        apply(state, rng.choice(legal_moves(state, player)), events)
        for event in events:
            seen.add(event["event"])
            assert not GAME.describe(event, "p1").endswith(f": {event['event']}."), event
    assert {"turn", "gain", "cast", "end", "game_over"} <= seen
