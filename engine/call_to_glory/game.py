"""Call to Glory through the game protocol (engine/protocol.py): the object registered as ``call-to-glory``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from ..errors import FormatError, IllegalMove, OptionsError
from ..protocol import (
    Bot,
    Choice,
    ChoiceGroup,
    Command,
    Decision,
    Event,
    Game,
    LogEntry,
    Milestone,
    Note,
    OptionField,
    Result,
    register_game,
)
from . import bots, codec, commands, present, record, rules, view, words
from .cards import DEFAULT_TASK_TABLE, TASK_BONUS, TASK_DECKS, TYPES, VALUES
from .moves import Move
from .record import public_of
from .state import FINISHED, PLAYING, REVEALING, Options, State, check_players, new_game
from .words import EN, Words
from .words_fr import FR
from .words_nl import NL

LANGUAGES: Final[Mapping[str, Words]] = {"en": EN, "nl": NL, "fr": FR}
"""The languages Call to Glory speaks, by code."""
_OPTION_KEYS: Final = ("rounds", "imperial_tasks", "ninja_power", "first_player", "task_decks")


def task_table_text(table: Mapping[str, Sequence[str]] | None = None, w: Words = EN) -> str:
    """The task-card table as a form shows it: one line per deck, ``A: Emperor, Empress, Daimyo, Shogun`` (the
    names in the language of ``w``)."""
    shown: Mapping[str, Sequence[str]] = table or DEFAULT_TASK_TABLE
    return "\n".join(f"{deck}: {', '.join(w.name(t) for t in shown[deck])}" for deck in TASK_DECKS)


def parse_task_table(text: str, w: Words = EN) -> dict[str, list[str]]:
    """Read a form's task-card table: decks A, B and C, four card types each (R1). A card may be named in English
    or in the language of ``w`` (in any case); the messages are in that language."""
    names = {n.casefold(): t for t in TYPES for n in (t, w.name(t))}
    table: dict[str, list[str]] = {}
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    if len(lines) > len(TASK_DECKS):
        raise FormatError(w.text("err_table_lines"))
    for number, line in enumerate(lines, start=1):
        deck, sep, rest = line.partition(":")
        deck = deck.strip().upper()
        if not sep or deck not in TASK_DECKS:
            raise FormatError(w.text("err_table_start", number=number))
        if deck in table:
            raise FormatError(w.text("err_table_twice", deck=deck))
        cards = [c.strip() for c in rest.split(",") if c.strip()]
        for card in cards:
            if card.casefold() not in names:
                known = ", ".join(w.name(t) for t in TYPES)
                raise FormatError(w.text("err_table_type", deck=deck, name=repr(card.lower()[:40]), known=known))
        if len(cards) != 4:
            raise FormatError(w.text("err_table_count", deck=deck, count=len(cards)))
        table[deck] = [names[c.casefold()] for c in cards]
    missing = [d for d in TASK_DECKS if d not in table]
    if missing:
        raise FormatError(w.text("err_table_missing", decks=", ".join(missing)))
    return table


def _off_on(w: Words, key: str) -> tuple[str, str]:
    """What a yes/no option's two values mean, in words: ``<key>_off`` and ``<key>_on``."""
    return w.text(f"{key}_off"), w.text(f"{key}_on")


def _option_fields(w: Words) -> tuple[OptionField, ...]:
    """The options of R2 as a form shows them, in the language of ``w``."""
    return (
        OptionField(
            "rounds",
            w.text("opt_rounds"),
            "int",
            None,
            (("", w.text("opt_rounds_standard")), *((str(n), str(n)) for n in range(1, 5))),
        ),
        OptionField("imperial_tasks", w.text("opt_tasks"), "bool", False, values=_off_on(w, "opt_tasks")),
        OptionField("ninja_power", w.text("opt_ninja"), "bool", False, values=_off_on(w, "opt_ninja")),
        OptionField("first_player", w.text("opt_first"), "player", None, help=w.text("opt_first_help")),
        OptionField("task_decks", w.text("opt_decks"), "text", task_table_text(None, w), help=w.text("opt_decks_help")),
    )


def _form_options(data: Mapping[str, Any], errors: dict[str, str], w: Words = EN) -> dict[str, Any]:
    """A form's option values made a record's: the task-card table as text (read only with Imperial Tasks; the
    default table is not stored), and the number of rounds checked against the variant (R2)."""
    out = dict(data)
    decks = out.get("task_decks")
    if isinstance(decks, str):
        del out["task_decks"]
        if out.get("imperial_tasks") is True and decks.strip():
            try:
                table = parse_task_table(decks, w)
            except FormatError as exc:
                errors["task_decks"] = str(exc)
            else:
                if table != {d: list(DEFAULT_TASK_TABLE[d]) for d in TASK_DECKS}:
                    out["task_decks"] = table
    rounds = out.get("rounds")
    top = 3 if out.get("imperial_tasks") is True else 4
    if type(rounds) is int and not 1 <= rounds <= top:
        errors["rounds"] = w.text("err_rounds_tasks" if top == 3 else "err_rounds", top=top)
    return out


class _Bot:
    """A Call to Glory bot behind the protocol's ``choose(state, player)``."""

    def __init__(self, bot: bots.Bot) -> None:
        self.bot = bot

    def choose(self, state: State, player: str) -> Move:
        """The bot's move for ``player``, who must be the one to act."""
        if state.current_player != player:
            raise ValueError(f"{player} has no decision to make now")
        return self.bot.choose(state, player)


def _random_bot(seed: int) -> _Bot:
    return _Bot(bots.RandomBot(seed))


def _heuristic_bot(_seed: int) -> _Bot:
    return _Bot(bots.HeuristicBot())


class CallToGlory(Game):
    """Call to Glory (RULES.md) for 2 to 4 players."""

    key = "call-to-glory"
    title = "Call to Glory"
    record_format = record.RECORD_FORMAT
    min_players = 2
    max_players = 4
    bots: Mapping[str, Callable[[int], Bot]] = {"heuristic": _heuristic_bot, "random": _random_bot}

    def __init__(self, words_: Words = EN, family: dict[str, CallToGlory] | None = None) -> None:
        """The game speaking ``words_``; ``family`` is the same game in the other languages (by code)."""
        self.words = words_
        self.lang = words_.lang
        self.option_fields: Sequence[OptionField] = _option_fields(words_)
        self._family: dict[str, CallToGlory] = {} if family is None else family
        self._family.setdefault(self.lang, self)
        self._template_data: Mapping[str, Any] | None = None
        self._reveal_prompt = words_.text("prompt_reveal")
        self._turn_prompts = (words_.text("prompt_act"), *(words_.text("prompt_draw", left=n) for n in (1, 2)))
        """The prompts of a turn by draws left (0: lay or discard), worded once: ``waiting_for`` runs every move."""

    def speaking(self, lang: str) -> CallToGlory:
        """The same game in ``lang`` (English, Dutch or French; English for any other), one object per language:
        ``GAME.speaking("nl").speaking("en") is GAME``."""
        words_ = LANGUAGES.get(lang, EN)
        found = self._family.get(words_.lang)
        if found is None:
            found = CallToGlory(words_, self._family)
        return found

    def about(self) -> str:
        """What the game is, in one sentence of this game's language."""
        return self.words.text("about")

    def for_options(self, options: Mapping[str, Any]) -> CallToGlory:
        """This game itself: its words do not depend on a game's options."""
        return self

    # Rules -----------------------------------------------------------------------------------------

    def parse_options(self, data: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
        """The options of a record or a form (the task-card table may be the text ``task_table_text`` shows),
        checked for these players (R2), defaults resolved; every problem at once."""
        if not isinstance(data, Mapping):
            raise OptionsError({"": self.words.text("err_not_object")})
        errors: dict[str, str] = {}
        for key in data:
            if key not in _OPTION_KEYS:
                errors[str(key)] = self.words.text("err_unknown_option", key=repr(key))
        data = _form_options(data, errors, self.words)
        try:
            options = Options.from_json(dict(data))
        except FormatError as exc:
            raise OptionsError({**errors, "options": str(exc)}) from None
        if errors:
            raise OptionsError(errors)
        try:
            names = check_players(players)
            state = new_game(names, options, seed=0)
        except FormatError as exc:
            message = str(exc)
            field = next((k for k in _OPTION_KEYS if k in message), "players")
            raise OptionsError({field: message}) from None
        return state.options.to_json()

    def variants(self, players: Sequence[str]) -> list[dict[str, Any]]:
        """Each variant on and off, with the standard number of rounds."""
        return [{"imperial_tasks": v1, "ninja_power": v2} for v1 in (False, True) for v2 in (False, True)]

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        """A new game (R2, R3)."""
        return new_game(players, Options.from_json(dict(options)), seed=seed)

    def to_json(self, state: State) -> dict[str, Any]:
        """The whole state (hidden cards included)."""
        return codec.to_json(state)

    def from_json(self, data: Any) -> State:
        """A state written by ``to_json``."""
        return codec.from_json(data)

    def clone(self, state: State) -> State:
        """An independent copy."""
        return state.clone()

    def waiting_for(self, state: State) -> dict[str, Decision]:
        """The one player who must act: a decision per move (``ply``), one wait per turn or task reveal."""
        status = state.status
        if status == PLAYING:
            prompt = self._turn_prompts[state.draws_left]
            wait = f"p{state.round}.{state.turn}"
        elif status == REVEALING:
            prompt = self._reveal_prompt
            wait = f"r{state.round}.{state.turn}"
        else:
            return {}
        return {state.players[state.current]: Decision(str(state.ply), prompt, wait)}

    legal_moves = staticmethod(rules.legal_moves)
    """The legal moves of ``player`` (none unless they must act; preference changes are not listed): the rules'
    own function, called on every move."""

    def parse_move(self, player: str, data: Any) -> Move:
        """A move from a record entry or a form."""
        if not isinstance(data, Mapping):
            raise FormatError("a move must be a JSON object")
        return Move.from_json({**data, "player": player})

    def is_standing(self, move: Move) -> bool:
        """The discard preference (R7) may be changed at any time."""
        return move.do == "preference"

    def settings(self, state: State, player: str) -> list[ChoiceGroup]:
        """Where the player's displaced cards go."""
        return present.settings(state, player, self.words)

    apply = staticmethod(rules.apply)
    """Apply a move in place (``IllegalMove`` changes nothing): the rules' own function, called on every move."""

    def player_view(self, state: State, player: str, log: Sequence[Event] | None = None) -> dict[str, Any]:
        """What ``player`` may see (R11)."""
        return view.player_view(state, player, log)

    def summary(self, state: State) -> dict[str, Any]:
        """The state of GAME_RECORD.md."""
        return view.state_summary(state)

    def result(self, state: State) -> Result | None:
        """Totals best first (ties in seat order), and the winners of R10."""
        if state.status != FINISHED:
            return None
        order = sorted(range(state.n), key=lambda p: -state.totals[p])
        return Result(
            ranking=tuple(state.players[p] for p in order),
            scores=dict(zip(state.players, state.totals, strict=True)),
            winners=tuple(state.players[w] for w in state.winners),
        )

    def milestones(self, before: State, after: State) -> list[Milestone]:
        """Each round scored in between (with its score sheet and, in words, why it ended: ``why``), and the end of
        the game."""
        out = []
        details = view.round_details(after) if len(after.round_scores) > len(before.round_scores) else []
        for number in range(len(before.round_scores) + 1, len(after.round_scores) + 1):
            title = self.words.text("milestone_round", round=number)
            sheet = details[number - 1]
            out.append(Milestone("round_scored", title, number, {**sheet, "why": self.words.round_ended(sheet)}))
        if after.status == FINISHED and before.status != FINISHED:
            out.append(Milestone("game_over", self.words.text("milestone_over")))
        return out

    # Words -----------------------------------------------------------------------------------------

    def headline(self, state: State, viewer: str | None, log: Sequence[Event]) -> str:
        """While the first turns of a new round are played, that the last round is over and how it scored."""
        return present.round_over(state, log, self.words)

    def template_data(self) -> Mapping[str, Any]:
        """What the game's templates show that is the game's: each card type's value and name (singular, plural),
        the task bonuses, and the words of a board in the game's language: pile labels, preferences, counted nouns
        (``cards``, ``miniatures``: the form for 0, 1 and more, picked by ``[n, 2]|min``, with ``{n}``) and a few
        sentences with ``{}`` fields. Made once per language: every card of a page asks for it."""
        if self._template_data is None:
            w = self.words
            self._template_data = MappingProxyType(
                {
                    "values": dict(zip(TYPES, VALUES, strict=True)),
                    "names": {t: w.name(t) for t in TYPES},
                    "plurals": {t: w.plural(t) for t in TYPES},
                    "task_bonus": dict(TASK_BONUS),
                    "piles": dict(w.PILE_LABELS),
                    "preferences": dict(w.PREFERENCE_NAMES),
                    "cards": w.numbered(w.CARD_FORMS),
                    "miniatures": w.numbered(w.MINIATURE_FORMS),
                    "words": {k: w.TEXTS[f"board_{k}"] for k in ("pile", "top", "ninjas", "prefers")},
                }
            )
        return self._template_data

    def describe(self, event: Event, viewer: str | None) -> str:
        """One event in plain words."""
        return self.words.describe_event(event, viewer)

    def narrate(self, entries: Sequence[LogEntry], viewer: str | None, notes: Sequence[Note] = ()) -> list[str]:
        """Logged moves in plain words, one sentence per turn, with the notes in their place by time."""
        return self.words.narrative(
            (words.LogEntry(e.player, e.source, e.events, e.at) for e in entries), viewer, notes
        )

    def choices(self, state: State, player: str) -> list[ChoiceGroup]:
        """The player's moves grouped for buttons, with what each does and why others are closed."""
        return present.choices(state, player, self.words)

    def refine(self, state: State, player: str, move: Mapping[str, Any]) -> list[Choice]:
        """No move of Call to Glory has variants to confirm."""
        return []

    def progress(self, state: State, viewer: str | None) -> list[str]:
        """Points on each table now and how near the round's end is."""
        return present.progress(state, viewer, self.words)

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A move as an instruction."""
        return self.words.describe_move(dict(move))

    def explain(self, error: IllegalMove) -> str:
        """A refused move in this game's language: what is wrong, what is possible now, the rule where it helps."""
        return self.words.explain(error)

    def commands(self, state: State, player: str) -> list[Command]:
        """A short command per open choice, in this game's language: "draw pile 1", "take emperor", "lay samurai"."""
        return commands.commands(state, player, self.words)

    def parse_command(self, state: State, player: str, text: str) -> Mapping[str, Any] | None:
        """The move a line of a reply asks for, read liberally (see ``commands``), or None for no command."""
        return commands.parse(state, player, text, self.words)

    # Records ---------------------------------------------------------------------------------------

    def record(self, start: State, moves: Sequence[Move]) -> dict[str, Any]:
        """The ``call-to-glory/1`` record of a game started as ``start``."""
        return record.record_of(start, moves).to_json()

    def replay(self, data: Any) -> tuple[State, State, list[Move]]:
        """Replay a decoded record."""
        played, final = record.replay(data)
        return played.start(), final, played.moves

    def public_record(self, record: Mapping[str, Any], viewer: str | None) -> dict[str, Any]:
        """The record without what tells hidden or future cards (the seed, explicit decks, the task deal), the same
        for every viewer: the moves hide nothing a player's log does not show."""
        return public_of(record)

    def reshuffle_hidden(self, state: State, viewer: str, seed: int) -> State:
        """A copy in which the other players' hands and the draw piles are dealt anew from their cards, and the
        other players' unrevealed task cards are swapped with the tasks left out of the game (R11)."""
        copy = state.clone()
        me = copy.index[viewer]
        rng = random.Random(seed)
        others = [p for p in range(copy.n) if p != me]
        pool = [t for p in others for t, c in enumerate(copy.hands[p]) for _ in range(c)]
        pool += [t for pile in copy.draw_piles for t in pile]
        rng.shuffle(pool)
        for p in others:
            size = sum(copy.hands[p])
            hand = [0] * len(copy.hands[p])
            for t in pool[:size]:
                hand[t] += 1
            del pool[:size]
            copy.hands[p] = hand
        for pile in copy.draw_piles:
            size = len(pile)
            pile[:] = pool[:size]
            del pool[:size]
        if copy.tasks:
            for deck in TASK_DECKS:
                spare = list(copy.task_table[deck])  # the deck's cards the viewer cannot place
                if deck in copy.tasks[me]:
                    spare.remove(copy.tasks[me][deck])
                for _p, d, t, _round in copy.revealed:
                    if d == deck:
                        spare.remove(t)
                rng.shuffle(spare)
                held = [p for p in others if deck in copy.tasks[p]]
                for p, t in zip(held, spare, strict=False):
                    copy.tasks[p][deck] = t
        return copy


GAME: Final = register_game(CallToGlory())
