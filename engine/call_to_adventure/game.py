"""Call to Adventure through the game protocol (engine/protocol.py): the object registered as ``call-to-adventure``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Final, TypeAlias

from ..errors import FormatError, IllegalMove, OptionsError
from ..protocol import (
    Bot,
    Choice,
    ChoiceGroup,
    Closed,
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
    with_notes,
)
from . import bots, commands, page, record, rules, state, view
from .cardset import CardSet, parse
from .files import PACKAGED, packaged_by_digest, packaged_set
from .moves import PATHS, Move
from .state import FINISHED, SETUP, Attempt, Player, State
from .words import EN, ROMAN, Words
from .words_fr import FR
from .words_nl import NL

LANGUAGES: Final[Mapping[str, Words]] = {"en": EN, "nl": NL(), "fr": FR()}
"""The languages Call to Adventure speaks, by code (Dutch and French come as ``Words`` subclasses)."""


class _Bot:
    def __init__(self, bot: bots.RandomBot | bots.HeuristicBot) -> None:
        self.bot = bot

    def choose(self, st: State, player: str) -> Move:
        return self.bot.choose(st, player)


def _random_bot(seed: int) -> _Bot:
    return _Bot(bots.RandomBot(seed))


def _heuristic_bot(seed: int) -> _Bot:
    return _Bot(bots.HeuristicBot(seed))


_GROUPS: Final = (
    "choose",
    "tuck",
    "order",
    "trait",
    "attempt",
    "discard",
    "pass",
    "dark",
    "cast",
    "draw",
    "resolve",
    "journey",
    "play",
    "use",
    "end",
)
"""The choices' groups, in the order a turn meets them."""


def _off_on(w: Words, key: str) -> tuple[str, str]:
    """What a yes/no option's two values mean, in words: ``<key>_off`` and ``<key>_on``."""
    return w.text(f"{key}_off"), w.text(f"{key}_on")


def _option_fields(w: Words) -> tuple[OptionField, ...]:
    return (
        OptionField("first_game", w.text("opt_first_game"), "bool", False, values=_off_on(w, "opt_first_game")),
        OptionField(
            "allies_adversaries",
            w.text("opt_allies_adversaries"),
            "bool",
            False,
            values=_off_on(w, "opt_allies_adversaries"),
        ),
        OptionField("coop", w.text("opt_coop"), "bool", False, values=_off_on(w, "opt_coop")),
        OptionField(
            "card_set",
            w.text("opt_card_set"),
            "choice",
            "starter",
            tuple((n, w.word("set", n)) for n in PACKAGED),
            w.text("opt_card_set_help"),
            ".toml",
        ),
    )


def _runes_note(w: Words, rs: Sequence[tuple[str, str]]) -> str:
    """'Runes 3 core, 2 Strength, Strength special, 1 dark'."""
    parts: list[str] = []
    core = sum(1 for k, _ in rs if k == "core")
    parts.append(w.text("runes_core", count=core))
    for ability in dict.fromkeys(b for k, b in rs if k == "ability"):
        n = sum(1 for k, b in rs if k == "ability" and b == ability)
        parts.append(w.text("runes_ability", count=n, ability=w.word("icon", ability)))
    parts += [w.text("runes_special", ability=w.word("icon", b)) for k, b in rs if k == "special"]
    dark = sum(1 for k, _ in rs if k == "dark")
    if dark:
        parts.append(w.text("runes_dark", count=dark))
    return w.text("runes_all", runes=w.join(parts))


def _odds_note(st: State, p: Player, card_id: str, path: str, dark: int, w: Words) -> str:
    """The runes a challenge casts with ``dark`` dark runes, and the chance to overcome it."""
    act = next((a for a in range(3) if st.up[a] and card_id in st.rows[a]), -1)
    card = st.cards.cards[card_id]
    rs = rules.runes(st.cards, p, card, dark)
    need = rules.difficulty(st, Attempt(card_id, act, PATHS.index(path))) + rules.cursed(st, st.ps.index(p))
    return w.text(
        "note_runes_chance", runes=_runes_note(w, rs), chance=rules.chance(st.cards, rs, need), difficulty=need
    )


def _note(st: State, p: Player, move: Move, w: Words) -> str:
    """What a move will do, where there is more to say than its label."""
    if move.do in ("challenge", "attempt") and move.card is not None and move.path is not None:
        return _odds_note(st, p, move.card, move.path, int(move.dark or 0), w)
    if move.do == "trait" and move.card is not None:
        pre = st.cards.cards[move.card].prerequisite or {}
        if pre.get("kind") == "spend":
            return w.text("note_trait_spend", count=int(pre["experience"]))
        return w.text("note_trait_free")
    if move.do == "resolve" and st.attempt is not None:
        got, need = rules.total(st), rules.difficulty(st, st.attempt)
        return w.text("note_resolve_win" if got >= need else "note_resolve_fail", total=got, difficulty=need)
    if move.do == "dark":
        return w.text("note_dark", xp=p.xp)
    if move.do in ("play", "use") and move.card is not None:
        card = st.cards.cards[move.card]
        effect = card.effect if move.do == "play" else (card.power or {}).get("effect")
        return w.effect(effect) if effect else ""
    return ""


def _closed(st: State, p: Player, legal: Sequence[Move], w: Words) -> dict[str, list[Closed]]:
    """The row cards and hand cards closed to the player who is to move now, by group, with the reasons: the
    refusals of ``rules.verify`` for those cards, in short."""
    out: dict[str, list[Closed]] = {}
    if st.status != "playing" or st.ps[st.current] is not p or st.tucks:
        return out
    table = st.cards.cards
    offered = {m.card for m in legal if m.do in ("trait", "attempt", "challenge")}
    if st.phase == "main":
        faced = [(a, c) for a in range(3) if st.up[a] for c in st.rows[a] if c is not None]
        adv = st.adversary
        if adv is not None and adv["defeated_by"] is None:
            faced.append((-1, adv["card"]))
        for act, c in faced:
            card = table[c]
            if c in offered or card.type not in ("trait", "challenge", "adversary"):
                continue
            why = rules.why_closed(st, p, act, card)
            if why is not None:
                key = "trait" if card.type == "trait" else "attempt"
                reason = w.reason(why[1], why[2], st.cards)
                out.setdefault(key, []).append(Closed(w.name(st.cards, c), reason, why[0]))
    if st.phase in ("main", "prepare", "facing", "after"):
        played = {m.card for m in legal if m.do == "play"}
        for c in p.hand:
            if c in played:
                continue
            refusal = rules.why_not(st, Move(p.name, "play", card=c))
            if refusal is not None:
                reason = w.reason(refusal.key, refusal.params, st.cards)
                out.setdefault("play", []).append(Closed(w.name(st.cards, c), reason, refusal.rule))
    return out


def _choices(st: State, player: str, w: Words) -> list[ChoiceGroup]:
    legal = rules.legal_moves(st, player)
    if not legal:
        return []
    p = st.ps[st.index(player)]
    table = st.cards.cards
    groups: dict[str, list[Choice]] = {}
    for move in legal:
        body = {k: v for k, v in move.to_json().items() if k != "player"}
        key = move.do
        if (move.do == "challenge" and move.dark != "0") or move.do == "attempt":
            continue  # variants of the challenge without dark runes, offered on its confirm page (refine)
        if move.do == "challenge":
            key = "attempt"
        style = table[move.card].type if move.card in table else move.do
        label = w.describe_move(body, st.cards)
        choice = Choice(body, label, _note(st, p, move, w), style, confirm=move.do == "challenge")
        groups.setdefault(key, []).append(choice)
    closed = _closed(st, p, legal, w)
    return [
        ChoiceGroup(key, w.text(f"group_{key}"), tuple(groups.get(key, ())), tuple(closed.get(key, ())))
        for key in _GROUPS
        if key in groups or key in closed
    ]


def _refine(st: State, player: str, move: Mapping[str, Any], w: Words) -> list[Choice]:
    if not isinstance(move, Mapping) or move.get("do") != "challenge":
        return []
    try:
        m = Move.from_json({**move, "player": player})
    except FormatError:
        return []
    if m.card is None or Move(player, "challenge", card=m.card, path=m.path, dark="0") not in rules.legal_moves(
        st, player, "challenge"
    ):
        return []
    p = st.ps[st.index(player)]
    out = []
    kind = st.cards.cards[m.card].type
    for k in range(rules.max_dark(st, p) + 1):
        variant = Move(player, "challenge", card=m.card, path=m.path, dark=str(k))
        body = {key: v for key, v in variant.to_json().items() if key != "player"}
        note = _note(st, p, variant, w)
        out.append(
            Choice(
                body, w.describe_move(body, st.cards), w.text("note_dark_cost", note=note, count=k) if k else note, kind
            )
        )
    step = Move(player, "attempt", card=m.card, path=m.path)
    if step in rules.legal_moves(st, player):
        body = {key: v for key, v in step.to_json().items() if key != "player"}
        label = w.text("m_declare", card=w.name(st.cards, m.card), path=w.word("path", m.path))
        out.append(Choice(body, label, _note(st, p, step, w), kind))
    return out


class CallToAdventure(Game):
    """Call to Adventure (ADVENTURE_RULES.md) for 1 to 4 players (1 only solo, against the Adversary)."""

    key = "call-to-adventure"
    title = "Call to Adventure"
    record_format = record.RECORD_FORMAT
    min_players = 1
    max_players = 4
    bots: Mapping[str, Callable[[int], Bot]] = {"heuristic": _heuristic_bot, "random": _random_bot}

    def __init__(
        self, words_: Words = EN, family: dict[str, CallToAdventure] | None = None, named: _Named | None = None
    ) -> None:
        """The game speaking ``words_``; ``family`` is the same game in the other languages (by code); ``named``
        the card set whose names its words use (the starter set when None)."""
        self.words = words_
        self.lang = words_.lang
        self.option_fields: Sequence[OptionField] = _option_fields(words_)
        self._family: dict[str, CallToAdventure] = {} if family is None else family
        self._family.setdefault(self.lang, self)
        self._named = named
        self._cards = packaged_set() if named is None else _named_set(named)
        self._prompts: dict[str, str] = {}

    def speaking(self, lang: str) -> CallToAdventure:
        """The same game in ``lang`` (English for any language it does not speak yet), one object per language,
        naming the cards of the same set."""
        words_ = LANGUAGES.get(lang, EN)
        if self._named is not None:
            return _naming(words_.lang, self._named)
        found = self._family.get(words_.lang)
        if found is None:
            found = CallToAdventure(words_, self._family)
        return found

    def about(self) -> str:
        """What the game is, in one sentence of this game's language."""
        return self.words.text("about")

    def for_options(self, options: Mapping[str, Any]) -> CallToAdventure:
        """The same game in the same language, naming the cards of the set a game was created with (its own
        card-set file, or a packaged set) in ``describe``, ``narrate`` and ``describe_move``; the starter set's
        game is the one in ``GAMES``. Options whose set cannot be read (no stored game has such) give that one."""
        chosen = options.get("card_set", "starter") if isinstance(options, Mapping) else "starter"
        named: _Named | None = None
        if isinstance(chosen, Mapping):
            source, text = chosen.get("source"), chosen.get("text")
            if isinstance(source, str) and isinstance(text, str):
                named = (source, text)
        elif isinstance(chosen, str) and chosen in PACKAGED and chosen != "starter":
            named = chosen
        if named is not None:
            try:
                return _naming(self.lang, named)
            except FormatError:
                pass
        return GAME.speaking(self.lang)

    def parse_options(self, data: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
        """The options of a record or a form (A2), checked for these players, defaults resolved."""
        if not isinstance(data, Mapping):
            raise OptionsError({"": self.words.text("err_options")})
        errors = state.check_options(data, list(players) if not isinstance(players, str) else [])
        card_set = data.get("card_set", "starter")
        if "card_set" not in errors and isinstance(card_set, Mapping):
            try:
                _card_set(card_set)
            except FormatError as exc:
                errors["card_set"] = str(exc)
        elif "card_set" not in errors and card_set not in PACKAGED:
            errors["card_set"] = self.words.text("err_card_set", name=repr(card_set), names=", ".join(PACKAGED))
        if "coop" in data and not isinstance(data["coop"], bool):
            errors["coop"] = self.words.text("err_bool", name="coop")
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
        """The whole state, hidden cards included; its card set by the digest of its text when ``from_json`` finds
        it again (a packaged set, current or archived, or this game's own set), else its whole text."""
        return state.to_json(st, by_digest=self._card_set_of(st.cards.digest) is not None)

    def from_json(self, data: Any) -> State:
        """A state written by ``to_json`` (by this game, or another naming the same set)."""
        return state.from_json(data, self._card_set_of)

    def _card_set_of(self, digest: str) -> CardSet | None:
        """The card set of this digest that this game can find: its own, or a packaged one."""
        return self._cards if self._cards.digest == digest else packaged_by_digest(digest)

    def clone(self, st: State) -> State:
        """An independent copy."""
        return st.clone()

    def waiting_for(self, st: State) -> dict[str, Decision]:
        """Every player who still chooses characters (at once), else the player whose turn it is."""
        if st.status == FINISHED:
            return {}
        if st.status == SETUP:
            return {
                p.name: Decision(f"{i}.{p.decided}", self.words.text("prompt_setup"), "setup")
                for i, p in enumerate(st.ps)
                if p.origin is None
            }
        p = st.ps[st.current]
        key = "prompt_tuck" if st.tucks else f"prompt_{st.phase}"
        prompt = self._prompts.get(key)
        if prompt is None:
            prompt = self._prompts[key] = self.words.text(key)
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
        return view.player_view(st, player, log, self.words)

    def summary(self, st: State) -> dict[str, Any]:
        """The state as the replay command prints it."""
        return view.summary(st)

    def page_texts(self, view: Mapping[str, Any], viewer: str) -> Mapping[str, Any]:
        """Every text the board makes from ``view`` (a player's or the organiser's), built once (``page.texts``)."""
        return page.texts(view, self.words)

    def organiser_view(self, st: State) -> dict[str, Any]:
        """Everything, hidden parts included, with the cards named and described in this game's language."""
        return view.organiser_view(st, self.words)

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
        """Each Act row turned face up in between, the final turns beginning (a Destiny completed: a warning to
        everyone), and the end of the game."""
        w = self.words
        out = [
            Milestone("act", w.text("milestone_act", act=ROMAN[a]), a + 1)
            for a in range(3)
            if after.up[a] and not before.up[a]
        ]
        if after.final is not None and before.final is None and after.status != FINISHED:
            who = after.players[after.final]
            out.append(Milestone("final", w.text("milestone_final", who=who), None, {"player": who}))
        if after.status == FINISHED and before.status != FINISHED:
            out.append(Milestone("game_over", w.text("milestone_over"), None, {"ended_by": after.ended_by}))
        return out

    def headline(self, st: State, viewer: str | None, log: Sequence[Event]) -> str:
        """While the turn that turned an Act row face up is the latest, that the Act begins."""
        for i in range(len(log) - 1, -1, -1):
            event = log[i]
            if event.get("event") == "act":
                if any(e.get("player") not in (None, event.get("player")) for e in log[i + 1 :]):
                    return ""
                act = event.get("act")
                return self.words.text("headline_act", act=ROMAN[act - 1] if act in (1, 2, 3) else act)
        return ""

    def template_data(self) -> Mapping[str, Any]:
        """Nothing: the view carries everything its templates show."""
        return {}

    def describe(self, event: Event, viewer: str | None) -> str:
        """One event in plain words (card names from the set of ``for_options``, the starter set by default)."""
        return view.describe(event, viewer, self._cards, self.words)

    def narrate(self, entries: Sequence[LogEntry], viewer: str | None, notes: Sequence[Note] = ()) -> list[str]:
        """Logged moves in plain words, one sentence per event, with the notes in their place by time."""
        return with_notes(entries, notes, lambda entry: [self.describe(e, viewer) for e in entry.events])

    def choices(self, st: State, player: str) -> list[ChoiceGroup]:
        """The player's legal moves grouped by kind in the order of a turn, labelled with card names, with notes
        (runes and chances, costs, results) and what is closed to them and why."""
        return _choices(st, player, self.words)

    def refine(self, st: State, player: str, move: Mapping[str, Any]) -> list[Choice]:
        """For a challenge: the same card and path with 0 up to the most dark runes the player can buy, each with
        the runes it casts and its chance; nothing for any other move."""
        return _refine(st, player, move, self.words)

    def progress(self, st: State, viewer: str | None) -> list[str]:
        """Each Story's length against the nine cards that end the game, and each player's experience."""
        if st.status == FINISHED:
            return []
        w = self.words
        parts = [
            w.text(
                "progress_part", who=w.TEXTS["you_name"] if p.name == viewer else p.name, count=len(p.story), xp=p.xp
            )
            for p in st.ps
        ]
        return [w.text("progress", parts=w.TEXTS["progress_sep"].join(parts))]

    def explain(self, error: IllegalMove) -> str:
        """A refusal of ``rules.verify`` in this game's language: what is wrong and what is possible now."""
        if not error.key:
            return error.message
        return self.words.refusal(error.key, error.params, self._cards)

    def commands(self, st: State, player: str) -> list[Command]:
        """A short command per open choice (each challenge once per number of dark runes), in this game's
        language: "gain quick hands", "attempt fire at the ferry top 2", "journey old songs", "end"."""
        return commands.commands(
            self.choices(st, player), lambda move: self.refine(st, player, move), self.words, self._cards
        )

    def parse_command(self, st: State, player: str, text: str) -> Mapping[str, Any] | None:
        """The move a line of a reply asks for (its number, or its words here or in English), or None."""
        listed = self.commands(st, player)
        english = self.speaking("en")
        others = english.commands(st, player) if english is not self else []
        return commands.parse(text, listed, others, self.words, english.words)

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A move as an instruction."""
        return view.describe_move(move, self._cards, self.words)

    def record(self, start: State, moves: Sequence[Move]) -> dict[str, Any]:
        """The ``call-to-adventure/1`` record of a game started as ``start``."""
        return record.record_of(start, moves)

    def replay(self, data: Any) -> tuple[State, State, list[Move]]:
        """Replay a decoded record."""
        return record.replay(data)

    SECRET_FIELDS: Final = {"choose": ("origin", "motivation", "destiny"), "order": ("order",)}
    """The fields of other players' moves a record hides until the game ends (A12): the characters chosen (the
    Destiny stays hidden, and the cards not chosen with it), and the order of cards seen in a peek."""

    def public_record(self, record: Mapping[str, Any], viewer: str | None) -> dict[str, Any]:
        """The record as ``viewer`` may see it before the game ends: no seed, decks, casts or card-set key beyond
        the default's, and in the other players' ``choose`` and ``order`` moves the secret fields left out (A12,
        named under ``omitted``: ``{"keys": [...], "moves": {index: [fields]}}``)."""
        out = super().public_record(record, viewer)
        moves: list[Any] = []
        hidden: dict[str, list[str]] = {}
        for i, entry in enumerate(out.get("moves") or []):
            fields = self.SECRET_FIELDS.get(str(entry.get("do")), ()) if isinstance(entry, Mapping) else ()
            if fields and entry.get("player") != viewer:
                left = [f for f in fields if f in entry]
                entry = {k: v for k, v in entry.items() if k not in left}
                if left:
                    hidden[str(i)] = left
            moves.append(entry)
        out["moves"] = moves
        if hidden:
            out["omitted"] = {**out.get("omitted", {}), "moves": hidden}
        return out

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


_Named: TypeAlias = str | tuple[str, str]
"""A card set that names cards: a packaged set's name, or a card-set file's (source, text)."""


def _named_set(named: _Named) -> CardSet:
    return packaged_set(named) if isinstance(named, str) else _parsed(named[1], named[0])


@lru_cache(maxsize=32)
def _naming(lang: str, named: _Named) -> CallToAdventure:
    """The game in ``lang`` naming the cards of ``named``, one object per language and set (``CardSetError``)."""
    return CallToAdventure(LANGUAGES.get(lang, EN), None, named)


GAME: Final = register_game(CallToAdventure())
