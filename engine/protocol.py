"""The game protocol: everything the server and the tools know of a game.

A game is a package under ``engine/`` with one object that satisfies ``Game`` below, registered in
``engine.GAMES`` under its key. The server, ``python -m engine`` and the conformance tests drive every
game through these names only; nothing outside the game's package names a card, a pile or a round.

The state is the game's own (mutable) object: ``apply`` changes it in place, ``clone`` copies it,
``to_json``/``from_json`` store it (all hidden information included: keep it private) and
``player_view`` is the only projection that may be shown to a player.

Words: every text a game gives (events described, choices, prompts, options …) is in the language of the
game object, ``Game.lang``; ``Game.speaking(lang)`` gives the same game in another language. The engine
stays pure: a game carries its own words for each language it knows (no gettext, no request), and the
server asks for the game speaking the reader's language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

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
    "text": <its text>}`` as the value and checks it in ``parse_options`` (its message names what is wrong)."""

    name: str
    label: str
    kind: str
    default: Any = None
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""
    files: str = ""


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


class Game(Protocol):
    """What every game provides (see the module docstring)."""

    key: str
    """The registry key and record namespace: ``"call-to-glory"``."""
    title: str
    record_format: str
    """The ``format`` of its game records: ``"call-to-glory/1"``."""
    min_players: int
    max_players: int
    option_fields: Sequence[OptionField]
    bots: Mapping[str, Callable[[int], Bot]]
    """Bot kinds by name; each is built from a seed (bots that need none ignore it)."""
    lang: str
    """The language of its texts (``"en"``, ``"nl"``, ``"fr"``): ``"en"`` for the object in ``engine.GAMES``."""

    def speaking(self, lang: str) -> Game:
        """The same game with every text in ``lang``: ``describe``, ``narrate``, ``describe_move``, choices (group
        titles, labels, notes, closed reasons), ``settings``, ``Decision.prompt``, milestones' titles,
        ``progress``, ``headline``, option fields (labels, help, choices) and ``OptionsError`` messages, and the
        texts of ``template_data``. Rules, states, moves, records and events are shared: a state of one is a
        state of the other, and only words differ. An unknown ``lang`` gives English. Cheap (one object per
        language, cached): the server asks for it on every request, in the reader's language."""
        ...

    def for_options(self, options: Mapping[str, Any]) -> Game:
        """The same game, in the same language, for the words of one game played with ``options`` (as
        ``parse_options`` gave them): where those words depend on the options (Call to Adventure names the cards
        of the game's own card set), ``describe``, ``narrate`` and ``describe_move`` take them from there. Rules,
        states and moves are shared; a game whose words never depend on its options returns itself. Cheap, and
        never raising: the server asks for it on every request, with the stored options of the game shown."""
        ...

    def parse_options(self, data: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
        """Check options (a record's or a form's) for these players: the options with defaults resolved, or
        ``OptionsError`` with a message per option."""
        ...

    def variants(self, players: Sequence[str]) -> list[dict[str, Any]]:
        """Every combination of options worth playing through for these players (for the conformance tests)."""
        ...

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> Any:
        """A new game; ``FormatError`` (or ``OptionsError``) for players or options it cannot start with."""
        ...

    def to_json(self, state: Any) -> dict[str, Any]:
        """The whole state, hidden information included."""
        ...

    def from_json(self, data: Any) -> Any:
        """A state written by ``to_json``; ``FormatError`` for anything inconsistent."""
        ...

    def clone(self, state: Any) -> Any:
        """An independent copy."""
        ...

    def waiting_for(self, state: Any) -> dict[str, Decision]:
        """The open decisions by player (several at once for simultaneous choices); empty once the game is over."""
        ...

    def legal_moves(self, state: Any, player: str) -> list[Any]:
        """Every move ``player`` may make now to decide (empty when they have no open decision)."""
        ...

    def parse_move(self, player: str, data: Any) -> Any:
        """A move of ``player`` from a record entry or a form (its ``player`` key is ignored); ``FormatError``."""
        ...

    def is_standing(self, move: Any) -> bool:
        """True for a standing move: a setting a player may change at any time, outside their decisions (Call to
        Glory's discard preference). It is never bound to a decision, is allowed while a game is paused, and is
        not listed by ``legal_moves``; the same value again must leave ``to_json(state)`` unchanged."""
        ...

    def settings(self, state: Any, player: str) -> list[ChoiceGroup]:
        """The standing moves ``player`` may make now, grouped for buttons (empty for a game without any)."""
        ...

    def apply(self, state: Any, move: Any, events: list[Event] | None = None) -> None:
        """Apply a move in place, appending what happened to ``events``; ``IllegalMove`` changes nothing."""
        ...

    def player_view(self, state: Any, player: str, log: Sequence[Event] | None = None) -> dict[str, Any]:
        """What ``player`` may see; with ``log`` (events of ``apply``), those events as they may see them."""
        ...

    def summary(self, state: Any) -> dict[str, Any]:
        """The state as the game's record format documents it (what ``python -m engine replay`` prints)."""
        ...

    def result(self, state: Any) -> Result | None:
        """Ranking, scores and winners of a finished game; None while it is played."""
        ...

    def milestones(self, before: Any, after: Any) -> list[Milestone]:
        """The milestones reached between two states of one game (``before`` is a clone taken before moves)."""
        ...

    def headline(self, state: Any, viewer: str | None, log: Sequence[Event]) -> str:
        """A line for the top of ``viewer``'s page about a milestone just reached (a round just scored), while it is
        news, else ''. ``log`` is the latest events, oldest first, as ``viewer`` may see them."""
        ...

    def template_data(self) -> Mapping[str, Any]:
        """Fixed data the game's templates (``templates/games/<key>/``) use, such as each card type's value."""
        ...

    def describe(self, event: Event, viewer: str | None) -> str:
        """One event (as ``viewer`` may see it) in plain words."""
        ...

    def narrate(self, entries: Sequence[LogEntry], viewer: str | None, notes: Sequence[Note] = ()) -> list[str]:
        """A run of logged moves in plain words as ``viewer`` may read them (one sentence per turn or event), with
        the server's ``notes`` in their place by time (``with_notes`` does it for a narrative read entry by entry)."""
        ...

    def choices(self, state: Any, player: str) -> list[ChoiceGroup]:
        """The player's legal moves grouped for buttons, each exactly once (as a choice, or as a variant that the
        confirm page of a choice with ``confirm`` offers: see ``refine``), with labels, what each does, and what
        is closed to them and why (empty when they have no open decision)."""
        ...

    def refine(self, state: Any, player: str, move: Mapping[str, Any]) -> list[Choice]:
        """The variants of a pending move (a record entry without its player) that its confirm page offers as its
        buttons (for a challenge: the same card and path with 0 to the most dark runes, each note giving the runes
        to be cast and the odds). An empty list: the confirm page shows the one move."""
        ...

    def progress(self, state: Any, viewer: str | None) -> list[str]:
        """How the game stands, in a few lines of plain words (what each player would score now, how near the
        end of a round or of the game is), using only what ``viewer`` may see; empty once the game is over."""
        ...

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A move (a record entry without its player) as a short instruction: "Draw from draw pile 1"."""
        ...

    def record(self, start: Any, moves: Sequence[Any]) -> dict[str, Any]:
        """The game record (JSON) of a game started as ``start`` with ``moves``."""
        ...

    def replay(self, data: Any) -> tuple[Any, Any, list[Any]]:
        """Replay a decoded record: (start state, final state, moves); ``RecordError`` for any problem."""
        ...

    def reshuffle_hidden(self, state: Any, viewer: str, seed: int) -> Any:
        """A copy of ``state`` in which everything hidden from ``viewer`` is dealt anew (for the tests that
        check that ``player_view`` shows nothing hidden: the view must not change)."""
        ...
