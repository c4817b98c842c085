"""Call to Glory in Dutch, with the words of the Dutch rulebook (GLOSSARY.md): Bode, Samoerai, trekstapel,
aflegstapel, ronde, beurt, uitspelen, afleggen. The reader is "je"/"jij"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from .words import Words


class Dutch(Words):
    """The game's words in Dutch."""

    lang: ClassVar[str] = "nl"
    NAMES: ClassVar[Mapping[str, tuple[str, str]]] = {
        "emperor": ("Keizer", "Keizers"),
        "empress": ("Keizerin", "Keizerinnen"),
        "daimyo": ("Daimyo", "Daimyo's"),
        "shogun": ("Shogun", "Shoguns"),
        "samurai": ("Samoerai", "Samoerai"),
        "ninja": ("Ninja", "Ninja's"),
        "envoy": ("Bode", "Bodes"),
        "monk": ("Monnik", "Monniken"),
        "farmer": ("Boer", "Boeren"),
    }
    PILE_NAMES: ClassVar[Mapping[str, str]] = {
        "draw1": "trekstapel 1",
        "draw2": "trekstapel 2",
        "discard1": "aflegstapel 1",
        "discard2": "aflegstapel 2",
    }
    PILE_LABELS: ClassVar[Mapping[str, str]] = {
        "draw1": "Trekstapel 1",
        "draw2": "Trekstapel 2",
        "discard1": "Aflegstapel 1",
        "discard2": "Aflegstapel 2",
    }
    END_NAMES: ClassVar[Mapping[str, str]] = {
        "types": "een speler heeft sets van genoeg verschillende soorten",
        "all_types": "alle negen soorten liggen op tafel",
        "draw_pile_empty": "een trekstapel is leeg",
    }
    PREFERENCE_NAMES: ClassVar[Mapping[str, str]] = {
        "smaller": "de kleinste aflegstapel",
        "larger": "de grootste aflegstapel",
        "pile1": "aflegstapel 1",
        "pile2": "aflegstapel 2",
    }
    YOU: ClassVar[str] = "Je"
    YOU_OBJECT: ClassVar[str] = "jou"
    YOU_NAME: ClassVar[str] = "jij"
    COMMAND_VERBS: ClassVar[Mapping[str, str]] = {
        "trek": "draw",
        "stapel": "draw",
        "trekstapel": "draw",
        "pak": "take",
        "neem": "take",
        "speel": "lay",
        "leg": "discard",
        "ninja": "ninja",
        "haal": "ninja",
        "gebruik": "ninja",
        "draai": "reveal",
        "onthul": "reveal",
        "voorkeur": "preference",
    }
    COMMAND_WORDS: ClassVar[Mapping[str, str]] = {
        "trekstapel": "drawpile",
        "trek": "drawpile",
        "aflegstapel": "discardpile",
        "afleg": "discardpile",
        "stapel": "pile",
        "stapels": "pile",
        "opdrachtkaart": "task",
        "opdracht": "task",
        "kleinste": "smaller",
        "kleine": "smaller",
        "kleinere": "smaller",
        "grootste": "larger",
        "grote": "larger",
        "grotere": "larger",
    }
    COMMAND_FILLER: ClassVar[str] = (
        "van op de het een uit af om weg bij naar aan in met mijn set kaart kaarten s bovenste ninja miniatuur graag"
    )
    TEXTS: ClassVar[Mapping[str, str]] = {
        "draw_hidden": "{who} trok de bovenste kaart van {pile}.",
        "draw_known": "{who} trok {a_card} van {pile}.",
        "draw_taken": "{who} pakte {the_card} van {pile}.",
        "said": "{who} {clause}.",
        "ninja": "{who} zette een Ninja in tegen {target}{gone}; de kaart ging naar {pile}.",
        "gone": " (de set is weg)",
        "preference": "{who} koos ervoor om verdrongen kaarten naar {preference} te sturen.",
        "reveal": "{who} draaide opdrachtkaart {deck} om: {card}{how}.",
        "reveal_last": " (de laatste kaart)",
        "round_end": "Ronde {round} is voorbij{why}.",
        "round_end_why": " ({reasons})",
        "and": " en ",
        "or": " of ",
        "round_scored": "Score van ronde {round}: {scores}.",
        "round_start": "Ronde {round} begint; {who} is startspeler.",
        "round_start/you": "Ronde {round} begint; jij bent startspeler.",
        "game_end": "Het spel is voorbij. Winnaar: {names}.",
        "game_end_shared": "Het spel is voorbij. Winnaars: {names}.",
        "c_lay": "speelde {cards} uit",
        "c_beat": " en versloeg {owner_cards}, die naar {pile} gingen",
        "c_beat/one": " en versloeg {owner_cards}, die naar {pile} ging",
        "c_ninja_taken": ", en kreeg een Ninja-miniatuur",
        "c_discard": "legde {a_card} af op {pile}",
        "c_ninja": "zette een Ninja in tegen {target}{gone} en stuurde de kaart naar {pile}",
        "c_reveal": "draaide opdrachtkaart {deck} om: {card}",
        "c_drew": "trok {draws}",
        "drawn_hidden": "de bovenste kaart van {pile}",
        "drawn_known": "{a_card} van {pile}",
        "drawn_taken": "{the_card} van {pile}",
        "turn_timeout": "De tijd was om: een bot speelde voor {whom}. Die {body}.",
        "turn_admin": "De organisator liet een bot voor {whom} spelen. Die {body}.",
        "turn_own": "{who} {body}.",
        "m_draw": "Trek van {pile}",
        "m_lay": "Speel {cards} uit",
        "m_discard": "Leg {a_card} af",
        "m_discard_on": "Leg {a_card} af op {pile}",
        "m_ninja": "Zet een Ninja in tegen {target}",
        "m_reveal": "Draai opdrachtkaart {deck} om",
        "m_preference": "Stuur mijn verdrongen kaarten naar {preference}",
        "m_unknown": "Onbekende zet",
        "prompt_reveal": "Draai een opdrachtkaart om",
        "prompt_draw": "Trek een kaart (nog {left} van de 2)",
        "prompt_act": "Speel een set uit of leg een kaart af",
        "milestone_round": "Score van ronde {round}",
        "milestone_over": "Einde van het spel",
        "about": (
            "Het kaartspel van Michael Schacht voor 2 tot 4 spelers: trek van de stapels, speel sets van samoerai, "
            "ninja's en monniken uit vóór de anderen, en verdien over de rondes de meeste roem."
        ),
        "set_smaller": "De kleinste stapel",
        "set_larger": "De grootste stapel",
        "set_pile1": "Aflegstapel 1",
        "set_pile2": "Aflegstapel 2",
        "set_note": (
            "Als een andere speler je set verslaat of een Ninja een kaart van je weghaalt, terwijl op beide "
            "aflegstapels kaarten liggen (R7)."
        ),
        "set_title": "Waar je verdrongen kaarten heen gaan",
        "set_chosen": "gekozen",
        "draw_label": "Trek van {pile}",
        "take_label": "Pak {the_card} van {pile}",
        "take_empty_label": "Pak van {pile}",
        "why_draw_same_pile": "je trok al van {pile}: je tweede kaart komt van een andere stapel",
        "why_pile_empty": "{pile} is leeg",
        "face_down": "gesloten, {cards}",
        "face_up": "open, {cards}",
        "draw_title": "Trek een kaart (nog {left} van de 2)",
        "ends_types": "beëindigt de ronde: je hebt dan {types} soorten",
        "ends_all": "beëindigt de ronde: alle negen soorten liggen dan op tafel",
        "why_lay_minimum": "{plural} speel je met {players} spelers uit vanaf {minimum} kaarten: je hebt er {held}",
        "why_lay_beaten/own": "je set van {cards} is alleen te verslaan met {next} of meer: je hebt er {held}",
        "why_lay_beaten": "{owner} heeft {cards}: speel er {next} of meer uit om die te verslaan (je hebt er {held})",
        "lay_closed": "Speel {plural} uit",
        "lay_beats": "verslaat {owner_cards}, die naar {pile} gaan",
        "lay_beats/one": "verslaat {owner_cards}, die naar {pile} gaat",
        "lay_scores": "levert {value} punten op aan het eind van de ronde",
        "lay_ninja": "je krijgt een Ninja-miniatuur",
        "lay_no_ninja": "er is geen Ninja-miniatuur meer over",
        "lay_label": "Speel {cards} uit",
        "lay_title": "Speel een set uit",
        "notes": "; ",
        "discard_on": "Leg {a_card} af op {pile}",
        "discard_on_note": "bovenop {the_card}",
        "discard_both_empty": "beide aflegstapels zijn leeg",
        "discard_start": "{pile} is leeg en moet eerst beginnen",
        "discard_label": "Leg {a_card} af",
        "discard_note": "gaat op {pile}: {why}",
        "discard_title": "Of leg een kaart af",
        "ninja_smaller": "{owner_cards} worden er {left}",
        "ninja_gone": "de set van {target} is weg",
        "ninja_note": "{effect}; de kaart gaat naar {pile}",
        "ninja_label": "Haal {a_card} weg uit de set van {target}",
        "ninja_title": "Zet een Ninja-miniatuur in (je hebt er nog {left})",
        "reveal_note": "elke speler krijgt {bonus} punten per {name} voor zich: {gains}",
        "reveal_label": "Draai opdrachtkaart {deck} om: {name}",
        "reveal_title": "Draai een opdrachtkaart om",
        "refuse_stranger": "{player} speelt niet mee in dit spel",
        "refuse_game_over": "Het spel is voorbij: er kan geen zet meer gedaan worden",
        "refuse_not_your_turn": "{current} is aan de beurt, niet jij: je kunt spelen als jij aan de beurt bent",
        "refuse_reveal_turn": "{current} moet nu een opdrachtkaart omdraaien, niet jij",
        "refuse_reveal_now": "De ronde is voorbij: draai nu opdrachtkaart {decks} om",
        "refuse_reveal_not_now/draw": "Opdrachtkaarten draai je pas aan het eind van een ronde om: trek nu een kaart",
        "refuse_reveal_not_now/act": (
            "Opdrachtkaarten draai je pas aan het eind van een ronde om: speel nu een set uit of leg een kaart af"
        ),
        "refuse_drawn_twice": "Je hebt twee keer getrokken: speel nu een set uit of leg een kaart af",
        "refuse_draw_same_pile": "Je tweede kaart moet van een andere stapel komen dan {pile}: trek van {piles}",
        "refuse_pile_empty": "{Pile} is leeg: trek van {piles}",
        "refuse_draw_first": "Trek eerst: je mag deze beurt nog {left} keer trekken",
        "refuse_lay_not_held": "Je hebt {held_cards}, geen {count}",
        "refuse_lay_not_held/none": "Je hebt {no_cards}",
        "refuse_lay_minimum": (
            "Een set {plural} telt met {players} spelers minstens {minimum} kaarten: je hebt er {held}"
        ),
        "refuse_lay_beaten": "{owner} heeft {cards}: speel er {next} of meer uit om die te verslaan; je hebt er {held}",
        "refuse_lay_beaten/own": "Je set van {cards} is alleen te verslaan met {next} of meer: je hebt er {held}",
        "refuse_discard_not_held": "Je hebt {no_cards}",
        "refuse_discard_choose": "Op beide aflegstapels liggen kaarten: zeg op welke, aflegstapel 1 of aflegstapel 2",
        "refuse_discard_first_pile": "Beide aflegstapels zijn leeg: de eerste kaart gaat op aflegstapel 1",
        "refuse_discard_start_pile": (
            "{Pile} is leeg: die moet eerst beginnen voordat de andere aflegstapel weer gebruikt wordt"
        ),
        "refuse_ninja_off": "De kracht van de Ninja (V2) wordt in dit spel niet gespeeld",
        "refuse_ninja_none": "Je hebt geen Ninja-miniatuur: die krijg je door een set Ninja's uit te spelen",
        "refuse_ninja_stranger": "{target} speelt niet mee in dit spel",
        "refuse_ninja_own": "Een Ninja haalt een kaart weg uit de set van een tegenstander, niet uit je eigen set",
        "refuse_ninja_no_set": "{target} heeft geen set {plural}",
        "refuse_reveal_no_card": (
            "Je hebt geen opdrachtkaart {deck} meer om om te draaien: draai opdrachtkaart {decks} om"
        ),
        "cmd_draw": "trek stapel {n}",
        "cmd_take": "pak {name}",
        "cmd_take_from": "pak {name} van stapel {n}",
        "cmd_lay": "speel {plural} uit",
        "cmd_lay_count": "speel {count} {plural} uit",
        "cmd_discard": "leg {name} af",
        "cmd_discard_on": "leg {name} af op stapel {n}",
        "cmd_ninja": "ninja {target} {name}",
        "cmd_reveal": "draai opdracht {deck} om",
        "progress_scores": "Als ronde {round} nu eindigde: {scores}.",
        "progress_types": "De ronde eindigt als een speler {need} soorten heeft: {who} heeft er {have} van de {need}.",
        "progress_types/you": "De ronde eindigt als een speler {need} soorten heeft: jij hebt er {have} van de {need}.",
        "progress_other_ends": (
            "Ze eindigt ook als alle negen soorten op tafel liggen (nu {on_table} van de 9) "
            "of als een trekstapel leeg is (nog {left1} en {left2})."
        ),
        "round_over": "Ronde {round} is voorbij: {scores}. Het scoreblad staat hieronder bij de scores.",
        "ended_types": "Ronde {round} eindigde: {who} had sets van {types} verschillende soorten.",
        "ended_all_types": "Ronde {round} eindigde: alle negen soorten lagen op tafel.",
        "ended_draw_pile_empty": "Ronde {round} eindigde: een trekstapel was op.",
        "board_pile": "{pile}: {cards}",
        "board_ninjas": "Ninja-miniaturen: jij {mine}, voorraad {supply}.",
        "board_prefers": "kiest {choice}",
        "board_top": "{card} bovenop",
        "opt_rounds": "Rondes",
        "opt_rounds_standard": "Standaard: 4, of 3 met Keizerlijke opdrachten",
        "opt_tasks": "Keizerlijke opdrachten (V1)",
        "opt_ninja": "De kracht van de Ninja (V2)",
        "opt_tasks_off": "niet gespeeld",
        "opt_tasks_on": "gespeeld",
        "opt_ninja_off": "niet gebruikt",
        "opt_ninja_on": "gebruikt",
        "opt_first": "Startspeler",
        "opt_first_help": "wie ronde 1 begint (standaard: wie op de eerste plaats zit)",
        "opt_decks": "Opdrachtkaarten (met Keizerlijke opdrachten)",
        "opt_decks_help": (
            "Eén regel per stapel, met vier kaartsoorten. Vervang ze om met andere opdrachtkaarten te spelen."
        ),
        "err_not_object": "de opties moeten een object zijn",
        "err_unknown_option": "onbekende optie {key}",
        "err_rounds": "een spel heeft 1 tot {top} rondes (R2)",
        "err_rounds_tasks": "met Keizerlijke opdrachten heeft een spel 1 tot {top} rondes (R2)",
        "err_table_lines": "de tabel met opdrachtkaarten heeft drie regels: A, B en C",
        "err_table_start": "regel {number} moet beginnen met A:, B: of C:",
        "err_table_twice": "stapel {deck} staat er twee keer in",
        "err_table_type": "stapel {deck}: {name} is geen kaartsoort ({known})",
        "err_table_count": "stapel {deck} moet 4 kaartsoorten noemen, niet {count}",
        "err_table_missing": "de tabel met opdrachtkaarten heeft geen regel voor stapel {decks}",
    }

    CARD_FORMS: ClassVar[tuple[str, str]] = ("kaart", "kaarten")
    MINIATURE_FORMS: ClassVar[tuple[str, str]] = ("Ninja-miniatuur", "Ninja-miniaturen")

    def count(self, type_: str, n: int) -> str:
        """'geen Boeren', '1 Boer', '3 Boeren'."""
        if not n:
            return f"geen {self.plural(type_)}"
        return f"1 {self.name(type_)}" if n == 1 else f"{n} {self.plural(type_)}"

    def a(self, type_: str) -> str:
        """'een Boer'."""
        return f"een {self.name(type_)}"

    def the(self, type_: str) -> str:
        """'de Boer' (every character card is a "de" word)."""
        return f"de {self.name(type_)}"

    def whose(self, owner: str, mine: bool, cards: str, *, own: bool = False, one: bool = False) -> str:
        """'je 2 Boeren', 'de 2 Boeren van Ann', 'hun eigen 2 Boeren'."""
        if own:
            return f"{'je' if mine else 'hun'} eigen {cards}"
        return f"je {cards}" if mine else f"de {cards} van {owner}"


NL = Dutch()
"""Dutch."""
