"""Game records (GAME_RECORD.md, format ``call-to-glory/1``): round trips, explicit inputs, bad input, determinism.

Records go through ``glory.replay``, ``glory.parse_record`` and ``glory.record_of``; every kind of bad
input must raise ``RecordError`` with the index of the bad move (or None) and the section of RULES.md.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from typing import Any

import pytest

from engine import call_to_glory as glory
from engine.call_to_glory import HeuristicBot, Move, Options, RandomBot, RecordError, State
from engine.call_to_glory.cards import TYPES, VALUES
from engine.call_to_glory.codec import tasks_json
from engine.call_to_glory.state import round_deck
from tests.conftest import deck, move

FORMAT = "call-to-glory/1"
FULL = [t for t, v in zip(TYPES, VALUES, strict=True) for _ in range(v)]
"""The 110 cards in R1 order (a valid, unshuffled deck)."""


def record(**fields: Any) -> dict[str, Any]:
    """A valid 2-player record from seed 1 without moves, with ``fields`` replaced."""
    out: dict[str, Any] = {"format": FORMAT, "players": ["ann", "bob"], "seed": 1, "moves": []}
    out.update(fields)
    return out


def moves(*texts: str) -> list[dict[str, Any]]:
    """Record entries from compact move texts (see tests.conftest.move)."""
    return [move(t).to_json() for t in texts]


def error_of(data: Any) -> RecordError:
    """The RecordError that replaying ``data`` raises."""
    with pytest.raises(RecordError) as info:
        glory.replay(data)
    err = info.value
    assert err.to_json() == {"error": {"move": err.move, "rule": err.rule, "message": err.message}}
    assert isinstance(err.message, str) and err.message
    return err


def play_bots(state: State, seed: int, limit: int | None = None) -> list[Move]:
    """Play ``state`` with a heuristic bot in seat 1 and random bots elsewhere, with a few preference
    changes; stop at the end or after ``limit`` moves. Returns the moves made."""
    bots = [HeuristicBot() if p == 0 else RandomBot(seed + p) for p in range(state.n)]
    made: list[Move] = []
    while not state.is_finished and (limit is None or len(made) < limit):
        if len(made) % 37 == 5:
            m = Move.set_preference(state.players[len(made) % state.n], ("larger", "pile2", "smaller")[len(made) % 3])
        else:
            m = bots[state.current].choose(state)
        glory.apply(state, m)
        made.append(m)
    return made


# --- round trips ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "v1", "v2"), [(2, False, False), (3, True, False), (4, False, True), (3, True, True), (2, True, True)]
)
def test_bot_game_round_trip(n: int, v1: bool, v2: bool) -> None:
    """A whole bot game written with record_of, dumped to JSON text and replayed gives the same state."""
    players = ["ann", "bob", "cy", "dee"][:n]
    state = glory.new_game(players, Options(imperial_tasks=v1, ninja_power=v2), seed=40 + n)
    start = glory.to_json(state)
    made = play_bots(state, seed=n)
    assert state.is_finished
    rec = glory.record_of(glory.from_json(start), made)
    text = json.dumps(rec.to_json())
    data = json.loads(text)
    assert list(data) == ["format", "players", "options", "seed", "moves"]
    assert data["format"] == FORMAT == glory.RECORD_FORMAT
    assert data["options"] == {"rounds": 3 if v1 else 4, "imperial_tasks": v1, "ninja_power": v2}
    replayed_record, replayed = glory.replay(data)
    assert glory.to_json(replayed) == glory.to_json(state)
    assert replayed_record.moves == made
    assert replayed_record.to_json() == data
    assert glory.to_json(glory.parse_record(data).start()) == start
    # The record of the finished state is the same record: record_of only takes the game's inputs.
    assert glory.record_of(state, made).to_json() == data


def test_record_of_a_game_in_progress() -> None:
    """A record can be written at any point; replaying it continues from exactly there."""
    state = glory.new_game(["ann", "bob", "cy"], Options(ninja_power=True), seed=9)
    made = play_bots(state, seed=9, limit=101)
    data = json.loads(json.dumps(glory.record_of(state, made).to_json()))
    _, replayed = glory.replay(data)
    assert glory.to_json(replayed) == glory.to_json(state)
    more = play_bots(state, seed=10)
    _, replayed = glory.replay({**data, "moves": data["moves"] + [m.to_json() for m in more]})
    assert glory.to_json(replayed) == glory.to_json(state)


def test_parse_record_checks_inputs_only() -> None:
    """parse_record gives the game's inputs; it does not apply the moves."""
    data = record(players=["ann", "bob", "cy"], options={"ninja_power": True, "first_player": "bob"}, seed=5)
    data["moves"] = moves("bob draw draw1")
    parsed = glory.parse_record(data)
    assert parsed.players == ("ann", "bob", "cy")
    assert parsed.options == Options(ninja_power=True, first_player="bob")
    assert parsed.seed == 5
    start = parsed.start()
    assert glory.to_json(start) == glory.to_json(
        glory.new_game(["ann", "bob", "cy"], Options(ninja_power=True, first_player="bob"), seed=5)
    )
    assert glory.state_summary(start)["current_player"] == "bob"
    # A move that would be illegal is not looked at by parse_record, only by replay.
    data["moves"] = moves("ann draw draw1")
    glory.parse_record(data)
    assert error_of(data).rule == "R4"


# --- explicit decks and task deal -----------------------------------------------------------------------


def test_explicit_decks_and_task_deal_without_seed() -> None:
    """Every round's deck and the task deal given explicitly: no seed needed, dealt exactly as R3 says."""
    decks = [
        deck(3, hands=[["farmer"] * 3, ["monk", "monk", "ninja"], ["emperor"] * 3], draw1=["envoy"], draw2=["daimyo"]),
        list(reversed(FULL)),
        FULL[1:] + FULL[:1],
    ]
    tasks = {
        "ann": {"A": "empress", "B": "samurai", "C": "farmer"},
        "bob": {"A": "emperor", "B": "ninja", "C": "monk"},
        "cy": {"A": "shogun", "B": "envoy", "C": "ninja"},
    }
    data = record(players=["ann", "bob", "cy"], options={"imperial_tasks": True}, decks=decks, tasks=tasks)
    del data["seed"]
    _, state = glory.replay(data)
    summary = glory.state_summary(state)
    assert summary["hands"] == {
        "ann": {"farmer": 3},
        "bob": {"monk": 2, "ninja": 1},
        "cy": {"emperor": 3},
    }
    assert summary["draw_piles"] == [51, 50]
    assert summary["tasks"] == {name: dict(sorted(t.items())) for name, t in tasks.items()}
    full = glory.to_json(state)
    assert full["draw_piles"][0][0] == "envoy"
    assert full["draw_piles"][1][0] == "daimyo"
    assert full["draw_piles"] == [decks[0][9:60], decks[0][60:]]
    # Play it to the end: every round is dealt from its own explicit deck.
    made: list[Move] = []
    bot = HeuristicBot()
    seen = {1}
    while not state.is_finished:
        m = bot.choose(state)
        glory.apply(state, m)
        made.append(m)
        if state.round not in seen and state.status == "playing":
            seen.add(state.round)
            cards = decks[state.round - 1]
            first = state.start_player
            dealt = {state.players[(first + k) % 3]: Counter(cards[3 * k : 3 * k + 3]) for k in range(3)}
            assert {p: Counter(h) for p, h in glory.state_summary(state)["hands"].items()} == dealt
            assert glory.to_json(state)["draw_piles"] == [cards[9:60], cards[60:]]
    assert seen == {1, 2, 3}
    rec = glory.record_of(glory.parse_record(data).start(), made).to_json()
    assert "seed" not in rec
    assert rec["decks"] == decks
    assert rec["tasks"] == tasks
    _, again = glory.replay(json.loads(json.dumps(rec)))
    assert glory.to_json(again) == glory.to_json(state)


def test_explicit_first_deck_then_seed() -> None:
    """Rounds without an explicit deck are shuffled from the seed, as if no deck had been given."""
    first = deck(2, hands=[["farmer"] * 3, ["monk"] * 3])
    with_deck = glory.parse_record(record(decks=[first], seed=77)).start()
    seeded = glory.parse_record(record(seed=77)).start()
    assert list(round_deck(with_deck, 1)) == [TYPES.index(c) for c in first]
    for r in (2, 3, 4):
        assert round_deck(with_deck, r) == round_deck(seeded, r)
    assert glory.state_summary(with_deck)["hands"] == {"ann": {"farmer": 3}, "bob": {"monk": 3}}


def test_missing_seed_is_refused() -> None:
    """A seed is required as soon as one round (or the V1 deal) has nothing explicit."""
    no_seed = record()
    del no_seed["seed"]
    assert (error_of(no_seed).move, error_of(no_seed).rule) == (None, None)
    partial = record(decks=[FULL])
    del partial["seed"]
    assert error_of(partial).move is None
    tasks_no_seed = record(options={"imperial_tasks": True, "rounds": 1}, decks=[FULL])
    del tasks_no_seed["seed"]
    assert error_of(tasks_no_seed).move is None
    tasks_no_seed["tasks"] = {
        "ann": {"A": "empress", "B": "samurai", "C": "farmer"},
        "bob": {"A": "emperor", "B": "ninja", "C": "monk"},
    }
    glory.replay(tasks_no_seed)


# --- bad records: move None, rule None ---------------------------------------------------------------------


def _replace(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


WRONG_COMPOSITION = ["monk" if i == 0 else c for i, c in enumerate(FULL[::-1])]
BAD_RECORDS: dict[str, Any] = {
    "list": [],
    "string": "call-to-glory/1",
    "number": 1,
    "null": None,
    "format missing": {k: v for k, v in record().items() if k != "format"},
    "format wrong": record(format="call-to-glory/2"),
    "format not a string": record(format=1),
    "unknown key": record(comment="hi"),
    "players a string": record(players="ann,bob"),
    "players an object": record(players={"ann": 1, "bob": 2}),
    "players missing": {k: v for k, v in record().items() if k != "players"},
    "one player": record(players=["ann"]),
    "five players": record(players=["a", "b", "c", "d", "e"]),
    "duplicate names": record(players=["ann", "bob", "ann"]),
    "name of 41 characters": record(players=["a" * 41, "bob"]),
    "empty name": record(players=["", "bob"]),
    "name not a string": record(players=[1, "bob"]),
    "name a list": record(players=[["ann"], "bob"]),
    "options a list": record(options=[]),
    "unknown option": record(options={"speed": 1}),
    "rounds a string": record(options={"rounds": "4"}),
    "rounds 0": record(options={"rounds": 0}),
    "rounds 5": record(options={"rounds": 5}),
    "rounds 4 with tasks": record(options={"rounds": 4, "imperial_tasks": True}),
    "rounds true": record(options={"rounds": True}),
    "imperial_tasks 1": record(options={"imperial_tasks": 1}),
    "ninja_power a string": record(options={"ninja_power": "yes"}),
    "first_player not playing": record(options={"first_player": "cy"}),
    "first_player not a string": record(options={"first_player": 0}),
    "task_decks of 3": record(options={"imperial_tasks": True, "task_decks": {"A": ["monk"] * 3, "B": [], "C": []}}),
    "seed 1.5": record(seed=1.5),
    "seed a string": record(seed="x"),
    "seed true": record(seed=True),
    "seed a list": record(seed=[1]),
    "moves missing": {k: v for k, v in record().items() if k != "moves"},
    "moves an object": record(moves={}),
    "decks an object": record(decks={}),
    "deck a string": record(decks=["farmer"]),
    "deck of 109 cards": record(decks=[FULL[:-1]]),
    "deck of 111 cards": record(decks=[[*FULL, "farmer"]]),
    "deck with an unknown type": record(decks=[["ronin" if i == 0 else c for i, c in enumerate(FULL)]]),
    "deck with a capitalised type": record(decks=[["Farmer" if c == "farmer" else c for c in FULL]]),
    "deck of the wrong composition": record(decks=[WRONG_COMPOSITION]),
    "deck with a null card": record(decks=[[None if i == 5 else c for i, c in enumerate(FULL)]]),
    "deck null": record(decks=[None]),
    "five decks for four rounds": record(decks=[FULL] * 5),
    "two decks for one round": record(options={"rounds": 1}, decks=[FULL, FULL]),
    "four decks with tasks": record(options={"imperial_tasks": True}, decks=[FULL] * 4),
    "tasks without the variant": record(tasks={"ann": {"A": "empress", "B": "samurai", "C": "farmer"}}),
    "tasks a list": record(options={"imperial_tasks": True}, tasks=[]),
    "tasks for one player of two": record(
        options={"imperial_tasks": True}, tasks={"ann": {"A": "empress", "B": "samurai", "C": "farmer"}}
    ),
    "task card from the wrong deck": record(
        options={"imperial_tasks": True},
        tasks={
            "ann": {"A": "farmer", "B": "samurai", "C": "farmer"},
            "bob": {"A": "emperor", "B": "ninja", "C": "monk"},
        },
    ),
    "one task card dealt twice": record(
        options={"imperial_tasks": True},
        tasks={
            "ann": {"A": "empress", "B": "samurai", "C": "farmer"},
            "bob": {"A": "empress", "B": "ninja", "C": "monk"},
        },
    ),
    "task hand without deck C": record(
        options={"imperial_tasks": True},
        tasks={"ann": {"A": "empress", "B": "samurai"}, "bob": {"A": "emperor", "B": "ninja", "C": "monk"}},
    ),
}


@pytest.mark.parametrize("name", list(BAD_RECORDS))
def test_bad_record_is_refused_before_any_move(name: str) -> None:
    """A record that is not of the format, or whose inputs are wrong: RecordError with move and rule None."""
    data = BAD_RECORDS[name]
    if isinstance(data, dict) and data.get("moves") == []:
        data = {**data, "moves": moves("ann draw draw1")}
    err = error_of(data)
    assert (err.move, err.rule) == (None, None), err.message
    with pytest.raises(RecordError) as info:
        glory.parse_record(data)
    assert (info.value.move, info.value.rule) == (None, None)


def test_names_of_1_and_40_characters_are_accepted() -> None:
    """R: names are unique, 1-40 characters (GAME_RECORD.md)."""
    name = "é" * 40
    _, state = glory.replay(record(players=["a", name], moves=moves("a draw draw1", "a draw draw2")))
    assert glory.state_summary(state)["current_player"] == "a"
    assert list(glory.state_summary(state)["hands"]) == ["a", name]


def test_defaults_of_omitted_options() -> None:
    """Omitted options take their defaults: 4 rounds (3 with tasks), no variants, the first seat starts."""
    assert glory.parse_record(record()).options.to_json() == {
        "rounds": 4,
        "imperial_tasks": False,
        "ninja_power": False,
    }
    tasks = glory.parse_record(record(options={"imperial_tasks": True}))
    assert tasks.options.to_json()["rounds"] == 3
    assert glory.state_summary(tasks.start())["current_player"] == "ann"


# --- bad moves: their index -------------------------------------------------------------------------------


MALFORMED_MOVES: dict[str, Any] = {
    "not an object": "ann draw draw1",
    "a list": ["ann", "draw", "draw1"],
    "unknown do": {"player": "ann", "do": "pass"},
    "do missing": {"player": "ann", "pile": "draw1"},
    "do not a string": {"player": "ann", "do": 1},
    "unknown pile": {"player": "ann", "do": "draw", "pile": "draw3"},
    "pile not a string": {"player": "ann", "do": "draw", "pile": 1},
    "discard onto a draw pile": {"player": "ann", "do": "discard", "type": "farmer", "pile": "draw1"},
    "missing pile": {"player": "ann", "do": "draw"},
    "missing count": {"player": "ann", "do": "lay", "type": "farmer"},
    "missing type": {"player": "ann", "do": "lay", "count": 2},
    "extra field": {"player": "ann", "do": "draw", "pile": "draw1", "count": 2},
    "extra unknown field": {"player": "ann", "do": "draw", "pile": "draw1", "note": "x"},
    "player missing": {"do": "draw", "pile": "draw1"},
    "player not a string": {"player": 1, "do": "draw", "pile": "draw1"},
    "player empty": {"player": "", "do": "draw", "pile": "draw1"},
    "unknown type": {"player": "ann", "do": "lay", "type": "ronin", "count": 2},
    "capitalised type": {"player": "ann", "do": "lay", "type": "Farmer", "count": 2},
    "count a string": {"player": "ann", "do": "lay", "type": "farmer", "count": "2"},
    "count a float": {"player": "ann", "do": "lay", "type": "farmer", "count": 2.0},
    "count true": {"player": "ann", "do": "lay", "type": "farmer", "count": True},
    "count 0": {"player": "ann", "do": "lay", "type": "farmer", "count": 0},
    "count negative": {"player": "ann", "do": "lay", "type": "farmer", "count": -2},
    "unknown deck": {"player": "ann", "do": "reveal_task", "deck": "D"},
    "unknown preference": {"player": "ann", "do": "preference", "discard_preference": "left"},
    "ninja without target": {"player": "ann", "do": "ninja", "type": "farmer"},
}


@pytest.mark.parametrize("name", list(MALFORMED_MOVES))
@pytest.mark.parametrize("index", [0, 2])
def test_malformed_move_names_its_index_and_no_rule(name: str, index: int) -> None:
    """A move that is not of the format: its index, rule None."""
    good = moves("ann draw draw1", "ann draw draw2")[:index]
    data = record(moves=[*good, MALFORMED_MOVES[name], *moves("bob draw draw1")])
    err = error_of(data)
    assert (err.move, err.rule) == (index, None), err.message


THREE = deck(
    2,
    hands=[["farmer", "farmer", "monk"], ["farmer", "farmer", "farmer"]],
    draw1=["farmer", "monk"],
    draw2=["envoy", "samurai"],
)
"""ann holds farmer 2, monk 1 and draws farmer, envoy; bob holds farmer 3 and draws monk, samurai."""
ANN_DRAWS = ("ann draw draw1", "ann draw draw2")
ILLEGAL: dict[str, tuple[tuple[str, ...], str]] = {
    "unknown player": (("zed draw draw1",), "R4"),
    "unknown player's preference": (("zed pref larger",), "R4"),
    "out of turn": (("bob draw draw1",), "R4"),
    "out of turn after a draw": (("ann draw draw1", "bob draw draw2"), "R4"),
    "same pile twice": (("ann draw draw1", "ann draw draw1"), "R5.1"),
    "empty discard pile": (("ann draw discard1",), "R5.1"),
    "third draw": ((*ANN_DRAWS, "ann draw discard1"), "R5"),
    "discard before drawing": (("ann discard farmer",), "R5"),
    "lay after one draw": (("ann draw draw1", "ann lay farmer 3"), "R5"),
    "lay more than held": ((*ANN_DRAWS, "ann lay farmer 4"), "R5.2"),
    "lay below the minimum": ((*ANN_DRAWS, "ann lay monk 1"), "R5.2"),
    "lay a type not held": ((*ANN_DRAWS, "ann lay emperor 2"), "R5.2"),
    "lay not beating a set": (
        (*ANN_DRAWS, "ann lay farmer 3", "bob draw draw1", "bob draw draw2", "bob lay farmer 3"),
        "R5.2",
    ),
    "discard a type not held": ((*ANN_DRAWS, "ann discard emperor"), "R5.3"),
    "discard onto pile 2 first": ((*ANN_DRAWS, "ann discard monk discard2"), "R6"),
    "discard onto the full pile": (
        (*ANN_DRAWS, "ann discard monk", "bob draw draw1", "bob draw draw2", "bob discard monk discard1"),
        "R6",
    ),
    "discard without a pile where there is a choice": (
        (
            *ANN_DRAWS,
            "ann discard monk",
            "bob draw draw1",
            "bob draw draw2",
            "bob discard monk",
            "ann draw draw1",
            "ann draw draw2",
            "ann discard envoy",
        ),
        "R6",
    ),
    "reveal during play": (("ann reveal A",), "R8"),
    "ninja without the variant": ((*ANN_DRAWS, "ann ninja bob farmer"), "R9"),
}


@pytest.mark.parametrize("name", list(ILLEGAL))
def test_illegal_move_names_its_index_and_rule(name: str) -> None:
    """An illegal move: its index and the section of RULES.md that forbids it; the moves before it are fine."""
    texts, rule = ILLEGAL[name]
    data = record(decks=[THREE], moves=[*moves(*texts), *moves("bob pref pile2")])
    err = error_of(data)
    assert (err.move, err.rule) == (len(texts) - 1, rule), err.message
    _, before = glory.replay(record(decks=[THREE], moves=moves(*texts[:-1])))
    assert not glory.can_apply(before, move(texts[-1]))


NINJA_DECK = deck(
    2,
    hands=[["ninja", "ninja", "monk"], ["monk", "monk", "farmer"]],
    draw1=["ninja", "envoy", "farmer"],
    draw2=["samurai", "emperor", "farmer"],
)
"""ann lays 3 Ninja and takes a miniature (V2); bob lays 2 Monk."""
NINJA_START = (
    "ann draw draw1",
    "ann draw draw2",
    "ann lay ninja 3",
    "bob draw draw1",
    "bob draw draw2",
    "bob lay monk 2",
)


@pytest.mark.parametrize(
    ("texts", "rule"),
    [
        (("ann draw draw1", "ann ninja bob monk"), "R9"),  # no miniature yet
        ((*NINJA_START, "ann ninja ann ninja"), "R9"),  # own set
        ((*NINJA_START, "ann ninja zed monk"), "R9"),  # nobody
        ((*NINJA_START, "ann ninja bob farmer"), "R9"),  # bob has no Farmer set
        (
            (
                *NINJA_START,
                "ann ninja bob monk",
                "ann draw draw1",
                "ann draw draw2",
                "ann discard monk",
                "bob ninja ann ninja",
            ),
            "R9",
        ),  # bob has no miniature
        ((*NINJA_START, "ann ninja bob monk", "ann ninja bob monk"), "R9"),  # the miniature is back in the supply
    ],
)
def test_ninja_misuse_is_r9(texts: tuple[str, ...], rule: str) -> None:
    """V2: Ninja uses without a miniature, on oneself, on a stranger or on a missing set are refused under R9."""
    err = error_of(record(decks=[NINJA_DECK], options={"ninja_power": True}, moves=moves(*texts)))
    assert (err.move, err.rule) == (len(texts) - 1, rule), err.message
    _, state = glory.replay(record(decks=[NINJA_DECK], options={"ninja_power": True}, moves=moves(*NINJA_START)))
    assert glory.state_summary(state)["ninjas"] == {"ann": 1, "bob": 0}
    glory.apply(state, move("ann ninja bob monk"))
    assert glory.state_summary(state)["tables"]["bob"] == {"monk": 1}


def test_move_after_the_end_is_r10() -> None:
    """Once the game is finished, every move, a preference too, is refused under R10 (at its index)."""
    state = glory.new_game(["ann", "bob"], Options(rounds=1), seed=3)
    made = play_bots(state, seed=3)
    assert state.is_finished
    data = glory.record_of(state, made).to_json()
    for extra in (
        {"player": "ann", "do": "preference", "discard_preference": "larger"},
        {"player": "bob", "do": "draw", "pile": "draw1"},
        {"player": state.players[state.current], "do": "draw", "pile": "draw1"},
    ):
        err = error_of({**data, "moves": [*data["moves"], extra]})
        assert (err.move, err.rule) == (len(made), "R10"), err.message


def test_nothing_after_a_bad_move_is_applied() -> None:
    """Replay stops at the first bad move: a later bad move is not the one reported, and moves that would
    be legal without the bad one do not help."""
    skip_bad = moves(*ANN_DRAWS, "ann discard monk", "bob draw draw1")
    bad = {"player": "bob", "do": "draw", "pile": "draw1"}  # bob's turn has not come yet
    err = error_of(record(decks=[THREE], moves=[*skip_bad[:2], bad, *skip_bad[2:], {"do": "nonsense"}]))
    assert (err.move, err.rule) == (2, "R4")
    err = error_of(record(decks=[THREE], moves=[*skip_bad[:2], {"do": "nonsense"}, bad]))
    assert (err.move, err.rule) == (2, None)
    # The same prefix without the bad move replays fine.
    glory.replay(record(decks=[THREE], moves=skip_bad))


def test_replay_does_not_change_its_input() -> None:
    """replay reads the decoded record; it must not modify it."""
    data = record(decks=[THREE], moves=moves(*ANN_DRAWS, "ann lay farmer 3"))
    kept = copy.deepcopy(data)
    glory.replay(data)
    assert data == kept


# --- determinism ---------------------------------------------------------------------------------------------


def _deck_names(state: State, r: int) -> list[str]:
    return [TYPES[t] for t in round_deck(state, r)]


def test_seed_12345_gives_these_decks() -> None:
    """Pinned: a change of the shuffle would make every stored record replay differently."""
    state = glory.new_game(["ann", "bob"], seed=12345)
    assert _deck_names(state, 1)[:5] == ["monk", "daimyo", "samurai", "monk", "monk"]
    assert _deck_names(state, 2)[:5] == ["farmer", "shogun", "monk", "shogun", "samurai"]
    assert _deck_names(state, 3)[:5] == ["farmer", "monk", "samurai", "shogun", "farmer"]
    assert _deck_names(state, 4)[:5] == ["monk", "farmer", "monk", "envoy", "samurai"]
    digests = [hashlib.sha256(",".join(_deck_names(state, r)).encode()).hexdigest()[:16] for r in (1, 2, 3, 4)]
    assert digests == ["84ceb2f90f9e9b1e", "1d0c4eca1be44983", "e6e204b1505fc552", "094d46365031bb88"]
    # What the deck means at the table (R3): ann gets cards 1-3, bob 4-6, then draw pile 1 from card 7 on.
    summary = glory.state_summary(state)
    assert summary["hands"] == {"ann": {"monk": 1, "daimyo": 1, "samurai": 1}, "bob": {"monk": 2, "envoy": 1}}
    assert glory.to_json(state)["draw_piles"][0][:2] == ["envoy", "farmer"]
    assert glory.state_summary(glory.new_game(["a", "b", "c"], seed=0))["hands"]["a"] == {
        "empress": 2,
        "farmer": 1,
    }


def test_seed_12345_gives_this_task_deal() -> None:
    """Pinned V1 deal: each player, from the start player on, gets the next card of each shuffled deck."""
    two = glory.new_game(["ann", "bob"], Options(imperial_tasks=True), seed=12345)
    assert glory.state_summary(two)["tasks"] == {
        "ann": {"A": "empress", "B": "shogun", "C": "monk"},
        "bob": {"A": "emperor", "B": "samurai", "C": "ninja"},
    }
    four = glory.new_game(["ann", "bob", "cy", "dee"], Options(imperial_tasks=True, first_player="cy"), seed=12345)
    assert glory.state_summary(four)["tasks"] == {
        "ann": {"A": "shogun", "B": "ninja", "C": "farmer"},
        "bob": {"A": "daimyo", "B": "envoy", "C": "envoy"},
        "cy": {"A": "empress", "B": "shogun", "C": "monk"},
        "dee": {"A": "emperor", "B": "samurai", "C": "ninja"},
    }


@pytest.mark.parametrize("seed", [0, 1, 12345, -7, 2**64 + 1])
def test_same_seed_same_game(seed: int) -> None:
    """The same seed gives the same decks and deal; a record with the seed replays to the same state."""
    options = Options(imperial_tasks=True, ninja_power=True)
    a = glory.new_game(["ann", "bob", "cy"], options, seed=seed)
    b = glory.new_game(["ann", "bob", "cy"], options, seed=seed)
    assert glory.to_json(a) == glory.to_json(b)
    for r in (1, 2, 3):
        assert round_deck(a, r) == round_deck(b, r)
    _, c = glory.replay(json.loads(json.dumps(glory.record_of(a, []).to_json())))
    assert glory.to_json(c) == glory.to_json(a)


def test_decks_are_derived_per_round_and_seed() -> None:
    """Each round has its own shuffle, each seed its own; the deck does not depend on the players."""
    state = glory.new_game(["ann", "bob"], seed=12345)
    decks = [round_deck(state, r) for r in (1, 2, 3, 4)]
    assert len(set(decks)) == 4
    for d in decks:
        assert sorted(Counter(d).items()) == list(enumerate(VALUES))
    other = glory.new_game(["ann", "bob"], seed=12346)
    assert all(round_deck(other, r) != decks[r - 1] for r in (1, 2, 3, 4))
    four = glory.new_game(["w", "x", "y", "z"], Options(ninja_power=True), seed=12345)
    assert [round_deck(four, r) for r in (1, 2, 3, 4)] == decks


def test_round_two_is_dealt_from_its_own_deck() -> None:
    """Round 2's deal (seen right after round 1 ends) comes from round 2's shuffle, not round 1's."""
    state = glory.new_game(["ann", "bob"], Options(rounds=2), seed=12345)
    bot = HeuristicBot()
    while state.round == 1:
        glory.apply(state, bot.choose(state))
    cards = _deck_names(state, 2)
    first = state.start_player
    expected = {state.players[(first + k) % 2]: dict(Counter(cards[3 * k : 3 * k + 3])) for k in range(2)}
    assert {p: dict(h) for p, h in glory.state_summary(state)["hands"].items()} == expected
    assert glory.to_json(state)["draw_piles"] == [cards[6:58], cards[58:]]
    assert cards != _deck_names(state, 1)


# --- what a viewer may see of a record before the end (H1) ------------------------------------------------


def test_public_record_leaves_out_what_tells_hidden_cards() -> None:
    """Before the end, a record shows players, options and moves, for every viewer the same: the seed is left out
    and named; draws name their pile, never their card (R11)."""
    state = glory.new_game(["ann", "bob", "cy"], Options(imperial_tasks=True, ninja_power=True), seed=77)
    start = state.clone()
    made = play_bots(state, seed=3, limit=80)
    full = json.loads(json.dumps(glory.GAME.record(start, made)))
    for viewer in (None, "ann", "bob"):
        public = glory.GAME.public_record(full, viewer)
        assert public == {
            "format": FORMAT,
            "players": ["ann", "bob", "cy"],
            "options": full["options"],
            "moves": full["moves"],
            "omitted": {"keys": ["seed"]},
        }
    assert all(set(m) <= {"player", "do", "pile"} for m in full["moves"] if m["do"] == "draw")


def test_public_record_is_the_same_however_the_cards_were_fixed() -> None:
    """Nothing of the cards is deducible from it: a game dealt from a seed and the same game dealt from explicit
    decks and task deal give the same public record; the decks and the deal are left out and named."""
    seeded = glory.new_game(["ann", "bob"], Options(imperial_tasks=True), seed=5)
    explicit_data = glory.record_of(seeded, []).to_json()
    del explicit_data["seed"]
    explicit_data["decks"] = [[TYPES[t] for t in round_deck(seeded, r)] for r in (1, 2, 3)]
    explicit_data["tasks"] = tasks_json(seeded.players, seeded.tasks)
    explicit = glory.parse_record(explicit_data).start()
    start = seeded.clone()
    made = play_bots(seeded, seed=1, limit=40)
    by_seed = glory.GAME.public_record(glory.GAME.record(start, made), "ann")
    by_decks = glory.GAME.public_record(glory.GAME.record(explicit, made), "ann")
    assert by_seed.pop("omitted") == {"keys": ["seed"]}
    assert by_decks.pop("omitted") == {"keys": ["decks", "tasks"]}
    assert by_seed == by_decks


def test_a_public_record_is_refused_by_replay_saying_why() -> None:
    state = glory.new_game(["ann", "bob"], seed=8)
    public = glory.GAME.public_record(glory.GAME.record(state, []), None)
    err = error_of(json.loads(json.dumps(public)))
    assert (err.move, err.rule) == (None, None)
    assert "leaves out seed" in err.message and "cannot be replayed" in err.message
