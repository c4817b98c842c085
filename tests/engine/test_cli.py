"""The command line, ``python -m engine``: replay (GAME_RECORD.md's contract), play and bench.

Error cases run the real command in a subprocess: stdout must be exactly one JSON error object,
the exit status 2, and stderr free of tracebacks, whatever the input.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import call_to_glory as glory
from engine.call_to_glory import HeuristicBot, Move, Options, RandomBot
from engine.cli import main
from tests.conftest import deck

ROOT = Path(__file__).resolve().parents[2]
STATE_KEYS = [
    "status",
    "round",
    "start_player",
    "current_player",
    "step",
    "draws_left",
    "hands",
    "tables",
    "draw_piles",
    "discard_piles",
    "round_scores",
    "totals",
    "winners",
    "preferences",
]
"""The keys of GAME_RECORD.md's State section, in its order (V2 and V1 keys follow)."""


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """``python -m engine ARGS`` as a real process, from the project root."""
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, timeout=timeout, check=False
    )


def expected_keys(v1: bool, v2: bool) -> list[str]:
    return STATE_KEYS + (["ninjas", "ninja_supply"] if v2 else []) + (["tasks", "revealed_tasks"] if v1 else [])


def game_record(n: int, v1: bool, v2: bool, seed: int, limit: int | None = None) -> tuple[dict[str, Any], Any]:
    """A bot game (to the end, or ``limit`` moves) as a decoded record, with its final state."""
    state = glory.new_game(["ann", "bob", "cy", "dee"][:n], Options(imperial_tasks=v1, ninja_power=v2), seed=seed)
    bots = [HeuristicBot() if p == 0 else RandomBot(seed + p) for p in range(n)]
    made: list[Move] = [Move.set_preference("bob", "larger")]
    glory.apply(state, made[0])
    while not state.is_finished and (limit is None or len(made) < limit):
        m = bots[state.current].choose(state)
        glory.apply(state, m)
        made.append(m)
    return glory.record_of(state, made).to_json(), state


def write(tmp_path: Path, content: str | bytes, name: str = "record.json") -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def assert_error(proc: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """Exit 2, stdout exactly one JSON error object, no traceback; return the error's fields."""
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")[-2000:]
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:500], proc.stderr[-2000:])
    out = json.loads(proc.stdout.decode("utf-8"))  # one JSON document and nothing else
    assert isinstance(out, dict) and list(out) == ["error"]
    err = out["error"]
    assert set(err) == {"move", "rule", "message"}
    assert err["move"] is None or type(err["move"]) is int
    assert err["rule"] is None or isinstance(err["rule"], str)
    assert isinstance(err["message"], str) and err["message"]
    return dict(err)


# --- replay: success ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "v1", "v2"), [(2, False, False), (3, True, False), (4, False, True), (3, True, True)])
def test_replay_prints_the_state(tmp_path: Path, n: int, v1: bool, v2: bool) -> None:
    """A finished game: the state JSON with exactly the documented keys, in order; exit 0."""
    data, state = game_record(n, v1, v2, seed=n)
    proc = run("replay", str(write(tmp_path, json.dumps(data))))
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert b"Traceback" not in proc.stderr
    out = json.loads(proc.stdout.decode("utf-8"))
    assert list(out) == expected_keys(v1, v2)
    assert out == glory.state_summary(state)
    assert out["status"] == "finished"
    assert out["current_player"] is None and out["step"] is None and out["draws_left"] is None
    assert out["winners"] and set(out["winners"]) <= set(out["totals"])
    assert len(out["round_scores"]) == (3 if v1 else 4)
    assert out["preferences"]["bob"] == "larger"


def test_replay_of_a_game_in_progress(tmp_path: Path) -> None:
    """Mid-game: status playing, draw pile sizes only, discard piles as cards, draws_left per step."""
    data, state = game_record(3, True, True, seed=8, limit=40)
    proc = run("replay", str(write(tmp_path, json.dumps(data))))
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert list(out) == expected_keys(True, True)
    assert out["status"] == "playing"
    assert all(type(x) is int for x in out["draw_piles"])
    assert all(isinstance(c, str) for pile in out["discard_piles"] for c in pile)
    assert (out["step"], out["draws_left"]) in {("draw", 2), ("draw", 1), ("act", None)}
    assert out == glory.state_summary(state)


def test_replay_of_an_empty_game(tmp_path: Path) -> None:
    """No moves: the dealt state (R3), exit 0."""
    record = {"format": "call-to-glory/1", "players": ["ann", "bob"], "seed": 12345, "moves": []}
    proc = run("replay", str(write(tmp_path, json.dumps(record))))
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert list(out) == STATE_KEYS
    assert out["draw_piles"] == [52, 52]
    assert out["discard_piles"] == [[], []]
    assert (out["status"], out["round"], out["current_player"], out["step"], out["draws_left"]) == (
        "playing",
        1,
        "ann",
        "draw",
        2,
    )
    assert out["hands"] == {"ann": {"monk": 1, "daimyo": 1, "samurai": 1}, "bob": {"monk": 2, "envoy": 1}}


@pytest.mark.parametrize("viewer", ["ann", "bob", "cy"])
def test_replay_view(tmp_path: Path, viewer: str) -> None:
    """--view NAME: the state's keys plus hand_sizes; only the viewer's own hand and tasks."""
    data, state = game_record(3, True, True, seed=4, limit=30)
    proc = run("replay", str(write(tmp_path, json.dumps(data))), "--view", viewer)
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    # The state's keys in the state's order, with hand_sizes right after hands (as engine/view.py intends).
    keys = expected_keys(True, True)
    assert list(out) == [*keys[: keys.index("hands") + 1], "hand_sizes", *keys[keys.index("hands") + 1 :]]
    summary = glory.state_summary(state)
    assert out["hands"] == {viewer: summary["hands"][viewer]}
    assert out["hand_sizes"] == {p: sum(h.values()) for p, h in summary["hands"].items() if p != viewer}
    assert out["tasks"] == {viewer: summary["tasks"][viewer]}
    assert out == glory.player_view(state, viewer)


def test_replay_in_process(tmp_path: Path) -> None:
    """engine.cli.main writes the same JSON to the given stream."""
    data, state = game_record(2, False, True, seed=3, limit=25)
    path = str(write(tmp_path, json.dumps(data)))
    out = io.StringIO()
    assert main(["replay", path], out=out) == 0
    assert json.loads(out.getvalue()) == glory.state_summary(state)
    out = io.StringIO()
    assert main(["replay", path, "--view", "bob"], out=out) == 0
    assert json.loads(out.getvalue()) == glory.player_view(state, "bob")
    out = io.StringIO()
    assert main(["replay", path, "--view", "nobody"], out=out) == 2
    assert json.loads(out.getvalue())["error"]["move"] is None


def test_replay_of_non_ascii_names(tmp_path: Path) -> None:
    """Names are any 1-40 characters; they come out as they went in."""
    record = {"format": "call-to-glory/1", "players": ["José", "小明"], "seed": 1, "moves": []}
    proc = run("replay", str(write(tmp_path, json.dumps(record))), "--view", "小明")
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.decode("utf-8"))
    assert list(out["hands"]) == ["小明"]
    assert list(out["hand_sizes"]) == ["José"]


# --- replay: errors -------------------------------------------------------------------------------------


def test_unknown_view_name(tmp_path: Path) -> None:
    data, _ = game_record(2, False, False, seed=1, limit=5)
    err = assert_error(run("replay", str(write(tmp_path, json.dumps(data))), "--view", "zed"))
    assert err["move"] is None


BAD_FILES: dict[str, str | bytes] = {
    "not JSON": "this is not JSON",
    "truncated JSON": '{"format": "call-to-glory/1", "players": ["ann", ',
    "binary garbage": bytes(range(256)) * 4,
    "invalid UTF-8": b'{"format": "call-to-glory/1", "players": ["\xff\xfe", "bob"], "seed": 1, "moves": []}',
    "deep nesting": "[" * 100000,
    "deep nesting, closed": "[" * 100000 + "]" * 100000,
    "deep nesting of objects": '{"a":' * 100000 + "1" + "}" * 100000,
    "deep nesting in a move": json.dumps({"format": "call-to-glory/1", "players": ["ann", "bob"], "seed": 1})[:-1]
    + ', "moves": ['
    + "[" * 50000
    + "]" * 50000
    + "]}",
    "empty file": "",
    "only whitespace": "  \n ",
    "JSON null": "null",
    "JSON list": "[]",
    "JSON string": '"call-to-glory/1"',
    "wrong format": json.dumps({"format": "chess/1", "players": ["ann", "bob"], "seed": 1, "moves": []}),
    "NaN seed": '{"format": "call-to-glory/1", "players": ["ann", "bob"], "seed": NaN, "moves": []}',
    "huge seed": '{"format": "call-to-glory/1", "players": ["ann", "bob"], "seed": 1' + "0" * 5000 + ', "moves": []}',
    "huge count": '{"format": "call-to-glory/1", "players": ["ann", "bob"], "seed": 1, "moves": ['
    '{"player": "ann", "do": "lay", "type": "farmer", "count": 1' + "0" * 4000 + "}]}",
    "two documents": '{"format": "call-to-glory/1"} {"format": "call-to-glory/1"}',
    "BOM and garbage": b"\xef\xbb\xbf\x00\x01",
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_file(tmp_path: Path, name: str) -> None:
    """Input that is not a record of the format: the error object with move null, exit 2, no traceback."""
    err = assert_error(run("replay", str(write(tmp_path, BAD_FILES[name]))))
    if name != "huge count":
        assert err["move"] is None
        assert err["rule"] is None
    else:
        assert err["move"] == 0


def test_missing_file_and_directory(tmp_path: Path) -> None:
    err = assert_error(run("replay", str(tmp_path / "no-such-record.json")))
    assert (err["move"], err["rule"]) == (None, None)
    err = assert_error(run("replay", str(tmp_path)))
    assert (err["move"], err["rule"]) == (None, None)


def test_illegal_move(tmp_path: Path) -> None:
    """An illegal move: its index and rule; nothing after it applied, only the error printed."""
    cards = deck(2, hands=[["farmer", "farmer", "monk"], ["farmer"] * 3])
    moves = [
        {"player": "ann", "do": "draw", "pile": "draw1"},
        {"player": "ann", "do": "draw", "pile": "draw1"},
        {"player": "ann", "do": "discard", "type": "monk"},
    ]
    record = {"format": "call-to-glory/1", "players": ["ann", "bob"], "seed": 1, "decks": [cards], "moves": moves}
    err = assert_error(run("replay", str(write(tmp_path, json.dumps(record)))))
    assert (err["move"], err["rule"]) == (1, "R5.1")
    record["moves"] = [moves[0], {"player": "bob", "do": "draw", "pile": "draw2"}]
    err = assert_error(run("replay", str(write(tmp_path, json.dumps(record)))))
    assert (err["move"], err["rule"]) == (1, "R4")
    record["moves"] = [moves[0], {"player": "ann", "do": "draw", "pile": "draw9"}]
    err = assert_error(run("replay", str(write(tmp_path, json.dumps(record))), "--view", "ann"))
    assert (err["move"], err["rule"]) == (1, None)


def test_lone_surrogate_in_a_name(tmp_path: Path) -> None:
    """JSON allows "\\ud800" in a string; a name holding it must not crash the replay with a traceback.

    Either outcome is acceptable: the state (exit 0) or the error object (exit 2), but always one JSON
    document on stdout and no traceback."""
    text = '{"format": "call-to-glory/1", "players": ["\\ud800", "bob"], "seed": 1, "moves": []}'
    proc = run("replay", str(write(tmp_path, text)))
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")[-1500:]
    assert proc.returncode in (0, 2)
    out = json.loads(proc.stdout.decode("utf-8"))
    if proc.returncode == 2:
        assert_error(proc)
    else:
        assert list(out) == STATE_KEYS


# --- play and bench ---------------------------------------------------------------------------------------


def test_play_heuristic_bot_wins_most() -> None:
    """The heuristic bot beats two random bots: its printed win rate is the highest."""
    proc = run("play", "--players", "3", "--bots", "heuristic,random,random", "--games", "30", "--seed", "1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert b"Traceback" not in proc.stderr
    text = proc.stdout.decode("utf-8")
    rates = {m[1]: float(m[2]) for m in re.finditer(r"^\s+(\S+)\s+wins\s+([0-9.]+) %", text, re.MULTILINE)}
    assert set(rates) == {"heuristic1", "random2", "random3"}, text
    assert 99.0 <= sum(rates.values()) <= 101.0
    assert rates["heuristic1"] > max(rates["random2"], rates["random3"])


def test_bench_json() -> None:
    """bench --json: one JSON object with the documented figures (their values are not judged)."""
    proc = run("bench", "--json", "--games", "24")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.decode("utf-8").strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert set(figures) == {"moves_per_second", "games_per_second", "moves", "seconds"}
    assert type(figures["moves"]) is int and figures["moves"] > 24
    assert all(isinstance(v, int | float) and v >= 0 for v in figures.values())


# --- every game ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_replay_dispatches_on_the_format(tmp_path: Path, key: str) -> None:
    """A record of any registered game replays through main(): the game is found from the record's format."""
    game = engine.GAMES[key]
    players = [f"p{i}" for i in range(1, game.min_players + 1)]
    start = game.new_game(players, game.variants(players)[0], seed=4)
    state = game.clone(start)
    bot = game.bots["heuristic"](1)
    moves = []
    for _ in range(6):
        waiting = game.waiting_for(state)
        if not waiting:
            break
        player = sorted(waiting)[0]
        moves.append(bot.choose(state, player))
        game.apply(state, moves[-1])
    path = str(write(tmp_path, json.dumps(game.record(start, moves))))
    out = io.StringIO()
    assert main(["replay", path], out=out) == 0
    assert json.loads(out.getvalue()) == json.loads(json.dumps(game.summary(state)))
    out = io.StringIO()
    assert main(["replay", path, "--view", players[-1]], out=out) == 0
    assert json.loads(out.getvalue()) == json.loads(json.dumps(game.player_view(state, players[-1])))


def test_unknown_format_names_the_known_ones(tmp_path: Path) -> None:
    out = io.StringIO()
    path = str(write(tmp_path, json.dumps({"format": "chess/1", "players": [], "moves": []})))
    assert main(["replay", path], out=out) == 2
    error = json.loads(out.getvalue())["error"]
    assert error["move"] is None and error["rule"] is None
    assert all(g.record_format in error["message"] for g in engine.GAMES.values())


@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_play_demo_and_bench_take_a_game(key: str) -> None:
    game = engine.GAMES[key]
    n = max(2, game.min_players)
    out = io.StringIO()
    bots = ",".join(["heuristic"] + ["random"] * (n - 1))
    assert main(["play", "--game", key, "--players", str(n), "--bots", bots, "--games", "4"], out=out) == 0
    assert f"4 games of {game.title}" in out.getvalue()
    out = io.StringIO()
    assert main(["demo", "--game", key, "--seed", "2"], out=out) == 0
    assert "Winner" in out.getvalue()
    out = io.StringIO()
    assert main(["bench", "--game", key, "--games", "3", "--json"], out=out) == 0
    assert json.loads(out.getvalue())["moves"] > 0


def test_play_refuses_bad_options() -> None:
    proc = run("play", "--options", '{"rounds": 9}', "--games", "1")
    assert proc.returncode == 2 and b"--options" in proc.stderr and b"Traceback" not in proc.stderr
