"""No record, however malformed, makes ``python -m engine replay`` fail with a traceback: seeded mutations of
real records of every game (values replaced by values of other types, keys dropped, moves shuffled, the card
set's text garbled) either replay or give the one JSON error object and exit status 2."""

from __future__ import annotations

import copy
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES
from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "engine" / "call_to_adventure" / "oracle_cases"
ODD: tuple[Any, ...] = (
    None,
    True,
    0,
    -1,
    1,
    2,
    7,
    10**30,
    1.5,
    "",
    "x",
    "ann",
    "top",
    "0,0",
    "1,2,3",
    "\u202e",
    [],
    [[]],
    {},
    {"do": "end"},
    [1, "a", None],
)


def bot_record(key: str, players: list[str], options: dict[str, Any], seed: int, limit: int) -> dict[str, Any]:
    """The record of the first ``limit`` moves of a random-bot game."""
    game = GAMES[key]
    start = game.new_game(players, game.parse_options(options, players), seed)
    state = game.clone(start)
    bots = {p: game.bots["random"](seed + i) for i, p in enumerate(players)}
    moves = []
    while len(moves) < limit and (waiting := game.waiting_for(state)):
        player = sorted(waiting)[0]
        move = bots[player].choose(state, player)
        game.apply(state, move)
        moves.append(move)
    return game.record(start, moves)


def records() -> list[dict[str, Any]]:
    out = [json.loads(p.read_text()) for p in sorted(CASES.glob("*.json"))[:4]]
    out.append(bot_record("call-to-adventure", ["ann", "bob", "cy"], {"allies_adversaries": True}, 3, 80))
    out.append(bot_record("call-to-adventure", ["ann", "bob"], {"coop": True}, 4, 60))
    out.append(bot_record("call-to-glory", ["ann", "bob", "cy"], {}, 5, 60))
    out.append(bot_record("call-to-glory", ["ann", "bob"], {"imperial_tasks": True, "ninja_power": True}, 6, 60))
    return out


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*here, i))
    return out


def _leaves(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [leaf for v in node.values() for leaf in _leaves(v)]
    if isinstance(node, list):
        return [leaf for v in node for leaf in _leaves(v)] + ([node] if len(node) < 4 else [])
    return [node] if not isinstance(node, str) or len(node) < 80 else []


def _garble(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(chars) + 1)
        what = rng.random()
        if what < 0.4 and at < len(chars):
            del chars[at : at + rng.randint(1, 30)]
        elif what < 0.7:
            chars.insert(at, rng.choice(['"', "[", "]", "{", "=", "\n", "0", "-1", "[[x]]", "\x00", "99999999999"]))
        elif at < len(chars):
            chars[at] = rng.choice("0123456789abc\"'=[]{}\n ")
    return "".join(chars)


def mutate(record: dict[str, Any], rng: random.Random) -> Any:
    """A copy of ``record`` with one to three random changes."""
    data = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(data)[1:]
        if not paths:
            return rng.choice(ODD)
        in_moves = [p for p in paths if p[0] == "moves" and len(p) > 2]
        path = rng.choice(in_moves if in_moves and rng.random() < 0.6 else paths)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        what = rng.random()
        value = parent[key]
        if isinstance(value, str) and len(value) > 200:  # a card set's text
            parent[key] = _garble(value, rng)
        elif what < 0.35:
            parent[key] = copy.deepcopy(rng.choice(ODD))
        elif what < 0.55:  # a value found elsewhere in the record: a card id, a name, a move's field
            parent[key] = copy.deepcopy(rng.choice(_leaves(data)))
        elif what < 0.7 and isinstance(parent, dict):
            del parent[key]
        elif what < 0.8 and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif what < 0.9 and isinstance(value, list):
            rng.shuffle(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            parent[key] = value + rng.choice((-2, -1, 1, 2, 1000))
        else:
            parent[key] = copy.deepcopy(rng.choice(ODD))
    return data


def replay_in_process(tmp: Path, data: Any) -> tuple[int, str]:
    path = tmp / "record.json"
    path.write_text(json.dumps(data))
    out = io.StringIO()
    code = main(["replay", str(path)], out)
    return code, out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("index", range(8))
def test_mutated_records_replay_or_give_one_error(tmp_path: Path, index: int) -> None:
    original = records()[index]
    rng = random.Random(1000 + index)
    for _ in range(120):
        data = mutate(original, rng)
        code, text = replay_in_process(tmp_path, data)  # any exception fails the test with its traceback
        out = json.loads(text)
        if code == 2:
            assert set(out) == {"error"} and isinstance(out["error"]["message"], str) and out["error"]["message"]
            assert "\n" not in out["error"]["message"]
        else:
            assert code == 0 and "error" not in out


def test_mutated_records_through_the_real_command(tmp_path: Path) -> None:
    rng = random.Random(7)
    originals = records()
    for i in range(6):
        path = tmp_path / f"r{i}.json"
        path.write_text(json.dumps(mutate(originals[i % len(originals)], rng)))
        done = subprocess.run(
            [sys.executable, "-m", "engine", "replay", str(path)],
            cwd=ROOT,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert b"Traceback" not in done.stderr and done.stderr == b""
        assert done.returncode in (0, 2)
        assert ("error" in json.loads(done.stdout)) == (done.returncode == 2)


def test_the_bot_records_replay(tmp_path: Path) -> None:
    for data in records():
        code, text = replay_in_process(tmp_path, data)
        assert code == 0 or json.loads(text)["error"]["move"] is not None, text
