"""Engine events and moves in plain words, as a given player may read them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .view import mask_event

PILE_WORDS = {
    "draw1": "draw pile 1",
    "draw2": "draw pile 2",
    "discard1": "discard pile 1",
    "discard2": "discard pile 2",
}
END_WORDS = {
    "types": "a player has sets of enough different types",
    "all_types": "all nine types are on the table",
    "draw_pile_empty": "a draw pile is empty",
}
PREFERENCE_WORDS = {
    "smaller": "the smaller discard pile",
    "larger": "the larger discard pile",
    "pile1": "discard pile 1",
    "pile2": "discard pile 2",
}


def card(type_: str, count: int = 1) -> str:
    """'Farmer', '3 Farmers', '2 Empresses'."""
    name = type_.capitalize()
    return name if count == 1 else f"{count} {plural(name)}"


def plural(name: str) -> str:
    """'Farmers', 'Empresses'; Samurai and Daimyo stay as they are."""
    if name in ("Samurai", "Daimyo"):
        return name
    return f"{name}es" if name.endswith("s") else f"{name}s"


def a(word: str) -> str:
    """'a Farmer', 'an Emperor'."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def _who(name: str, viewer: str | None) -> str:
    return "you" if name == viewer else name


def _whose(name: str, viewer: str | None) -> str:
    return "your" if name == viewer else f"{name}'s"


def describe_event(event: dict[str, Any], viewer: str | None) -> str:
    """One event (already masked for ``viewer``) as a sentence."""
    kind = event.get("event")
    who = _who(str(event.get("player", "")), viewer)
    who_cap = "You" if who == "you" else who
    if kind == "draw":
        pile = PILE_WORDS.get(event["pile"], event["pile"])
        if event.get("card") is None:
            return f"{who_cap} drew the top of {pile}."
        drawn = card(event["card"])
        if event["pile"].startswith("draw"):
            return f"{who_cap} drew {a(drawn)} from {pile}."
        return f"{who_cap} took the {drawn} from {pile}."
    if kind == "lay":
        return f"{who_cap} {_lay_clause(event, viewer)}."
    if kind == "discard":
        return f"{who_cap} discarded {a(card(event['type']))} on {PILE_WORDS[event['pile']]}."
    if kind == "ninja":
        target = _whose(event["target"], viewer)
        gone = " (the set is gone)" if event.get("left") == 0 else ""
        return (
            f"{who_cap} used a Ninja on {target} {plural(card(event['type']))}{gone}; "
            f"the card went to {PILE_WORDS[event['pile']]}."
        )
    if kind == "preference":
        return f"{who_cap} chose to send displaced cards to {PREFERENCE_WORDS[event['discard_preference']]}."
    if kind == "reveal_task":
        how = " (the last card)" if event.get("automatic") else ""
        return f"{who_cap} revealed task card {event['deck']}: {card(event['type'])}{how}."
    if kind == "round_end":
        why = " and ".join(END_WORDS[r] for r in event.get("reasons", ()) if r in END_WORDS)
        return f"Round {event['round']} is over{f' ({why})' if why else ''}."
    if kind == "round_scored":
        scores = ", ".join(f"{name} {score}" for name, score in event["scores"].items())
        return f"Round {event['round']} scores: {scores}."
    if kind == "round_start":
        starter = _who(event["start_player"], viewer)
        return f"Round {event['round']} begins; {starter} {'start' if starter == 'you' else 'starts'}."
    if kind == "game_end":
        names = ", ".join(event["winners"])
        return f"The game is over. Winner{'s' if len(event['winners']) > 1 else ''}: {names}."
    return str(kind)


def describe_move(move: dict[str, Any]) -> str:
    """A move (a record entry) as an instruction: 'Draw the top card of draw pile 1'."""
    do = move.get("do")
    if do == "draw":
        return f"Draw from {PILE_WORDS.get(str(move.get('pile')), '?')}"
    if do == "lay":
        return f"Lay {card(str(move.get('type')), int(move.get('count') or 0))}"
    if do == "discard":
        pile = move.get("pile")
        where = f" on {PILE_WORDS[pile]}" if pile in PILE_WORDS else ""
        return f"Discard {a(card(str(move.get('type'))))}{where}"
    if do == "ninja":
        return f"Use a Ninja on {move.get('target')}'s {plural(card(str(move.get('type'))))}"
    if do == "reveal_task":
        return f"Reveal task card {move.get('deck')}"
    if do == "preference":
        return f"Send my displaced cards to {PREFERENCE_WORDS.get(str(move.get('discard_preference')), '?')}"
    return "Unknown move"


def _lay_clause(event: dict[str, Any], viewer: str | None) -> str:
    """'laid 3 Farmers and beat your 2 Farmers, which went to discard pile 1' (no subject)."""
    text = f"laid {card(event['type'], event['count'])}"
    beaten = event.get("beaten")
    if beaten:
        owner = _whose(beaten["player"], viewer)
        if beaten["player"] == event.get("player"):
            owner = "your own" if event.get("player") == viewer else "their own"
        text += f" and beat {owner} {card(event['type'], beaten['count'])}, which went to {PILE_WORDS[beaten['pile']]}"
    if event.get("ninja_taken"):
        text += ", taking a Ninja miniature"
    return text


def _drawn(event: dict[str, Any]) -> str:
    """What a (masked) draw took: 'the top of draw pile 1', 'a Farmer from draw pile 2', 'the Monk from …'."""
    pile = PILE_WORDS.get(event["pile"], event["pile"])
    if event.get("card") is None:
        return f"the top of {pile}"
    if event["pile"].startswith("draw"):
        return f"{a(card(event['card']))} from {pile}"
    return f"the {card(event['card'])} from {pile}"


def _clause(event: dict[str, Any], viewer: str | None) -> str:
    kind = event["event"]
    if kind == "lay":
        return _lay_clause(event, viewer)
    if kind == "discard":
        return f"discarded {a(card(event['type']))} on {PILE_WORDS[event['pile']]}"
    if kind == "ninja":
        gone = " (the set is gone)" if event.get("left") == 0 else ""
        return (
            f"used a Ninja on {_whose(event['target'], viewer)} {plural(card(event['type']))}{gone}, "
            f"sending the card to {PILE_WORDS[event['pile']]}"
        )
    return f"revealed task card {event['deck']}: {card(event['type'])}"


@dataclass(frozen=True)
class LogEntry:
    """One logged move as a narrative reads it: who made it, how (the log's source), when, and its events."""

    player: str
    source: str
    events: Sequence[dict[str, Any]]
    at: Any = None


@dataclass
class _Turn:
    player: str
    how: str
    events: list[dict[str, Any]] = field(default_factory=list)

    def sentence(self, viewer: str | None) -> str:
        clauses: list[str] = []
        draws: list[str] = []
        for event in self.events:
            if event["event"] == "draw":
                draws.append(_drawn(event))
                continue
            if draws:
                clauses.append("drew " + " and ".join(draws))
                draws = []
            clauses.append(_clause(event, viewer))
        if draws:
            clauses.append("drew " + " and ".join(draws))
        who = _who(self.player, viewer)
        body = ", ".join(clauses)
        if self.how == "timeout":
            return f"Time ran out: a bot played for {who}. It {body}."
        if self.how == "admin":
            return f"The organiser had a bot play for {who}. It {body}."
        return f"{'You' if who == 'you' else who} {body}."


TURN_ACTIONS = ("draw", "lay", "discard", "ninja", "reveal_task")
TURN_ENDS = ("lay", "discard", "reveal_task")


def narrative(entries: Iterable[LogEntry], viewer: str | None, notes: Iterable[tuple[Any, str]] = ()) -> list[str]:
    """What happened, in plain words as ``viewer`` may read it (face-down draws of others masked).

    One sentence per turn (a part of a turn that a bot played because time ran out, or
    on the organiser's word, is its own sentence and says so); round and game events and
    preference changes on their own; ``notes`` (time, sentence), such as "Bob left the
    game", in their place by time.
    """
    waiting = sorted(notes, key=lambda note: note[0])
    out: list[str] = []
    turn: _Turn | None = None

    def close() -> None:
        nonlocal turn
        if turn is not None and turn.events:
            out.append(turn.sentence(viewer))
        turn = None

    for entry in entries:
        while waiting and entry.at is not None and waiting[0][0] <= entry.at:
            close()
            out.append(waiting.pop(0)[1])
        how = entry.source if entry.source in ("timeout", "admin") else "own"
        for raw in entry.events:
            event = mask_event(raw, viewer or "")
            kind = event.get("event")
            if kind in TURN_ACTIONS and event.get("player") == entry.player and not event.get("automatic"):
                if turn is None or (turn.player, turn.how) != (entry.player, how):
                    close()
                    turn = _Turn(entry.player, how)
                turn.events.append(event)
                if kind in TURN_ENDS:
                    close()
            else:
                close()
                out.append(describe_event(event, viewer))
    close()
    out.extend(sentence for _, sentence in waiting)
    return out
