"""The conformance suite: every game in ``engine.GAMES`` keeps the protocol's promises (engine/protocol.py).

Random playthroughs to the end for every player count and combination of options, checking at each step:
``legal_moves`` is exactly what ``apply`` accepts (with illegal samples), an illegal move changes nothing,
``Decision.id`` changes exactly when that decision is made, the JSON round trip, views that do not change
when what is hidden from their player is dealt anew, and at the end a result and a record that replays to
the same state.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

import engine
from engine import Decision, FormatError, Game, IllegalMove, OptionsError, RecordError
from engine.protocol import LogEntry, command_words

GAMES = sorted(engine.GAMES)
ALL_LANGUAGES = ("en", "nl", "fr")
MAX_STEPS = 5000

DECISION_ID = re.compile(r"[0-9A-Za-z._:-]{1,64}")


def _cases() -> list[Any]:
    cases = []
    for key in GAMES:
        game = engine.GAMES[key]
        for n in range(game.min_players, game.max_players + 1):
            players = [f"p{i}" for i in range(1, n + 1)]
            for k, options in enumerate(game.variants(players)):
                cases.append(pytest.param(key, players, options, id=f"{key}-{n}p-{k}"))
    return cases


def _waiting(game: Game, state: Any) -> dict[str, Decision]:
    waiting = game.waiting_for(state)
    for player, decision in waiting.items():
        assert isinstance(decision, Decision) and decision.id and decision.prompt and decision.wait
        assert game.legal_moves(state, player), f"{player} waits on {decision} with no legal move"
    return waiting


def _check_choices(game: Game, state: Any, players: list[str]) -> None:
    """Every legal move is offered exactly once, with a label: as a choice, or as one of the variants that the
    confirm page of a choice to confirm offers (``refine``, which includes that choice's own move); nothing else is
    offered. A choice not to confirm has no variants."""
    for player in players:
        legal = sorted(json.dumps(m.to_json(), sort_keys=True) for m in game.legal_moves(state, player))
        offered = []
        for group in game.choices(state, player):
            assert group.key and group.title
            for choice in group.choices:
                assert choice.label
                variants = game.refine(state, player, choice.move)
                assert bool(variants) == choice.confirm, choice
                if choice.confirm:
                    assert dict(choice.move) in [dict(v.move) for v in variants], "its own move is a variant"
                for offer in variants or [choice]:
                    assert offer.label
                    offered.append(json.dumps(game.parse_move(player, dict(offer.move)).to_json(), sort_keys=True))
            assert all(c.label and c.reason for c in group.closed)
        assert sorted(offered) == legal, player
        _check_commands(game, state, player, legal)


def _check_commands(game: Game, state: Any, player: str, legal: list[str]) -> None:
    """A reply's commands: one per legal move, distinct words, each read back (by its words, by its number, and in
    every language by its English words) as its move."""
    english = {json.dumps(dict(c.move), sort_keys=True): c.text for c in game.speaking("en").commands(state, player)}
    for lang in ALL_LANGUAGES:
        spoken = game.speaking(lang)
        commands = spoken.commands(state, player)
        moves = sorted(json.dumps(game.parse_move(player, dict(c.move)).to_json(), sort_keys=True) for c in commands)
        assert moves == legal, f"{lang}: the commands are not the legal moves, once each"
        assert len({c.text for c in commands}) == len(commands), f"{lang}: two commands read the same"
        for number, command in enumerate(commands, start=1):
            assert command.text and command_words(command.text) == command.text, command
            key = json.dumps(dict(command.move), sort_keys=True)
            for said in (command.text, command.text.upper() + " !", str(number), english[key]):
                found = spoken.parse_command(state, player, said)
                assert found is not None and dict(found) == dict(command.move), (lang, said)
    assert game.parse_command(state, player, "") is None
    assert game.parse_command(state, player, "this is no command of any game, just table talk") is None


def _check_step(game: Game, state: Any, players: list[str], pool: list[dict[str, Any]], rng: random.Random) -> None:
    """``legal_moves`` equals what ``apply`` accepts, for moves seen before; refused moves change nothing."""
    before = game.to_json(state)
    for player in players:
        legal = {json.dumps(m.to_json(), sort_keys=True) for m in game.legal_moves(state, player)}
        for data in rng.sample(pool, min(6, len(pool))):
            try:
                move = game.parse_move(player, data)
            except FormatError:
                continue
            key = json.dumps(move.to_json(), sort_keys=True)
            trial = game.clone(state)
            try:
                game.apply(trial, move)
                accepted = True
            except IllegalMove as exc:
                accepted = False
                assert exc.rule and exc.message
                assert game.to_json(trial) == before, "an illegal move changed the state"
            if player in game.waiting_for(state):
                assert accepted == (key in legal), (player, data, accepted)
            else:
                assert key not in legal
    assert game.to_json(state) == before


def _check_views(game: Game, state: Any, players: list[str], seed: int) -> None:
    for viewer in players:
        view = game.player_view(state, viewer)
        json.dumps(view)
        lines = game.progress(state, viewer)
        assert all(isinstance(line, str) and line for line in lines)
        other_state = game.reshuffle_hidden(state, viewer, seed)
        assert game.progress(other_state, viewer) == lines, "progress tells only what the viewer may see"
        other = game.reshuffle_hidden(state, viewer, seed)
        assert game.player_view(other, viewer) == view, f"{viewer}'s view shows something hidden from them"


def _check_headlines(game: Game, state: Any, players: list[str], log: list[dict[str, Any]], seed: int) -> None:
    json.dumps(dict(game.template_data()))
    for viewer in players:
        seen = game.player_view(state, viewer, log=log[-60:])["log"]
        line = game.headline(state, viewer, seen)
        assert isinstance(line, str)
        other = game.reshuffle_hidden(state, viewer, seed)
        assert game.headline(other, viewer, seen) == line, "the headline tells only what the viewer may see"


@pytest.mark.parametrize(("key", "players", "options"), _cases())
def test_random_playthrough(key: str, players: list[str], options: dict[str, Any]) -> None:
    game = engine.GAMES[key]
    rng = random.Random(f"{key}{len(players)}{sorted(options.items())}")
    options = game.parse_options(options, players)
    start = game.new_game(players, options, seed=rng.randrange(10**9))
    state = game.clone(start)
    data = game.to_json(state)
    assert game.to_json(game.from_json(json.loads(json.dumps(data)))) == data
    moves: list[Any] = []
    pool: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []
    for step in range(MAX_STEPS):
        waiting = _waiting(game, state)
        if not waiting:
            break
        assert game.result(state) is None
        legal_now = [m for p in waiting for m in game.legal_moves(state, p)]
        pool += [
            {k: v for k, v in m.to_json().items() if k != "player"}
            for m in rng.sample(legal_now, min(3, len(legal_now)))
        ]
        pool = pool[-40:]
        if step % 7 == 0:
            _check_step(game, state, players, pool, rng)
            _check_choices(game, state, players)
            _check_views(game, state, players, step)
        player = rng.choice(sorted(waiting))
        move = rng.choice(game.legal_moves(state, player))
        before = game.clone(state)
        events: list[dict[str, Any]] = []
        game.apply(state, move, events)
        log += events
        moves.append(move)
        after = game.waiting_for(state)
        for decision in after.values():
            assert DECISION_ID.fullmatch(decision.id), f"{decision.id!r} is not a decision id links can carry"
        if player in after:
            assert after[player].id != waiting[player].id, "a decision was made but its id stayed"
        for other, decision in waiting.items():
            if other != player and other in after:
                assert after[other].id == decision.id, f"{other}'s decision changed though {player} moved"
        for milestone in game.milestones(before, state):
            assert milestone.kind and milestone.title
        if step % 7 == 3:
            _check_headlines(game, state, players, log, step)
        if step % 11 == 0:
            data = game.to_json(state)
            assert game.to_json(game.from_json(json.loads(json.dumps(data)))) == data
    else:
        pytest.fail(f"no end after {MAX_STEPS} moves")
    result = game.result(state)
    assert all(game.progress(state, p) == [] for p in players), "no progress lines once the game is over"
    assert result is not None and set(result.ranking) == set(players)
    assert set(result.winners) <= set(players) and set(result.scores) == set(players)
    assert not any(game.legal_moves(state, p) for p in players)
    record = json.loads(json.dumps(game.record(start, moves)))
    assert record["format"] == game.record_format
    replayed_start, replayed, replayed_moves = game.replay(record)
    assert game.to_json(replayed_start) == game.to_json(start)
    assert game.to_json(replayed) == game.to_json(state)
    assert [m.to_json() for m in replayed_moves] == [m.to_json() for m in moves]
    for viewer in players:
        view = game.player_view(state, viewer, log=log)
        assert len(view["log"]) == len(log)
        lines = game.narrate([LogEntry(viewer, "link", view["log"])], viewer)
        assert all(isinstance(line, str) and line for line in lines)


@pytest.mark.parametrize("key", GAMES)
def test_bots_make_only_legal_moves(key: str) -> None:
    game = engine.GAMES[key]
    players = [f"p{i}" for i in range(1, game.max_players + 1)]
    for name, make in game.bots.items():
        state = game.new_game(players, {}, seed=3)
        bot = make(5)
        for _ in range(MAX_STEPS):
            waiting = game.waiting_for(state)
            if not waiting:
                break
            player = sorted(waiting)[0]
            move = bot.choose(state, player)
            assert move.to_json() in [m.to_json() for m in game.legal_moves(state, player)], name
            game.apply(state, move)
        assert game.result(state) is not None, f"the {name} bot did not finish a game"


@pytest.mark.parametrize("key", GAMES)
def test_identity_and_bad_input(key: str) -> None:
    game = engine.GAMES[key]
    assert engine.GAMES[game.key] is game and engine.game_of_format(game.record_format) is game
    assert 1 <= game.min_players <= game.max_players
    assert {"heuristic", "random"} <= set(game.bots)
    players = [f"p{i}" for i in range(1, game.min_players + 1)]
    with pytest.raises(OptionsError) as caught:
        game.parse_options({"no such option": 1}, players)
    assert "no such option" in caught.value.errors
    with pytest.raises(FormatError):
        game.new_game(["p1"] * max(2, game.min_players), {}, seed=1)
    with pytest.raises(FormatError):
        game.new_game([f"p{i}" for i in range(game.max_players + 1)], {}, seed=1)
    for bad in (None, [], "x", {"do": None}, {"do": "no such move"}):
        with pytest.raises(FormatError):
            game.parse_move(players[0], bad)
    for bad in (None, [], {"format": game.record_format}, {"format": game.record_format, "players": 3}):
        with pytest.raises(RecordError):
            game.replay(bad)
    with pytest.raises(FormatError):
        game.from_json({"format": "something else"})
    state = game.new_game(players, game.variants(players)[0], seed=1)
    with pytest.raises(FormatError):
        game.player_view(state, "nobody")


LANGUAGES = ("nl", "fr")
ENGLISH_GAME_WORDS = {
    # games whose words are translated: English words that must not show through in another language
    "call-to-glory": re.compile(
        r"\b(Emperors?|Empress(es)?|Samurai|Envoys?|Monks?|Farmers?|draw piles?|discard piles?|rounds?|turns?|"
        r"[Yy]ou|your|drew|laid|discarded|the|and|with|[Ll]ay|[Dd]raw|[Dd]iscard|[Rr]eveal|task|cards?|players?|"
        r"Imperial|[Tt]he power)\b"
    ),
}


def _language_cases() -> list[Any]:
    cases = []
    for key in GAMES:
        game = engine.GAMES[key]
        for n in range(game.min_players, game.max_players + 1):
            players = [f"p{i}" for i in range(1, n + 1)]
            variants = game.variants(players)
            for k in sorted({0, len(variants) - 1}):
                for lang in LANGUAGES:
                    cases.append(pytest.param(key, lang, players, variants[k], id=f"{key}-{lang}-{n}p-{k}"))
    return cases


def _texts_of_options(game: Game, players: list[str]) -> list[str]:
    texts: list[str] = []
    for field in game.option_fields:
        texts += [field.label, *(label for _, label in field.choices)]
        texts += [field.help] if field.help else []
    with pytest.raises(OptionsError) as caught:
        game.parse_options({"no such option": 1}, players)
    texts += list(caught.value.errors.values())
    return texts


def _texts_now(game: Game, state: Any, players: list[str]) -> list[str]:
    texts = [d.prompt for d in game.waiting_for(state).values()]
    for viewer in players:
        texts += game.progress(state, viewer)
        for group in [*game.choices(state, viewer), *game.settings(state, viewer)]:
            texts.append(group.title)
            for choice in group.choices:
                texts += [choice.label, game.describe_move(choice.move)] + ([choice.note] if choice.note else [])
            texts += [c.reason for c in group.closed] + [c.label for c in group.closed if c.label]
    return texts


def _words_of(group: Any) -> list[str]:
    return [json.dumps(c.move, sort_keys=True) for c in group.choices]


@pytest.mark.parametrize(("key", "lang", "players", "options"), _language_cases())
def test_every_text_in_every_language(key: str, lang: str, players: list[str], options: dict[str, Any]) -> None:
    """``speaking(lang)`` (and ``for_options``): the same game (states, moves and choices shared), every text a
    non-empty str in ``lang`` (for a game with words in that language, no English game word shows through)."""
    english = engine.GAMES[key]
    game = english.speaking(lang)
    assert game.speaking(lang) is game and english.speaking(lang) is game, "one object per language"
    assert english.speaking("en") is english and english.speaking("xx").lang == english.speaking("en").lang == "en"
    assert game.key == english.key and game.record_format == english.record_format
    foreign = ENGLISH_GAME_WORDS.get(key)
    if foreign is not None:
        assert game.lang == lang
    rng = random.Random(f"{key}{lang}{len(players)}{sorted(options.items())}")
    texts = _texts_of_options(game, players)
    options = game.parse_options(options, players)
    game = game.for_options(options)  # the words of one game: what its options name
    assert (game.key, game.lang) == (english.key, english.speaking(lang).lang), "the same game, in the same language"
    state = game.new_game(players, options, seed=rng.randrange(10**9))
    before = game.clone(state)
    log: list[dict[str, Any]] = []
    for _ in range(MAX_STEPS):
        waiting = game.waiting_for(state)
        if not waiting:
            break
        texts += _texts_now(game, state, players)
        for player in waiting:
            mine = [_words_of(g) for g in game.choices(state, player)]
            assert mine == [_words_of(g) for g in english.choices(state, player)], "only the words differ"
        player = rng.choice(sorted(waiting))
        move = rng.choice(game.legal_moves(state, player))
        events: list[dict[str, Any]] = []
        game.apply(state, move, events)
        log += events
        for milestone in game.milestones(before, state):
            texts.append(milestone.title)
        before = game.clone(state)
        for viewer in [*players, None]:
            seen = events if viewer is None else game.player_view(state, viewer, log=events)["log"]
            texts += [game.describe(event, viewer) for event in seen]
            if viewer is not None:
                recent = game.player_view(state, viewer, log=log[-60:])["log"]
                line = game.headline(state, viewer, recent)
                assert isinstance(line, str)
                texts += [line] if line else []
    else:
        pytest.fail(f"no end after {MAX_STEPS} moves")
    for viewer in players:
        seen = game.player_view(state, viewer, log=log)["log"]
        texts += game.narrate([LogEntry(viewer, "link", seen), LogEntry(viewer, "timeout", seen[-3:])], viewer)
    assert texts and all(isinstance(text, str) and text.strip() for text in texts)
    if foreign is not None:
        found = sorted({m.group(0) for text in texts for m in foreign.finditer(text)})
        assert not found, f"English in {lang}: {found} in " + next(t for t in texts if foreign.search(t))


def test_every_package_under_engine_is_a_registered_game() -> None:
    """Adding a game is adding a folder: ``import engine`` imports every package under engine/, and each registers
    exactly one game of its own (the test-only game is registered from tests/games/)."""
    own = {
        key: type(game).__module__.split(".")[1]
        for key, game in engine.GAMES.items()
        if game.__module__.startswith("engine.")
    }
    assert sorted(own.values()) == sorted(engine.GAME_PACKAGES), "a package under engine/ registered no game, or two"


@pytest.mark.parametrize("key", GAMES)
def test_public_record_keeps_the_record_shape(key: str) -> None:
    game = engine.GAMES[key]
    players = [f"p{i}" for i in range(1, game.max_players + 1)]
    start = game.new_game(players, {}, seed=4)
    state = game.clone(start)
    moves = []
    for _ in range(30):
        waiting = sorted(game.waiting_for(state))
        if not waiting:
            break
        move = game.legal_moves(state, waiting[0])[0]
        game.apply(state, move)
        moves.append(move)
    record = json.loads(json.dumps(game.record(start, moves)))
    for viewer in [None, *players]:
        public = game.public_record(record, viewer)
        assert public["format"] == record["format"] and len(public["moves"]) == len(record["moves"])
        json.dumps(public)
