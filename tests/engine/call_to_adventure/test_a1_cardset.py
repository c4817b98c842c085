"""A1 and the card-set format (docs/card-sets.md): the starter set, and one clear error for each kind of bad set."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine import FormatError
from engine.call_to_adventure import CardSetError, parse
from engine.call_to_adventure.cardset import (
    ABILITIES,
    ADVERSARY_EFFECTS,
    AURAS,
    CONDITIONS,
    EFFECTS,
    ICONS,
    PREREQUISITES,
    TIMINGS,
)
from engine.call_to_adventure.files import packaged_set

from .helpers import set_text, small_set


def test_starter_set_has_the_promised_size() -> None:
    cards = packaged_set()
    assert (len(cards.origins), len(cards.motivations), len(cards.destinies)) == (12, 12, 12)
    assert [len(a) for a in cards.acts] == [26, 30, 26]
    kinds = [Counter(cards.cards[c].type for c in act) for act in cards.acts]
    assert [k["ally"] for k in kinds] == [2, 2, 0] and [k["adversary"] for k in kinds] == [0, 2, 2]
    assert [k["trait"] + k["challenge"] for k in kinds] == [24, 26, 24]
    assert (len(cards.heroes), len(cards.antiheroes)) == (20, 20)


def test_starter_set_uses_every_icon_timing_effect_prerequisite_and_condition() -> None:
    cards = packaged_set().cards.values()
    seen_icons = {i for c in cards for i in c.icons} | {i for c in cards for p in c.paths for i in p.icons}
    assert seen_icons == set(ICONS)
    assert {a for c in cards for a in c.abilities} == set(ABILITIES)
    assert {c.timing for c in cards if c.timing} == set(TIMINGS)
    assert {c.effect["kind"] for c in cards if c.effect and c.type != "adversary_deck"} == set(EFFECTS)
    assert {c.effect["kind"] for c in cards if c.type == "adversary_deck"} == set(ADVERSARY_EFFECTS)
    assert len(packaged_set().quests) == 3 and packaged_set().solo["goal"] == 5
    assert {c.prerequisite["kind"] for c in cards if c.prerequisite} == set(PREREQUISITES)
    assert {c.aura["kind"] for c in cards if c.aura} == set(AURAS)
    assert {str(c.power["cost"]) for c in cards if c.power} >= {"1", "2", "sacrifice"}
    assert {s["kind"] for c in cards for s in c.scoring} == set(CONDITIONS)
    modifiers = {c.effect.get("per", "flat").split(":")[0] for c in cards if c.effect and c.effect["kind"] == "modify"}
    assert {"flat", "rune"} <= modifiers and modifiers - {"flat", "rune"}, "+N flat, per rune and per icon"
    powers = [c.power for c in cards if c.power]
    assert {p["timing"] for p in powers} >= {"on_success", "on_fail", "on_gain_icon"}, "every trigger"
    assert any(p.get("once_per_turn") for p in powers), "a power usable once per turn"
    rewards = {
        f
        for c in cards
        for p in c.paths
        for f in ("triumph", "tragedy", "virtue", "corruption", "hero", "antihero", "experience", "harder")
        if getattr(p, f)
    }
    assert rewards == {"triumph", "tragedy", "virtue", "corruption", "hero", "antihero", "experience", "harder"}


def test_translations_fall_back_to_english() -> None:
    cards = packaged_set().cards
    origin = cards[packaged_set().origins[0]]
    assert origin.title("nl") != origin.title("en") and origin.title("fr") != origin.title("en")
    trait = small_set().cards["t-free"]  # the test set names its cards in nl only
    assert trait.title("fr") == trait.title("en") != trait.title("nl")


def test_the_default_runes_and_track_are_data() -> None:
    cards = small_set()
    assert [f.value for f in cards.core[2]] == [1, 0] and cards.core[2][1].card
    assert [f.value for f in cards.dark] == [2, 1] and cards.dark[0].corruption == 1
    assert cards.special["strength"][1].experience == 1 and cards.special["wisdom"][1].hero == 1
    assert [lv.name for lv in cards.track] == ["V2", "V1", "N", "C1", "C2", "C3", "C4"]
    assert [lv.score for lv in cards.track] == [4, 2, 0, 2, 4, 0, -4]


BAD = [
    ('abilities = ["charisma"]', 'abilities = ["luck"]', "'c-hard'", "'abilities'", "unknown icon 'luck'"),
    ('effect = { kind = "reattempt" }', 'effect = { kind = "teleport" }', "'h-again'", "'kind'", "'teleport'"),
    (
        'path = { icons = ["nature"], experience = 1 }',
        'path = { icons = ["natur"] }',
        "'t-free'",
        "'path.icons'",
        "natur",
    ),
    ('id = "t-spend"', 'id = "t-free"', "'t-free'", "'id'", "duplicate id"),
    ("path = { triumph = 3 }", "", "'t-spend'", "'path'", "a trait needs its path"),
    ("bottom = { tragedy = 5 }", "", "'c-hard'", "'bottom'", "top and a bottom path"),
    (
        'timing = "facing"\neffect = { kind = "modify", n = 2 }',
        'timing = "after"\neffect = { kind = "modify", n = 2 }',
        "'h-plus2'",
        "'timing'",
        "before or facing",
    ),
    ('name = { en = "m0 card", nl = "m0 kaart" }', 'name = { nl = "m0 kaart" }', "'m0'", "'name'", "English"),
    ('name = { en = "m1 card", nl = "m1 kaart" }', 'name = { en = "x", de = "y" }', "'m1'", "'name.de'", "language"),
    ("difficulty = 20", 'difficulty = "high"', "'c-hard'", "'difficulty'", "whole number"),
    (
        'prerequisite = { kind = "spend", experience = 2 }',
        'prerequisite = { kind = "bribe" }',
        "'t-spend'",
        "'kind'",
        "'bribe'",
    ),
]


@pytest.mark.parametrize(("old", "new", "card", "field", "words"), BAD, ids=[b[4] for b in BAD])
def test_a_bad_card_gets_one_message_naming_file_card_and_field(
    old: str, new: str, card: str, field: str, words: str
) -> None:
    text = set_text()
    assert old in text
    with pytest.raises(CardSetError) as caught:
        parse(text.replace(old, new, 1), "mine.toml")
    message = str(caught.value)
    assert message.startswith("mine.toml: ") and card in message and field in message and words in message
    assert isinstance(caught.value, FormatError)


def test_a_deck_too_small_for_four_players() -> None:
    text = set_text().replace('[[origin]]\nid = "o5"', '[[motivation]]\nid = "o5"')
    with pytest.raises(CardSetError, match=r"mine.toml: field 'origin': needs at least 8 cards for 4 players, has 7"):
        parse(text, "mine.toml")
    with pytest.raises(CardSetError, match="Act 2 needs at least 5 cards"):
        parse(set_text(act_fill=4), "mine.toml")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("this is [not toml", "mine.toml: not valid TOML"),
        ("[set]\nid = 'x'\n[monsters]\n", "mine.toml: field 'monsters': unknown section"),
        ("[set]\nid = 'x'\n", "field 'origin': needs at least 8"),
    ],
)
def test_broken_files_get_one_line(text: str, words: str) -> None:
    with pytest.raises(CardSetError) as caught:
        parse(text, "mine.toml")
    assert words in str(caught.value) and "\n" not in str(caught.value).strip()


def test_runes_and_track_are_checked() -> None:
    with pytest.raises(CardSetError, match="exactly three core runes"):
        parse(set_text().replace("  [{ value = 1 }, { value = 0 }],\n", "", 1), "mine.toml")
    text = set_text()
    start = text.index("[[track]]")
    end = text.index("[[track]]", start + 1)
    with pytest.raises(CardSetError, match="exactly 7 levels"):
        parse(text[:start] + text[end:], "mine.toml")


def test_a_set_nested_thousands_deep_is_one_clear_error() -> None:
    """M1: no RecursionError, in the loader and in a replay of a record that carries such a set."""
    for deep in ("a = " + "[" * 5000 + "]" * 5000, "a = " + "{b = " * 5000 + "1" + "}" * 5000):
        with pytest.raises(CardSetError, match="nest more than 16 deep"):
            parse(deep, "deep.toml")


def test_a_replay_of_a_record_with_a_deep_set_gives_one_line(tmp_path: Path) -> None:
    record = json.loads((Path(__file__).parent / "oracle_cases" / "F3-coop-card-naming-yourself.json").read_text())
    record["card_set"]["toml"] = "a = " + "[" * 5000 + "]" * 5000
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(record))
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)], cwd=root, capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 2 and done.stderr == b""
    assert "nest more than 16 deep" in json.loads(done.stdout)["error"]["message"]


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("Quick Hands", "Quick \u202eHands", "bidirectional control character U+202E"),
        ("Quick Hands", "\u2067Quick Hands", "bidirectional control character U+2067"),
        ("Quick Hands", "Q" * 61, "61 characters long (at most 60)"),
        ("Quick Hands", "Quick\\u0000Hands", "control character U+0000"),
        ("Quick Hands", "Quick\\nHands", "control character U+000A"),
    ],
)
def test_names_and_texts_have_limits(old: str, new: str, words: str) -> None:
    """L3: a card set's names and texts reach pages and emails: limited, and without characters that hide."""
    text = packaged_set().text.replace(old, new, 1)
    with pytest.raises(CardSetError) as caught:
        parse(text, "mine.toml")
    message = str(caught.value)
    assert words in message and "s1-quick-hands" in message and "name." in message and "mine.toml" in message


def test_a_long_text_is_refused_but_a_line_break_in_it_is_fine() -> None:
    base = packaged_set().text
    line = 'name = { en = "Quick Hands", nl = "Vlugge handen", fr = "Mains agiles" }'
    assert parse(base.replace(line, line + '\ntext = "one\\ntwo"', 1), "ok.toml")
    with pytest.raises(CardSetError, match=r"'text\.en': is 601 characters long"):
        parse(base.replace(line, line + f'\ntext = "{"x" * 601}"', 1), "long.toml")
