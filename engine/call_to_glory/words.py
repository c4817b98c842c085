"""Engine events and moves in plain words, as a given player may read them, in one language.

``Words`` speaks English; ``words_nl.NL`` and ``words_fr.FR`` speak Dutch and French with the printed
rulebooks' words (GLOSSARY.md). A language is a table of whole sentences with named placeholders
(``TEXTS``) and the grammar its placeholders need: card names with their plurals, articles ("a Farmer",
"l'Émissaire"), whose cards ("your 2 Farmers", "de 2 Boeren van Ann", "les 2 Paysans d'Ann") and pile names.
A sentence about the reader ("You drew …") may have its own form, ``<key>/you`` (French "Vous avez pioché …").
Everything here is pure: no gettext, no request; ``game.CallToGlory.speaking`` picks the ``Words``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import IllegalMove
from .cards import PILES
from .view import mask_event


class Words:
    """The game's words in English (and the sentences every language has)."""

    lang: ClassVar[str] = "en"
    NAMES: ClassVar[Mapping[str, tuple[str, str]]] = {
        "emperor": ("Emperor", "Emperors"),
        "empress": ("Empress", "Empresses"),
        "daimyo": ("Daimyo", "Daimyo"),
        "shogun": ("Shogun", "Shoguns"),
        "samurai": ("Samurai", "Samurai"),
        "ninja": ("Ninja", "Ninjas"),
        "envoy": ("Envoy", "Envoys"),
        "monk": ("Monk", "Monks"),
        "farmer": ("Farmer", "Farmers"),
    }
    """Each type's name, singular and plural."""
    PILE_NAMES: ClassVar[Mapping[str, str]] = {
        "draw1": "draw pile 1",
        "draw2": "draw pile 2",
        "discard1": "discard pile 1",
        "discard2": "discard pile 2",
    }
    PILE_LABELS: ClassVar[Mapping[str, str]] = {
        "draw1": "Draw pile 1",
        "draw2": "Draw pile 2",
        "discard1": "Discard pile 1",
        "discard2": "Discard pile 2",
    }
    """The piles as a board labels them."""
    END_NAMES: ClassVar[Mapping[str, str]] = {
        "types": "a player has sets of enough different types",
        "all_types": "all nine types are on the table",
        "draw_pile_empty": "a draw pile is empty",
    }
    PREFERENCE_NAMES: ClassVar[Mapping[str, str]] = {
        "smaller": "the smaller discard pile",
        "larger": "the larger discard pile",
        "pile1": "discard pile 1",
        "pile2": "discard pile 2",
    }
    YOU: ClassVar[str] = "You"
    """The reader as the subject of a sentence."""
    YOU_OBJECT: ClassVar[str] = "you"
    """The reader as an object ("a bot played for you")."""
    YOU_NAME: ClassVar[str] = "you"
    """The reader in a list of scores ("ann 12, you 30")."""
    COMMAND_VERBS: ClassVar[Mapping[str, str]] = {
        "draw": "draw",
        "pile": "draw",
        "take": "take",
        "lay": "lay",
        "play": "lay",
        "discard": "discard",
        "ninja": "ninja",
        "remove": "ninja",
        "use": "ninja",
        "reveal": "reveal",
        "preference": "preference",
        "prefer": "preference",
    }
    """The first word of a command (a reply's line) → the kind of move it makes (``commands.parse``)."""
    COMMAND_WORDS: ClassVar[Mapping[str, str]] = {
        "draw": "drawpile",
        "discard": "discardpile",
        "pile": "pile",
        "piles": "pile",
        "task": "task",
        "smaller": "smaller",
        "small": "smaller",
        "smallest": "smaller",
        "larger": "larger",
        "large": "larger",
        "largest": "larger",
        "bigger": "larger",
    }
    """Other words a command may use → their role."""
    COMMAND_FILLER: ClassVar[str] = (
        "a an the of from on onto to at in with my set sets card cards s top ninja miniature displaced please"
    )
    """Words a command may add only to read well ("from", "the"), skipped."""
    TEXTS: ClassVar[Mapping[str, str]] = {
        # events
        "draw_hidden": "{who} drew the top of {pile}.",
        "draw_known": "{who} drew {a_card} from {pile}.",
        "draw_taken": "{who} took {the_card} from {pile}.",
        "said": "{who} {clause}.",
        "ninja": "{who} used a Ninja on {target}{gone}; the card went to {pile}.",
        "gone": " (the set is gone)",
        "preference": "{who} chose to send displaced cards to {preference}.",
        "reveal": "{who} revealed task card {deck}: {card}{how}.",
        "reveal_last": " (the last card)",
        "round_end": "Round {round} is over{why}.",
        "round_end_why": " ({reasons})",
        "and": " and ",
        "or": " or ",
        "round_scored": "Round {round} scores: {scores}.",
        "round_start": "Round {round} begins; {who} starts.",
        "round_start/you": "Round {round} begins; you start.",
        "game_end": "The game is over. Winner: {names}.",
        "game_end_shared": "The game is over. Winners: {names}.",
        # clauses of a turn (no subject)
        "c_lay": "laid {cards}",
        "c_beat": " and beat {owner_cards}, which went to {pile}",
        "c_ninja_taken": ", taking a Ninja miniature",
        "c_discard": "discarded {a_card} on {pile}",
        "c_ninja": "used a Ninja on {target}{gone}, sending the card to {pile}",
        "c_reveal": "revealed task card {deck}: {card}",
        "c_drew": "drew {draws}",
        "drawn_hidden": "the top of {pile}",
        "drawn_known": "{a_card} from {pile}",
        "drawn_taken": "{the_card} from {pile}",
        "turn_timeout": "Time ran out: a bot played for {whom}. It {body}.",
        "turn_admin": "The organiser had a bot play for {whom}. It {body}.",
        "turn_own": "{who} {body}.",
        # moves as instructions
        "m_draw": "Draw from {pile}",
        "m_lay": "Lay {cards}",
        "m_discard": "Discard {a_card}",
        "m_discard_on": "Discard {a_card} on {pile}",
        "m_ninja": "Use a Ninja on {target}",
        "m_reveal": "Reveal task card {deck}",
        "m_preference": "Send my displaced cards to {preference}",
        "m_unknown": "Unknown move",
        # decisions, milestones
        "prompt_reveal": "Reveal a task card",
        "prompt_draw": "Draw a card ({left} of 2 left)",
        "prompt_act": "Lay a set or discard a card",
        "milestone_round": "Round {round} scores",
        "milestone_over": "Game over",
        "about": (
            "Michael Schacht's card game for 2 to 4 players: draw from the piles, lay sets of samurai, "
            "ninjas and monks before the others, and earn the most glory over the rounds."
        ),
        # the discard preference (R7)
        "set_smaller": "The smaller pile",
        "set_larger": "The larger pile",
        "set_pile1": "Discard pile 1",
        "set_pile2": "Discard pile 2",
        "set_note": (
            "When another player beats your set, or a Ninja removes your card, and both discard piles hold cards (R7)."
        ),
        "set_title": "Where your displaced cards go",
        "set_chosen": "chosen",
        # draws
        "draw_label": "Draw from {pile}",
        "take_label": "Take {the_card} from {pile}",
        "take_empty_label": "Take from {pile}",
        "why_draw_same_pile": "you drew from {pile} already: the second card comes from another pile",
        "why_pile_empty": "{pile} is empty",
        "face_down": "face down, {cards}",
        "face_up": "face up, {cards}",
        "draw_title": "Draw a card ({left} of 2 left)",
        # lays
        "ends_types": "ends the round: you would have {types} types",
        "ends_all": "ends the round: all nine types would be on the table",
        "why_lay_minimum": "{plural} need {minimum} cards with {players} players: you hold {held}",
        "why_lay_beaten/own": "your set of {cards} is only beaten by {next} or more: you hold {held}",
        "why_lay_beaten": "{owner} has {cards}: lay {next} or more to beat them (you hold {held})",
        "lay_closed": "Lay {plural}",
        "lay_beats": "beats {owner_cards}, which go to {pile}",
        "lay_scores": "scores {value} at the round's end",
        "lay_ninja": "takes a Ninja miniature",
        "lay_no_ninja": "no Ninja miniature is left to take",
        "lay_label": "Lay {cards}",
        "lay_title": "Lay a set",
        "notes": "; ",
        # discards
        "discard_on": "Discard {a_card} on {pile}",
        "discard_on_note": "on top of {the_card}",
        "discard_both_empty": "both discard piles are empty",
        "discard_start": "{pile} is empty and must be started",
        "discard_label": "Discard {a_card}",
        "discard_note": "goes on {pile}: {why}",
        "discard_title": "Or discard a card",
        # Ninja (V2)
        "ninja_smaller": "{owner_cards} become {left}",
        "ninja_gone": "{target}'s set is gone",
        "ninja_note": "{effect}; the card goes to {pile}",
        "ninja_label": "Remove {a_card} from {target}'s set",
        "ninja_title": "Use a Ninja miniature ({left} left)",
        # task reveals (V1)
        "reveal_note": "every player scores {bonus} per {name} in front of them: {gains}",
        "reveal_label": "Reveal task card {deck}: {name}",
        "reveal_title": "Reveal a task card",
        # refusals: what is wrong and what is possible now (``refusal``); ``why_*``: the reason beside a closed choice
        "refuse_stranger": "{player} does not play in this game",
        "refuse_game_over": "The game is over: no more moves can be made",
        "refuse_not_your_turn": "It is {current}'s turn, not yours: you can move when it is your turn",
        "refuse_reveal_turn": "{current} must reveal a task card now, not you",
        "refuse_reveal_now": "The round is over: reveal task card {decks} now",
        "refuse_reveal_not_now/draw": "Task cards are revealed only at the end of a round: now draw a card",
        "refuse_reveal_not_now/act": (
            "Task cards are revealed only at the end of a round: now lay a set or discard a card"
        ),
        "refuse_drawn_twice": "You have drawn twice: now lay a set or discard a card",
        "refuse_draw_same_pile": "Your second card must come from another pile than {pile}: draw from {piles}",
        "refuse_pile_empty": "{Pile} is empty: draw from {piles}",
        "refuse_draw_first": "Draw first: you have {left} draws left this turn",
        "refuse_draw_first/one": "Draw first: you have 1 draw left this turn",
        "refuse_lay_not_held": "You hold {held_cards}, not {count}",
        "refuse_lay_not_held/none": "You hold {no_cards}",
        "refuse_lay_minimum": (
            "A set of {plural} needs at least {minimum} cards with {players} players: you hold {held}"
        ),
        "refuse_lay_beaten": "{owner} has {cards}: lay {next} or more to beat them; you hold {held}",
        "refuse_lay_beaten/own": "Your set of {cards} is only beaten by {next} or more: you hold {held}",
        "refuse_discard_not_held": "You hold {no_cards}",
        "refuse_discard_choose": "Both discard piles hold cards: say which one, discard pile 1 or discard pile 2",
        "refuse_discard_first_pile": "Both discard piles are empty: the first card goes on discard pile 1",
        "refuse_discard_start_pile": "{Pile} is empty: it must be started before the other discard pile is used again",
        "refuse_ninja_off": "The power of the Ninja (V2) is not played in this game",
        "refuse_ninja_none": "You have no Ninja miniature: laying a set of Ninjas gives you one",
        "refuse_ninja_stranger": "{target} does not play in this game",
        "refuse_ninja_own": "A Ninja removes a card from an opponent's set, not from your own",
        "refuse_ninja_no_set": "{target} has no set of {plural}",
        "refuse_reveal_no_card": "You have no unrevealed task card {deck}: reveal task card {decks}",
        # commands for replies by email (``commands``): short, in lower case
        "cmd_draw": "draw pile {n}",
        "cmd_take": "take {name}",
        "cmd_take_from": "take {name} from pile {n}",
        "cmd_lay": "lay {plural}",
        "cmd_lay_count": "lay {count} {plural}",
        "cmd_discard": "discard {name}",
        "cmd_discard_on": "discard {name} on pile {n}",
        "cmd_ninja": "ninja {target} {name}",
        "cmd_reveal": "reveal task {deck}",
        # progress and headline
        "progress_scores": "If round {round} ended now: {scores}.",
        "progress_types": "The round ends when a player has {need} types: {who} has {have} of {need}.",
        "progress_types/you": "The round ends when a player has {need} types: you have {have} of {need}.",
        "progress_other_ends": (
            "It also ends when all nine types are on the table ({on_table} of 9 now) "
            "or a draw pile is empty ({left1} and {left2} left)."
        ),
        "round_over": "Round {round} is over: {scores}. Its score sheet is in the scores below.",
        "ended_types": "Round {round} ended: {who} had sets of {types} different types.",
        "ended_all_types": "Round {round} ended: all nine types were on the table.",
        "ended_draw_pile_empty": "Round {round} ended: a draw pile ran out.",
        # a board's words (``CallToGlory.template_data``)
        "board_pile": "{pile}: {cards}",
        "board_ninjas": "Ninja miniatures: you {mine}, supply {supply}.",
        "board_prefers": "prefers {choice}",
        "board_top": "{card} on top",
        # options (R2)
        "opt_rounds": "Rounds",
        "opt_rounds_standard": "Standard: 4, or 3 with Imperial Tasks",
        "opt_tasks": "Imperial Tasks (V1)",
        "opt_ninja": "The power of the Ninja (V2)",
        "opt_tasks_off": "not played",
        "opt_tasks_on": "played",
        "opt_ninja_off": "not used",
        "opt_ninja_on": "used",
        "opt_first": "First player",
        "opt_first_help": "who starts round 1 (default: the first seat)",
        "opt_decks": "Task cards (with Imperial Tasks)",
        "opt_decks_help": "One line per deck, four card types each. Replace them to use other task cards.",
        "err_not_object": "the options must be an object",
        "err_unknown_option": "unknown option {key}",
        "err_rounds": "a game has 1 to {top} rounds (R2)",
        "err_rounds_tasks": "a game has 1 to {top} rounds with Imperial Tasks (R2)",
        "err_table_lines": "the task-card table has three lines: A, B and C",
        "err_table_start": "line {number} must start with A:, B: or C:",
        "err_table_twice": "deck {deck} is listed twice",
        "err_table_type": "deck {deck}: {name} is not a card type ({known})",
        "err_table_count": "deck {deck} must list 4 card types, not {count}",
        "err_table_missing": "the task-card table has no line for deck {decks}",
    }

    # Grammar ------------------------------------------------------------------------------------------

    def text(self, key: str, /, you: bool = False, **params: Any) -> str:
        """The sentence ``key`` with its placeholders filled; ``you``: the reader's own form if there is one."""
        template = self.TEXTS.get(f"{key}/you") if you else None
        return (template or self.TEXTS[key]).format(**params)

    def counted(self, key: str, count: int) -> str:
        """``key``, or ``<key>/one`` for a single card if the language has that form ("die naar … gaat")."""
        return f"{key}/one" if count == 1 and f"{key}/one" in self.TEXTS else key

    def name(self, type_: str) -> str:
        """'Farmer'."""
        return self.NAMES[type_][0] if type_ in self.NAMES else type_.capitalize()

    def plural(self, type_: str) -> str:
        """'Farmers', 'Empresses'; Samurai and Daimyo stay as they are."""
        return self.NAMES[type_][1] if type_ in self.NAMES else type_.capitalize()

    def card(self, type_: str, count: int = 1) -> str:
        """'Farmer', '3 Farmers', '2 Empresses'."""
        return self.name(type_) if count == 1 else f"{count} {self.plural(type_)}"

    def a(self, type_: str) -> str:
        """'a Farmer', 'an Emperor'."""
        return a(self.name(type_))

    def the(self, type_: str) -> str:
        """'the Farmer'."""
        return f"the {self.name(type_)}"

    def whose(self, owner: str, mine: bool, cards: str, *, own: bool = False, one: bool = False) -> str:
        """Cards of a player: 'your 2 Farmers', "Ann's Farmers"; ``own``: of the player who acts ('their own …');
        ``one``: ``cards`` is a single card ('your Farmer')."""
        if own:
            return f"{'your' if mine else 'their'} own {cards}"
        return f"your {cards}" if mine else f"{owner}'s {cards}"

    def who(self, name: str, viewer: str | None) -> str:
        """The subject of a sentence: 'You' for the reader, else the name."""
        return self.YOU if name == viewer else name

    def whom(self, name: str, viewer: str | None) -> str:
        """A player elsewhere in a sentence: 'you' for the reader."""
        return self.YOU_OBJECT if name == viewer else name

    def pile(self, key: object) -> str:
        """'draw pile 1' (an unknown key as it is)."""
        return self.PILE_NAMES.get(str(key), str(key))

    def pile_at(self, index: int) -> str:
        """The pile of index 0..3 (draw piles, then discard piles)."""
        return self.PILE_NAMES[PILES[index]]

    CARD_FORMS: ClassVar[tuple[str, str]] = ("card", "cards")
    """"card" for one, "cards" for more (``n_cards``)."""
    MINIATURE_FORMS: ClassVar[tuple[str, str]] = ("Ninja miniature", "Ninja miniatures")

    def one(self, n: int) -> bool:
        """True if ``n`` takes the singular ("1 card", but "0 cards"; French: "0 carte")."""
        return n == 1

    def numbered(self, forms: tuple[str, str]) -> list[str]:
        """A noun's forms for 0, 1 and more, with ``{n}`` for the number: what a template picks by ``min(n, 2)``."""
        return [f"{{n}} {forms[0 if self.one(n) else 1]}" for n in (0, 1, 2)]

    def n_cards(self, n: int) -> str:
        """'1 card', '40 cards'."""
        return f"{n} {self.CARD_FORMS[0 if self.one(n) else 1]}"

    def round_ended(self, details: Mapping[str, Any]) -> str:
        """Why a round ended, from its score sheet (``view.round_details``): the first of R8's conditions."""
        end = details["end"]
        who = self.text("and").join(end["players"])
        return self.text(f"ended_{end['reason']}", round=details["round"], who=who, types=end["types"])

    def count(self, type_: str, n: int) -> str:
        """'no Farmers', '1 Farmer', '3 Farmers'."""
        if not n:
            return f"no {self.plural(type_)}"
        return f"1 {self.name(type_)}" if n == 1 else f"{n} {self.plural(type_)}"

    def either(self, items: Sequence[str]) -> str:
        """'draw pile 2, discard pile 1 or discard pile 2'."""
        if len(items) < 2:
            return "".join(items)
        return f"{', '.join(items[:-1])}{self.text('or')}{items[-1]}"

    def scores(self, scores: Mapping[str, Any]) -> str:
        """'ann 12, bob 30'."""
        return ", ".join(f"{name} {score}" for name, score in scores.items())

    # Refusals ---------------------------------------------------------------------------------------------

    CITED: ClassVar[frozenset[str]] = frozenset(
        {
            "reveal_turn",
            "reveal_now",
            "reveal_not_now",
            "draw_same_pile",
            "pile_empty",
            "lay_minimum",
            "lay_beaten",
            "discard_choose",
            "discard_first_pile",
            "discard_start_pile",
            "ninja_none",
            "ninja_own",
            "ninja_no_set",
            "reveal_no_card",
        }
    )
    """The refusals whose rule code is worth giving after the words: those that follow from a rule a player may
    not know by heart (not "it is Bob's turn")."""

    def refusal(self, key: str, params: Mapping[str, Any], rule: str = "") -> str:
        """A refused move (a key and parameters of ``rules.verify_*``) as a sentence: what is wrong and what is
        possible now; with ``rule``, its code after the words where it helps ("… (R5.1).")."""
        template = self._variant(f"refuse_{key}", params)
        if template not in self.TEXTS:
            return ""
        text = self.text(template, **self._refusal_words(params))
        return f"{text} ({rule})." if rule and key in self.CITED else f"{text}."

    def reason(self, key: str, params: Mapping[str, Any]) -> str:
        """Why a choice is closed, as the page shows it beside the choice (the rule apart): ``why_<key>``, else the
        refusal."""
        template = self._variant(f"why_{key}", params)
        if template in self.TEXTS:
            return self.text(template, **self._refusal_words(params))
        return self.refusal(key, params)

    def explain(self, error: IllegalMove) -> str:
        """An IllegalMove of this game in words, the rule after them where it helps; its English message if its key
        is not one of this game's."""
        return self.refusal(error.key, error.params, error.rule) or error.message

    def _variant(self, key: str, params: Mapping[str, Any]) -> str:
        """``<key>/own`` (one's own set), ``/none`` (no card held), ``/one`` (1 left), ``/<step>``, if the
        language has it."""
        if params.get("owner") is not None and params.get("owner") == params.get("player"):
            variant = f"{key}/own"
        elif params.get("held") == 0:
            variant = f"{key}/none"
        elif params.get("left") == 1:
            variant = f"{key}/one"
        elif "step" in params:
            variant = f"{key}/{params['step']}"
        else:
            return key
        return variant if variant in self.TEXTS else key

    def _refusal_words(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """A refusal's parameters as words: card types, piles and task decks named, lists joined with "or"."""
        out = dict(params)
        type_ = params.get("type")
        if isinstance(type_, str):
            out["name"], out["plural"] = self.name(type_), self.plural(type_)
            out["no_cards"] = self.count(type_, 0)
            if "held" in params:
                out["held_cards"] = self.count(type_, int(params["held"]))
            if "size" in params:
                out["cards"] = self.card(type_, int(params["size"]))
        if "pile" in params:
            out["pile"] = self.pile(params["pile"])
            out["Pile"] = out["pile"][:1].upper() + out["pile"][1:]
        if "piles" in params:
            out["piles"] = self.either([self.pile(x) for x in params["piles"]])
        if "decks" in params:
            out["decks"] = self.either([str(d) for d in params["decks"]])
        return out

    # Events ---------------------------------------------------------------------------------------------

    def describe_event(self, event: Mapping[str, Any], viewer: str | None) -> str:
        """One event (already masked for ``viewer``) as a sentence."""
        kind = event.get("event")
        player = str(event.get("player", ""))
        you = player == viewer
        who = self.who(player, viewer)
        if kind == "draw":
            pile = self.pile(event["pile"])
            if event.get("card") is None:
                return self.text("draw_hidden", you=you, who=who, pile=pile)
            if str(event["pile"]).startswith("draw"):
                return self.text("draw_known", you=you, who=who, a_card=self.a(event["card"]), pile=pile)
            return self.text("draw_taken", you=you, who=who, the_card=self.the(event["card"]), pile=pile)
        if kind in ("lay", "discard"):
            return self.text("said", you=you, who=who, clause=self._clause(event, viewer))
        if kind == "ninja":
            return self.text(
                "ninja",
                you=you,
                who=who,
                target=self.whose(event["target"], event["target"] == viewer, self.plural(event["type"])),
                gone=self.text("gone") if event.get("left") == 0 else "",
                pile=self.pile(event["pile"]),
            )
        if kind == "preference":
            preference = self.PREFERENCE_NAMES[event["discard_preference"]]
            return self.text("preference", you=you, who=who, preference=preference)
        if kind == "reveal_task":
            how = self.text("reveal_last") if event.get("automatic") else ""
            return self.text("reveal", you=you, who=who, deck=event["deck"], card=self.name(event["type"]), how=how)
        if kind == "round_end":
            reasons = self.text("and").join(self.END_NAMES[r] for r in event.get("reasons", ()) if r in self.END_NAMES)
            why = self.text("round_end_why", reasons=reasons) if reasons else ""
            return self.text("round_end", round=event["round"], why=why)
        if kind == "round_scored":
            return self.text("round_scored", round=event["round"], scores=self.scores(event["scores"]))
        if kind == "round_start":
            starter = event["start_player"]
            return self.text("round_start", you=starter == viewer, round=event["round"], who=starter)
        if kind == "game_end":
            key = "game_end_shared" if len(event["winners"]) > 1 else "game_end"
            return self.text(key, names=", ".join(event["winners"]))
        return str(kind)

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A move (a record entry) as an instruction: 'Draw from draw pile 1'."""
        do = move.get("do")
        if do == "draw":
            return self.text("m_draw", pile=self.PILE_NAMES.get(str(move.get("pile")), "?"))
        if do == "lay":
            return self.text("m_lay", cards=self.card(str(move.get("type")), int(move.get("count") or 0)))
        if do == "discard":
            pile = move.get("pile")
            a_card = self.a(str(move.get("type")))
            if pile in self.PILE_NAMES:
                return self.text("m_discard_on", a_card=a_card, pile=self.PILE_NAMES[str(pile)])
            return self.text("m_discard", a_card=a_card)
        if do == "ninja":
            target = self.whose(str(move.get("target")), False, self.plural(str(move.get("type"))))
            return self.text("m_ninja", target=target)
        if do == "reveal_task":
            return self.text("m_reveal", deck=move.get("deck"))
        if do == "preference":
            preference = self.PREFERENCE_NAMES.get(str(move.get("discard_preference")), "?")
            return self.text("m_preference", preference=preference)
        return self.text("m_unknown")

    def _lay_clause(self, event: Mapping[str, Any], viewer: str | None) -> str:
        """'laid 3 Farmers and beat your 2 Farmers, which went to discard pile 1' (no subject)."""
        text = self.text("c_lay", cards=self.card(event["type"], event["count"]))
        beaten = event.get("beaten")
        if beaten:
            own = beaten["player"] == event.get("player")
            owner_cards = self.whose(
                beaten["player"],
                beaten["player"] == viewer,
                self.card(event["type"], beaten["count"]),
                own=own,
                one=beaten["count"] == 1,
            )
            beat = self.counted("c_beat", beaten["count"])
            text += self.text(beat, owner_cards=owner_cards, pile=self.pile(beaten["pile"]))
        if event.get("ninja_taken"):
            text += self.text("c_ninja_taken")
        return text

    def _drawn(self, event: Mapping[str, Any]) -> str:
        """What a (masked) draw took: 'the top of draw pile 1', 'a Farmer from draw pile 2', 'the Monk from …'."""
        pile = self.pile(event["pile"])
        if event.get("card") is None:
            return self.text("drawn_hidden", pile=pile)
        if str(event["pile"]).startswith("draw"):
            return self.text("drawn_known", a_card=self.a(event["card"]), pile=pile)
        return self.text("drawn_taken", the_card=self.the(event["card"]), pile=pile)

    def _clause(self, event: Mapping[str, Any], viewer: str | None) -> str:
        kind = event["event"]
        if kind == "lay":
            return self._lay_clause(event, viewer)
        if kind == "discard":
            return self.text("c_discard", a_card=self.a(event["type"]), pile=self.pile(event["pile"]))
        if kind == "ninja":
            return self.text(
                "c_ninja",
                target=self.whose(event["target"], event["target"] == viewer, self.plural(event["type"])),
                gone=self.text("gone") if event.get("left") == 0 else "",
                pile=self.pile(event["pile"]),
            )
        return self.text("c_reveal", deck=event["deck"], card=self.name(event["type"]))

    def turn_sentence(self, player: str, how: str, events: Sequence[Mapping[str, Any]], viewer: str | None) -> str:
        """One turn (or the part a bot played) as a sentence: 'You drew … and …, laid 3 Farmers.'"""
        clauses: list[str] = []
        draws: list[str] = []
        for event in events:
            if event["event"] == "draw":
                draws.append(self._drawn(event))
                continue
            if draws:
                clauses.append(self.text("c_drew", draws=self.text("and").join(draws)))
                draws = []
            clauses.append(self._clause(event, viewer))
        if draws:
            clauses.append(self.text("c_drew", draws=self.text("and").join(draws)))
        body = ", ".join(clauses)
        you = player == viewer
        if how == "timeout":
            return self.text("turn_timeout", you=you, whom=self.whom(player, viewer), body=body)
        if how == "admin":
            return self.text("turn_admin", you=you, whom=self.whom(player, viewer), body=body)
        return self.text("turn_own", you=you, who=self.who(player, viewer), body=body)

    def narrative(
        self, entries: Iterable[LogEntry], viewer: str | None, notes: Iterable[tuple[Any, str]] = ()
    ) -> list[str]:
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
                out.append(self.turn_sentence(turn.player, turn.how, turn.events, viewer))
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
                    out.append(self.describe_event(event, viewer))
        close()
        out.extend(sentence for _, sentence in waiting)
        return out


def a(word: str) -> str:
    """'a Farmer', 'an Emperor' (English)."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


EN = Words()
"""English."""

PILE_WORDS = EN.PILE_NAMES
END_WORDS = EN.END_NAMES
PREFERENCE_WORDS = EN.PREFERENCE_NAMES


def card(type_: str, count: int = 1) -> str:
    """'Farmer', '3 Farmers', '2 Empresses' (English)."""
    return EN.card(type_.lower(), count)


def plural(name: str) -> str:
    """'Farmers', 'Empresses' (English); Samurai and Daimyo stay as they are."""
    return EN.plural(name.lower())


def describe_event(event: dict[str, Any], viewer: str | None) -> str:
    """One event (already masked for ``viewer``) as an English sentence."""
    return EN.describe_event(event, viewer)


def describe_move(move: dict[str, Any]) -> str:
    """A move (a record entry) as an English instruction."""
    return EN.describe_move(move)


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


TURN_ACTIONS = ("draw", "lay", "discard", "ninja", "reveal_task")
TURN_ENDS = ("lay", "discard", "reveal_task")


def narrative(entries: Iterable[LogEntry], viewer: str | None, notes: Iterable[tuple[Any, str]] = ()) -> list[str]:
    """What happened, in English (see ``Words.narrative``)."""
    return EN.narrative(entries, viewer, notes)
