"""The seed check: a seat's page compares the revealed seed with the commitment its invitation said, offers the
record; a plain form compares any seed with any commitment; the game-over email links to the page."""

from __future__ import annotations

import hashlib
import json
import re

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update
from sqlmodel import select

from engine import call_to_glory as glory
from engine.call_to_glory import Options
from pbem import db, flows
from pbem.core import games, links
from pbem.core import seats as seat_rows
from pbem.models import Game, OutboxEmail
from tests.apps import Table, new_table
from tests.mail.conftest import deliver

SEED = 987654321
COMMITMENT = hashlib.sha256(str(SEED).encode()).hexdigest()


def words(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html.replace("<wbr>", "")).split())


def finished_table(app: Flask) -> Table:
    """ann against a bot, one round, played to the end through the service."""
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("Bot", kind="heuristic")]
    table = new_table(app, specs, seed=SEED, options=Options(rounds=1))
    while not table.state().is_finished:
        state = table.state()
        move = games.move_body(games.bot_move(glory.GAME, state, state.current_player or ""))
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=0, move=move, decision=state.ply, source="page"
            )
    return table


def test_a_running_game_keeps_its_seed_until_the_end(app: Flask, client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    response = client.get(f"/play/{token}/check")
    assert response.status_code == 200
    with app.app_context():
        seed = seat_rows.get_game(session=db.get_session(), game_id=table.game_id).seed
    text = words(response.text)
    assert hashlib.sha256(str(seed).encode()).hexdigest() in text
    assert "The game is not over yet: the seed stays secret until the end" in text
    assert "Match" not in text and f"The seed, now that the game is over {seed}" not in text
    assert client.get(f"/play/{token}/record.json").status_code == 409


def test_the_page_of_a_finished_game_says_match_and_offers_the_record(app: Flask, client: FlaskClient) -> None:
    table = finished_table(app)
    token = table.personal(0)
    # the page signs the seat's link afresh (its time stamp may be a second later than ``token``'s)
    linked = re.search(r'href="/play/([^"/]+)/check"', client.get(f"/play/{token}").text)
    assert linked is not None, "the finished page links to it"
    with app.test_request_context():
        assert links.read(linked[1]) == links.read(token)
    response = client.get(f"/play/{token}/check")
    assert response.status_code == 200 and response.headers["Cache-Control"].startswith("no-store")
    text = words(response.text)
    assert f"The commitment from your invitation {COMMITMENT}" in text
    assert f"The seed, now that the game is over {SEED}" in text
    assert f"Its fingerprint, computed now {COMMITMENT}" in text
    assert "Match: the seed's fingerprint is the commitment" in text and "No match" not in text
    assert f"python -m engine replay call-to-glory-{table.game_id}.json" in text
    download = client.get(f"/play/{token}/record.json")
    assert download.status_code == 200 and download.mimetype == "application/json"
    assert download.headers["Content-Disposition"] == f'attachment; filename="call-to-glory-{table.game_id}.json"'
    data = json.loads(download.text)
    _record, replayed = glory.replay(data)
    assert data["seed"] == SEED and glory.to_json(replayed) == glory.to_json(table.state())


def test_a_seed_changed_after_the_invitation_does_not_match(app: Flask, client: FlaskClient) -> None:
    table = finished_table(app)
    with app.app_context(), db.write_session() as session:
        session.execute(update(Game).where(Game.id == table.game_id).values(seed=SEED + 1))  # type: ignore[arg-type]
    text = words(client.get(f"/play/{table.personal(0)}/check").text)
    assert f"The commitment from your invitation {COMMITMENT}" in text
    assert f"The seed, now that the game is over {SEED + 1}" in text
    assert "No match: the seed's fingerprint is not the commitment" in text


def test_a_tampered_or_move_token_is_refused(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    assert client.get(f"/play/{token[:-2]}xx/check").status_code == 400
    assert client.get(f"/play/{token[:-2]}xx/record.json").status_code == 400
    move = table.move_token(0, {"do": "draw", "pile": "draw1"})
    assert client.get(f"/play/{move}/check").status_code == 400


def test_anyone_compares_a_seed_with_a_commitment(client: FlaskClient) -> None:
    assert "Compare" in client.get("/check").text
    match = client.get("/check", query_string={"seed": str(SEED), "commitment": COMMITMENT.upper()})
    assert match.status_code == 200 and "Match: this seed is the one" in words(match.text)
    other = client.get("/check", query_string={"seed": str(SEED + 1), "commitment": COMMITMENT})
    assert other.status_code == 200 and "No match: this seed is not the one" in words(other.text)
    assert f'value="{SEED + 1}"' in other.text, "the form keeps what was pasted"
    bad = client.get("/check", query_string={"seed": "12a", "commitment": COMMITMENT})
    assert bad.status_code == 400 and "A seed is a whole number" in bad.text
    short = client.get("/check", query_string={"seed": "12", "commitment": "abc"})
    assert short.status_code == 400 and "A commitment is 64 characters" in short.text


def test_the_game_over_email_links_to_the_check_page(app: Flask, client: FlaskClient) -> None:
    table = finished_table(app)
    deliver(app)
    with app.app_context():
        [email] = db.get_session().exec(select(OutboxEmail).where(OutboxEmail.kind == "game_over")).all()
    assert "sha256sum" not in email.text_body
    link = re.search(r"http://[^/\s]+(/play/\S+/check)\n", email.text_body)
    assert link and f'href="http://127.0.0.1:5000{link.group(1)}"' in email.html_body
    text = words(client.get(link.group(1)).text)
    assert f"The seed, now that the game is over {SEED}" in text and "Match:" in text
    assert "python -m engine" not in email.text_body + email.html_body, "the check page, not a shell command"
    assert f"call-to-glory-{table.game_id}.json" in email.text_body, "the record attached is named"
