"""What a player may see (A12), the state summary of the record format, and events in plain words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ..protocol import Event
from .rules import difficulty, score, total
from .state import FINISHED, SETUP, State

_PRIVATE: Final = {"draw": ("card",), "choose": ("origin", "motivation", "destiny"), "order": ("order",)}


def mask_event(event: Event, viewer: str | None) -> Event:
    """An event as ``viewer`` may see it: drawn cards and setup choices are the drawer's alone."""
    hide = _PRIVATE.get(event.get("event", ""), ())
    if not hide or event.get("player") == viewer:
        return dict(event)
    return {k: v for k, v in event.items() if k not in hide}


def _public(state: State, full: bool, viewer: int | None) -> dict[str, Any]:
    cards = state.cards
    over = state.status == FINISHED
    players: dict[str, Any] = {}
    for i, p in enumerate(state.ps):
        mine = full or i == viewer
        shown = mine or state.status != SETUP
        entry: dict[str, Any] = {
            "chosen": p.origin is not None,
            "origin": p.origin if shown else None,
            "motivation": p.motivation if shown else None,
            "destiny": p.destiny if mine or over else None,
            "story": [{"card": c, "path": path} for c, path in p.story],
            "experience": p.xp,
            "level": cards.track[p.level].name,
            "hand_size": len(p.hand),
            "played": list(p.played),
            "allies": list(p.allies),
            "sacrificed": list(p.sacrificed),
        }
        if mine:
            entry["hand"] = list(p.hand)
            entry["offers"] = {k: list(v) for k, v in p.offers.items()}
        if over:
            entry["score"] = score(cards, p)
        players[p.name] = entry
    a = state.attempt
    attempt = None
    if a is not None:
        attempt = {
            "card": a.card,
            "path": ("top", "bottom")[a.path],
            "difficulty": difficulty(state, a),
            "dark": a.dark,
            "bonus": a.bonus,
            "runes": [{"rune": k, "ability": b or None, "face": f} for (k, b), f in zip(a.runes, a.faces, strict=True)]
            if a.cast
            else [],
            "total": total(state) if a.cast else None,
            "card_faces_to_draw": a.pending,
        }
    peek = None
    if state.peek is not None:
        act, k, _back = state.peek
        peek = {"player": state.players[state.current], "act": act + 1, "count": k}
        if full or viewer == state.current:
            peek["cards"] = state.decks[f"act{act + 1}"][-k:][::-1]
    return {
        "card_set": cards.id,
        "peek": peek,
        "any_act": state.any_act,
        "status": state.status,
        "players": players,
        "current_player": None if state.status != "playing" else state.players[state.current],
        "first_player": state.players[state.first],
        "turn": state.turn,
        "step": state.phase if state.status == "playing" else None,
        "journeyed": state.journeyed,
        "attempt": attempt,
        "rows": [list(r) if state.up[n] else {"face_down": sum(1 for c in r if c)} for n, r in enumerate(state.rows)],
        "deck_sizes": {k: len(v) for k, v in state.decks.items() if k.startswith("act") or k.endswith("hero")},
        "discard_sizes": [len(d) for d in state.discards],
        "allies_under": dict(sorted(state.under.items())),
        "allies_waiting": [ally for _act, ally, _slot in state.tucks],
        "adversary": None
        if state.adversary is None
        else {
            "quest": state.adversary["quest"],
            "card": state.adversary["card"],
            "experience": state.adversary["experience"],
            "goal": state.adversary["goal"],
            "defeated_by": None
            if state.adversary["defeated_by"] is None
            else state.players[state.adversary["defeated_by"]],
            "deck_size": len(state.decks["adversary"]),
            "revealed": list(state.decks["adversary_discard"]),
        },
        "curses": [{"by": state.players[b], "target": state.players[t], "card": c} for b, t, c in state.curses],
        "final_turns_after": None if state.final is None else state.players[state.final],
        "ended_by": state.ended_by,
        "scores": dict(zip(state.players, state.scores, strict=True)) if over else {},
        "winners": [state.players[w] for w in state.winners],
    }


def player_view(state: State, player: str, log: Sequence[Event] | None = None) -> dict[str, Any]:
    """What ``player`` may see (A12); with ``log``, those events as they may see them."""
    view = _public(state, False, state.index(player))
    view["viewer"] = player
    if log is not None:
        view["log"] = [mask_event(e, player) for e in log]
    return view


def summary(state: State) -> dict[str, Any]:
    """The state as ``python -m engine replay`` prints it: everything but the order of the decks."""
    return _public(state, True, None)


# Words ----------------------------------------------------------------------------------------------------


def _name(state_cards: Any, card: Any) -> str:
    if state_cards is not None and isinstance(card, str) and card in state_cards:
        return str(state_cards[card].title())
    return str(card)


def describe(event: Event, viewer: str | None, cards: Any = None) -> str:
    """One event in plain words (``cards`` maps ids to cards for their names)."""
    ev = mask_event(event, viewer)
    kind = ev.get("event")
    who = "You" if viewer is not None and ev.get("player") == viewer else str(ev.get("player", ""))
    card = _name(cards, ev.get("card"))
    if kind == "choose":
        return f"{who} chose their characters."
    if kind == "turn":
        return f"Turn {ev.get('turn')}: {who} to play."
    if kind == "act":
        return f"Act {ev.get('act')} begins: its row is turned face up."
    if kind == "gain":
        path = f" ({ev['path']} path)" if ev.get("path") else ""
        return f"{who} gained {card}{path}."
    if kind == "attempt":
        return f"{who} attempted {card} ({ev.get('path')} path, difficulty {ev.get('difficulty')})."
    if kind == "cast":
        return f"{who} cast {len(ev.get('runes', []))} runes: total {ev.get('total')}."
    if kind == "overcome":
        return f"{who} overcame {card} with {ev.get('total')} against {ev.get('difficulty')}."
    if kind == "fail":
        return f"{who} failed {card} with {ev.get('total')} against {ev.get('difficulty')} and gained 1 experience."
    if kind == "draw":
        what = f" ({card})" if ev.get("card") else ""
        return f"{who} drew a {ev.get('deck')} card{what}."
    if kind == "play":
        target = f" on {ev['target']}" if ev.get("target") else ""
        return f"{who} played {card}{target}."
    if kind == "curse":
        return f"{who}'s curse {card} struck {ev.get('target')}: total {ev.get('total')}."
    if kind in ("journey", "discard"):
        return f"{who} {'journeyed and discarded' if kind == 'journey' else 'discarded'} {card}."
    if kind == "dark":
        return f"{who} bought dark rune {ev.get('count')}."
    if kind == "track":
        return f"{who} moved to {ev.get('level')} on the corruption track."
    if kind == "refill":
        return f"Act {ev.get('act')}'s row was refilled{f' with {card}' if ev.get('card') else ''}."
    if kind == "reshuffle":
        return f"Act {ev.get('act')}'s discard pile was shuffled into its deck."
    if kind == "final":
        return f"{who} completed their Destiny: every other player takes one final turn."
    if kind == "pass":
        return f"{who} passed."
    if kind == "adversary_card":
        return (
            f"The Adversary's card {card} was revealed: its experience is {ev.get('experience')} of {ev.get('goal')}."
        )
    if kind == "ally":
        where = f"under {_name(cards, ev['under'])}" if ev.get("under") else "to the discard pile"
        return f"The ally {card} was turned up and went {where}."
    if kind == "ally_joins":
        return f"The ally {card} joined {who}."
    if kind == "use":
        return f"{who} used the power of {card}" + (" and sacrificed it." if ev.get("cost") == "sacrifice" else ".")
    if kind == "order":
        seen = f": {', '.join(ev['order'])}" if ev.get("order") else ""
        return f"{who} looked at the top of Act {ev.get('act')}'s deck and put the cards back{seen}."
    if kind == "end":
        return f"{who} ended the turn."
    if kind == "game_over":
        return f"The game is over ({ev.get('reason')})."
    return f"{who}: {kind}."


def describe_move(move: dict[str, Any]) -> str:
    """A move as a short instruction."""
    do = move.get("do")
    card = move.get("card")
    texts = {
        "choose": f"Choose {move.get('origin')}, {move.get('motivation')} and {move.get('destiny')}",
        "trait": f"Gain the trait {card}",
        "attempt": f"Attempt {card} ({move.get('path')} path)",
        "discard": f"Discard {card} from its row",
        "pass": "Pass",
        "journey": f"Journey: spend 1 experience to discard {card}",
        "dark": "Buy a dark rune for 1 experience",
        "cast": "Cast the runes",
        "draw": f"Draw a {move.get('deck')} card",
        "play": f"Play {card}"
        + (f" on {move['target']}" if move.get("target") else "")
        + (f" on the row card {move['row']}" if move.get("row") else ""),
        "resolve": "Take the result",
        "end": "End your turn",
        "use": f"Use the power of your ally {card}"
        + (f" on {move['target']}" if move.get("target") else "")
        + (f" on the row card {move['row']}" if move.get("row") else ""),
        "tuck": f"Put the ally under {card}",
        "order": f"Put the cards back, top first: {move.get('order')}",
    }
    return texts.get(str(do), str(do))
