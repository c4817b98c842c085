"""``python -m engine``: replay a game record of any game, let bots play, benchmark a game."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from . import GAMES, game_of_format
from .errors import FormatError, RecordError
from .protocol import Bot, Game, LogEntry

DEFAULT_GAME = "call-to-glory"


def _dump(obj: Any, out: TextIO) -> None:
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate in a message: fall back to \u escapes
        text = json.dumps(obj, indent=2)
    out.write(text + "\n")


def loads(text: str | bytes) -> Any:
    """Decode a record's JSON text; anything that is not JSON raises RecordError."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecordError(None, None, f"not valid JSON: {str(exc)[:200]}") from None


def game_of_record(data: Any) -> Game:
    """The game a decoded record belongs to, by its ``format``; RecordError for an unknown one."""
    found = game_of_format(data.get("format")) if isinstance(data, dict) else None
    if found is None:
        known = ", ".join(sorted(g.record_format for g in GAMES.values()))
        raise RecordError(None, None, f"not a game record of a known format ({known})")
    return found


def cmd_replay(path: str, view: str | None, out: TextIO) -> int:
    """Replay a record file; print the final state or view (0) or the error object (2)."""
    try:
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError as exc:
            raise RecordError(None, None, f"cannot read {path}: {exc.strerror}") from None
        data = loads(text)
        game = game_of_record(data)
        _, state, _ = game.replay(data)
        if view is not None:
            try:
                result = game.player_view(state, view)
            except FormatError as exc:
                raise RecordError(None, None, str(exc)) from None
        else:
            result = game.summary(state)
    except RecordError as exc:
        _dump(exc.to_json(), out)
        return 2
    _dump(result, out)
    return 0


def play_game(game: Game, players: Sequence[str], options: dict[str, Any], seed: int, bots: Sequence[Bot]) -> Any:
    """Play one game to the end with one bot per seat (``bots[i]`` plays ``players[i]``); return the final state."""
    state = game.new_game(players, options, seed)
    seat = {name: i for i, name in enumerate(players)}
    while True:
        waiting = game.waiting_for(state)
        if not waiting:
            return state
        for player in sorted(waiting, key=seat.__getitem__):
            game.apply(state, bots[seat[player]].choose(state, player))


def cmd_play(game: Game, kinds: list[str], games: int, seed: int, options: dict[str, Any], out: TextIO) -> int:
    """Let bots play ``games`` games, rotating seats, and print each bot's win rate."""
    n = len(kinds)
    names = [f"{k}{i + 1}" for i, k in enumerate(kinds)]
    wins = [0.0] * n
    points = [0] * n
    started = time.perf_counter()
    for g in range(games):
        shift = g % n  # every bot sits in every seat equally often
        seats = [(i + shift) % n for i in range(n)]
        bots = [game.bots[kinds[i]](seed * 1_000_003 + g * 7 + i) for i in seats]
        players = [names[i] for i in seats]
        result = game.result(play_game(game, players, options, seed * 1_000_003 + g, bots))
        assert result is not None
        for winner in result.winners:
            wins[names.index(winner)] += 1 / len(result.winners)
        for name, score in result.scores.items():
            points[names.index(name)] += score
    seconds = time.perf_counter() - started
    out.write(f"{games} games of {game.title}, {n} players, options {options}, seed {seed}, {seconds:.1f} s\n")
    for i in range(n):
        out.write(f"  {names[i]:<12} wins {100 * wins[i] / games:5.1f} %   mean points {points[i] / games:6.1f}\n")
    return 0


def cmd_demo(game: Game, seed: int, out: TextIO) -> int:
    """Play one game (heuristic against random bots) and print its milestones as they come, then the result."""
    n = max(game.min_players, min(3, game.max_players))
    players = ["heuristic", *(f"random-{i}" for i in range(1, n))]
    bots = [game.bots["heuristic"](seed), *(game.bots["random"](seed + i) for i in range(1, n))]
    seat = {name: i for i, name in enumerate(players)}
    state = game.new_game(players, {}, seed)
    while waiting := game.waiting_for(state):
        before = game.clone(state)
        events: list[dict[str, Any]] = []
        for player in sorted(waiting, key=seat.__getitem__):
            game.apply(state, bots[seat[player]].choose(state, player), events)
        reached = game.milestones(before, state)
        for milestone in reached:
            out.write(f"{milestone.title}\n")
        if reached:
            for line in game.narrate([LogEntry("", "bot", events)], None):
                out.write(f"  {line}\n")
    result = game.result(state)
    assert result is not None
    for name in result.ranking:
        out.write(f"  {name:<12} {result.scores[name]:5d}\n")
    out.write(f"Winner{'s' if result.shared else ''}: {', '.join(result.winners)}\n")
    return 0


def bench(game: Game, games: int, seed: int) -> dict[str, float]:
    """Play ``games`` random legal games over every player count and option combination of ``game``."""
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(1, game.max_players + 1)]
    configs = [
        (names[:n], options)
        for n in range(game.min_players, game.max_players + 1)
        for options in game.variants(names[:n])
    ]
    moves = 0
    rand = rng.random
    waiting_for, legal_moves, apply = game.waiting_for, game.legal_moves, game.apply
    started = time.perf_counter()
    for g in range(games):
        players, options = configs[g % len(configs)]
        state = game.new_game(players, options, seed + g)
        while True:
            waiting = waiting_for(state)
            if not waiting:
                break
            player = next(iter(waiting)) if len(waiting) == 1 else sorted(waiting)[int(rand() * len(waiting))]
            legal = legal_moves(state, player)
            apply(state, legal[int(rand() * len(legal))])
            moves += 1
    seconds = time.perf_counter() - started
    return {
        "moves_per_second": round(moves / seconds),
        "games_per_second": round(games / seconds, 1),
        "moves": moves,
        "seconds": round(seconds, 3),
    }


def _options(text: str | None, parser: argparse.ArgumentParser) -> dict[str, Any]:
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError:
        parser.error("--options must be a JSON object, like '{\"ninja_power\": true}'")
    if not isinstance(options, dict):
        parser.error("--options must be a JSON object")
    return options


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of ``python -m engine``."""
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_replay = sub.add_parser("replay", help="replay a game record (of any game) and print the final state")
    p_replay.add_argument("record", help="path of a JSON game record (call-to-glory/1, …)")
    p_replay.add_argument("--view", metavar="NAME", help="print what this player may see instead")
    games_help = f"the game: {', '.join(sorted(GAMES))} (default {DEFAULT_GAME})"
    p_play = sub.add_parser("play", help="let bots play many games and print their win rates")
    p_play.add_argument("--game", default=DEFAULT_GAME, choices=sorted(GAMES), help=games_help)
    p_play.add_argument("--players", type=int, default=3)
    p_play.add_argument("--bots", default="heuristic,random,random", help="comma-separated bot names")
    p_play.add_argument("--games", type=int, default=100)
    p_play.add_argument("--seed", type=int, default=1)
    p_play.add_argument("--options", help="the game's options as a JSON object")
    p_play.add_argument("--imperial-tasks", action="store_true", help="Call to Glory: Imperial Tasks (V1)")
    p_play.add_argument("--ninja-power", action="store_true", help="Call to Glory: the Power of the Ninja (V2)")
    p_demo = sub.add_parser("demo", help="play one game of bots and print the result")
    p_demo.add_argument("--game", default=DEFAULT_GAME, choices=sorted(GAMES), help=games_help)
    p_demo.add_argument("--seed", type=int, default=1)
    p_bench = sub.add_parser("bench", help="measure random legal play")
    p_bench.add_argument("--game", default=DEFAULT_GAME, choices=sorted(GAMES), help=games_help)
    p_bench.add_argument("--games", type=int, default=2400)
    p_bench.add_argument("--seed", type=int, default=1)
    p_bench.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return cmd_replay(args.record, args.view, out)
    game = GAMES[args.game]
    if args.command == "play":
        kinds = args.bots.split(",")
        if not game.min_players <= args.players <= game.max_players:
            parser.error(f"{game.title} is for {game.min_players} to {game.max_players} players")
        if len(kinds) != args.players or any(k not in game.bots for k in kinds):
            parser.error(f"--bots needs {args.players} names out of: {', '.join(game.bots)}")
        if args.games < 1:
            parser.error("--games must be at least 1")
        options = _options(args.options, parser)
        if args.imperial_tasks:
            options["imperial_tasks"] = True
        if args.ninja_power:
            options["ninja_power"] = True
        try:
            options = game.parse_options(options, [f"{k}{i + 1}" for i, k in enumerate(kinds)])
        except FormatError as exc:
            parser.error(f"--options: {exc}")
        return cmd_play(game, kinds, args.games, args.seed, options, out)
    if args.command == "demo":
        return cmd_demo(game, args.seed, out)
    if args.games < 1:
        parser.error("--games must be at least 1")
    figures = bench(game, args.games, args.seed)
    if args.json:
        out.write(json.dumps(figures) + "\n")
    else:
        out.write(
            f"{game.title}: {figures['moves']} moves in {args.games} games, {figures['seconds']} s: "
            f"{figures['moves_per_second']:,} moves/s, {figures['games_per_second']} games/s\n"
        )
    return 0
