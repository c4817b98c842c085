"""Call to Adventure's turn emails in words: the setup email's text part shows what each character dealt does, and
once a Destiny is complete every other player's subject and first line say it is their last turn."""

from __future__ import annotations

from flask import Flask
from sqlmodel import col, select

from pbem import db
from pbem.core import seats as seat_rows
from pbem.mail import compose, notify
from pbem.models import OutboxEmail
from tests.adventure_helpers import RULES, adventure_table, state_of


def test_the_setup_email_text_says_what_each_character_dealt_does(app: Flask) -> None:
    table = adventure_table(app, ["ann", "bob"], seed=2)
    view = RULES.player_view(state_of(table), "ann")
    offers = view["players"]["ann"]["offers"]
    with app.app_context():
        session = db.get_session()
        seat = table.seat(0)
        row = session.exec(
            select(OutboxEmail).where(col(OutboxEmail.seat_id) == seat.id, col(OutboxEmail.kind) == "turn")
        ).one()
        assert row.render is not None, "a turn email is rendered when it is sent, from the game as it is then"
        text = notify.render_queued(
            session=session,
            kind=row.kind,
            game_id=table.game_id,
            seat_id=seat.id or 0,
            to=row.to_addr,
            headers=dict(row.headers),
            decision=row.decision,
            what=row.render,
        ).text
    for kind in ("Origin", "Motivation", "Destiny"):
        assert f"{kind} (only you see this):" in text
    for ids in offers.values():
        for card in ids:
            info = view["cards"][card]
            assert info["name"] in text, card
            assert all(line in text for line in info["lines"]), (card, info["lines"])


def test_once_a_destiny_is_complete_the_others_are_told_it_is_their_last_turn(app: Flask) -> None:
    table = adventure_table(app, ["ann", "bob"], {"first_game": True, "first_player": "ann"}, seed=1)
    state = state_of(table)
    with app.app_context():
        session = db.get_session()
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        ann = table.seat(0)
        assert compose.turn_subject(game, state, ann).endswith("· Your turn")
        state.final = 1  # bob completed his Destiny; ann plays her last turn
        subject = compose.turn_subject(game, state, ann)
        assert subject.endswith("· Your last turn"), subject
        intro = compose.partial(game.game, "turn_intro.txt").render(
            game=game, seat=ann, view=RULES.player_view(state, "ann"), decision=None
        )
        assert intro.strip().startswith("This is your last turn in "), intro
        assert intro.strip().endswith("bob completed their Destiny."), intro
