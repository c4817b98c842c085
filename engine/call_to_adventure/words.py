"""Every text Call to Adventure gives, in one language: events, moves, prompts, choices, card lines.

``Words`` speaks English. A language is a table of whole sentences with named placeholders (``TEXTS``); a
later ``words_nl.py`` or ``words_fr.py`` subclasses ``Words`` with its ``lang`` and translated ``TEXTS``. A key
``<key>/one`` is the form for a count of one ("needs 1 experience" against "needs 2 experience" may differ).
Card names come from the card set (``name[lang]``, English when missing). Pure: no gettext, no request;
``game.CallToAdventure.speaking`` picks the ``Words``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .cardset import NEUTRAL, Card, CardSet

ROMAN: tuple[str, ...] = ("I", "II", "III")


class Words:
    """The game's words in English."""

    lang: ClassVar[str] = "en"
    TEXTS: ClassVar[Mapping[str, str]] = {
        # the reader
        "you": "You",
        "you_object": "you",
        "you_name": "you",
        "list_sep": ", ",
        # small words
        "path_top": "top",
        "path_bottom": "bottom",
        "path_only": "only",
        "deck_hero": "Hero",
        "deck_antihero": "Antihero",
        "a_deck_hero": "a Hero",
        "a_deck_antihero": "an Antihero",
        "icon_strength": "Strength",
        "icon_dexterity": "Dexterity",
        "icon_constitution": "Constitution",
        "icon_intelligence": "Intelligence",
        "icon_wisdom": "Wisdom",
        "icon_charisma": "Charisma",
        "icon_divinity": "Divinity",
        "icon_justice": "Justice",
        "icon_nature": "Nature",
        "icon_arcana": "Arcana",
        "icon_royalty": "Royalty",
        "icon_villainy": "Villainy",
        "type_origin": "Origin",
        "type_motivation": "Motivation",
        "type_destiny": "Destiny",
        "type_trait": "trait",
        "type_challenge": "challenge",
        "type_ally": "ally",
        "type_adversary": "adversary",
        "type_hero": "Hero card",
        "type_antihero": "Antihero card",
        "type_quest": "quest",
        "type_adversary_card": "Adversary card",
        "character_origin": "Origin",
        "character_motivation": "Motivation",
        "character_destiny": "Destiny",
        "rune_core": "core",
        "rune_ability": "ability",
        "rune_special": "special",
        "rune_dark": "dark",
        "set_starter": "Starter",
        # events
        "ev_choose": "{who} chose their characters.",
        "ev_choose/you": "You chose your characters.",
        "ev_turn": "Turn {turn}: {who} to play.",
        "ev_act": "Act {act} begins: its row is turned face up.",
        "ev_gain": "{who} gained {card}.",
        "ev_gain_path": "{who} gained {card} ({path} path).",
        "ev_attempt": "{who} attempted {card} ({path} path, difficulty {difficulty}).",
        "ev_cast": "{who} cast {count} runes: total {total}.",
        "ev_cast_faces": "{who} cast {count} runes ({faces}): total {total}.",
        "cast_face": "{rune} {value}",
        "cast_face_mark": "{rune} {value} ({mark})",
        "mark_card": "card face",
        "mark_experience": "experience",
        "mark_hero": "Hero card",
        "mark_antihero": "Antihero card",
        "mark_corruption": "corruption",
        "ev_overcome": "{who} overcame {card} with {total} against {difficulty}.",
        "ev_fail": "{who} failed {card} with {total} against {difficulty} and gained 1 experience.",
        "ev_draw": "{who} drew {a_deck} card.",
        "ev_draw_known": "{who} drew {a_deck} card ({card}).",
        "ev_draw_none": "{who} could not draw {a_deck} card: none is left.",
        "ev_play": "{who} played {card}.",
        "ev_play_target": "{who} played {card} on {target}.",
        "ev_play_row": "{who} played {card} on the row card {row}.",
        "ev_curse": "{whose} curse {card} struck {target}: total {total}.",
        "whose": "{who}'s",
        "whose/you": "Your",
        "ev_journey": "{who} journeyed and discarded {card}.",
        "ev_discard": "{who} discarded {card}.",
        "ev_dark": "{who} bought dark rune {count}.",
        "ev_track": "{who} moved to {level} on the corruption track.",
        "ev_refill": "Act {act}'s row was refilled.",
        "ev_refill_card": "Act {act}'s row was refilled with {card}.",
        "ev_reshuffle": "Act {act}'s discard pile was shuffled into its deck.",
        "ev_final": "{who} completed their Destiny: every other player takes one final turn.",
        "ev_pass": "{who} passed.",
        "ev_adversary_card": "The Adversary's card {card} was revealed: its experience is {experience} of {goal}.",
        "ev_ally_under": "The ally {card} was turned up and went under {under}.",
        "ev_ally_discarded": "The ally {card} was turned up and went to the discard pile.",
        "ev_ally_waiting": "The ally {card} was turned up and waits to be placed under a challenge.",
        "ev_ally_joins": "The ally {card} joined {whom}.",
        "ev_use": "{who} used the power of {card}.",
        "ev_use_sacrifice": "{who} used the power of {card} and sacrificed it.",
        "ev_trigger": "The power of {card} acted for {whom}.",
        "ev_order": "{who} looked at the top of Act {act}'s deck and put the cards back.",
        "ev_order_seen": "{who} looked at the top of Act {act}'s deck and put the cards back: {cards}.",
        "ev_end": "{who} ended the turn.",
        "ev_game_over": "The game is over ({reason}).",
        "ev_other": "{who}: {kind}.",
        "end_destiny": "a Destiny is complete",
        "end_no_cards": "no card can be gained any more",
        "end_stalled": "nothing was gained or attempted for three rounds",
        "end_adversary": "the Adversary reached its goal",
        "end_adversary_defeated": "the Adversary was defeated",
        # moves as instructions
        "m_choose": "Choose {origin}, {motivation} and {destiny}",
        "m_trait": "Gain the trait {card}",
        "m_attempt": "Attempt {card} ({path} path)",
        "m_declare": "Declare {card} ({path} path), then prepare step by step",
        "m_challenge": "Attempt {card} ({path} path) and cast",
        "m_challenge_dark": "Attempt {card} ({path} path) with {dark} and cast",
        "m_discard": "Discard {card} from its row",
        "m_pass": "Pass",
        "m_journey": "Journey: spend 1 experience to discard {card}",
        "m_dark": "Buy a dark rune for 1 experience",
        "m_cast": "Cast the runes",
        "m_draw": "Draw {a_deck} card",
        "m_play": "Play {card}",
        "m_play_target": "Play {card} on {target}",
        "m_play_row": "Play {card} on the row card {row}",
        "m_play_runes": "Play {card}: cast runes {runes} again",
        "m_play_act": "Play {card} on Act {act}'s deck",
        "m_use": "Use the power of {card}",
        "m_use_target": "Use the power of {card} on {target}",
        "m_use_row": "Use the power of {card} on the row card {row}",
        "m_use_runes": "Use the power of {card}: cast runes {runes} again",
        "m_use_act": "Use the power of {card} on Act {act}'s deck",
        "m_resolve": "Take the result",
        "m_resolve_end": "Take the result and end your turn",
        "m_end": "End your turn",
        "m_tuck": "Put the ally under {card}",
        "m_order": "Put the cards back, top first: {cards}",
        "m_other": "{do}",
        "dark_runes": "{n} dark runes",
        "dark_runes/one": "1 dark rune",
        # prompts
        "prompt_setup": "Choose your Origin, Motivation and Destiny",
        "prompt_tuck": "Put the ally turned up under a challenge",
        "prompt_main": "Gain a trait or attempt a challenge",
        "prompt_prepare": "Buy dark runes, play cards, then cast",
        "prompt_draw": "A card face: draw a Hero or an Antihero card",
        "prompt_facing": "Play cards or take the result",
        "prompt_after": "Journey, play cards or end your turn",
        "prompt_peek": "Put the cards you looked at back in an order",
        # groups of choices
        "group_choose": "Choose your Origin, Motivation and Destiny",
        "group_tuck": "Place the ally under a challenge",
        "group_order": "Put the cards back in the order you choose",
        "group_trait": "Gain a trait",
        "group_attempt": "Attempt a challenge",
        "group_discard": "Discard a row card (nothing else is open to you)",
        "group_pass": "Pass",
        "group_dark": "Buy a dark rune",
        "group_cast": "Cast the runes",
        "group_draw": "Draw a card",
        "group_resolve": "Take the result",
        "group_journey": "Journey",
        "group_play": "Play a card",
        "group_use": "Use a power",
        "group_end": "End your turn",
        # notes
        "note_runes_chance": "{runes}: {chance} % chance against {difficulty}",
        "note_trait_free": "Free to gain",
        "note_trait_spend": "Costs {n} experience",
        "note_trait_spend/one": "Costs 1 experience",
        "note_resolve_win": "Total {total} against {difficulty}: you overcome it",
        "note_resolve_fail": "Total {total} against {difficulty}: you fail and gain 1 experience",
        "note_dark": "You have {xp} experience; a dark rune that shows 2 also brings 1 corruption",
        "note_dark_cost": "{note} · costs {n} experience; each dark rune that shows 2 also brings 1 corruption",
        "runes_core": "{n} core",
        "runes_ability": "{n} {ability}",
        "runes_special": "{ability} special",
        "runes_dark": "{n} dark",
        "runes_all": "Runes {runes}",
        # closed reasons
        "closed_act_over": "Act {act} is over for you",
        "closed_spend": "needs {n} experience",
        "closed_icon": "needs {count} {icon} icons in your Story",
        "closed_icon/one": "needs a {icon} icon in your Story",
        "closed_corruption": "needs your marker at {level} or lower",
        "closed_virtue": "needs your marker at {level} or higher",
        "closed_adversary": "your last turn must face the Adversary",
        "closed_adversary_later": "the Adversary is faced on your last turn, with eight story cards",
        "closed_main_done": "you made your main action already",
        "closed_hero_level": "Hero cards are closed to you at {level}",
        "closed_antihero_level": "Antihero cards are closed to you at {level}",
        "closed_timing_before": "played before the cast",
        "closed_timing_facing": "played as you face a challenge, after the cast",
        "closed_timing_after": "played after a challenge",
        "closed_timing_any": "played in your turn, outside a challenge",
        "closed_timing_opponent": "played in your turn, outside a challenge",
        "closed_no_target": "nothing to play it on now",
        "closed_power_timing": "its power works by itself",
        # refusals (rules.verify_*): what is wrong, then what is possible now (now_<step>)
        "refuse_stranger": "{player} does not play in this game.",
        "refuse_game_over": "The game is over: no more moves can be made.",
        "refuse_not_your_turn": "It is {current}'s turn, not yours: you can move when it is your turn.",
        "refuse_unknown_move": "There is no move {value}: the moves are {moves}.",
        "refuse_step": "You cannot {action} now.",
        "refuse_setup_first": "Every player first chooses their Origin, Motivation and Destiny.",
        "refuse_chosen": "The characters are chosen already.",
        "refuse_not_offered": "'{field}' must be one of the {kind} cards you were dealt: {cards}.",
        "refuse_tuck_first": "First put {ally} under one of these challenges: {cards}.",
        "refuse_tuck_host": "'card' must be a challenge {ally} may go under: {cards}.",
        "refuse_unknown_card": "There is no card {value} in this game's card set.",
        "refuse_face_down": "{card} lies in the row of Act {act}, which is still face down.",
        "refuse_not_in_row": "{card} is in no face-up row.",
        "refuse_act_over": "Act {act} is over for you: take your cards from the row of a later Act.",
        "refuse_adversary": "Your last turn must face the Adversary.",
        "refuse_adversary_later": "The Adversary may be attempted only on your last turn, with eight story cards.",
        "refuse_not_trait": "{card} is a {type}, not a trait.",
        "refuse_not_challenge": "{card} is a {type}, not a challenge.",
        "refuse_spend": "{card} costs {n} experience and you have {xp}.",
        "refuse_icon": "{card} needs {count} {icon} icons in your Story.",
        "refuse_icon/one": "{card} needs a {icon} icon in your Story.",
        "refuse_corruption": "{card} needs your marker at {level} or lower.",
        "refuse_virtue": "{card} needs your marker at {level} or higher.",
        "refuse_path": "'path' must be top or bottom, not {value}.",
        "refuse_one_path": "{card} has one path: 'path' must be top.",
        "refuse_discard_open": "You may discard a row card only when no trait or challenge is open to you.",
        "refuse_pass_open": "You may pass only when no face-up row card is left.",
        "refuse_journeyed": "You journeyed this turn already: one journey per turn.",
        "refuse_journey_cost": "A journey costs 1 experience and you have none.",
        "refuse_dark_value": "'dark' must be 0, 1, 2 or 3, not {value}.",
        "refuse_dark_max": "At most 3 dark runes per challenge.",
        "refuse_dark_level": "No dark runes at {level}.",
        "refuse_dark_cost": "A dark rune costs 1 experience and you have {xp}.",
        "refuse_dark_count": "'dark': you may buy at most {most} dark runes now (1 experience each, at most 3).",
        "refuse_deck": "'deck' must be hero or antihero, not {value}.",
        "refuse_end_value": "'end' must be yes, not {value}.",
        "refuse_order_cards": "'order' must name each card you looked at once, top first: {cards}.",
        "refuse_not_in_hand": "{card} is not in your hand.",
        "refuse_level": "At {level} you may not play {type}s.",
        "refuse_timing": "{card} cannot be played now: it is {when}.",
        "refuse_not_yours": "{card} is not your Origin, your Motivation or one of your allies with a power.",
        "refuse_power_timing": "The power of {card} cannot be used now: it is {when}.",
        "refuse_power_triggered": "The power of {card} works by itself, when it says.",
        "refuse_used": "The power of {card} is used once per turn, and you used it this turn.",
        "refuse_power_cost": "The power of {card} costs {n} experience and you have {xp}.",
        "refuse_target_needed": "'target' must name an opponent: {players}.",
        "refuse_target_any": "'target' must name a player: {players}.",
        "refuse_target_none": "{card} is aimed at you: its move names no 'target'.",
        "refuse_runes_needed": "'runes' must name {count} of the runes cast, by number (0 to {last}), like '0,2'.",
        "refuse_runes_needed/one": "'runes' must name one of the runes cast, by number (0 to {last}), like '2'.",
        "refuse_runes_twice": "'runes' names a rune twice: name each rune once.",
        "refuse_runes_unknown": "'runes' names a rune that is not in the cast: the runes are numbered 0 to {last}.",
        "refuse_act_needed": "'act' must name an Act deck with cards in it: {acts}.",
        "refuse_row_needed": "'row' must name a card of a face-up row: {cards}.",
        "refuse_free_dark": "No dark rune can be added now: at most 3, and none at {level}.",
        "refuse_field_unused": "{card} takes no '{field}'.",
        # commands of replies by email (commands.py): short, a verb first
        "cmd_choose": "choose {origin} {motivation} {destiny}",
        "cmd_trait": "gain {card}",
        "cmd_attempt": "attempt {card} {path}",
        "cmd_attempt_dark": "attempt {card} {path} {dark}",
        "cmd_declare": "declare {card} {path}",
        "cmd_top": "top",
        "cmd_bottom": "bottom",
        "cmd_discard": "discard {card}",
        "cmd_pass": "pass",
        "cmd_journey": "journey {card}",
        "cmd_dark": "dark",
        "cmd_cast": "cast",
        "cmd_draw": "draw {deck}",
        "cmd_hero": "hero",
        "cmd_antihero": "antihero",
        "cmd_resolve": "result",
        "cmd_resolve_end": "result end",
        "cmd_end": "end",
        "cmd_play": "play {card}",
        "cmd_use": "use {card}",
        "cmd_on": "on {target}",
        "cmd_runes": "runes {runes}",
        "cmd_act": "act {act}",
        "cmd_row": "row {card}",
        "cmd_tuck": "tuck {card}",
        "cmd_order": "order {cards}",
        "cmd_filler": "the a an with and of path dark rune runes card turn take my to",
        "do_choose": "choose your characters",
        "do_trait": "gain a trait",
        "do_attempt": "attempt a challenge",
        "do_challenge": "attempt a challenge",
        "do_discard": "discard a row card",
        "do_pass": "pass",
        "do_journey": "journey",
        "do_dark": "buy a dark rune",
        "do_cast": "cast the runes",
        "do_draw": "draw a card",
        "do_play": "play a card",
        "do_use": "use a power",
        "do_order": "put the cards you looked at back",
        "do_tuck": "put an ally under a challenge",
        "do_resolve": "take the result",
        "do_end": "end your turn",
        "now_setup": "Now choose your Origin, Motivation and Destiny.",
        "now_main": (
            "Now make your main action: gain a trait or attempt a challenge (or, if none is open to you, discard a "
            "row card or pass); you may also journey and play cards."
        ),
        "now_prepare": "Now buy dark runes or cast the runes.",
        "now_draw": "Now draw a Hero or Antihero card for the card face a core rune shows.",
        "now_facing": "Now play a card that faces a challenge, or take the result.",
        "now_after": "Now journey, play a card or use a power, or end your turn.",
        "now_peek": "Now put the cards you looked at back in the order you choose.",
        "now_tuck": "Now put the ally under a challenge of its row.",
        # card lines
        "pre_spend": "Gain it by spending {n} experience.",
        "pre_icon": "Needs {count} {icon} icons in your Story.",
        "pre_icon/one": "Needs a {icon} icon in your Story.",
        "pre_corruption": "Needs your marker at {level} or lower.",
        "pre_virtue": "Needs your marker at {level} or higher.",
        "timing_before": "Play it before you cast the runes of a challenge.",
        "timing_facing": "Play it as you face a challenge, after the cast.",
        "timing_after": "Play it after a challenge.",
        "timing_any": "Play it any time in your turn.",
        "timing_opponent": "Play it in your turn on an opponent: it strikes their next challenge.",
        "eff_modify": "{sign}{n} to the total.",
        "eff_modify_per": "{sign}{n} to the total per {icon} icon in your Story.",
        "eff_modify_rune": "{sign}{n} to the total per {rune} rune cast.",
        "eff_recast": "Cast {n} of your runes again.",
        "eff_recast/one": "Cast one of your runes again.",
        "eff_reattempt": "Cast all your runes again.",
        "eff_free_dark": "Add a dark rune for free.",
        "eff_experience": "Gain {n} experience.",
        "eff_lose_experience": "An opponent loses {n} experience.",
        "eff_steal": "Take {n} experience from an opponent.",
        "eff_draw": "Draw {n} {deck} cards.",
        "eff_draw/one": "Draw {a_deck} card.",
        "eff_virtue": "Move {n} levels up the track.",
        "eff_virtue/one": "Move one level up the track.",
        "eff_corruption": "Move {n} levels down the track.",
        "eff_corruption/one": "Move one level down the track.",
        "eff_replace_row": "Discard a face-up row card and replace it.",
        "eff_curse": "{n} to the total of that opponent's next challenge.",
        "eff_take_other_act": "This turn you may take cards from any face-up row.",
        "eff_peek": "Look at the top {n} cards of an Act deck and put them back in any order.",
        "power_cost": "Power, for {n} experience ({timing}): {effect}",
        "power_free": "Power ({timing}): {effect}",
        "power_sacrifice": "Power, sacrificing this ally ({timing}): {effect}",
        "power_once": "Once per turn.",
        "when_before": "before the cast",
        "when_facing": "after the cast, before the result",
        "when_after": "after a challenge",
        "when_any": "any time in your turn",
        "trig_on_success": "Each time you overcome a challenge: {effect}",
        "trig_on_fail": "Each time you fail a challenge: {effect}",
        "trig_on_gain_icon": "Each time you gain a path with a {icon} icon: {effect}",
        "aura_harder": "While face up, the other challenges of its row are {n} harder.",
        "aura_corrupting": "While face up, failing a challenge of its Act also gives a corruption.",
        "sc_per_icon": "{points} per {icon} icon in your Story.",
        "sc_per_ability_kind": "{points} per ability with at least {n} icons in your Story.",
        "sc_threshold": "{points} for at least {n} {icon} icons in your Story.",
        "sc_track": "{points} if your marker ends from {high} down to {low}.",
        "sc_under": "{points} per {icon} icon under your {character}.",
        "adv_adversary_experience": "The Adversary gains {n} experience.",
        "adv_lose_experience": "The active player loses {n} experience.",
        "adv_corruption": "The active player moves {n} down the track.",
        "adv_curse": "{n} to the total of the cast under way.",
        "quest_of": "The Adversary of this quest: {card}.",
        # options, progress, milestones, headline
        "opt_first_game": "First game: one of each character card, no choice",
        "opt_allies_adversaries": "Allies & Adversaries",
        "opt_coop": "Solo / co-operative play against the Adversary (V1)",
        "opt_first_game_off": "each player chooses their characters",
        "opt_first_game_on": "played this way",
        "opt_allies_adversaries_off": "not played",
        "opt_allies_adversaries_on": "played",
        "opt_coop_off": "not played: the players compete",
        "opt_coop_on": "played",
        "opt_card_set": "Card set",
        "opt_card_set_help": "The starter set, or a card-set file put in the server's folder for this game",
        "err_card_set": "unknown card set {name} (expected one of {names})",
        "err_options": "the options must be an object",
        "err_bool": "{name} must be true or false",
        "progress": "The game ends after a player's ninth story card: {parts}.",
        "progress_part": "{who} {count} of 9 story cards, {xp} experience",
        "progress_sep": "; ",
        "milestone_act": "Act {act} begins",
        "milestone_over": "Game over",
        "about": (
            "A storytelling card game for 1 to 4 players: choose who your hero is and wants to become, overcome "
            "challenges by casting runes, and tell the best story by the end of the third Act."
        ),
        "milestone_final": "Final turns: {who} completed their Destiny",
        "headline_act": "Act {act} begins: its row is turned face up.",
    }

    # Grammar ------------------------------------------------------------------------------------------

    def text(self, key: str, /, **params: Any) -> str:
        """The sentence ``key`` with its placeholders filled. ``you=True``: the reader's own form (``<key>/you``)
        if the language has one; an int ``count``: the form for one (``<key>/one``) when it is 1, and ``n``."""
        you = bool(params.pop("you", False))
        count = params.get("count")
        template = self.TEXTS.get(f"{key}/you") if you else None
        if isinstance(count, int):
            params.setdefault("n", count)
            if count == 1:
                template = template or self.TEXTS.get(f"{key}/one")
        return (template or self.TEXTS[key]).format(**params)

    def name(self, cards: CardSet | None, card_id: Any) -> str:
        """A card's name in this language (English when the set has no translation); the id itself if unknown."""
        if cards is not None and isinstance(card_id, str) and card_id in cards.cards:
            return cards.cards[card_id].title(self.lang)
        return str(card_id)

    def word(self, key: str, value: Any) -> str:
        """A small word: ``word("icon", "nature")`` is 'Nature' (the value itself when unknown)."""
        return self.TEXTS.get(f"{key}_{value}", str(value))

    def who(self, name: Any, viewer: str | None) -> str:
        """The subject of a sentence: 'You' for the reader, else the name."""
        return self.TEXTS["you"] if viewer is not None and name == viewer else str(name or "")

    def whom(self, name: Any, viewer: str | None) -> str:
        """A player elsewhere in a sentence: 'you' for the reader."""
        return self.TEXTS["you_object"] if viewer is not None and name == viewer else str(name or "")

    def _face(self, rune: Any, value: Any, mark: Any) -> str:
        """One rune as it fell: 'Strength 2', 'core 0 (card face)'."""
        kind, ability = [*rune, "", ""][:2] if isinstance(rune, list | tuple) else (rune, "")
        label = self.word("icon", ability) if kind in ("ability", "special") else self.word("rune", kind)
        if mark:
            return self.text("cast_face_mark", rune=label, value=value, mark=self.word("mark", mark))
        return self.text("cast_face", rune=label, value=value)

    def join(self, parts: Sequence[str]) -> str:
        """'a, b, c'."""
        return self.TEXTS["list_sep"].join(parts)

    # Refusals -------------------------------------------------------------------------------------------

    def refusal(self, key: str, params: Mapping[str, Any], cards: CardSet | None = None) -> str:
        """A refusal of ``rules.verify`` (its key and JSON-ready values) as sentences: what is wrong, then what
        is possible now (``now``, a step). Card ids become names of ``cards``."""
        values = self._values(params, cards)
        out = self.text(f"refuse_{key}", **values) if f"refuse_{key}" in self.TEXTS else key
        now = params.get("now")
        return f"{out} {self.text(f'now_{now}')}" if isinstance(now, str) and f"now_{now}" in self.TEXTS else out

    def reason(self, key: str, params: Mapping[str, Any], cards: CardSet | None = None) -> str:
        """The same refusal as the short reason a page shows beside a closed card or move."""
        values = self._values(params, cards)
        if key == "level":
            return self.text(f"closed_{params.get('type')}_level", level=values.get("level", ""))
        if key in ("timing", "power_timing") and f"closed_timing_{params.get('timing')}" in self.TEXTS:
            return self.text(f"closed_timing_{params.get('timing')}")
        if key == "power_triggered":
            return self.text("closed_power_timing")
        if key.startswith(("target_", "runes_", "act_needed", "row_needed", "free_dark", "field_unused")):
            return self.text("closed_no_target")
        if f"closed_{key}" in self.TEXTS:
            return self.text(f"closed_{key}", **values)
        return self.refusal(key, {k: v for k, v in params.items() if k != "now"}, cards)

    def _values(self, params: Mapping[str, Any], cards: CardSet | None) -> dict[str, Any]:
        values: dict[str, Any] = dict(params)
        for key in ("card", "ally"):
            if key in values:
                values[key] = self.name(cards, values[key])
        if isinstance(values.get("cards"), list):
            values["cards"] = self.join([self.name(cards, c) for c in values["cards"]])
        for key in ("players", "moves"):
            if isinstance(values.get(key), list):
                values[key] = self.join([str(v) for v in values[key]])
        if isinstance(values.get("acts"), list):
            values["acts"] = self.join([str(a) for a in values["acts"]])
        if "icon" in values:
            values["icon"] = self.word("icon", values["icon"])
        if "type" in values:
            values["type"] = self.word("type", values["type"])
        if "kind" in values:
            values["kind"] = self.word("type", values["kind"])
        if "do" in values:
            values["action"] = self.text(f"do_{values['do']}") if f"do_{values['do']}" in self.TEXTS else values["do"]
        if f"closed_timing_{values.get('timing')}" in self.TEXTS:
            values["when"] = self.text(f"closed_timing_{values['timing']}")
        if "value" in values:
            values["value"] = repr(str(values["value"])[:40])
        if "n" in values and "count" not in values:
            values["count"] = values["n"]
        return values

    # Events ---------------------------------------------------------------------------------------------

    def describe_event(self, ev: Mapping[str, Any], viewer: str | None, cards: CardSet | None) -> str:
        """One event (already masked for ``viewer``) as a sentence."""
        kind = str(ev.get("event"))
        you = viewer is not None and ev.get("player") == viewer
        who = self.who(ev.get("player"), viewer)
        card = self.name(cards, ev.get("card"))
        act = ev.get("act")
        base = {"who": who, "card": card, "act": ROMAN[act - 1] if act in (1, 2, 3) else act, "you": you}
        if kind == "gain":
            if ev.get("path"):
                return self.text("ev_gain_path", path=self.word("path", ev["path"]), **base)
            return self.text("ev_gain", **base)
        if kind == "attempt":
            return self.text(
                "ev_attempt", path=self.word("path", ev.get("path")), difficulty=ev.get("difficulty"), **base
            )
        if kind == "cast":
            runes, values = ev.get("runes", []), ev.get("values")
            if not isinstance(values, list) or len(values) != len(runes):
                return self.text("ev_cast", count=len(runes), total=ev.get("total"), **base)
            marks = ev.get("marks") or [""] * len(values)
            faces = self.join([self._face(r, v, m) for r, v, m in zip(runes, values, marks, strict=False)])
            return self.text("ev_cast_faces", count=len(runes), faces=faces, total=ev.get("total"), **base)
        if kind in ("overcome", "fail"):
            return self.text(f"ev_{kind}", total=ev.get("total"), difficulty=ev.get("difficulty"), **base)
        if kind == "draw":
            deck = {"deck": self.word("deck", ev.get("deck")), "a_deck": self.word("a_deck", ev.get("deck"))}
            if "card" in ev and ev["card"] is None:
                return self.text("ev_draw_none", **deck, **base)
            return self.text("ev_draw_known" if ev.get("card") else "ev_draw", **deck, **base)
        if kind == "play":
            if ev.get("target"):
                return self.text("ev_play_target", target=self.whom(ev["target"], viewer), **base)
            if ev.get("row"):
                return self.text("ev_play_row", row=self.name(cards, ev["row"]), **base)
            return self.text("ev_play", **base)
        if kind == "curse":
            whose = self.text("whose", you=you, who=who)
            return self.text(
                "ev_curse", whose=whose, target=self.whom(ev.get("target"), viewer), total=ev.get("total"), **base
            )
        if kind == "dark":
            return self.text("ev_dark", count=ev.get("count"), **base)
        if kind == "track":
            return self.text("ev_track", level=ev.get("level"), **base)
        if kind == "refill":
            return self.text("ev_refill_card" if ev.get("card") else "ev_refill", **base)
        if kind == "adversary_card":
            return self.text("ev_adversary_card", experience=ev.get("experience"), goal=ev.get("goal"), **base)
        if kind == "ally":
            if ev.get("waiting"):
                return self.text("ev_ally_waiting", **base)
            if ev.get("under"):
                return self.text("ev_ally_under", under=self.name(cards, ev["under"]), **base)
            return self.text("ev_ally_discarded", **base)
        if kind in ("ally_joins", "trigger"):
            return self.text(f"ev_{kind}", whom=self.whom(ev.get("player"), viewer), **base)
        if kind == "use":
            return self.text("ev_use_sacrifice" if ev.get("cost") == "sacrifice" else "ev_use", **base)
        if kind == "order":
            if ev.get("order"):
                return self.text("ev_order_seen", cards=self.join([self.name(cards, c) for c in ev["order"]]), **base)
            return self.text("ev_order", **base)
        if kind == "turn":
            return self.text("ev_turn", turn=ev.get("turn"), **base)
        if kind == "game_over":
            return self.text("ev_game_over", reason=self.word("end", ev.get("reason")), **base)
        if f"ev_{kind}" in self.TEXTS:
            return self.text(f"ev_{kind}", **base)
        return self.text("ev_other", kind=kind, **base)

    # Moves ----------------------------------------------------------------------------------------------

    def describe_move(self, move: Mapping[str, Any], cards: CardSet | None) -> str:
        """A move (a record entry without its player) as a short instruction."""
        do = str(move.get("do"))
        card = self.name(cards, move.get("card"))
        path = self.word("path", move.get("path"))
        if do == "choose":
            names = {k: self.name(cards, move.get(k)) for k in ("origin", "motivation", "destiny")}
            return self.text("m_choose", **names)
        if do == "challenge":
            dark = int(move.get("dark") or 0)
            if dark:
                return self.text("m_challenge_dark", card=card, path=path, dark=self.text("dark_runes", count=dark))
            return self.text("m_challenge", card=card, path=path)
        if do in ("play", "use"):
            for extra in ("target", "row", "runes", "act"):
                if move.get(extra):
                    value = move[extra]
                    if extra == "row":
                        value = self.name(cards, value)
                    elif extra == "act" and value in ("1", "2", "3"):
                        value = ROMAN[int(value) - 1]
                    elif extra == "runes":  # rune numbers from 1, as a player counts them
                        value = self.join([str(int(r) + 1) if r.isdigit() else r for r in str(value).split(",")])
                    return self.text(f"m_{do}_{extra}", card=card, **{extra: value})
            return self.text(f"m_{do}", card=card)
        if do == "resolve":
            return self.text("m_resolve_end" if move.get("end") else "m_resolve")
        if do == "draw":
            deck = move.get("deck")
            return self.text("m_draw", deck=self.word("deck", deck), a_deck=self.word("a_deck", deck))
        if do == "order":
            order = str(move.get("order") or "").split(",")
            return self.text("m_order", cards=self.join([self.name(cards, c) for c in order]))
        if f"m_{do}" in self.TEXTS:
            return self.text(f"m_{do}", card=card, path=path)
        return self.text("m_other", do=do)

    # Cards ----------------------------------------------------------------------------------------------

    def level_name(self, cards: CardSet, neutral_offset: int) -> str:
        """The name of the track level ``neutral_offset`` levels below neutral (negative: above)."""
        i = max(0, min(len(cards.track) - 1, NEUTRAL + neutral_offset))
        return cards.track[i].name

    def effect(self, effect: Mapping[str, Any]) -> str:
        """What an effect does, in one sentence."""
        kind, n = str(effect.get("kind")), int(effect.get("n", 1))
        if kind == "modify":
            sign = "+" if n >= 0 else ""
            per = effect.get("per")
            if per is None:
                return self.text("eff_modify", sign=sign, n=n)
            if str(per).startswith("rune:"):
                return self.text("eff_modify_rune", sign=sign, n=n, rune=self.word("rune", str(per)[5:]))
            return self.text("eff_modify_per", sign=sign, n=n, icon=self.word("icon", per))
        if kind == "curse":
            return self.text("eff_curse", n=-n)
        if kind == "draw":
            deck = effect.get("deck")
            return self.text("eff_draw", count=n, deck=self.word("deck", deck), a_deck=self.word("a_deck", deck))
        if kind in ("adversary_experience",):
            return self.text("adv_adversary_experience", n=n)
        return self.text(f"eff_{kind}", count=n)

    def card_lines(self, cards: CardSet, card: Card) -> list[str]:
        """The card's prerequisite, timing and effect, power, aura and scoring conditions in sentences."""
        out: list[str] = []
        pre = card.prerequisite
        if pre is not None and pre["kind"] != "none":
            kind = pre["kind"]
            if kind == "spend":
                out.append(self.text("pre_spend", n=pre["experience"]))
            elif kind == "icon":
                out.append(self.text("pre_icon", count=pre["count"], icon=self.word("icon", pre["icon"])))
            elif kind == "corruption":
                out.append(self.text("pre_corruption", level=self.level_name(cards, pre["at_least"])))
            elif kind == "virtue":
                out.append(self.text("pre_virtue", level=self.level_name(cards, -pre["at_least"])))
        if card.type == "adversary_card" and card.effect is not None:
            kind, n = card.effect["kind"], card.effect["n"]
            out.append(self.text(f"adv_{kind}", n=-n if kind == "curse" else n))
        elif card.timing and card.effect is not None:
            out += [self.text(f"timing_{card.timing}"), self.effect(card.effect)]
        if card.power is not None:
            out.append(self.power(card.power))
        if card.aura is not None:
            out.append(self.text(f"aura_{card.aura['kind']}", n=card.aura.get("n", 1)))
        for cond in card.scoring:
            out.append(self.condition(cards, cond))
        if card.type == "quest" and card.adversary:
            out.append(self.text("quest_of", card=self.name(cards, card.adversary)))
        return out

    def power(self, power: Mapping[str, Any]) -> str:
        """A power of an Origin, Motivation or ally."""
        timing, effect = str(power["timing"]), self.effect(power["effect"])
        if timing.startswith("on_"):
            line = self.text(f"trig_{timing}", effect=effect, icon=self.word("icon", power.get("icon")))
        else:
            when = self.text(f"when_{timing}")
            cost = power["cost"]
            if cost == "sacrifice":
                line = self.text("power_sacrifice", timing=when, effect=effect)
            elif cost:
                line = self.text("power_cost", n=cost, timing=when, effect=effect)
            else:
                line = self.text("power_free", timing=when, effect=effect)
        return f"{line} {self.text('power_once')}" if power.get("once_per_turn") else line

    def condition(self, cards: CardSet, cond: Mapping[str, Any]) -> str:
        """A Destiny's scoring condition."""
        kind, points = cond["kind"], cond["points"]
        icon = self.word("icon", cond.get("icon"))
        if kind == "track":
            low, high = self.level_name(cards, cond["at_most"]), self.level_name(cards, cond["at_least"])
            return self.text("sc_track", points=points, low=low, high=high)
        if kind == "under":
            return self.text("sc_under", points=points, icon=icon, character=self.word("character", cond["character"]))
        return self.text(f"sc_{kind}", points=points, icon=icon, n=cond.get("at_least", 0))


EN = Words()
"""English, the language of the game registered in ``engine.GAMES``."""
