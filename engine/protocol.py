"""The game protocol: everything the server and the tools know of a game.

A game is a package under ``engine/`` whose ``__init__`` builds one object of a subclass of ``Game`` below
and registers it (``register_game``); ``import engine`` imports every package under ``engine/``, so a new
game is a new folder and nothing else. The server, ``python -m engine`` and the conformance tests drive
every game through these names only; nothing outside the game's package names a card, a pile or a round.

``Game`` gives every optional method a default (no standing moves, no variants to confirm, a button per
legal move, a generic record that carries the start state …): a minimal game defines its identity and
``new_game``, ``to_json``/``from_json``, ``waiting_for``, ``legal_moves``, ``parse_move``, ``apply``,
``player_view`` and ``result`` (see ``tests/games/pick_a_number.py``).

The state is the game's own (mutable) object: ``apply`` changes it in place, ``clone`` copies it,
``to_json``/``from_json`` store it (all hidden information included: keep it private) and
``player_view`` is the only projection that may be shown to a player.

Words: every text a game gives (events described, choices, prompts, options …) is in the language of the
game object, ``Game.lang``; ``Game.speaking(lang)`` gives the same game in another language. The engine
stays pure: a game carries its own words for each language it knows (no gettext, no request), and the
server asks for the game speaking the reader's language.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar, runtime_checkable

from .errors import FormatError, IllegalMove, OptionsError, RecordError
from .records import apply_all

Event = dict[str, Any]
"""Something that happened, as a JSON-ready object (``{"event": "draw", "player": "ann", …}``)."""


class Decision(NamedTuple):
    """An open decision of one player.

    ``id`` stays the same until that player makes the decision (a move link is bound to it): 1 to 64 letters,
    digits or ``._:-``;
    ``prompt`` says in a few words what is asked (in the game's ``lang``); ``wait`` names what the player is
    waited on for: reminders and deadlines run per wait, so several decisions in a row of one turn can share one
    (a game without such turns gives its ``id``).
    """

    id: str
    prompt: str
    wait: str


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game: players best first with their scores, and the winners: several on a shared victory,
    none when everyone lost (a co-operative game the opponent won)."""

    ranking: tuple[str, ...]
    scores: Mapping[str, int]
    winners: tuple[str, ...]

    @property
    def shared(self) -> bool:
        """True when several players share the victory."""
        return len(self.winners) > 1


@dataclass(frozen=True, slots=True)
class Milestone:
    """A point of a game worth an email of its own: a round scored, an act over, the game over.

    ``kind`` is the game's word for it (the server only knows ``"game_over"``), ``number`` which one
    (round 2), ``title`` a short heading (in the game's ``lang``) and ``data`` what the game's templates show for it.
    """

    kind: str
    title: str
    number: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OptionField:
    """One option of a game, as a form shows it: ``kind`` is ``bool``, ``choice``, ``int``, ``text`` or ``player``
    (one of the players' names); ``choices`` (value, label) limit a ``choice`` or ``int`` to those values.
    Labels and help are in the game's ``lang`` (see ``Game.speaking``); names and values are not.

    ``files`` (a file name ending such as ``".toml"``): the option may also be a file of that kind that the
    server's organiser put in the server's folder for this game; the game then gets ``{"source": <file name>,
    "text": <its text>}`` as the value and checks it in ``parse_options`` (its message names what is wrong).

    ``values``: for a ``bool``, what each value means in words, (off, on) — "not played", "played" — so that an
    invitation never says "yes" or "no" (without them the server says the option is on or off)."""

    name: str
    label: str
    kind: str
    default: Any = None
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""
    files: str = ""
    values: tuple[str, str] | tuple[()] = ()


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One logged move as a narrative reads it: who made it, how (the log's source), its events, and when (if
    known: notes are placed between entries by it)."""

    player: str
    source: str
    events: Sequence[Event]
    at: Any = None


Note = tuple[Any, str]
"""Something the server adds to a narrative at its time (comparable with ``LogEntry.at``: a datetime on the
server): "Bob left the game", an organiser's action, table talk."""


def with_notes(
    entries: Sequence[LogEntry], notes: Sequence[Note], narrate: Callable[[LogEntry], list[str]]
) -> list[str]:
    """The sentences of ``narrate`` for each entry, with each note (oldest first) before the first entry made after
    it and the rest at the end: for games whose narrative reads entry by entry."""
    waiting = sorted(notes, key=lambda note: note[0])
    out: list[str] = []
    for entry in entries:
        while waiting and entry.at is not None and waiting[0][0] <= entry.at:
            out.append(waiting.pop(0)[1])
        out.extend(narrate(entry))
    out.extend(sentence for _, sentence in waiting)
    return out


@dataclass(frozen=True, slots=True)
class Choice:
    """A move offered to a player: the move (a record entry without its player), the button's label, what it
    will do (``note``) and a style hint for the page (``style``, such as the card's kind); ``confirm``: the page
    shows it as a link to its confirm page (one button per ``Game.refine`` variant) instead of a button that posts
    at once."""

    move: Mapping[str, Any]
    label: str
    note: str = ""
    style: str = ""
    confirm: bool = False


@dataclass(frozen=True, slots=True)
class Closed:
    """Something the player cannot do now, with the reason in plain words and the rule that says so."""

    label: str
    reason: str
    rule: str = ""


@dataclass(frozen=True, slots=True)
class ChoiceGroup:
    """The choices of one kind (draws, lays …) under a heading, with those closed to the player and why."""

    key: str
    title: str
    choices: tuple[Choice, ...] = ()
    closed: tuple[Closed, ...] = ()


@runtime_checkable
class Move(Protocol):
    """A move of one player; ``to_json`` gives it as a record entry."""

    @property
    def player(self) -> str:
        """The player who makes the move."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The move as a record entry: ``{"player": …, "do": …, <fields>}``."""
        ...


class Bot(Protocol):
    """Anything that makes a player's open decision."""

    def choose(self, state: Any, player: str) -> Any:
        """One of ``legal_moves(state, player)``."""
        ...


@dataclass(frozen=True, slots=True)
class Command:
    """A short text command that a reply by email may carry for one open choice: ``text`` in the game's language
    ("draw pile 1", "take emperor"), the move it makes (a record entry without its player) and the choice's
    ``label`` as its page shows it. A reply may also give the command's number (its place in
    ``Game.commands``, from 1) or the command in English."""

    text: str
    move: Mapping[str, Any]
    label: str = ""


G = TypeVar("G", bound="Game")

GAMES: dict[str, Game] = {}
"""Every registered game by its key (``engine.GAMES``)."""


def register_game(game: G) -> G:
    """Add a game to ``GAMES`` (a key may be registered once) and return it: a game's package calls it on import."""
    if game.key in GAMES and GAMES[game.key] is not game:
        raise ValueError(f"a game with the key {game.key!r} is registered already")
    GAMES[game.key] = game
    return game


_WORD = re.compile(r"[^\w]+")


def command_words(text: str) -> str:
    """``text`` as a command is compared: case-folded, accents kept, every run of other characters one space
    ("Draw from draw pile 1!" → "draw from draw pile 1")."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _WORD.sub(" ", folded).strip()


class Game:
    """A game: subclass it, set the identity below and define the methods that raise ``NotImplementedError``;
    every other method has a default that a game overrides where it has more to say.

    Words: every text a game gives is in its ``lang``; ``speaking(lang)`` gives the same game in another
    language (the default: itself, for a game that speaks only English)."""

    key: str = ""
    """The registry key and record namespace: ``"call-to-glory"``."""
    title: str = ""
    record_format: str = ""
    """The ``format`` of its game records: ``"call-to-glory/1"``."""
    min_players: int = 2
    max_players: int = 4
    option_fields: Sequence[OptionField] = ()
    bots: Mapping[str, Callable[[int], Bot]] = {}
    """Bot kinds by name; each is built from a seed (bots that need none ignore it)."""
    lang: str = "en"
    """The language of its texts (``"en"``, ``"nl"``, ``"fr"``): ``"en"`` for the object in ``engine.GAMES``."""
    BOOLEAN_WORDS: ClassVar[Mapping[str, bool]] = {"true": True, "on": True, "1": True, "false": False, "0": False}

    # What every game must define -------------------------------------------------------------------

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> Any:
        """A new game; ``FormatError`` (or ``OptionsError``) for players or options it cannot start with."""
        raise NotImplementedError

    def to_json(self, state: Any) -> dict[str, Any]:
        """The whole state, hidden information included."""
        raise NotImplementedError

    def from_json(self, data: Any) -> Any:
        """A state written by ``to_json``; ``FormatError`` for anything inconsistent."""
        raise NotImplementedError

    def waiting_for(self, state: Any) -> dict[str, Decision]:
        """The open decisions by player (several at once for simultaneous choices); empty once the game is over."""
        raise NotImplementedError

    def legal_moves(self, state: Any, player: str) -> list[Any]:
        """Every move ``player`` may make now to decide (empty when they have no open decision)."""
        raise NotImplementedError

    def parse_move(self, player: str, data: Any) -> Any:
        """A move of ``player`` from a record entry or a form (its ``player`` key is ignored); ``FormatError``."""
        raise NotImplementedError

    def apply(self, state: Any, move: Any, events: list[Event] | None = None) -> None:
        """Apply a move in place, appending what happened to ``events``; ``IllegalMove`` changes nothing."""
        raise NotImplementedError

    def player_view(self, state: Any, player: str, log: Sequence[Event] | None = None) -> dict[str, Any]:
        """What ``player`` may see; with ``log`` (events of ``apply``), those events as they may see them."""
        raise NotImplementedError

    def result(self, state: Any) -> Result | None:
        """Ranking, scores and winners of a finished game; None while it is played."""
        raise NotImplementedError

    # Words --------------------------------------------------------------------------------------------

    def speaking(self, lang: str) -> Game:
        """The same game with every text in ``lang``: ``describe``, ``narrate``, ``describe_move``, ``explain``,
        choices (group titles, labels, notes, closed reasons), commands, ``settings``, ``Decision.prompt``,
        milestones' titles, ``progress``, ``headline``, option fields (labels, help, choices) and
        ``OptionsError`` messages, and the texts of ``template_data``. Rules, states, moves, records and events
        are shared: only words differ. An unknown ``lang`` gives English. Cheap (one object per language): the
        server asks for it on every request. Default: this game itself (it speaks one language)."""
        return self

    def for_options(self, options: Mapping[str, Any]) -> Game:
        """The same game, in the same language, for the words of one game played with ``options`` (as
        ``parse_options`` gave them): where those words depend on the options (Call to Adventure names the cards
        of the game's own card set). Cheap, and never raising. Default: this game itself."""
        return self

    def describe(self, event: Event, viewer: str | None) -> str:
        """One event (as ``viewer`` may see it) in plain words. Default: who did what, from the event's keys."""
        who = event.get("player")
        name = "You" if who is not None and who == viewer else who
        rest = ", ".join(f"{k} {v}" for k, v in event.items() if k not in ("event", "player") and v is not None)
        return " ".join(str(part) for part in (name, event.get("event"), rest) if part) + "."

    def narrate(self, entries: Sequence[LogEntry], viewer: str | None, notes: Sequence[Note] = ()) -> list[str]:
        """A run of logged moves in plain words as ``viewer`` may read them, with the server's ``notes`` in their
        place by time. Default: ``describe`` of each event (``with_notes``)."""
        return with_notes(entries, notes, lambda entry: [self.describe(e, viewer) for e in entry.events])

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A move (a record entry without its player) as a short instruction: "Draw from draw pile 1". Default:
        its ``do`` and its other fields."""
        fields = " ".join(str(v) for k, v in move.items() if k not in ("do", "player"))
        return f"{str(move.get('do', '')).capitalize()} {fields}".strip()

    def explain(self, error: IllegalMove) -> str:
        """A refusal in this game's language: the words for ``error.key`` with ``error.params``, naming what is
        wrong and what is possible now. Default: ``error.message`` (the game's English)."""
        return error.message

    def about(self) -> str:
        """One sentence that says what the game is, in this game's language (the front page names each game
        with it). Default: ''."""
        return ""

    def headline(self, state: Any, viewer: str | None, log: Sequence[Event]) -> str:
        """A line for the top of ``viewer``'s page about a milestone just reached, while it is news, else ''.
        ``log`` is the latest events, oldest first, as ``viewer`` may see them. Default: ''."""
        return ""

    def progress(self, state: Any, viewer: str | None) -> list[str]:
        """How the game stands, in a few lines of plain words, using only what ``viewer`` may see; empty once
        the game is over. Default: nothing."""
        return []

    def template_data(self) -> Mapping[str, Any]:
        """Fixed data the game's templates (``templates/games/<key>/``) use. Default: nothing."""
        return {}

    def page_texts(self, view: Mapping[str, Any], viewer: str) -> Mapping[str, Any]:
        """The texts of ``viewer``'s page and emails made from ``view`` (``player_view``; the organiser's board: from
        ``organiser_view``, ``viewer`` ''), in this game's language, built once per page or email for the game's
        templates (``texts``), so that they show finished words and translate none of the game's words.
        Default: nothing (the game's templates make their texts themselves)."""
        return {}

    # Options ------------------------------------------------------------------------------------------

    def parse_options(self, data: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
        """Check options (a record's or a form's) for these players: the options with defaults resolved, or
        ``OptionsError`` with a message per option. Default: each of ``option_fields`` by its kind (a form's
        text accepted for numbers and yes/no), nothing else."""
        if not isinstance(data, Mapping):
            raise OptionsError({"": "the options must be an object"})
        known = {f.name: f for f in self.option_fields}
        errors = {str(k): f"unknown option {k!r}" for k in data if k not in known}
        out: dict[str, Any] = {}
        for name, spec in known.items():
            try:
                out[name] = self._option_value(spec, data.get(name, spec.default), players)
            except FormatError as exc:
                errors[name] = str(exc)
        if errors:
            raise OptionsError(errors)
        return out

    def _option_value(self, spec: OptionField, value: Any, players: Sequence[str]) -> Any:
        allowed = [v for v, _ in spec.choices]
        if spec.kind == "bool":
            if isinstance(value, str) and value.casefold() in self.BOOLEAN_WORDS:
                value = self.BOOLEAN_WORDS[value.casefold()]
            if not isinstance(value, bool):
                raise FormatError(f"{spec.label}: yes or no")
            return value
        if spec.kind == "int":
            if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 10:
                value = int(value)
            if type(value) is not int or (allowed and str(value) not in allowed):
                wanted = f"one of {', '.join(allowed)}" if allowed else "a number"
                raise FormatError(f"{spec.label}: {wanted}")
            return value
        if spec.kind == "player":
            if value in (None, ""):
                return None
            if value not in players:
                raise FormatError(f"{spec.label}: one of the players")
            return value
        if not isinstance(value, str) or (spec.kind == "choice" and allowed and value not in allowed):
            raise FormatError(f"{spec.label}: one of {', '.join(allowed)}" if allowed else f"{spec.label}: a text")
        return value

    def variants(self, players: Sequence[str]) -> list[dict[str, Any]]:
        """Every combination of options worth playing through for these players (the conformance tests).
        Default: the default options."""
        return [self.parse_options({}, players)]

    # State --------------------------------------------------------------------------------------------

    def clone(self, state: Any) -> Any:
        """An independent copy. Default: through ``to_json`` and ``from_json``."""
        return self.from_json(self.to_json(state))

    def summary(self, state: Any) -> dict[str, Any]:
        """The state as the game's record format documents it (what ``python -m engine replay`` prints).
        Default: ``to_json`` without its ``format``."""
        return {k: v for k, v in self.to_json(state).items() if k != "format"}

    def organiser_view(self, state: Any) -> dict[str, Any]:
        """Everything of the state, hidden parts included, for the organiser's page (the game's ``admin_board.html``),
        in this game's language: cards by name and what they do, never only their ids. Default: ``summary``."""
        return self.summary(state)

    def milestones(self, before: Any, after: Any) -> list[Milestone]:
        """The milestones reached between two states of one game (``before`` is a clone taken before moves).
        Default: the game's end."""
        if self.result(after) is not None and self.result(before) is None:
            return [Milestone("game_over", "Game over")]
        return []

    def reshuffle_hidden(self, state: Any, viewer: str, seed: int) -> Any:
        """A copy of ``state`` in which everything hidden from ``viewer`` is dealt anew (for the tests that
        check that ``player_view`` shows nothing hidden). Default: a copy (a game that hides nothing)."""
        return self.clone(state)

    # Moves as buttons and as commands ---------------------------------------------------------------

    def is_standing(self, move: Any) -> bool:
        """True for a standing move: a setting a player may change at any time, outside their decisions (Call to
        Glory's discard preference). It is never bound to a decision, is allowed while a game is paused, and is
        not listed by ``legal_moves``; the same value again must leave ``to_json(state)`` unchanged.
        Default: a game without standing moves."""
        return False

    def settings(self, state: Any, player: str) -> list[ChoiceGroup]:
        """The standing moves ``player`` may make now, grouped for buttons. Default: none."""
        return []

    def choices(self, state: Any, player: str) -> list[ChoiceGroup]:
        """The player's legal moves grouped for buttons, each exactly once (as a choice, or as a variant that the
        confirm page of a choice with ``confirm`` offers: see ``refine``), with labels, what each does, and what
        is closed to them and why (empty when they have no open decision). Default: one group, a button per
        legal move labelled by ``describe_move``."""
        entries = [_entry(m) for m in self.legal_moves(state, player)]
        if not entries:
            return []
        decision = self.waiting_for(state).get(player)
        title = decision.prompt if decision else ""
        return [ChoiceGroup("moves", title, tuple(Choice(e, self.describe_move(e)) for e in entries))]

    def refine(self, state: Any, player: str, move: Mapping[str, Any]) -> list[Choice]:
        """The variants of a pending move (a record entry without its player) that its confirm page offers as its
        buttons. An empty list: the confirm page shows the one move. Default: none."""
        return []

    def commands(self, state: Any, player: str) -> list[Command]:
        """The commands a reply by email may carry for ``player``'s open choices now, in this game's language,
        in the order the email numbers them (from 1). Default: one per choice and confirm variant, its label
        as words."""
        out: list[Command] = []
        for group in self.choices(state, player):
            for choice in group.choices:
                variants = self.refine(state, player, choice.move) if choice.confirm else []
                for c in variants or [choice]:
                    out.append(Command(command_words(c.label), c.move, c.label))
        return out

    def parse_command(self, state: Any, player: str, text: str) -> Mapping[str, Any] | None:
        """The move (a record entry without its player) that a line of a reply asks for, or None for a line that
        is no command of ``player``'s now: its number, or a command's words in this game's language or in
        English. Default: exactly those."""
        words = command_words(text)
        if not words:
            return None
        commands = self.commands(state, player)
        if words.isdigit():
            n = int(words)
            return commands[n - 1].move if 1 <= n <= len(commands) else None
        for candidates in (commands, self.speaking("en").commands(state, player) if self.lang != "en" else []):
            for command in candidates:
                if command.text == words:
                    return command.move
        return None

    # Records ------------------------------------------------------------------------------------------

    def record(self, start: Any, moves: Sequence[Any]) -> dict[str, Any]:
        """The game record (JSON) of a game started as ``start`` with ``moves``. Default: the start state
        itself and the moves."""
        return {"format": self.record_format, "start": self.to_json(start), "moves": [m.to_json() for m in moves]}

    def replay(self, data: Any) -> tuple[Any, Any, list[Any]]:
        """Replay a decoded record: (start state, final state, moves); ``RecordError`` for any problem.
        Default: the record of the default ``record``."""
        if not isinstance(data, dict) or data.get("format") != self.record_format:
            raise RecordError(None, None, f"not a game record of format {self.record_format!r}")
        if not isinstance(data.get("moves"), list) or set(data) - {"format", "start", "moves"}:
            raise RecordError(None, None, "a record has the keys format, start and moves (a list)")
        try:
            start = self.from_json(data.get("start"))
        except FormatError as exc:
            raise RecordError(None, None, str(exc)) from None
        state = self.clone(start)
        moves = apply_all(state, data["moves"], self._record_move, self.apply)
        return start, state, moves

    def _record_move(self, entry: Any) -> Any:
        if not isinstance(entry, dict) or not isinstance(entry.get("player"), str):
            raise FormatError("a move needs its player")
        return self.parse_move(entry["player"], entry)

    PUBLIC_KEYS: ClassVar[tuple[str, ...]] = ("format", "players", "options", "moves")
    """What ``public_record`` keeps by default: every other key of a record (a seed, a start state, deck orders)
    may tell hidden or future cards."""

    def public_record(self, record: Mapping[str, Any], viewer: str | None) -> dict[str, Any]:
        """What of a record ``viewer`` (a player) may see before the game ends. A record tells everything hidden
        (the seed, the decks), and moves can hold secrets (a choice made face down, the order of cards seen in a
        peek): what is left out is named under ``omitted`` (``{"keys": [...]}``), so a replay refuses it with a
        clear message. Default: only ``PUBLIC_KEYS`` (this game's moves hold no secrets)."""
        left_out = [k for k in record if k not in self.PUBLIC_KEYS]
        kept = {k: v for k, v in record.items() if k in self.PUBLIC_KEYS}
        return {"format": record.get("format", self.record_format), **kept, "omitted": {"keys": left_out}}


def _entry(move: Any) -> dict[str, Any]:
    """A move as a record entry without its player."""
    return {k: v for k, v in move.to_json().items() if k != "player"}
