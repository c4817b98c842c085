"""``python -m engine``: replay a game record, let bots play, benchmark the engine."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from itertools import product
from typing import Any, TextIO

from .bots import BOTS, Bot
from .errors import FormatError
from .record import RecordError, loads, replay
from .rules import apply, legal_moves
from .state import Options, new_game
from .view import player_view, round_details, state_summary


def _dump(obj: Any, out: TextIO) -> None:
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate in a message: fall back to \u escapes
        text = json.dumps(obj, indent=2)
    out.write(text + "\n")


def cmd_replay(path: str, view: str | None, out: TextIO) -> int:
    """Replay a record file; print the final state or view (0) or the error object (2)."""
    try:
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError as exc:
            raise RecordError(None, None, f"cannot read {path}: {exc.strerror}") from None
        data = loads(text)
        _, state = replay(data)
        if view is not None:
            try:
                result = player_view(state, view)
            except FormatError as exc:
                raise RecordError(None, None, str(exc)) from None
        else:
            result = state_summary(state)
    except RecordError as exc:
        _dump(exc.to_json(), out)
        return 2
    _dump(result, out)
    return 0


def play_game(players: Sequence[str], options: Options, seed: int, bots: Sequence[Bot]) -> Any:
    """Play one game to the end with one bot per seat; return the final state."""
    state = new_game(players, options, seed=seed)
    while not state.is_finished:
        apply(state, bots[state.current].choose(state))
    return state


def cmd_play(n: int, kinds: list[str], games: int, seed: int, options: Options, out: TextIO) -> int:
    """Let bots play ``games`` games, rotating seats, and print each bot's win rate."""
    names = [f"{k}{i + 1}" for i, k in enumerate(kinds)]
    wins = [0.0] * n
    points = [0] * n
    started = time.perf_counter()
    for g in range(games):
        shift = g % n  # every bot sits in every seat equally often
        seats = [(i + shift) % n for i in range(n)]
        bots = [
            BOTS[kinds[i]](seed * 1_000_003 + g * 7 + i) if kinds[i] == "random" else BOTS[kinds[i]]() for i in seats
        ]
        state = play_game([names[i] for i in seats], options, seed * 1_000_003 + g, bots)
        for w in state.winners:
            wins[seats[w]] += 1 / len(state.winners)
        for pos, i in enumerate(seats):
            points[i] += state.totals[pos]
    seconds = time.perf_counter() - started
    out.write(f"{games} games, {n} players, options {options.to_json()}, seed {seed}, {seconds:.1f} s\n")
    for i in range(n):
        out.write(f"  {names[i]:<12} wins {100 * wins[i] / games:5.1f} %   mean points {points[i] / games:6.1f}\n")
    return 0


def cmd_demo(seed: int, out: TextIO) -> int:
    """Play one 3-player game (heuristic against two random bots) and print the score sheets."""
    players = ["heuristic", "random-1", "random-2"]
    state = play_game(players, Options(), seed, [BOTS["heuristic"](), BOTS["random"](seed), BOTS["random"](seed + 1)])
    for sheet in round_details(state):
        out.write(f"Round {sheet['round']} (started by {sheet['start_player']})\n")
        for name in sheet["ranking"]:
            row = sheet["players"][name]
            types = ", ".join(f"{t['type']} {t['value']}" for t in row["types"]) or "nothing"
            out.write(f"  {name:<10} {row['round_score']:4d}  total {row['total']:4d}   {types}\n")
    out.write(f"Winner{'s' if len(state.winners) > 1 else ''}: {', '.join(state.players[w] for w in state.winners)}\n")
    return 0


def bench(games: int, seed: int) -> dict[str, float]:
    """Play ``games`` random legal games over every player count and variant combination."""
    rng = random.Random(seed)
    configs = [
        (n, Options(imperial_tasks=v1, ninja_power=v2))
        for n, v1, v2 in product((2, 3, 4), (False, True), (False, True))
    ]
    names = ("p1", "p2", "p3", "p4")
    moves = 0
    rand = rng.random
    started = time.perf_counter()
    for g in range(games):
        n, options = configs[g % len(configs)]
        state = new_game(names[:n], options, seed=seed + g)
        while state.status != "finished":
            legal = legal_moves(state)
            apply(state, legal[int(rand() * len(legal))])
            moves += 1
    seconds = time.perf_counter() - started
    return {
        "moves_per_second": round(moves / seconds),
        "games_per_second": round(games / seconds, 1),
        "moves": moves,
        "seconds": round(seconds, 3),
    }


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of ``python -m engine``."""
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_replay = sub.add_parser("replay", help="replay a game record and print the final state")
    p_replay.add_argument("record", help="path of a call-to-glory/1 JSON record")
    p_replay.add_argument("--view", metavar="NAME", help="print what this player may see instead")
    p_play = sub.add_parser("play", help="let bots play many games and print their win rates")
    p_play.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    p_play.add_argument("--bots", default="heuristic,random,random", help="comma-separated: heuristic, random")
    p_play.add_argument("--games", type=int, default=100)
    p_play.add_argument("--seed", type=int, default=1)
    p_play.add_argument("--imperial-tasks", action="store_true")
    p_play.add_argument("--ninja-power", action="store_true")
    p_demo = sub.add_parser("demo", help="play one game of bots and print the score sheets")
    p_demo.add_argument("--seed", type=int, default=1)
    p_bench = sub.add_parser("bench", help="measure random legal play")
    p_bench.add_argument("--games", type=int, default=2400)
    p_bench.add_argument("--seed", type=int, default=1)
    p_bench.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return cmd_replay(args.record, args.view, out)
    if args.command == "play":
        kinds = args.bots.split(",")
        if len(kinds) != args.players or any(k not in BOTS for k in kinds):
            parser.error(f"--bots needs {args.players} names out of: {', '.join(BOTS)}")
        if args.games < 1:
            parser.error("--games must be at least 1")
        options = Options(imperial_tasks=args.imperial_tasks, ninja_power=args.ninja_power)
        return cmd_play(args.players, kinds, args.games, args.seed, options, out)
    if args.command == "demo":
        return cmd_demo(args.seed, out)
    if args.games < 1:
        parser.error("--games must be at least 1")
    figures = bench(args.games, args.seed)
    if args.json:
        out.write(json.dumps(figures) + "\n")
    else:
        out.write(
            f"{figures['moves']} moves in {args.games} games, {figures['seconds']} s: "
            f"{figures['moves_per_second']:,} moves/s, {figures['games_per_second']} games/s\n"
        )
    return 0
