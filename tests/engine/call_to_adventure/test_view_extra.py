"""The view's additions for pages: cards described, difficulties, exact odds, rune values, the score's parts."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any

from engine import GAMES
from engine.call_to_adventure import State, legal_moves, parse
from engine.call_to_adventure.cardset import Card
from engine.call_to_adventure.rules import apply, breakdown, difficulty, faces, runes
from engine.call_to_adventure.state import Attempt, Player
from engine.call_to_adventure.view import player_view

from .helpers import ONE, ZERO, do, game, set_text
from .test_a10_end import WORKED

GAME = GAMES["call-to-adventure"]


def _brute(state: State, p: Player, card: Card, dark: int, need: int) -> int:
    """The chance by listing every way the runes can fall (no convolution)."""
    rs = runes(state.cards, p, card, dark)
    options = [faces(state.cards, r) for r in rs]
    ways = list(itertools.product(*options))
    hits = sum(1 for way in ways if sum(f.value for f in way) >= need)
    return 100 * hits // len(ways)


def test_odds_match_every_way_the_runes_can_fall() -> None:
    for origins, xp, level in ((["o-str"], 3, 2), (["o-wis"], 1, 2), (["o0"], 3, 6), (["o-str"], 0, 1)):
        state = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=origins)
        p = state.ps[0]
        p.xp, p.level = xp, level
        view = player_view(state, "ann")
        most = 0 if level == 6 else min(3, xp)
        assert set(view["odds"]) == {"c-easy", "c-five", "f1-0"}
        for c, per in view["odds"].items():
            card = state.cards.cards[c]
            for i, side in enumerate(("top", "bottom")):
                need = difficulty(state, Attempt(c, 0, i))
                assert view["difficulty"][c][side] == need
                chances = per[side]["chances"]
                assert chances == [_brute(state, p, card, k, need) for k in range(most + 1)]
                assert len(per[side]["runes"]) == len(runes(state.cards, p, card, 0))
                assert per[side]["open"] and per[side]["reason"] == ""


def test_odds_count_an_ally_under_the_challenge_and_a_waiting_curse() -> None:
    state = game(act1=["c-easy", "c-five", "f1-0", "t-free"], origins=["o-str"])
    plain = player_view(state, "ann")["odds"]["c-five"]["top"]["chances"]
    state.under["c-five"] = "al-wise"
    view = player_view(state, "ann")
    assert view["difficulty"]["c-five"] == {"top": 6, "bottom": 6}
    harder = view["odds"]["c-five"]["top"]["chances"]
    assert harder != plain and all(h <= c for h, c in zip(harder, plain, strict=True))
    assert "al-wise" in view["cards"]
    state.under.clear()
    state.curses.append((1, 0, "a-curse2"))
    cursed = player_view(state, "ann")["odds"]["c-five"]["top"]["chances"]
    assert cursed == [_brute(state, state.ps[0], state.cards.cards["c-five"], k, 7) for k in range(4)]


def test_a_finished_act_is_closed_with_its_reason() -> None:
    state = game(act1=["c-easy", "c-five", "f1-0", "t-free"])
    state.ps[0].story = [("f1-1", 0), ("f1-2", 0), ("f1-3", 0)]
    odds = player_view(state, "ann")["odds"]["c-easy"]["top"]
    assert not odds["open"] and odds["reason"] == "Act I is over for you"
    assert player_view(state, "bob")["odds"]["c-easy"]["top"]["open"]


def test_cast_runes_show_their_value_and_mark() -> None:
    state = game(act1=["c-easy"], origins=["o-str"], casts=[[ONE, ZERO, 1, 0, 1, 0]])
    do(state, "ann", "attempt", card="c-easy", path="bottom")
    do(state, "ann", "dark")
    do(state, "ann", "cast")
    shown = player_view(state, "ann")["attempt"]
    assert state.phase == "draw"  # the card face waits for a draw
    runes_shown = shown["runes"]
    assert [r["value"] for r in runes_shown] == [1, 0, 0, 2, 1, 2]
    assert [r["mark"] for r in runes_shown] == ["", "", "card", "", "", "corruption"]


def _ids(value: Any, known: Mapping[str, Any]) -> set[str]:
    """Every string in a JSON value that is a card id of the set."""
    if isinstance(value, str):
        return {value} if value in known else set()
    if isinstance(value, dict):
        return set().union(*(_ids(k, known) | _ids(v, known) for k, v in value.items())) if value else set()
    if isinstance(value, list):
        return set().union(*(_ids(v, known) for v in value)) if value else set()
    return set()


def _check_cards(state: State, seed: int) -> None:
    for viewer in state.players:
        view = GAME.player_view(state, viewer)
        shown = {k: v for k, v in view.items() if k not in ("cards", "odds", "difficulty")}
        assert set(view["cards"]) == _ids(shown, state.cards.cards), viewer
        for c, info in view["cards"].items():
            card = state.cards.cards[c]
            assert info["id"] == c and info["type"] == card.type and info["name"] == card.title()
            assert isinstance(info["lines"], list) and all(isinstance(line, str) for line in info["lines"])
        assert set(view.get("odds", ())) <= set(view["cards"])
        other = GAME.reshuffle_hidden(state, viewer, seed)
        assert GAME.player_view(other, viewer) == view


def test_the_cards_of_a_view_are_exactly_those_it_shows_and_nothing_hidden() -> None:
    for options in ({"allies_adversaries": True}, {"coop": True}, {}):
        names = ["p1", "p2", "p3"]
        state = GAME.new_game(names, options, 11)
        rng = random.Random(3)
        for step in range(400):
            waiting = GAME.waiting_for(state)
            if not waiting:
                break
            player = sorted(waiting)[0]
            if step % 9 == 0:
                _check_cards(state, step)
            apply(state, rng.choice(legal_moves(state, player)))
        _check_cards(state, 1)


def test_the_breakdown_sums_to_the_score_of_finished_games() -> None:
    for seed in range(4):
        state = GAME.new_game(["a", "b", "c"], {"allies_adversaries": seed % 2 == 1}, seed)
        bots = {name: GAME.bots["heuristic"](seed) for name in state.players}
        while GAME.waiting_for(state):
            player = sorted(GAME.waiting_for(state))[0]
            apply(state, bots[player].choose(state, player))
        view = GAME.player_view(state, "a")
        for name, score in zip(state.players, state.scores, strict=True):
            parts = view["players"][name]["breakdown"]
            assert set(parts) == {
                "triumph",
                "tragedy",
                "icon_sets",
                "cards_played",
                "experience",
                "track",
                "destiny",
                "total",
            }
            assert parts["total"] == score == sum(v for k, v in parts.items() if k != "total")
        assert view["level_names"] == ["V2", "V1", "N", "C1", "C2", "C3", "C4"]


def test_the_worked_example_breaks_down_to_41() -> None:
    cards = parse(set_text(WORKED), "worked.toml")
    p = Player("ann", origin="o0", motivation="m0", destiny="d-worked", xp=2, level=4)
    p.story = [(f"w{i}", 0) for i in range(9)]
    p.played = ["h-plus2", "h-xp", "a-steal"]
    assert breakdown(cards, p) == {
        "triumph": 17,
        "tragedy": 2,
        "icon_sets": 8,
        "cards_played": 3,
        "experience": 2,
        "track": 4,
        "destiny": 5,
        "total": 41,
    }


def test_card_lines_describe_prerequisites_effects_powers_and_scoring() -> None:
    state = game(act1=["t-icon", "t-spend", "c-five", "t-corr"], heroes=["h-per"])
    view = player_view(state, "ann")
    lines = {c: info["lines"] for c, info in view["cards"].items()}
    assert lines["t-icon"] == ["Needs a Wisdom icon in your Story."]
    assert lines["t-spend"] == ["Gain it by spending 2 experience."]
    assert lines["t-corr"] == ["Needs your marker at C2 or lower."]
    assert lines["h-per"] == [
        "Play it before you cast the runes of a challenge.",
        "+1 to the total per Strength icon in your Story.",
    ]
    assert lines["c-five"] == []
    assert view["cards"]["c-five"]["paths"][1]["virtue"] == 1
    assert view["cards"]["t-icon"]["paths"][0]["side"] == "only"


def test_each_story_s_icons_are_counted_by_the_rules_without_an_unrevealed_destiny() -> None:
    from collections import Counter

    from engine.call_to_adventure.rules import icons

    game_ = GAMES["call-to-adventure"]
    state = game_.new_game(["ann", "bob"], {"first_game": True}, 4)
    bot = game_.bots["heuristic"](3)
    for _step in range(2000):
        for viewer in state.players:
            shown = game_.player_view(state, viewer)["players"]
            for p in state.ps:
                over = state.status == "finished"
                assert Counter(shown[p.name]["icons"]) == +icons(state.cards, p, destiny=over)
                if not over and p.destiny is not None:
                    assert shown[p.name]["icons"] == dict(+icons(state.cards, p)), "the Destiny counts at the end"
        waiting = game_.waiting_for(state)
        if not waiting:
            break
        player = sorted(waiting)[0]
        game_.apply(state, bot.choose(state, player))
    assert state.status == "finished"
