"""What may be seen: the record's state summary, a player's view (R11) and score details (R8)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import FormatError
from .cards import END_TYPES, PREFERENCES, TASK_BONUS, TYPES, VALUES, counts_json, kinds
from .codec import revealed_json, tasks_json
from .state import PLAYING, State


def state_summary(state: State) -> dict[str, Any]:
    """The state as GAME_RECORD.md defines it (what ``replay`` prints): everything but pile order."""
    players = state.players
    playing = state.status == PLAYING
    out: dict[str, Any] = {
        "status": state.status,
        "round": state.round,
        "start_player": players[state.start_player],
        "current_player": state.current_player,
        "step": state.step if playing else None,
        "draws_left": state.draws_left if playing and state.step == "draw" else None,
        "hands": {players[p]: counts_json(h) for p, h in enumerate(state.hands)},
        "tables": {players[p]: counts_json(t) for p, t in enumerate(state.tables)},
        "draw_piles": [len(p) for p in state.draw_piles],
        "discard_piles": [[TYPES[t] for t in p] for p in state.discard_piles],
        "round_scores": [dict(zip(players, r, strict=True)) for r in state.round_scores],
        "totals": dict(zip(players, state.totals, strict=True)),
        "winners": [players[w] for w in state.winners],
        "preferences": {players[p]: PREFERENCES[x] for p, x in enumerate(state.preferences)},
    }
    if state.options.ninja_power:
        out["ninjas"] = dict(zip(players, state.ninjas, strict=True))
        out["ninja_supply"] = state.ninja_supply
    if state.options.imperial_tasks:
        out["tasks"] = tasks_json(players, state.tasks)
        out["revealed_tasks"] = revealed_json(state)
    return out


def player_view(state: State, player: str, log: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What ``player`` may see (R11): the summary with other hands as sizes and only their own tasks.

    With ``log`` (events from ``apply``), the view also gets ``"log"``: the events
    with the cards other players drew face down masked (``"card": null``), and ``"drawn"``: the cards the
    player drew in their turn under way.
    """
    p = state.index.get(player)
    if p is None:
        raise FormatError(f"{player!r} does not play in this game")
    summary = state_summary(state)
    out: dict[str, Any] = {}
    for key, value in summary.items():
        if key == "hands":
            out["hands"] = {player: value[player]}
            out["hand_sizes"] = {state.players[q]: sum(h) for q, h in enumerate(state.hands) if q != p}
        else:
            out[key] = value
    if "tasks" in out:
        out["tasks"] = {player: out["tasks"][player]}
    if log is not None:
        out["log"] = [mask_event(e, player) for e in log]
        out["drawn"] = drawn_this_turn(state, player, out["log"])
    return out


def drawn_this_turn(state: State, player: str, log: list[dict[str, Any]]) -> list[str]:
    """The types of the cards ``player`` drew in their turn under way (latest events of ``log``), in the order
    drawn; empty when it is not their turn."""
    if state.status != PLAYING or state.current_player != player:
        return []
    drawn: list[str] = []
    for event in reversed(log):
        if event.get("player") != player:
            break
        if event.get("event") == "draw" and event.get("card"):
            drawn.insert(0, str(event["card"]))
    return drawn


def mask_event(event: dict[str, Any], viewer: str) -> dict[str, Any]:
    """An event as ``viewer`` may see it: a face-down draw by someone else loses its card."""
    if event.get("event") == "draw" and event.get("player") != viewer and str(event.get("pile", "")).startswith("draw"):
        return {**event, "card": None}
    return dict(event)


def round_details(state: State) -> list[dict[str, Any]]:
    """Per finished round and player: types with values, task bonuses, round score, total, rank.

    This is what score sheets show; it also names who started the round and who
    starts the next one (None after the last round), and why it ended (``end``: the first of R8's
    conditions that held, as the tables show it: ``types`` with the players who had enough types,
    ``all_types``, else ``draw_pile_empty``).
    """
    players = state.players
    out = []
    totals = [0] * state.n
    starts = [players[s] for s in state.round_starts]
    for r, (scores, tables) in enumerate(zip(state.round_scores, state.round_tables, strict=True), start=1):
        revealed = [(p, d, t) for p, d, t, rnd in state.revealed if rnd == r]
        rows = {}
        for p, row in enumerate(tables):
            totals[p] += scores[p]
            bonuses = [
                {
                    "revealed_by": players[rp],
                    "deck": d,
                    "type": TYPES[t],
                    "per_card": TASK_BONUS[d],
                    "cards": row[t],
                    "points": TASK_BONUS[d] * row[t],
                }
                for rp, d, t in revealed
            ]
            rows[players[p]] = {
                "types": [{"type": TYPES[t], "cards": row[t], "value": VALUES[t]} for t in range(len(TYPES)) if row[t]],
                "task_bonuses": bonuses,
                "round_score": scores[p],
                "total": totals[p],
            }
        ranking = sorted(players, key=lambda name: -totals[state.index[name]])
        enough = [p for p, row in enumerate(tables) if kinds(row) >= END_TYPES[state.n]]
        on_table = sum(1 for t in range(len(TYPES)) if any(row[t] for row in tables))
        reason = "types" if enough else "all_types" if on_table == len(TYPES) else "draw_pile_empty"
        types = kinds(tables[enough[0]]) if enough else on_table
        end = {"reason": reason, "players": [players[p] for p in enough], "types": types}
        out.append(
            {
                "round": r,
                "start_player": starts[r - 1],
                "next_start_player": starts[r] if r < len(starts) else None,
                "players": rows,
                "ranking": ranking,
                "end": end,
            }
        )
    return out
