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
    TEXTS: ClassVar[Mapping[str, str]] = {
        "draw_hidden": "{who} a pioché la carte du dessus de {pile}.",
        "draw_hidden/you": "Vous avez pioché la carte du dessus de {pile}.",
        "draw_known": "{who} a pioché {a_card} dans {pile}.",
        "draw_known/you": "Vous avez pioché {a_card} dans {pile}.",
        "draw_taken": "{who} a pris {the_card} sur {pile}.",
        "draw_taken/you": "Vous avez pris {the_card} sur {pile}.",
        "said": "{who} a {clause}.",
        "said/you": "Vous avez {clause}.",
        "ninja": "{who} a utilisé un Ninja contre {target}{gone} ; la carte est partie sur {pile}.",
        "ninja/you": "Vous avez utilisé un Ninja contre {target}{gone} ; la carte est partie sur {pile}.",
        "gone": " (la série a disparu)",
        "preference": "{who} a choisi d'envoyer ses cartes évincées sur {preference}.",
        "preference/you": "Vous avez choisi d'envoyer vos cartes évincées sur {preference}.",
        "reveal": "{who} a révélé sa carte Mission {deck} : {card}{how}.",
        "reveal/you": "Vous avez révélé votre carte Mission {deck} : {card}{how}.",
        "reveal_last": " (la dernière carte)",
        "round_end": "La manche {round} est terminée{why}.",
        "round_end_why": " ({reasons})",
        "and": " et ",
        "round_scored": "Scores de la manche {round} : {scores}.",
        "round_start": "La manche {round} commence ; {who} est premier joueur.",
        "round_start/you": "La manche {round} commence ; vous êtes premier joueur.",
        "game_end": "La partie est terminée. Vainqueur : {names}.",
        "game_end_shared": "La partie est terminée. Vainqueurs : {names}.",
        "c_lay": "posé {cards}",
        "c_beat": " et battu {owner_cards}, qui rejoignent {pile}",
        "c_beat/one": " et battu {owner_cards}, qui rejoint {pile}",
        "c_ninja_taken": ", et pris une figurine Ninja",
        "c_discard": "défaussé {a_card} sur {pile}",
        "c_ninja": "utilisé un Ninja contre {target}{gone}, ce qui envoie la carte sur {pile}",
        "c_reveal": "révélé la carte Mission {deck} : {card}",
        "c_drew": "pioché {draws}",
        "drawn_hidden": "la carte du dessus de {pile}",
        "drawn_known": "{a_card} dans {pile}",
        "drawn_taken": "{the_card} sur {pile}",
        "turn_timeout": "Temps écoulé : un bot a joué pour {whom}. Il a {body}.",
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
        "set_smaller": "La plus petite défausse",
        "set_larger": "La plus grande défausse",
        "set_pile1": "Défausse 1",
        "set_pile2": "Défausse 2",
        "set_note": (
            "Quand un autre joueur bat votre série, ou qu'un Ninja vous retire une carte, alors que les deux "
            "défausses contiennent des cartes (R7)."
        ),
        "set_title": "Où vont vos cartes évincées",
        "draw_label": "Piocher dans {pile}",
        "take_label": "Prendre {the_card} sur {pile}",
        "take_empty_label": "Prendre sur {pile}",
        "drew_there": "vous avez déjà pioché dans {pile} : la seconde carte vient d'une autre pile",
        "pile_empty": "{pile} est vide",
        "face_down": "face cachée, {count} cartes",
        "face_up": "face visible, {count} cartes",
        "draw_title": "Piocher une carte (encore {left} sur 2)",
        "ends_types": "termine la manche : vous auriez {types} types",
        "ends_all": "termine la manche : les neuf types seraient sur la table",
        "lay_minimum": "à {players} joueurs, il faut poser au moins {minimum} {plural} : vous en avez {held}",
        "lay_own": "votre série de {cards} ne peut être battue que par {next} cartes ou plus : vous en avez {held}",
        "lay_other": "{owner} a {cards} : posez-en {next} ou plus pour la battre (vous en avez {held})",
        "lay_closed": "Poser des {plural}",
        "lay_beats": "bat {owner_cards}, qui iront sur {pile}",
        "lay_beats/one": "bat {owner_cards}, qui ira sur {pile}",
        "lay_scores": "rapporte {value} points à la fin de la manche",
        "lay_ninja": "vous prenez une figurine Ninja",
        "lay_no_ninja": "il ne reste aucune figurine Ninja à prendre",
        "lay_label": "Poser {cards}",
        "lay_title": "Poser une série",
        "notes": " ; ",
        "discard_on": "Défausser {a_card} sur {pile}",
        "discard_on_note": "par-dessus {the_card}",
        "discard_both_empty": "les deux défausses sont vides",
        "discard_start": "{pile} est vide et doit être commencée",
        "discard_label": "Défausser {a_card}",
        "discard_note": "va sur {pile} : {why}",
        "discard_title": "Ou défausser une carte",
        "ninja_smaller": "{owner_cards} passent à {left}",
        "ninja_gone": "la série {of_target} disparaît",
        "ninja_note": "{effect} ; la carte va sur {pile}",
        "ninja_label": "Retirer {a_card} de la série {of_target}",
        "ninja_title": "Utiliser une figurine Ninja (il vous en reste {left})",
        "reveal_note": "chaque joueur marque {bonus} points par {name} devant lui : {gains}",
        "reveal_label": "Révéler la carte Mission {deck} : {name}",
        "reveal_title": "Révéler une carte Mission",
        "progress_scores": "Si la manche {round} s'arrêtait maintenant : {scores}.",
        "progress_types": "La manche se termine quand un joueur a {need} types : {who} en a {have} sur {need}.",
        "progress_types/you": "La manche se termine quand un joueur a {need} types : vous en avez {have} sur {need}.",
        "progress_other_ends": (
            "Elle se termine aussi quand les neuf types sont sur la table ({on_table} sur 9 maintenant) "
            "ou qu'une pioche est vide (encore {left1} et {left2} cartes)."
        ),
        "round_over": "La manche {round} est terminée : {scores}. Sa feuille de score est dans les scores ci-dessous.",
        "opt_rounds": "Manches",
        "opt_rounds_standard": "Standard : 4, ou 3 avec les Missions pour l'Empire",
        "opt_tasks": "Missions pour l'Empire (V1)",
        "opt_ninja": "Le pouvoir des Ninjas (V2)",
        "opt_first": "Premier joueur",
        "opt_first_help": "le joueur qui débute la manche 1 (par défaut : la première place)",
        "opt_decks": "Cartes Mission (avec les Missions pour l'Empire)",
        "opt_decks_help": (
            "Une ligne par pile de Missions, quatre types de cartes chacune. Remplacez-les pour jouer avec "
            "d'autres cartes Mission."
        ),
        "err_not_object": "les options doivent être un objet",
        "err_unknown_option": "option inconnue : {key}",
        "err_rounds": "une partie compte de 1 à {top} manches (R2)",
        "err_rounds_tasks": "avec les Missions pour l'Empire, une partie compte de 1 à {top} manches (R2)",
        "err_table_lines": "le tableau des cartes Mission a trois lignes : A, B et C",
        "err_table_start": "la ligne {number} doit commencer par A:, B: ou C:",
        "err_table_twice": "les Missions {deck} figurent deux fois",
        "err_table_type": "Missions {deck} : {name} n'est pas un type de carte ({known})",
        "err_table_count": "les Missions {deck} doivent compter 4 types de cartes, pas {count}",
        "err_table_missing": "le tableau des cartes Mission n'a pas de ligne pour les Missions {decks}",
    }

    def text(self, key: str, /, you: bool = False, **params: Any) -> str:
        """As ``Words.text``, with ``of_target`` ("d'Ann", "de Bob") for a sentence that names a ``target``."""
        if "target" in params and isinstance(params["target"], str):
            params.setdefault("of_target", of(params["target"]))
        return super().text(key, you, **params)

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
