"""Records (docs/card-sets.md): the worked example replays, records reproduce games exactly, the command line."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, RecordError
from engine.call_to_adventure.files import packaged_set
from engine.cli import main

GAME = GAMES["call-to-adventure"]
DOC = Path(__file__).resolve().parents[3] / "docs" / "card-sets.md"


def worked_example() -> dict[str, Any]:
    text = DOC.read_text()
    block = re.search(r"### Worked example record.*?```json\n(.*?)```", text, re.S)
    assert block
    record: dict[str, Any] = json.loads(block.group(1))
    record["card_set"]["toml"] = packaged_set().text
    return record


def test_the_worked_example_replays_as_documented() -> None:
    _, state, moves = GAME.replay(worked_example())
    assert len(moves) == 7
    summary = GAME.summary(state)
    assert (summary["status"], summary["current_player"], summary["turn"]) == ("playing", "ann", 3)
    ann, bob = summary["players"]["ann"], summary["players"]["bob"]
    assert ann["story"] == [{"card": "s1-fire-at-the-ferry", "path": 0}] and ann["experience"] == 2
    assert ann["hand"] == ["h-second-wind", "h-moment-of-clarity"]
    assert bob["story"] == [{"card": "s1-quick-hands", "path": 0}] and bob["experience"] == 2


def test_a_record_of_bot_play_reproduces_the_game_exactly() -> None:
    players = ["ann", "bob", "cy"]
    start = GAME.new_game(players, {}, 11)
    state = GAME.clone(start)
    bots = {p: GAME.bots["heuristic"](i) for i, p in enumerate(players)}
    moves = []
    while waiting := GAME.waiting_for(state):
        player = sorted(waiting)[0]
        move = bots[player].choose(state, player)
        GAME.apply(state, move)
        moves.append(move)
    record = json.loads(json.dumps(GAME.record(start, moves)))
    assert record["card_set"]["toml"] == packaged_set().text
    _, replayed, _ = GAME.replay(record)
    assert GAME.to_json(replayed) == GAME.to_json(state)
    record["card_set"]["source"] = "renamed.toml"  # the set travels with the record, not its file
    assert GAME.summary(GAME.replay(record)[1]) == GAME.summary(state)


@pytest.mark.parametrize(
    ("change", "move", "rule", "words"),
    [
        (lambda r: r["moves"].insert(1, {"player": "bob", "do": "dark"}), 1, "A4", "ann's turn"),
        (lambda r: r["moves"][1].update(do="fly"), 1, "A4", "no move 'fly'"),
        (lambda r: r.update(casts=[[0, 0]]), 2, None, "does not fit"),
        (lambda r: r["card_set"].update(toml="[set]\nid = 1"), None, None, "starter.toml: field 'id'"),
        (lambda r: r["decks"].update(act1=["nope"]), None, None, "'nope'"),
    ],
)
def test_bad_records_name_the_move_and_rule(change: Any, move: int | None, rule: str | None, words: str) -> None:
    record = worked_example()
    change(record)
    with pytest.raises(RecordError) as caught:
        GAME.replay(record)
    assert (caught.value.move, caught.value.rule) == (move, rule) and words in caught.value.message


def test_the_command_line_replays_and_shows_a_view(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(worked_example()))
    out = io.StringIO()
    assert main(["replay", str(path)], out) == 0
    assert json.loads(out.getvalue())["players"]["bob"]["hand"] == ["h-steady-aim"]
    out = io.StringIO()
    assert main(["replay", str(path), "--view", "ann"], out) == 0
    view = json.loads(out.getvalue())
    assert "hand" not in view["players"]["bob"] and view["players"]["bob"]["destiny"] is None
    bad = worked_example()
    bad["moves"][2] = {"player": "ann", "do": "resolve"}
    path.write_text(json.dumps(bad))
    out = io.StringIO()
    assert main(["replay", str(path)], out) == 2
    assert json.loads(out.getvalue())["error"]["move"] == 2


def test_public_record_hides_other_players_secret_choices_and_peeks() -> None:
    """H1: before the game ends a player's copy of the record names no other player's characters (the Destiny
    stays hidden, A12) and no order of cards seen in a peek; their own moves stay whole."""
    start = GAME.new_game(["ann", "bob"], {}, 9)
    state = GAME.clone(start)
    moves = []
    for player in ("ann", "bob"):
        move = GAME.legal_moves(state, player)[0]
        GAME.apply(state, move)
        moves.append(move)
    peeked = GAME.parse_move("ann", {"do": "order", "order": "a,b"})
    record = json.loads(json.dumps(GAME.record(start, moves)))
    record["moves"].append(peeked.to_json())
    public = GAME.public_record(record, "ann")
    assert public["moves"][0] == record["moves"][0]  # her own choice
    assert set(public["moves"][1]) == {"player", "do"}  # bob's, without the cards
    assert public["moves"][2] == record["moves"][2]
    assert public["omitted"]["moves"] == {"1": ["origin", "motivation", "destiny"]}
    assert {"seed", "card_set"} <= set(public["omitted"]["keys"])
    for_bob = GAME.public_record(record, "bob")
    assert "order" not in for_bob["moves"][2] and for_bob["omitted"]["moves"]["2"] == ["order"]
    assert "destiny" not in json.dumps(GAME.public_record(record, None)["moves"])
    with pytest.raises(RecordError, match="leaves out"):
        GAME.replay(public)
