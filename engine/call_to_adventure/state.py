"""The state of a game of Call to Adventure, its setup (A3) and its JSON form (every card in one place)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .. import rng
from ..errors import FormatError
from .cardset import NEUTRAL, Card, CardSet, CardSetError, parse

NAMESPACE: Final = "call-to-adventure"
STATE_FORMAT: Final = "call-to-adventure-state/1"
SETUP: Final = "setup"
PLAYING: Final = "playing"
FINISHED: Final = "finished"
PHASES: Final = ("main", "prepare", "draw", "facing", "after", "peek")
DECK_KEYS: Final = ("origin", "motivation", "destiny", "act1", "act2", "act3", "hero", "antihero", "quest", "adversary")
_INNER: Final = ("aside", "adversary_discard")
OPTION_KEYS: Final = ("first_game", "allies_adversaries", "coop", "card_set", "first_player")


@dataclass
class Player:
    """One player: setup offers, characters, Story (card id and path index, in the order gained), tokens, hand."""

    name: str
    offers: dict[str, list[str]] = field(default_factory=dict)
    origin: str | None = None
    motivation: str | None = None
    destiny: str | None = None
    story: list[tuple[str, int]] = field(default_factory=list)
    xp: int = 3
    level: int = NEUTRAL
    hand: list[str] = field(default_factory=list)
    played: list[str] = field(default_factory=list)
    decided: int = 0
    allies: list[str] = field(default_factory=list)
    sacrificed: list[str] = field(default_factory=list)

    def clone(self) -> Player:
        """An independent copy (see ``State.clone``)."""
        return Player(
            self.name,
            {k: list(v) for k, v in self.offers.items()},
            self.origin,
            self.motivation,
            self.destiny,
            list(self.story),
            self.xp,
            self.level,
            list(self.hand),
            list(self.played),
            self.decided,
            list(self.allies),
            list(self.sacrificed),
        )


@dataclass
class Attempt:
    """A challenge under way (A5): the card (it stays in its row until the result), its Act, the path, the dark
    runes bought, card bonuses, the runes and the face each shows once cast, card faces still to draw for."""

    card: str
    act: int
    path: int
    dark: int = 0
    bonus: int = 0
    runes: list[tuple[str, str]] = field(default_factory=list)
    faces: list[int] = field(default_factory=list)
    pending: int = 0
    cast: bool = False

    def clone(self) -> Attempt:
        """An independent copy (see ``State.clone``)."""
        return Attempt(
            self.card,
            self.act,
            self.path,
            self.dark,
            self.bonus,
            list(self.runes),
            list(self.faces),
            self.pending,
            self.cast,
        )


@dataclass
class State:
    """A whole game, hidden information included. Decks keep their top card last."""

    cards: CardSet
    players: tuple[str, ...]
    options: dict[str, Any]
    seed: int
    ps: list[Player]
    decks: dict[str, list[str]]
    discards: list[list[str]]
    rows: list[list[str | None]]
    up: list[bool]
    first: int
    given: dict[str, list[str]] = field(default_factory=dict)
    given_casts: list[list[int]] = field(default_factory=list)
    status: str = SETUP
    current: int = 0
    turn: int = 0
    phase: str = "main"
    gained: bool = False
    journeyed: bool = False
    attempted: bool = False
    attempt: Attempt | None = None
    any_act: bool = False
    used: list[str] = field(default_factory=list)
    """Once-per-turn powers used this turn."""
    peek: list[Any] | None = None
    """A look at the top of a deck under way: [act index, how many cards, the step to return to]."""
    adversary: dict[str, Any] | None = None
    """A13: ``quest``, ``card`` (the Adversary), ``experience``, ``goal``, ``defeated_by`` (a seat, or None)."""
    under: dict[str, str] = field(default_factory=dict)
    """Allies under challenges of face-up rows: challenge id -> ally id (A4.4)."""
    tucks: list[tuple[int, str, int]] = field(default_factory=list)
    """Allies turned up that wait for the active player to put them under a challenge: (act, ally, the place
    they left, refilled once they are placed)."""
    curses: list[tuple[int, int, str]] = field(default_factory=list)
    final: int | None = None
    stall: int = 0
    casts: int = 0
    reshuffles: list[int] = field(default_factory=lambda: [0, 0, 0])
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    ended_by: str | None = None
    listed: tuple[str, list[Any]] | None = field(default=None, init=False, compare=False, repr=False)
    """The last moves ``legal_moves`` listed and whose they are, until the next ``apply`` (never copied or saved)."""

    @property
    def n(self) -> int:
        """The number of players."""
        return len(self.players)

    def index(self, name: str) -> int:
        """The seat of a player (FormatError for a name not in the game)."""
        try:
            return self.players.index(name)
        except ValueError:
            raise FormatError(f"{name!r} does not play in this game") from None

    def clone(self) -> State:
        """An independent copy: every list and dict a move may change is copied (one level deep: their items are
        strings, numbers and tuples); the card set, immutable, and the record's given decks and casts, never
        changed, are shared. No deep copy: this runs for every move the server stores."""
        a = self.attempt
        return State(
            cards=self.cards,
            players=self.players,
            options=dict(self.options),
            seed=self.seed,
            ps=[p.clone() for p in self.ps],
            decks={k: list(v) for k, v in self.decks.items()},
            discards=[list(d) for d in self.discards],
            rows=[list(r) for r in self.rows],
            up=list(self.up),
            first=self.first,
            given=self.given,
            given_casts=self.given_casts,
            status=self.status,
            current=self.current,
            turn=self.turn,
            phase=self.phase,
            gained=self.gained,
            journeyed=self.journeyed,
            attempted=self.attempted,
            attempt=None if a is None else a.clone(),
            any_act=self.any_act,
            used=list(self.used),
            peek=None if self.peek is None else list(self.peek),
            adversary=None if self.adversary is None else dict(self.adversary),
            under=dict(self.under),
            tucks=list(self.tucks),
            curses=list(self.curses),
            final=self.final,
            stall=self.stall,
            casts=self.casts,
            reshuffles=list(self.reshuffles),
            scores=list(self.scores),
            winners=list(self.winners),
            ended_by=self.ended_by,
        )


OPPONENT_EFFECTS: Final = ("lose_experience", "steal", "curse")
"""Effects of Hero and Antihero cards that name an opponent (docs/card-sets.md, "Effects")."""


def needs_opponent(card: Card) -> bool:
    """Whether a Hero or Antihero card can only be played on an opponent (its timing ``opponent``, or an effect
    aimed at one): such cards are set aside in a solo game (A13.2, A14.5)."""
    return card.timing == "opponent" or (card.effect is not None and card.effect["kind"] in OPPONENT_EFFECTS)


def row_size(n: int) -> int:
    """Cards per row: 4 with 1–3 players, 5 with 4 (A3.4)."""
    return 5 if n >= 4 else 4


def check_players(players: Sequence[str], coop: bool = False) -> tuple[str, ...]:
    """Players of a game: 2–4 unique names of 1–40 characters (1–4 with the solo/co-op variant)."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise FormatError("'players' must be a list of names")
    names = tuple(players)
    if not (1 if coop else 2) <= len(names) <= 4:
        raise FormatError("Call to Adventure is for 2 to 4 players, or 1 to 4 with the solo/co-op variant (coop)")
    for name in names:
        if not isinstance(name, str) or not 1 <= len(name) <= 40:
            raise FormatError(f"a player name must be 1 to 40 characters, not {name!r}")
    if len(set(names)) != len(names):
        raise FormatError("player names must be unique")
    return names


def check_options(data: Mapping[str, Any], players: Sequence[str]) -> dict[str, str]:
    """Problems per option (A2); empty when the options can be used."""
    errors: dict[str, str] = {}
    for key in data:
        if key not in OPTION_KEYS:
            errors[str(key)] = f"unknown option {key!r}"
    for key in ("first_game", "allies_adversaries", "coop"):
        if key in data and not isinstance(data[key], bool):
            errors[key] = f"{key} must be true or false"
    first = data.get("first_player")
    if first is not None and first not in players:
        errors["first_player"] = f"first_player {first!r} does not play in this game"
    card_set = data.get("card_set", "starter")
    if isinstance(card_set, Mapping):
        if not isinstance(card_set.get("source"), str) or not isinstance(card_set.get("text"), str):
            errors["card_set"] = "a card-set file needs its name ('source') and its text ('text')"
    elif not isinstance(card_set, str) or not card_set:
        errors["card_set"] = "card_set must name a card set"
    return errors


def set_name(card_set: Any) -> str:
    """The name of a ``card_set`` option: a packaged set's name, or a card-set file's name."""
    return str(card_set.get("source", "")) if isinstance(card_set, Mapping) else str(card_set)


def normal_options(data: Mapping[str, Any]) -> dict[str, Any]:
    """Options with their defaults (A2)."""
    return {
        "first_game": bool(data.get("first_game", False)),
        "allies_adversaries": bool(data.get("allies_adversaries", False)),
        "coop": bool(data.get("coop", False)),
        "card_set": set_name(data.get("card_set", "starter")),
        "first_player": data.get("first_player"),
    }


def _deck(cards: CardSet, key: str) -> tuple[str, ...]:
    if key.startswith("act"):
        return cards.acts[int(key[3]) - 1]
    return {
        "origin": cards.origins,
        "motivation": cards.motivations,
        "destiny": cards.destinies,
        "hero": cards.heroes,
        "antihero": cards.antiheroes,
        "quest": cards.quests,
        "adversary": cards.adversary_deck,
    }[key]


def new_game(
    players: Sequence[str],
    options: Mapping[str, Any],
    seed: int,
    cards: CardSet,
    given: Mapping[str, list[str]] | None = None,
    casts: Sequence[list[int]] | None = None,
) -> State:
    """Set up a game (A3): decks shuffled from the seed, except that the cards ``given`` per deck (top first) lie
    on top in that order; offers dealt, one Hero card each, rows laid, the first player drawn or named."""
    names = check_players(players, bool(options.get("coop", False)))
    errors = check_options(options, names)
    if errors:
        raise FormatError("; ".join(errors.values()))
    opts = normal_options(options)
    if type(seed) is not int:
        raise FormatError("the seed must be a whole number")
    given = dict(given or {})
    decks: dict[str, list[str]] = {}
    extra = opts["allies_adversaries"] and not opts["first_game"]
    kept: tuple[str, ...] = ("trait", "challenge")
    if extra and not opts["coop"]:
        kept = ("trait", "challenge", "ally", "adversary")
    elif extra:
        kept = ("trait", "challenge", "ally")  # A13.1: the adversaries are set aside
    if opts["coop"] and not cards.quests:
        raise FormatError(f"the card set {cards.id!r} has no quests for the solo/co-op variant")
    decks["aside"] = [c for act in cards.acts for c in act if cards.cards[c].type not in kept]
    decks["adversary_discard"] = []
    for key in DECK_KEYS:
        full = _deck(cards, key)
        if key.startswith("act"):
            full = tuple(c for c in full if cards.cards[c].type in kept)
        elif key in ("hero", "antihero") and len(names) == 1:  # A13.2, A14.5: solo sets aside what needs an opponent
            decks["aside"] += [c for c in full if needs_opponent(cards.cards[c])]
            full = tuple(c for c in full if not needs_opponent(cards.cards[c]))
        top = given.get(key, [])
        if not isinstance(top, list) or any(not isinstance(c, str) for c in top):
            raise FormatError(f"the {key} deck must be a list of card ids")
        if len(set(top)) != len(top) or not set(top) <= set(full):
            wrong = next((c for c in top if c not in full or top.count(c) > 1), "")
            raise FormatError(f"the {key} deck lists {wrong!r}, which is not one of the set's {key} cards, or twice")
        rest = [c for c in full if c not in set(top)]
        decks[key] = rng.shuffled(rest, seed, key, NAMESPACE) + list(reversed(top))
    ps = [Player(name) for name in names]
    deal = 1 if opts["first_game"] else 2
    for p in ps:
        for kind in ("origin", "motivation", "destiny"):
            p.offers[kind] = [decks[kind].pop() for _ in range(deal)]
        if deal == 1:
            p.origin, p.motivation, p.destiny = (p.offers.pop(k)[0] for k in ("origin", "motivation", "destiny"))
    for p in ps:
        if decks["hero"]:
            p.hand.append(decks["hero"].pop())
    size = row_size(len(names))
    rows: list[list[str | None]] = []
    for a in range(3):
        deck = decks[f"act{a + 1}"]
        rows.append([deck.pop() if deck else None for _ in range(size)])
    if opts["first_player"] is not None:
        first = names.index(opts["first_player"])
    else:
        first = rng.below(rng.words(seed, "first", NAMESPACE), len(names))
    state = State(
        cards=cards,
        players=names,
        options=opts,
        seed=seed,
        ps=ps,
        decks=decks,
        discards=[[], [], []],
        rows=rows,
        up=[True, False, False],
        first=first,
        given={k: list(v) for k, v in given.items()},
        given_casts=[list(c) for c in casts or []],
        current=first,
    )
    if opts["coop"]:  # A13.1: the Adversary of a quest drawn from the seed
        quest = state.decks["quest"].pop()
        card = cards.cards[quest].adversary
        state.decks["aside"].remove(card)
        goal = cards.solo["goal"] + cards.solo["per_player"] * (len(names) - 1)
        state.adversary = {
            "quest": quest,
            "card": card,
            "experience": 0,
            "goal": goal,
            "defeated_by": None,
            "reshuffles": 0,
        }
    settle(state, 0, None)
    if deal == 1:  # first game: nothing to choose, the first turn begins
        state.status = PLAYING
        state.turn = 1
    return state


def draw_into(state: State, act: int, slot: int, events: list[dict[str, Any]] | None) -> None:
    """Fill a place of a row from its Act's deck, shuffling the discards in when the deck is empty (A4.4)."""
    deck = state.decks[f"act{act + 1}"]
    if not deck and state.discards[act]:
        k = state.reshuffles[act]
        state.reshuffles[act] += 1
        deck[:] = rng.shuffled(state.discards[act], state.seed, f"act{act + 1}-reshuffle{k}", NAMESPACE)
        state.discards[act].clear()
        if events is not None:
            events.append({"event": "reshuffle", "player": state.players[state.current], "act": act + 1})
    state.rows[act][slot] = deck.pop() if deck else None
    if events is not None:  # a card turned into a face-down row stays unnamed
        shown = state.rows[act][slot] if state.up[act] else None
        events.append({"event": "refill", "act": act + 1, "card": shown})


def settle(state: State, act: int, events: list[dict[str, Any]] | None) -> None:
    """Allies turned up in a face-up row go under a challenge without one (the active player chooses when
    there are several: the ally waits in ``tucks``; at setup, the leftmost), else to the discards; their place
    is refilled (A4.4). Bounded, so a deck of allies alone cannot loop."""
    if not state.up[act]:
        return
    row = state.rows[act]
    table = state.cards.cards
    # each round places an ally or turns up a card that was not an ally (deck, then one reshuffle of the
    # discards): bounded by the cards of the Act, so a deck of allies alone cannot loop
    for _ in range(3 * (len(state.cards.acts[act]) + len(row)) + 3):
        slot = next((i for i, c in enumerate(row) if c is not None and table[c].type == "ally"), None)
        if slot is None:
            return
        ally = row[slot]
        assert ally is not None
        hosts = hosts_for(state, act)
        row[slot] = None
        if len(hosts) > 1 and state.status == PLAYING:  # the active player chooses (move "tuck"), then refill
            state.tucks.append((act, ally, slot))
            if events is not None:
                events.append({"event": "ally", "act": act + 1, "card": ally, "under": None, "waiting": True})
            continue
        tuck(state, act, ally, hosts[0] if hosts else None, events)
        if not hosts and only_allies_left(state, act):
            # A4.4: an ally never stays in a row: the allies left in the deck are turned up and discarded in turn,
            # and the place stays empty until a card leaves this row
            deck = state.decks[f"act{act + 1}"]
            while deck:
                turned = deck.pop()
                if events is not None:
                    events.append({"event": "refill", "act": act + 1, "card": turned})
                tuck(state, act, turned, None, events)
            if events is not None:
                events.append({"event": "refill", "act": act + 1, "card": None})
            continue
        draw_into(state, act, slot, events)
    for slot, c in enumerate(row):  # never reached with a sound card set: no ally may stay in a row
        if c is not None and table[c].type == "ally":
            row[slot] = None
            state.discards[act].append(c)


def only_allies_left(state: State, act: int) -> bool:
    """Whether the deck and the discard pile of an Act hold nothing but allies (A4.4)."""
    table = state.cards.cards
    return all(table[c].type == "ally" for c in state.decks[f"act{act + 1}"]) and all(
        table[c].type == "ally" for c in state.discards[act]
    )


def hosts_for(state: State, act: int) -> list[str]:
    """The challenges of a face-up row an ally may go under: those without an ally (A4.4)."""
    table = state.cards.cards
    return [c for c in state.rows[act] if c and table[c].type == "challenge" and c not in state.under]


def tuck(state: State, act: int, ally: str, host: str | None, events: list[dict[str, Any]] | None) -> None:
    """Put an ally under ``host``, or with no host into its Act's discard pile (A4.4)."""
    if host is not None:
        state.under[host] = ally
    else:
        state.discards[act].append(ally)
    if events is not None:
        events.append({"event": "ally", "act": act + 1, "card": ally, "under": host})


def places(state: State) -> Counter[str]:
    """How many places hold each card (every card of the set is in exactly one: the invariant)."""
    where: Counter[str] = Counter()
    for deck in state.decks.values():
        where.update(deck)
    for pile in state.discards:
        where.update(pile)
    for row in state.rows:
        where.update(c for c in row if c is not None)
    for p in state.ps:
        for offer in p.offers.values():
            where.update(offer)
        where.update(c for c in (p.origin, p.motivation, p.destiny) if c is not None)
        where.update(c for c, _ in p.story)
        where.update(p.hand)
        where.update(p.played)
        where.update(p.allies)
        where.update(p.sacrificed)
    where.update(state.under.values())
    where.update(ally for _act, ally, _slot in state.tucks)
    if state.adversary is not None:
        where[state.adversary["quest"]] += 1
        if state.adversary["defeated_by"] is None:
            where[state.adversary["card"]] += 1
    return where


# JSON -------------------------------------------------------------------------------------------------


def to_json(state: State, by_digest: bool = False) -> dict[str, Any]:
    """Everything needed to continue the game, hidden information included: keep it private. The card set is
    there as its text, or with ``by_digest`` (for a set the reader can find again) as the digest of its text."""
    names = state.players
    a = state.attempt
    cards = state.cards
    return {
        "format": STATE_FORMAT,
        "card_set": {"source": cards.source, "digest": cards.digest}
        if by_digest
        else {"source": cards.source, "toml": cards.text},
        "players": list(names),
        "options": dict(state.options),
        "seed": state.seed,
        "given": {k: list(v) for k, v in state.given.items()},
        "given_casts": [list(c) for c in state.given_casts],
        "status": state.status,
        "first": names[state.first],
        "current": names[state.current],
        "turn": state.turn,
        "phase": state.phase,
        "gained": state.gained,
        "journeyed": state.journeyed,
        "attempted": state.attempted,
        "attempt": None
        if a is None
        else {
            "card": a.card,
            "act": a.act,
            "path": a.path,
            "dark": a.dark,
            "bonus": a.bonus,
            "runes": [list(r) for r in a.runes],
            "faces": list(a.faces),
            "pending": a.pending,
            "cast": a.cast,
        },
        "any_act": state.any_act,
        "used": list(state.used),
        "under": dict(state.under),
        "tucks": [[act, ally, slot] for act, ally, slot in state.tucks],
        "adversary": None if state.adversary is None else dict(state.adversary),
        "peek": None if state.peek is None else list(state.peek),
        "curses": [[names[b], names[t], c] for b, t, c in state.curses],
        "final": None if state.final is None else names[state.final],
        "stall": state.stall,
        "casts": state.casts,
        "reshuffles": list(state.reshuffles),
        "decks": {k: list(v) for k, v in state.decks.items()},
        "discards": [list(d) for d in state.discards],
        "rows": [list(r) for r in state.rows],
        "up": list(state.up),
        "players_state": [
            {
                "offers": {k: list(v) for k, v in p.offers.items()},
                "origin": p.origin,
                "motivation": p.motivation,
                "destiny": p.destiny,
                "story": [[c, path] for c, path in p.story],
                "xp": p.xp,
                "level": p.level,
                "hand": list(p.hand),
                "played": list(p.played),
                "decided": p.decided,
                "allies": list(p.allies),
                "sacrificed": list(p.sacrificed),
            }
            for p in state.ps
        ],
        "scores": list(state.scores),
        "winners": [names[w] for w in state.winners],
        "ended_by": state.ended_by,
    }


def from_json(data: Any, find: Callable[[str], CardSet | None] = lambda _digest: None) -> State:
    """A state written by ``to_json``; ``find`` gives the card set of a digest (None if unknown); FormatError for
    anything inconsistent, or for a card set named by a digest that ``find`` does not know."""
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise FormatError(f"not a game state of format {STATE_FORMAT}")
    try:
        state = _from_json(data, find)
    except (FormatError, CardSetError):
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise FormatError(f"not a valid game state: {type(exc).__name__} {exc}") from None
    counts = places(state)
    for card in state.cards.cards:
        if counts[card] != 1:
            raise FormatError(f"card {card!r} is in {counts[card]} places")
    return state


def _adversary(d: dict[str, Any]) -> dict[str, Any]:
    by = d["defeated_by"]
    return {
        "quest": str(d["quest"]),
        "card": str(d["card"]),
        "experience": int(d["experience"]),
        "goal": int(d["goal"]),
        "defeated_by": None if by is None else int(by),
        "reshuffles": int(d["reshuffles"]),
    }


def _card_set(given: dict[str, Any], find: Callable[[str], CardSet | None]) -> CardSet:
    if "toml" in given:
        return parse(given["toml"], given["source"])
    found = find(str(given["digest"]))
    if found is None:
        raise FormatError(f"the card set {given.get('source')!r} of this state is not known here (its text changed?)")
    return found


def _from_json(d: dict[str, Any], find: Callable[[str], CardSet | None]) -> State:
    cards = _card_set(d["card_set"], find)
    names = check_players(d["players"], bool(d["options"].get("coop")))
    idx = {n: i for i, n in enumerate(names)}
    a = d["attempt"]
    ps = []
    for name, p in zip(names, d["players_state"], strict=True):
        ps.append(
            Player(
                name,
                {str(k): [str(c) for c in v] for k, v in p["offers"].items()},
                p["origin"],
                p["motivation"],
                p["destiny"],
                [(str(c), int(path)) for c, path in p["story"]],
                int(p["xp"]),
                int(p["level"]),
                [str(c) for c in p["hand"]],
                [str(c) for c in p["played"]],
                int(p["decided"]),
                [str(c) for c in p["allies"]],
                [str(c) for c in p["sacrificed"]],
            )
        )
    state = State(
        cards=cards,
        players=names,
        options=normal_options(d["options"]) | {"card_set": d["options"]["card_set"]},
        seed=int(d["seed"]),
        ps=ps,
        decks={k: [str(c) for c in d["decks"][k]] for k in (*DECK_KEYS, *_INNER)},
        discards=[[str(c) for c in pile] for pile in d["discards"]],
        rows=[[None if c is None else str(c) for c in row] for row in d["rows"]],
        up=[bool(u) for u in d["up"]],
        first=idx[d["first"]],
        given={str(k): [str(c) for c in v] for k, v in d["given"].items()},
        given_casts=[[int(x) for x in c] for c in d["given_casts"]],
        status=str(d["status"]),
        current=idx[d["current"]],
        turn=int(d["turn"]),
        phase=str(d["phase"]),
        gained=bool(d["gained"]),
        journeyed=bool(d["journeyed"]),
        attempted=bool(d["attempted"]),
        attempt=None
        if a is None
        else Attempt(
            str(a["card"]),
            int(a["act"]),
            int(a["path"]),
            int(a["dark"]),
            int(a["bonus"]),
            [(str(k), str(b)) for k, b in a["runes"]],
            [int(f) for f in a["faces"]],
            int(a["pending"]),
            bool(a["cast"]),
        ),
        any_act=bool(d["any_act"]),
        used=[str(c) for c in d["used"]],
        under={str(k): str(v) for k, v in d["under"].items()},
        tucks=[(int(act), str(ally), int(slot)) for act, ally, slot in d["tucks"]],
        adversary=None if d["adversary"] is None else _adversary(d["adversary"]),
        peek=None if d["peek"] is None else [int(d["peek"][0]), int(d["peek"][1]), str(d["peek"][2])],
        curses=[(idx[b], idx[t], str(c)) for b, t, c in d["curses"]],
        final=None if d["final"] is None else idx[d["final"]],
        stall=int(d["stall"]),
        casts=int(d["casts"]),
        reshuffles=[int(x) for x in d["reshuffles"]],
        scores=[int(x) for x in d["scores"]],
        winners=[idx[w] for w in d["winners"]],
        ended_by=d["ended_by"],
    )
    if state.status not in (SETUP, PLAYING, FINISHED) or state.phase not in PHASES:
        raise FormatError("not a valid game state: unknown status or phase")
    if len(state.rows) != 3 or len(state.discards) != 3 or len(state.up) != 3:
        raise FormatError("not a valid game state: three Acts expected")
    return state
