"""Call to Glory in French, with the words of the French rulebook (GLOSSARY.md): Émissaire, Samouraï, pioche,
défausse, manche, tour de jeu, poser, défausser, série, carte Mission. The reader is "vous"; articles elide
("l'Émissaire", "de l'Empereur", "d'Ann") and agree ("une Impératrice")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .words import Words

_VOWELS = "aeiouyàâäéèêëîïôöûüAEIOUYÀÂÄÉÈÊËÎÏÔÖÛÜ"
_FEMININE = frozenset({"empress"})


def elides(word: str) -> bool:
    """True when "le", "la" and "de" elide before ``word`` ("l'Émissaire", "d'Ann")."""
    return word[:1] in _VOWELS


def of(name: str) -> str:
    """'de Bob', "d'Ann"."""
    return f"d'{name}" if elides(name) else f"de {name}"


class French(Words):
    """The game's words in French."""

    lang: ClassVar[str] = "fr"
    NAMES: ClassVar[Mapping[str, tuple[str, str]]] = {
        "emperor": ("Empereur", "Empereurs"),
        "empress": ("Impératrice", "Impératrices"),
        "daimyo": ("Daimyo", "Daimyos"),
        "shogun": ("Shogun", "Shoguns"),
        "samurai": ("Samouraï", "Samouraïs"),
        "ninja": ("Ninja", "Ninjas"),
        "envoy": ("Émissaire", "Émissaires"),
        "monk": ("Moine", "Moines"),
        "farmer": ("Paysan", "Paysans"),
    }
    PILE_NAMES: ClassVar[Mapping[str, str]] = {
        "draw1": "la pioche 1",
        "draw2": "la pioche 2",
        "discard1": "la défausse 1",
        "discard2": "la défausse 2",
    }
    PILE_LABELS: ClassVar[Mapping[str, str]] = {
        "draw1": "Pioche 1",
        "draw2": "Pioche 2",
        "discard1": "Défausse 1",
        "discard2": "Défausse 2",
    }
    END_NAMES: ClassVar[Mapping[str, str]] = {
        "types": "un joueur a des séries d'assez de types différents",
        "all_types": "les neuf types sont sur la table",
        "draw_pile_empty": "une pioche est vide",
    }
    PREFERENCE_NAMES: ClassVar[Mapping[str, str]] = {
        "smaller": "la plus petite défausse",
        "larger": "la plus grande défausse",
        "pile1": "la défausse 1",
        "pile2": "la défausse 2",
    }
    YOU: ClassVar[str] = "Vous"
    YOU_OBJECT: ClassVar[str] = "vous"
    YOU_NAME: ClassVar[str] = "vous"
    COMMAND_VERBS: ClassVar[Mapping[str, str]] = {
        "piocher": "draw",
        "pioche": "draw",
        "piochez": "draw",
        "prendre": "take",
        "prends": "take",
        "prenez": "take",
        "poser": "lay",
        "pose": "lay",
        "posez": "lay",
        "jouer": "lay",
        "défausser": "discard",
        "défausse": "discard",
        "défaussez": "discard",
        "ninja": "ninja",
        "retirer": "ninja",
        "retire": "ninja",
        "retirez": "ninja",
        "utiliser": "ninja",
        "révéler": "reveal",
        "révèle": "reveal",
        "révélez": "reveal",
        "préférence": "preference",
    }
    COMMAND_WORDS: ClassVar[Mapping[str, str]] = {
        "pioche": "drawpile",
        "défausse": "discardpile",
        "pile": "pile",
        "mission": "task",
        "petite": "smaller",
        "petit": "smaller",
        "grande": "larger",
        "grand": "larger",
    }
    COMMAND_FILLER: ClassVar[str] = (
        "à a dans sur de d du des la le les l un une au aux mes ma mon série séries carte cartes s plus en "
        "ninja figurine contre"
    )
    TEXTS: ClassVar[Mapping[str, str]] = {
        "draw_hidden": "{who} a pioché la carte du dessus de {pile}.",
        "draw_hidden/you": "Vous avez pioché la carte du dessus de {pile}.",
        "draw_known": "{who} a pioché {a_card} dans {pile}.",
        "draw_known/you": "Vous avez pioché {a_card} dans {pile}.",
        "draw_taken": "{who} a pris {the_card} sur {pile}.",
        "draw_taken/you": "Vous avez pris {the_card} sur {pile}.",
        "said": "{who} a {clause}.",
        "said/you": "Vous avez {clause}.",
        "ninja": "{who} a utilisé un Ninja contre {target}{gone}\u202f; la carte est partie sur {pile}.",
        "ninja/you": "Vous avez utilisé un Ninja contre {target}{gone}\u202f; la carte est partie sur {pile}.",
        "gone": " (la série a disparu)",
        "preference": "{who} a choisi d'envoyer ses cartes évincées sur {preference}.",
        "preference/you": "Vous avez choisi d'envoyer vos cartes évincées sur {preference}.",
        "reveal": "{who} a révélé sa carte Mission {deck}\u202f: {card}{how}.",
        "reveal/you": "Vous avez révélé votre carte Mission {deck}\u202f: {card}{how}.",
        "reveal_last": " (la dernière carte)",
        "round_end": "La manche {round} est terminée{why}.",
        "round_end_why": " ({reasons})",
        "and": " et ",
        "or": " ou ",
        "round_scored": "Scores de la manche {round}\u202f: {scores}.",
        "round_start": "La manche {round} commence\u202f; {who} est premier joueur.",
        "round_start/you": "La manche {round} commence\u202f; vous êtes premier joueur.",
        "game_end": "La partie est terminée. Vainqueur\u202f: {names}.",
        "game_end_shared": "La partie est terminée. Vainqueurs\u202f: {names}.",
        "c_lay": "posé {cards}",
        "c_beat": " et battu {owner_cards}, qui rejoignent {pile}",
        "c_beat/one": " et battu {owner_cards}, qui rejoint {pile}",
        "c_ninja_taken": ", et pris une figurine Ninja",
        "c_discard": "défaussé {a_card} sur {pile}",
        "c_ninja": "utilisé un Ninja contre {target}{gone}, ce qui envoie la carte sur {pile}",
        "c_reveal": "révélé la carte Mission {deck}\u202f: {card}",
        "c_drew": "pioché {draws}",
        "drawn_hidden": "la carte du dessus de {pile}",
        "drawn_known": "{a_card} dans {pile}",
        "drawn_taken": "{the_card} sur {pile}",
        "turn_timeout": "Temps écoulé\u202f: un bot a joué pour {whom}. Il a {body}.",
        "turn_admin": "L'organisateur a fait jouer un bot pour {whom}. Il a {body}.",
        "turn_own": "{who} a {body}.",
        "turn_own/you": "Vous avez {body}.",
        "m_draw": "Piocher dans {pile}",
        "m_lay": "Poser {cards}",
        "m_discard": "Défausser {a_card}",
        "m_discard_on": "Défausser {a_card} sur {pile}",
        "m_ninja": "Utiliser un Ninja contre {target}",
        "m_reveal": "Révéler la carte Mission {deck}",
        "m_preference": "Envoyer mes cartes évincées sur {preference}",
        "m_unknown": "Coup inconnu",
        "prompt_reveal": "Révélez une carte Mission",
        "prompt_draw": "Piochez une carte (encore {left} sur 2)",
        "prompt_act": "Posez une série ou défaussez une carte",
        "milestone_round": "Scores de la manche {round}",
        "milestone_over": "Fin de la partie",
        "about": (
            "Le jeu de cartes de Michael Schacht pour 2 à 4 joueurs : piochez dans les piles, posez des séries de "
            "samouraïs, de ninjas et de moines avant les autres, et gagnez le plus de gloire au fil des manches."
        ),
        "set_smaller": "La plus petite défausse",
        "set_larger": "La plus grande défausse",
        "set_pile1": "Défausse 1",
        "set_pile2": "Défausse 2",
        "set_note": (
            "Quand un autre joueur bat votre série, ou qu'un Ninja vous retire une carte, alors que les deux "
            "défausses contiennent des cartes (R7)."
        ),
        "set_title": "Où vont vos cartes évincées",
        "set_chosen": "choisie",
        "draw_label": "Piocher dans {pile}",
        "take_label": "Prendre {the_card} sur {pile}",
        "take_empty_label": "Prendre sur {pile}",
        "why_draw_same_pile": "vous avez déjà pioché dans {pile}\u202f: la seconde carte vient d'une autre pile",
        "why_pile_empty": "{pile} est vide",
        "face_down": "face cachée, {cards}",
        "face_up": "face visible, {cards}",
        "draw_title": "Piocher une carte (encore {left} sur 2)",
        "ends_types": "termine la manche\u202f: vous auriez {types} types",
        "ends_all": "termine la manche\u202f: les neuf types seraient sur la table",
        "why_lay_minimum": "à {players} joueurs, il faut poser au moins {minimum} {plural}\u202f: vous en avez {held}",
        "why_lay_beaten/own": (
            "votre série de {cards} ne peut être battue que par {next} cartes ou plus\u202f: vous en avez {held}"
        ),
        "why_lay_beaten": "{owner} a {cards}\u202f: posez-en {next} ou plus pour la battre (vous en avez {held})",
        "lay_closed": "Poser des {plural}",
        "lay_beats": "bat {owner_cards}, qui iront sur {pile}",
        "lay_beats/one": "bat {owner_cards}, qui ira sur {pile}",
        "lay_scores": "rapporte {value} points à la fin de la manche",
        "lay_ninja": "vous prenez une figurine Ninja",
        "lay_no_ninja": "il ne reste aucune figurine Ninja à prendre",
        "lay_label": "Poser {cards}",
        "lay_title": "Poser une série",
        "notes": "\u202f; ",
        "discard_on": "Défausser {a_card} sur {pile}",
        "discard_on_note": "par-dessus {the_card}",
        "discard_both_empty": "les deux défausses sont vides",
        "discard_start": "{pile} est vide et doit être commencée",
        "discard_label": "Défausser {a_card}",
        "discard_note": "va sur {pile}\u202f: {why}",
        "discard_title": "Ou défausser une carte",
        "ninja_smaller": "{owner_cards} passent à {left}",
        "ninja_gone": "la série {of_target} disparaît",
        "ninja_note": "{effect}\u202f; la carte va sur {pile}",
        "ninja_label": "Retirer {a_card} de la série {of_target}",
        "ninja_title": "Utiliser une figurine Ninja (il vous en reste {left})",
        "reveal_note": "chaque joueur marque {bonus} points par {name} devant lui\u202f: {gains}",
        "reveal_label": "Révéler la carte Mission {deck}\u202f: {name}",
        "reveal_title": "Révéler une carte Mission",
        "refuse_stranger": "{player} ne joue pas dans cette partie",
        "refuse_game_over": "La partie est terminée\u202f: plus aucun coup n'est possible",
        "refuse_not_your_turn": "C'est à {current} de jouer, pas à vous\u202f: vous pourrez jouer à votre tour",
        "refuse_reveal_turn": "C'est à {current} de révéler une carte Mission, pas à vous",
        "refuse_reveal_now": "La manche est terminée\u202f: révélez maintenant la carte Mission {decks}",
        "refuse_reveal_not_now/draw": (
            "Les cartes Mission ne sont révélées qu'à la fin d'une manche\u202f: piochez maintenant une carte"
        ),
        "refuse_reveal_not_now/act": (
            "Les cartes Mission ne sont révélées qu'à la fin d'une manche\u202f: posez maintenant une série ou "
            "défaussez une carte"
        ),
        "refuse_drawn_twice": "Vous avez pioché deux fois\u202f: posez maintenant une série ou défaussez une carte",
        "refuse_draw_same_pile": (
            "Votre seconde carte doit venir d'une autre pile que {pile}\u202f: piochez dans {piles}"
        ),
        "refuse_pile_empty": "{Pile} est vide\u202f: piochez dans {piles}",
        "refuse_draw_first": "Piochez d'abord\u202f: il vous reste {left} pioches ce tour-ci",
        "refuse_draw_first/one": "Piochez d'abord\u202f: il vous reste 1 pioche ce tour-ci",
        "refuse_lay_not_held": "Vous avez {held_cards}, pas {count}",
        "refuse_lay_not_held/none": "Vous n'avez {no_cards}",
        "refuse_lay_minimum": (
            "À {players} joueurs, une série {of_plural} compte au moins {minimum} cartes\u202f: vous en avez {held}"
        ),
        "refuse_lay_beaten": (
            "{owner} a {cards}\u202f: posez-en {next} ou plus pour la battre\u202f; vous en avez {held}"
        ),
        "refuse_lay_beaten/own": (
            "Votre série de {cards} ne peut être battue que par {next} cartes ou plus\u202f: vous en avez {held}"
        ),
        "refuse_discard_not_held": "Vous n'avez {no_cards}",
        "refuse_discard_choose": (
            "Les deux défausses contiennent des cartes\u202f: dites laquelle, la défausse 1 ou la défausse 2"
        ),
        "refuse_discard_first_pile": "Les deux défausses sont vides\u202f: la première carte va sur la défausse 1",
        "refuse_discard_start_pile": (
            "{Pile} est vide\u202f: elle doit être commencée avant de réutiliser l'autre défausse"
        ),
        "refuse_ninja_off": "Le pouvoir des Ninjas (V2) n'est pas joué dans cette partie",
        "refuse_ninja_none": "Vous n'avez aucune figurine Ninja\u202f: poser une série de Ninjas vous en donne une",
        "refuse_ninja_stranger": "{target} ne joue pas dans cette partie",
        "refuse_ninja_own": "Un Ninja retire une carte de la série d'un adversaire, pas de la vôtre",
        "refuse_ninja_no_set": "{target} n'a pas de série {of_plural}",
        "refuse_reveal_no_card": (
            "Vous n'avez pas de carte Mission {deck} à révéler\u202f: révélez la carte Mission {decks}"
        ),
        "cmd_draw": "pioche {n}",
        "cmd_take": "prendre {name}",
        "cmd_take_from": "prendre {name} sur défausse {n}",
        "cmd_lay": "poser {plural}",
        "cmd_lay_count": "poser {count} {plural}",
        "cmd_discard": "défausser {name}",
        "cmd_discard_on": "défausser {name} sur défausse {n}",
        "cmd_ninja": "ninja {target} {name}",
        "cmd_reveal": "révéler mission {deck}",
        "progress_scores": "Si la manche {round} s'arrêtait maintenant\u202f: {scores}.",
        "progress_types": "La manche se termine quand un joueur a {need} types\u202f: {who} en a {have} sur {need}.",
        "progress_types/you": (
            "La manche se termine quand un joueur a {need} types\u202f: vous en avez {have} sur {need}."
        ),
        "progress_other_ends": (
            "Elle se termine aussi quand les neuf types sont sur la table ({on_table} sur 9 maintenant) "
            "ou qu'une pioche est vide (encore {left1} et {left2})."
        ),
        "round_over": (
            "La manche {round} est terminée\u202f: {scores}. Sa feuille de score est dans les scores ci-dessous."
        ),
        "ended_types": "La manche {round} s'est terminée\u202f: {who} avait des séries de {types} types différents.",
        "ended_all_types": "La manche {round} s'est terminée\u202f: les neuf types étaient sur la table.",
        "ended_draw_pile_empty": "La manche {round} s'est terminée\u202f: une pioche était vide.",
        "board_pile": "{pile}\u202f: {cards}",
        "board_ninjas": "Figurines Ninja\u202f: vous {mine}, réserve {supply}.",
        "board_prefers": "préfère {choice}",
        "board_top": "{card} sur le dessus",
        "opt_rounds": "Manches",
        "opt_rounds_standard": "Standard\u202f: 4, ou 3 avec les Missions pour l'Empire",
        "opt_tasks": "Missions pour l'Empire (V1)",
        "opt_ninja": "Le pouvoir des Ninjas (V2)",
        "opt_tasks_off": "non jouées",
        "opt_tasks_on": "jouées",
        "opt_ninja_off": "non utilisé",
        "opt_ninja_on": "utilisé",
        "opt_first": "Premier joueur",
        "opt_first_help": "le joueur qui débute la manche 1 (par défaut\u202f: la première place)",
        "opt_decks": "Cartes Mission (avec les Missions pour l'Empire)",
        "opt_decks_help": (
            "Une ligne par pile de Missions, quatre types de cartes chacune. Remplacez-les pour jouer avec "
            "d'autres cartes Mission."
        ),
        "err_not_object": "les options doivent être un objet",
        "err_unknown_option": "option inconnue\u202f: {key}",
        "err_rounds": "une partie compte de 1 à {top} manches (R2)",
        "err_rounds_tasks": "avec les Missions pour l'Empire, une partie compte de 1 à {top} manches (R2)",
        "err_table_lines": "le tableau des cartes Mission a trois lignes\u202f: A, B et C",
        "err_table_start": "la ligne {number} doit commencer par A:, B: ou C:",
        "err_table_twice": "les Missions {deck} figurent deux fois",
        "err_table_type": "Missions {deck}\u202f: {name} n'est pas un type de carte ({known})",
        "err_table_count": "les Missions {deck} doivent compter 4 types de cartes, pas {count}",
        "err_table_missing": "le tableau des cartes Mission n'a pas de ligne pour les Missions {decks}",
    }

    def text(self, key: str, /, you: bool = False, **params: Any) -> str:
        """As ``Words.text``, with ``of_target`` ("d'Ann", "de Bob") for a sentence that names a ``target`` and
        ``of_plural`` ("d'Impératrices") for one that names a ``plural``."""
        if "target" in params and isinstance(params["target"], str):
            params.setdefault("of_target", of(params["target"]))
        if "plural" in params and isinstance(params["plural"], str):
            params.setdefault("of_plural", of(params["plural"]))
        return super().text(key, you, **params)

    CARD_FORMS: ClassVar[tuple[str, str]] = ("carte", "cartes")
    MINIATURE_FORMS: ClassVar[tuple[str, str]] = ("figurine Ninja", "figurines Ninja")

    def one(self, n: int) -> bool:
        """True for 0 and 1: French counts them in the singular ("0 carte", "1 carte")."""
        return -1 < n < 2

    def count(self, type_: str, n: int) -> str:
        """'aucun Paysan', 'aucune Impératrice', '1 Paysan', '3 Paysans'."""
        if not n:
            return f"{'aucune' if type_ in _FEMININE else 'aucun'} {self.name(type_)}"
        return f"1 {self.name(type_)}" if n == 1 else f"{n} {self.plural(type_)}"

    def a(self, type_: str) -> str:
        """'un Paysan', 'une Impératrice'."""
        return f"{'une' if type_ in _FEMININE else 'un'} {self.name(type_)}"

    def the(self, type_: str) -> str:
        """'le Moine', "l'Émissaire", "l'Impératrice"."""
        name = self.name(type_)
        if elides(name):
            return f"l'{name}"
        return f"{'la' if type_ in _FEMININE else 'le'} {name}"

    def whose(self, owner: str, mine: bool, cards: str, *, own: bool = False, one: bool = False) -> str:
        """'vos 2 Paysans', "les 2 Paysans d'Ann", 'ses propres 2 Paysans'; one card: 'votre Paysan',
        "l'Émissaire d'Ann", 'sa propre Impératrice'."""
        if one:
            feminine = cards == self.NAMES["empress"][0]
            if own:
                return f"{'votre' if mine else 'sa' if feminine else 'son'} propre {cards}"
            if mine:
                return f"votre {cards}"
            article = "l'" if elides(cards) else "la " if feminine else "le "
            return f"{article}{cards} {of(owner)}"
        if own:
            return f"{'vos' if mine else 'ses'} propres {cards}"
        return f"vos {cards}" if mine else f"les {cards} {of(owner)}"


FR = French()
"""French."""
