"""Engine events and moves in plain words, as a given player may read them."""

from __future__ import annotations

from typing import Any

PILE_WORDS = {
    "draw1": "draw pile 1",
    "draw2": "draw pile 2",
    "discard1": "discard pile 1",
    "discard2": "discard pile 2",
}
PREFERENCE_WORDS = {
    "smaller": "the smaller discard pile",
    "larger": "the larger discard pile",
    "pile1": "discard pile 1",
    "pile2": "discard pile 2",
}


def card(type_: str, count: int = 1) -> str:
    """'Farmer', '3 Farmers'."""
    name = type_.capitalize()
    return name if count == 1 else f"{count} {name}s"


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
        text = f"{who_cap} laid {card(event['type'], event['count'])}"
        beaten = event.get("beaten")
        if beaten:
            owner = _whose(beaten["player"], viewer)
            if beaten["player"] == event.get("player"):
                owner = "their own" if who != "you" else "your own"
            text += (
                f" and beat {owner} {card(event['type'], beaten['count'])}, which went to {PILE_WORDS[beaten['pile']]}"
            )
        if event.get("ninja_taken"):
            text += ", taking a Ninja miniature"
        return text + "."
    if kind == "discard":
        return f"{who_cap} discarded {a(card(event['type']))} on {PILE_WORDS[event['pile']]}."
    if kind == "ninja":
        target = _whose(event["target"], viewer)
        gone = " (the set is gone)" if event.get("left") == 0 else ""
        return (
            f"{who_cap} used a Ninja on {target} {card(event['type'])}s{gone}; "
            f"the card went to {PILE_WORDS[event['pile']]}."
        )
    if kind == "preference":
        return f"{who_cap} chose to send displaced cards to {PREFERENCE_WORDS[event['discard_preference']]}."
    if kind == "reveal_task":
        how = " (the last card)" if event.get("automatic") else ""
        return f"{who_cap} revealed task card {event['deck']}: {card(event['type'])}{how}."
    if kind == "round_end":
        return f"Round {event['round']} is over."
    if kind == "round_scored":
        scores = ", ".join(f"{name} {score}" for name, score in event["scores"].items())
        return f"Round {event['round']} scores: {scores}."
    if kind == "round_start":
        return f"Round {event['round']} begins; {_who(event['start_player'], viewer)} start."
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
        return f"Use a Ninja on {move.get('target')}'s {card(str(move.get('type')))}s"
    if do == "reveal_task":
        return f"Reveal task card {move.get('deck')}"
    if do == "preference":
        return f"Send my displaced cards to {PREFERENCE_WORDS.get(str(move.get('discard_preference')), '?')}"
    return "Unknown move"
