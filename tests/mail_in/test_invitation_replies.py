"""Answering an invitation by reply: ``accept`` or ``decline`` (in the seat's language or in English) through
``pbem mail-in -``, as on the page; the game starts when the last person accepts, and a late answer is refused
politely."""

from __future__ import annotations

from flask import Flask

from pbem import admin
from pbem.core import games
from tests.admin.conftest import organiser, password_hash  # noqa: F401  (fixtures)
from tests.club.test_invitations import game_row, invited, seats
from tests.mail.conftest import deliver

from . import clients
from .conftest import last_email, mail_in, sent_to


def test_players_accept_and_decline_by_reply(reply_app: Flask, organiser: admin.Actor) -> None:  # noqa: F811
    table = invited(reply_app, organiser)
    deliver(reply_app)
    invitation = last_email(reply_app, "bob@example.com")
    assert "aannemen of afslaan" in invitation.text and invitation.reply_to.startswith("play+")
    raw = clients.gmail(invitation, "Accepteren", sender="bob@example.com")  # not a Dutch command: said, not done
    assert mail_in(reply_app, raw).exit_code == 0
    assert seats(reply_app, table)[1].answer is None
    raw = clients.gmail(last_email(reply_app, "bob@example.com"), "accept", sender="bob@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert seats(reply_app, table)[1].answer == "accepted" and game_row(reply_app, table).status == games.INVITED
    assert "Je hebt de uitnodiging aangenomen." in sent_to(reply_app, "bob@example.com")[-1].text_body

    raw = clients.gmail(last_email(reply_app, "cy@example.com"), "décliner\n\nDésolée !", sender="cy@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert seats(reply_app, table)[2].answer == "declined"
    assert "Vous avez décliné l’invitation." in sent_to(reply_app, "cy@example.com")[-1].text_body

    raw = clients.gmail(last_email(reply_app, "cy@example.com"), "accept", sender="cy@example.com")
    assert mail_in(reply_app, raw).exit_code == 0, "an answer may change until the start"
    raw = clients.gmail(last_email(reply_app, "ann@example.com"), "accept", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert game_row(reply_app, table).status != games.INVITED, "the last acceptance starts the game"

    raw = clients.gmail(last_email(reply_app, "ann@example.com"), "decline", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    answer = sent_to(reply_app, "ann@example.com")[-1].text_body
    assert "Not done" in answer and seats(reply_app, table)[0].answer == "accepted"
