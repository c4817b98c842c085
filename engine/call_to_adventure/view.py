"""What a player may see (A12), the state summary of the record format, and events in plain words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..protocol import Event
from .cardset import ICONS, Card, CardSet, Face
from .moves import PATHS
from .rules import (
    breakdown,
    chance,
    cursed,
    difficulty,
    faces,
    icons,
    runes,
    score,
    total,
    why_closed,
)
from .state import FINISHED, PLAYING, SETUP, Attempt, State
from .words import EN, Words

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
            "runes": [_rune(state, r, f) for r, f in zip(a.runes, a.faces, strict=True)] if a.cast else [],
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


def _rune(state: State, rune: tuple[str, str], f: int) -> dict[str, Any]:
    face: Face = faces(state.cards, rune)[f]
    marks = ("card", "experience", "hero", "antihero", "corruption")
    mark = next((m for m in marks if getattr(face, m)), "")
    return {
        "rune": rune[0],
        "ability": rune[1] if rune[0] in ("ability", "special") else None,
        "face": f,
        "value": face.value,
        "mark": mark,
    }


def player_view(state: State, player: str, log: Sequence[Event] | None = None, words: Words = EN) -> dict[str, Any]:
    """What ``player`` may see (A12), with the cards it names described in ``words``' language, the difficulty of
    the row challenges, the viewer's odds, and each score part by part at the end; with ``log``, those events as
    they may see them."""
    seat = state.index(player)
    view = _public(state, False, seat)
    view["viewer"] = player
    if log is not None:
        view["log"] = [mask_event(e, player) for e in log]
    view["level_names"] = [level.name for level in state.cards.track]
    view["difficulty"] = _difficulties(state)
    if state.status == PLAYING:
        view["odds"] = odds(state, seat, words)
    for i, p in enumerate(state.ps):  # others' characters stay hidden while everyone chooses (A3.2)
        counted = icons(state.cards, p, destiny=state.status == FINISHED)
        hidden = state.status == SETUP and i != seat
        view["players"][p.name]["icons"] = {} if hidden else {k: counted[k] for k in ICONS if counted[k]}
    if state.status == FINISHED:
        for p in state.ps:
            view["players"][p.name]["breakdown"] = breakdown(state.cards, p)
    view["cards"] = {c: card_info(state.cards, state.cards.cards[c], words) for c in sorted(card_ids(view))}
    return view


def organiser_view(state: State, words: Words = EN) -> dict[str, Any]:
    """Everything of the state for the game's organiser, hidden parts included (every hand, Destiny and choice, the
    top of a peeked deck): the player views' shape, with every card it names described in ``words``' language, the
    row challenges' difficulty, each Story's icons and, at the end, each score part by part. No odds: they are a
    player's own."""
    view = _public(state, True, None)
    view["viewer"] = None
    view["level_names"] = [level.name for level in state.cards.track]
    view["difficulty"] = _difficulties(state)
    over = state.status == FINISHED
    for p in state.ps:
        counted = icons(state.cards, p, destiny=over)
        view["players"][p.name]["icons"] = {k: counted[k] for k in ICONS if counted[k]}
        if over:
            view["players"][p.name]["breakdown"] = breakdown(state.cards, p)
    view["cards"] = {c: card_info(state.cards, state.cards.cards[c], words) for c in sorted(card_ids(view))}
    return view


def _faced(state: State) -> list[tuple[int, str]]:
    """The challenges and adversaries that may be attempted: (Act index, card) of the face-up rows, and the
    Adversary of A13 (Act index -1) while it stands."""
    table = state.cards.cards
    out = [
        (a, c)
        for a in range(3)
        if state.up[a]
        for c in state.rows[a]
        if c is not None and table[c].type in ("challenge", "adversary")
    ]
    adv = state.adversary
    if adv is not None and adv["defeated_by"] is None:
        out.append((-1, adv["card"]))
    return out


def _difficulties(state: State) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for act, c in _faced(state):
        card = state.cards.cards[c]
        sides = PATHS[: len(card.paths)]
        out[c] = {side: difficulty(state, Attempt(c, act, i)) for i, side in enumerate(sides)}
    return out


def odds(state: State, seat: int, words: Words = EN) -> dict[str, dict[str, Any]]:
    """The player's runes and exact chances (whole percent, rounded down) for each challenge they could face,
    with 0 up to the most dark runes they could buy now, and whether it is open to them and why not."""
    p = state.ps[seat]
    table = state.cards.cards
    most = min(3, p.xp) if state.cards.track[p.level].dark else 0  # for an attempt of their own, not one under way
    out: dict[str, dict[str, Any]] = {}
    for act, c in _faced(state):
        card = table[c]
        base = runes(state.cards, p, card, 0)
        why = why_closed(state, p, act, card)
        reason = "" if why is None else words.reason(why[1], why[2], state.cards)
        per: dict[str, Any] = {}
        for i, side in enumerate(PATHS[: len(card.paths)]):
            need = difficulty(state, Attempt(c, act, i)) + cursed(state, seat)
            per[side] = {
                "runes": [{"rune": k, "ability": b if k in ("ability", "special") else None} for k, b in base],
                "chances": [chance(state.cards, base + [("dark", "")] * k, need) for k in range(most + 1)],
                "open": why is None,
                "reason": reason,
            }
        out[c] = per
    return out


def card_ids(view: Mapping[str, Any]) -> set[str]:
    """Every card id a view shows (its ``cards`` and ``log`` aside)."""
    out: set[str] = set()
    for row in view["rows"]:
        if isinstance(row, list):
            out.update(c for c in row if c)
    for entry in view["players"].values():
        out.update(c for c in (entry["origin"], entry["motivation"], entry["destiny"]) if c)
        out.update(s["card"] for s in entry["story"])
        for key in ("played", "allies", "sacrificed", "hand"):
            out.update(entry.get(key, ()))
        for offer in entry.get("offers", {}).values():
            out.update(offer)
    if view["attempt"] is not None:
        out.add(view["attempt"]["card"])
    if view["peek"] is not None:
        out.update(view["peek"].get("cards", ()))
    out.update(view["allies_under"])
    out.update(view["allies_under"].values())
    out.update(view["allies_waiting"])
    adv = view["adversary"]
    if adv is not None:
        out.update([adv["quest"], adv["card"], *adv["revealed"]])
    out.update(curse["card"] for curse in view["curses"])
    return out


def card_info(cards: CardSet, card: Card, words: Words = EN) -> dict[str, Any]:
    """What a page shows of one card (contract: CardInfo), its name and lines in ``words``' language."""
    icons = list(card.icons) + [i for path in card.paths for i in path.icons if len(card.paths) == 1]
    sides: tuple[str, ...] = ("top", "bottom") if len(card.paths) == 2 else ("only",) * len(card.paths)
    paths = [
        {
            "side": side,
            "icons": list(path.icons),
            "triumph": path.triumph,
            "tragedy": path.tragedy,
            "virtue": path.virtue,
            "corruption": path.corruption,
            "hero": path.hero,
            "antihero": path.antihero,
            "experience": path.experience,
            "harder": path.harder,
        }
        for side, path in zip(sides, card.paths, strict=True)
    ]
    return {
        "id": card.id,
        "type": card.type,
        "name": words.name(cards, card.id),
        "act": card.act,
        "icons": icons,
        "difficulty": card.difficulty,
        "abilities": list(card.abilities),
        "paths": paths,
        "lines": words.card_lines(cards, card),
    }


def summary(state: State) -> dict[str, Any]:
    """The state as ``python -m engine replay`` prints it: everything but the order of the decks."""
    return _public(state, True, None)


# Words ----------------------------------------------------------------------------------------------------


def describe(event: Event, viewer: str | None, cards: CardSet | None = None, words: Words = EN) -> str:
    """One event as ``viewer`` may see it, in plain words (``cards``: the set that names the cards)."""
    return words.describe_event(mask_event(event, viewer), viewer, cards)


def describe_move(move: Mapping[str, Any], cards: CardSet | None = None, words: Words = EN) -> str:
    """A move as a short instruction."""
    return words.describe_move(move, cards)
