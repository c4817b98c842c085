"""Call to Adventure through the game protocol (engine/protocol.py): the object registered as ``call-to-adventure``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Final, Self

from ..errors import FormatError, OptionsError
from ..protocol import (
    Bot,
    Choice,
    ChoiceGroup,
    Decision,
    Event,
    LogEntry,
    Milestone,
    Note,
    OptionField,
    Result,
    with_notes,
)
from . import bots, record, rules, state, view
from .cardset import CardSet, parse
from .files import PACKAGED, packaged_set
from .moves import Move
from .state import FINISHED, SETUP, State

_PROMPTS: Final = {
    "main": "Gain a trait or attempt a challenge",
    "prepare": "Buy dark runes, play cards, then cast",
    "draw": "A card face: draw a Hero or an Antihero card",
    "facing": "Play cards or take the result",
    "after": "Journey, play cards or end your turn",
    "peek": "Put the cards you looked at back in an order",
}


class _Bot:
    def __init__(self, bot: bots.RandomBot | bots.HeuristicBot) -> None:
        self.bot = bot

    def choose(self, st: State, player: str) -> Move:
        return self.bot.choose(st, player)


def _random_bot(seed: int) -> _Bot:
    return _Bot(bots.RandomBot(seed))


def _heuristic_bot(seed: int) -> _Bot:
    return _Bot(bots.HeuristicBot(seed))


_GROUP_TITLES: Final = {
    "choose": "Choose your Origin, Motivation and Destiny",
    "tuck": "Place the ally under a challenge",
    "order": "Put the cards back in the order you choose",
    "trait": "Gain a trait",
    "attempt": "Attempt a challenge",
    "discard": "Discard a row card (nothing else is open to you)",
    "pass": "Pass",
    "dark": "Buy a dark rune",
    "cast": "Cast the runes",
    "draw": "Draw a card",
    "resolve": "Take the result",
    "journey": "Journey",
    "play": "Play a card",
    "use": "Use a power",
    "end": "End your turn",
}
"""The choices' groups, in the order a turn meets them."""


class CallToAdventure:
    """Call to Adventure (ADVENTURE_RULES.md) for 1 to 4 players (1 only solo, against the Adversary)."""

    key = "call-to-adventure"
    title = "Call to Adventure"
    record_format = record.RECORD_FORMAT
    min_players = 1
    max_players = 4
    option_fields: Sequence[OptionField] = (
        OptionField("first_game", "First game: one of each character card, no choice", "bool", False),
        OptionField("allies_adversaries", "Allies & Adversaries", "bool", False),
        OptionField("coop", "Solo / co-operative play against the Adversary (V1)", "bool", False),
        OptionField(
            "card_set",
            "Card set",
            "choice",
            "starter",
            tuple((n, n.title()) for n in PACKAGED),
            "The starter set, or a card-set file (CARDSET.md) put in the server's folder for this game",
            ".toml",
        ),
    )
    bots: Mapping[str, Callable[[int], Bot]] = {"heuristic": _heuristic_bot, "random": _random_bot}
    lang = "en"
    """Its texts are in English: it has no Dutch or French words yet."""

    def speaking(self, lang: str) -> Self:
        """This game itself, for any ``lang``: its texts are English in every language for now."""
        return self

    def parse_options(self, data: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
        """The options of a record or a form (A2), checked for these players, defaults resolved."""
        if not isinstance(data, Mapping):
            raise OptionsError({"": "the options must be an object"})
        errors = state.check_options(data, list(players) if not isinstance(players, str) else [])
        card_set = data.get("card_set", "starter")
        if "card_set" not in errors and isinstance(card_set, Mapping):
            try:
                _card_set(card_set)
            except FormatError as exc:
                errors["card_set"] = str(exc)
        elif "card_set" not in errors and card_set not in PACKAGED:
            errors["card_set"] = f"unknown card set {card_set!r} (expected one of {', '.join(PACKAGED)})"
        if "coop" in data and not isinstance(data["coop"], bool):
            errors["coop"] = "coop must be true or false"
        if errors:
            raise OptionsError(errors)
        try:
            state.check_players(players, bool(data.get("coop", False)))
            self.new_game(players, data, 0)
        except FormatError as exc:
            raise OptionsError({"coop" if "quests" in str(exc) else "players": str(exc)}) from None
        # a card-set file stays whole in the options: the server starts the game again from them
        return state.normal_options(data) | ({"card_set": dict(card_set)} if isinstance(card_set, Mapping) else {})

    def variants(self, players: Sequence[str]) -> list[dict[str, Any]]:
        """The first-game deal, the normal deal, Allies & Adversaries, and solo/co-op (the only one for one player)."""
        if len(players) == 1:
            return [{"coop": True}, {"coop": True, "first_game": True}]
        return [{"first_game": False}, {"first_game": True}, {"allies_adversaries": True}, {"coop": True}]

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        """A new game with the named packaged card set, or the card-set file given in the options (A3)."""
        name = options.get("card_set", "starter") if isinstance(options, Mapping) else "starter"
        if isinstance(name, Mapping):
            return state.new_game(players, options, seed, _card_set(name))
        if not isinstance(name, str):
            raise FormatError("card_set must name a card set")
        return state.new_game(players, options, seed, packaged_set(name))

    def to_json(self, st: State) -> dict[str, Any]:
        """The whole state (hidden cards and the card set included)."""
        return state.to_json(st)

    def from_json(self, data: Any) -> State:
        """A state written by ``to_json``."""
        return state.from_json(data)

    def clone(self, st: State) -> State:
        """An independent copy."""
        return st.clone()

    def waiting_for(self, st: State) -> dict[str, Decision]:
        """Every player who still chooses characters (at once), else the player whose turn it is."""
        if st.status == FINISHED:
            return {}
        if st.status == SETUP:
            return {
                p.name: Decision(f"{i}.{p.decided}", "Choose your Origin, Motivation and Destiny", "setup")
                for i, p in enumerate(st.ps)
                if p.origin is None
            }
        p = st.ps[st.current]
        prompt = "Put the ally turned up under a challenge" if st.tucks else _PROMPTS[st.phase]
        return {p.name: Decision(f"{st.current}.{p.decided}", prompt, f"turn{st.turn}")}

    def legal_moves(self, st: State, player: str) -> list[Move]:
        """The legal moves of ``player`` now."""
        return rules.legal_moves(st, player)

    def parse_move(self, player: str, data: Any) -> Move:
        """A move from a record entry or a form."""
        if not isinstance(data, Mapping):
            raise FormatError("a move must be a JSON object")
        return Move.from_json({**data, "player": player})

    def is_standing(self, move: Any) -> bool:
        """This game has no standing moves."""
        return False

    def settings(self, state: Any, player: str) -> list[ChoiceGroup]:
        """This game has no standing moves."""
        return []

    def apply(self, st: State, move: Move, events: list[Event] | None = None) -> None:
        """Apply a move in place (``IllegalMove`` changes nothing)."""
        rules.apply(st, move, events)

    def player_view(self, st: State, player: str, log: Sequence[Event] | None = None) -> dict[str, Any]:
        """What ``player`` may see (A12)."""
        return view.player_view(st, player, log)

    def summary(self, st: State) -> dict[str, Any]:
        """The state as the replay command prints it."""
        return view.summary(st)

    def result(self, st: State) -> Result | None:
        """Scores best first (ties in seat order) and the winners (A10)."""
        if st.status != FINISHED:
            return None
        order = sorted(range(st.n), key=lambda i: -st.scores[i])
        return Result(
            ranking=tuple(st.players[i] for i in order),
            scores=dict(zip(st.players, st.scores, strict=True)),
            winners=tuple(st.players[w] for w in st.winners),
        )

    def milestones(self, before: State, after: State) -> list[Milestone]:
        """Each Act row turned face up in between, and the end of the game."""
        out = [
            Milestone("act", f"Act {'I' * (a + 1)} begins", a + 1) for a in range(3) if after.up[a] and not before.up[a]
        ]
        if after.status == FINISHED and before.status != FINISHED:
            out.append(Milestone("game_over", "Game over", None, {"ended_by": after.ended_by}))
        return out

    def headline(self, st: State, viewer: str | None, log: Sequence[Event]) -> str:
        """While the turn that turned an Act row face up is the latest, that the Act begins."""
        for i in range(len(log) - 1, -1, -1):
            event = log[i]
            if event.get("event") == "act":
                if any(e.get("player") not in (None, event.get("player")) for e in log[i + 1 :]):
                    return ""
                return f"Act {'I' * int(event.get('act') or 1)} begins: its row is turned face up."
        return ""

    def template_data(self) -> Mapping[str, Any]:
        """Nothing: the view carries everything its templates show."""
        return {}

    def describe(self, event: Event, viewer: str | None) -> str:
        """One event in plain words."""
        return view.describe(event, viewer)

    def narrate(self, entries: Sequence[LogEntry], viewer: str | None, notes: Sequence[Note] = ()) -> list[str]:
        """Logged moves in plain words, one sentence per event, with the notes in their place by time."""
        return with_notes(entries, notes, lambda entry: [view.describe(e, viewer) for e in entry.events])

    def choices(self, st: State, player: str) -> list[ChoiceGroup]:
        """The player's legal moves grouped by kind, in the order of a turn, labelled as instructions."""
        groups: dict[str, list[Choice]] = {}
        for move in self.legal_moves(st, player):
            body = {k: v for k, v in move.to_json().items() if k != "player"}
            groups.setdefault(move.do, []).append(Choice(body, view.describe_move(body), style=move.do))
        order = [kind for kind in _GROUP_TITLES if kind in groups]
        return [ChoiceGroup(kind, _GROUP_TITLES[kind], tuple(groups[kind])) for kind in order]

    def progress(self, st: State, viewer: str | None) -> list[str]:
        """Each Story's length against the nine cards that end the game, and each player's experience."""
        if st.status == FINISHED:
            return []
        parts = [
            f"{'you' if p.name == viewer else p.name} {len(p.story)} of 9 story cards, {p.xp} experience" for p in st.ps
        ]
        return ["The game ends after a player's ninth story card: " + "; ".join(parts) + "."]

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A move as an instruction."""
        return view.describe_move(dict(move))

    def record(self, start: State, moves: Sequence[Move]) -> dict[str, Any]:
        """The ``call-to-adventure/1`` record of a game started as ``start``."""
        return record.record_of(start, moves)

    def replay(self, data: Any) -> tuple[State, State, list[Move]]:
        """Replay a decoded record."""
        return record.replay(data)

    def reshuffle_hidden(self, st: State, viewer: str, seed: int) -> State:
        """A copy in which all that ``viewer`` cannot see is dealt anew (A12): deck orders, face-down rows, the
        other players' hands (kind for kind), and their Destinies and setup cards among the cards out of play."""
        copy = st.clone()
        me = copy.index(viewer)
        rng = random.Random(seed)
        others = [p for i, p in enumerate(copy.ps) if i != me]
        for kind in ("hero", "antihero"):
            pool = list(copy.decks[kind])
            slots = [(p, j) for p in others for j, c in enumerate(p.hand) if copy.cards.cards[c].type == kind]
            pool += [p.hand[j] for p, j in slots]
            rng.shuffle(pool)
            for p, j in slots:
                p.hand[j] = pool.pop()
            copy.decks[kind] = pool
        for kind in ("origin", "motivation", "destiny"):
            pool = list(copy.decks[kind])
            hidden: list[tuple[Any, str]] = []
            for p in others:
                for j in range(len(p.offers.get(kind, []))):
                    hidden.append((p.offers[kind], str(j)))
                if ((kind == "destiny" and copy.status != FINISHED) or copy.status == SETUP) and getattr(
                    p, kind
                ) is not None:
                    hidden.append((p, kind))
            for holder, slot in hidden:
                pool.append(holder[int(slot)] if isinstance(holder, list) else getattr(holder, slot))
            rng.shuffle(pool)
            for holder, slot in hidden:
                if isinstance(holder, list):
                    holder[int(slot)] = pool.pop()
                else:
                    setattr(holder, slot, pool.pop())
            copy.decks[kind] = pool
        for key in ("quest", "adversary"):
            rng.shuffle(copy.decks[key])
        for a in range(3):
            key = f"act{a + 1}"
            known = copy.peek[1] if copy.peek is not None and copy.peek[0] == a and copy.current == me else 0
            kept = copy.decks[key][len(copy.decks[key]) - known :] if known else []
            pool = list(copy.decks[key][: len(copy.decks[key]) - known])
            if not copy.up[a]:
                pool += [c for c in copy.rows[a] if c is not None]
            rng.shuffle(pool)
            if not copy.up[a]:
                copy.rows[a] = [pool.pop() if c is not None else None for c in copy.rows[a]]
            copy.decks[key] = pool + kept
        return copy


def _card_set(given: Mapping[str, Any]) -> CardSet:
    """The card set of a card-set file option ``{"source": name, "text": TOML}``, parsed (``CardSetError``)."""
    source, text = given.get("source"), given.get("text")
    if not isinstance(source, str) or not isinstance(text, str):
        raise FormatError("a card-set file needs its name ('source') and its text ('text')")
    return _parsed(text, source)


@lru_cache(maxsize=8)
def _parsed(text: str, source: str) -> CardSet:
    return parse(text, source)


GAME: Final = CallToAdventure()
