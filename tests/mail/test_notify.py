"""When emails are queued: in the move's own transaction, once per decision, to the people who can get them.

Games are played through the services (as the web views and the scheduler do) on both
databases, and the outbox rows are read after each move: invitations at creation, a turn
email only when the seat to act changes (never within a turn, never for a preference),
score sheets at each round's end, the game-over email at the end; bots, seats without an
address and seats that left get nothing. Also leaving a game, the settings services, the
fresh-link rate limit (with an injected clock) and the organiser's notices.
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from flask import Flask
from sqlmodel import select

from engine import call_to_glory as glory
from engine.call_to_glory import Options
from engine.protocol import Decision
from pbem import db, flows, timing
from pbem.core import errors, games, links
from pbem.core import seats as seat_rows
from pbem.mail import narrative, notify
from pbem.models import AdminAction, Game, OutboxEmail
from tests.apps import Table, new_table
from tests.web.forge import days_ago, rotate_nonce, signed_at, tamper

from .test_compose import check_email, last_id, play, rows, seat_of


def move(app: Flask, table: Table, position: int, body: dict[str, object], source: str = "page") -> None:
    """One move through the service, at the current decision."""
    with app.app_context(), db.write_session() as session:
        flows.play.move(
            session=session,
            game_id=table.game_id,
            seat=position,
            move=body,
            decision=table.state().ply,
            source=source,
        )


def kinds(found: list[OutboxEmail]) -> list[tuple[str, str]]:
    return [(r.kind, r.to_addr) for r in found]


def test_creation_invites_the_people_and_asks_the_first_to_act(app: Flask) -> None:
    specs = [
        games.SeatSpec("Bot 1", kind="heuristic"),
        games.SeatSpec("ann", email="ann@example.com"),
        games.SeatSpec("bob"),
        games.SeatSpec("cy", email="cy@example.com"),
    ]
    table = new_table(app, specs, seed=4)
    state = table.state()
    assert state.current == 1, "the bot played its turn at creation"
    assert kinds(rows(app)) == [
        ("invitation", "ann <ann@example.com>"),
        ("invitation", "cy <cy@example.com>"),
        ("turn", "ann <ann@example.com>"),
    ]
    turn = rows(app, kind="turn")[0]
    assert turn.dedupe_key == f"turn:{table.game_id}:{state.current}:{state.ply}"
    story = turn.text_body.split("WHAT HAPPENED SINCE YOUR LAST TURN\n")[1].split("\n\n")[0]
    assert story.startswith("- Bot 1 drew the top of draw pile")
    check_email(turn.text_body, turn.html_body, "ann", state)


def test_one_turn_email_per_turn_and_none_for_a_preference(app: Flask, table: Table) -> None:
    assert kinds(rows(app))[-1] == ("turn", "ann <ann@example.com>")
    start = last_id(app)
    move(app, table, 0, {"do": "draw", "pile": "draw1"})
    move(app, table, 1, {"do": "preference", "discard_preference": "larger"}, source="page")
    move(app, table, 0, {"do": "draw", "pile": "draw2"})
    assert rows(app, start) == [], "no email within a turn or for a preference"
    state = table.state()
    ann_hand = glory.player_view(state, "ann")["hands"]["ann"]
    move(app, table, 0, {"do": "discard", "type": next(iter(ann_hand)), "pile": "discard1"})
    [turn] = rows(app, start)
    assert (turn.kind, turn.to_addr) == ("turn", "bob <bob@example.com>")
    assert turn.dedupe_key == f"turn:{table.game_id}:{table.state().current}:{table.state().ply}"
    assert "bob chose to send displaced cards to the larger discard pile" not in turn.text_body
    assert "You chose to send displaced cards to the larger discard pile." in turn.text_body
    # The same change reported twice queues nothing more (each decision has one key).
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = seat_rows.seats_of(session=session, game_id=table.game_id)
        outcome = games.MoveOutcome(game, games.load_state(game), seats=seats)
        before = games.Before(outcome.rules, game.state, {"ann": Decision("0", "Draw", "p1.0")})
        notify.after_move(session=session, outcome=outcome, seats=seats, before=before)
    assert len(rows(app, start)) == 1


def test_score_sheets_at_each_round_end_and_the_game_over_email_at_the_end(app: Flask) -> None:
    specs = [
        games.SeatSpec("ann", email="ann@example.com"),
        games.SeatSpec("bob"),
        games.SeatSpec("cy", email="cy@x.org"),
    ]
    table = new_table(app, specs, seed=8, options=Options(rounds=2, ninja_power=True))
    while len(table.state().round_scores) < 1:
        start = last_id(app)
        play(app, table, 1)
    ended = rows(app, start)
    state = table.state()
    assert [r.kind for r in ended[:2]] == ["scores", "scores"]
    assert {r.to_addr for r in ended[:2]} == {"ann <ann@example.com>", "cy <cy@x.org>"}
    starter = state.players[state.start_player]
    if starter == "bob":  # bob has no address: the bots do not play for him, so nobody else is asked
        assert len(ended) == 2
    else:
        assert [r.kind for r in ended[2:]] == ["turn"] and starter in ended[2].to_addr
    while not table.state().is_finished:
        start = last_id(app)
        play(app, table, 1)
    final = rows(app, start)
    assert [r.kind for r in final] == ["scores", "scores", "game_over", "game_over"]
    assert all("Round 2" in r.subject for r in final[:2])
    assert len(rows(app, kind="game_over")) == 2
    assert len(rows(app, kind="scores")) == 4


def test_a_task_reveal_is_asked_by_email_with_one_link_per_card(app: Flask) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob")]
    table = new_table(app, specs, seed=2, options=Options(rounds=1, imperial_tasks=True))
    while table.state().status != "revealing":
        start = last_id(app)
        play(app, table, 1)
    state = table.state()
    [asked] = [r for r in rows(app, start) if r.kind == "turn"]
    me = state.players[state.current]
    assert me in asked.to_addr
    assert asked.subject == "Test game · Round 1 · Reveal a task card"
    tasks = glory.player_view(state, me)["tasks"][me]
    assert len(tasks) == 3
    for deck, type_ in tasks.items():
        label = f"Reveal task card {deck}: {type_.capitalize()} (every player scores"
        assert label in asked.text_body, "the label the page's button shows, and what the reveal scores"
    check_email(asked.text_body, asked.html_body, me, state)


def test_a_ninja_use_gets_its_own_link(app: Flask) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    table = new_table(app, specs, seed=11, options=Options(rounds=1, ninja_power=True))
    found = None
    while found is None and not table.state().is_finished:
        start = last_id(app)
        play(app, table, 1)
        state = table.state()
        ninjas = [m for m in glory.legal_moves(state) if m.do == "ninja"]
        turn = [r for r in rows(app, start) if r.kind == "turn"]
        if ninjas and turn:
            found = (turn[0], ninjas)
    assert found is not None, "with this seed a player can use a Ninja at the start of a turn"
    row, ninjas = found
    for m in ninjas:
        label = f"Remove {'an' if m.type in ('emperor', 'empress', 'envoy') else 'a'} "
        assert f"{label}{(m.type or '').capitalize()} from {m.target}'s set (" in row.text_body
        assert "; the card goes to discard pile" in row.text_body


def test_nobody_without_a_reachable_address_gets_email(app: Flask, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=table.game_id)
        seats = seat_rows.seats_of(session=session, game_id=table.game_id)
        state = games.load_state(game)
        ann = seats[0]
        assert notify.reachable(ann)
        for change in ({"email": None}, {"kind": "heuristic"}, {"left_at": timing.now()}):
            saved = {k: getattr(ann, k) for k in change}
            for key, value in change.items():
                setattr(ann, key, value)
            assert not notify.reachable(ann)
            assert notify.queue_turn_email(session=session, game=game, seats=seats, seat=ann, state=state) is None
            assert notify.queue_invitation(session=session, game=game, seats=seats, seat=ann) is None
            for key, value in saved.items():
                setattr(ann, key, value)
        session.rollback()


def test_leaving_hands_the_seat_to_the_bot_which_finishes_the_turn(app: Flask) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    table = new_table(app, specs, seed=1, organiser_email="org@example.com", options=Options(rounds=1))
    old_personal = table.personal(0)
    move(app, table, 0, {"do": "draw", "pile": "draw1"})
    start = last_id(app)
    with app.app_context(), db.write_session() as session:
        outcome = flows.play.leave(session=session, game_id=table.game_id, seat=0)
        assert [r.source for r in outcome.logged] == ["bot", "bot"], "the bot drew once more and ended the turn"
    ann = table.seat(0)
    assert ann.kind == "heuristic" and ann.left_at is not None
    assert table.verify()
    state = table.state()
    assert state.current == 1
    notice, turn = rows(app, start)
    assert (notice.kind, notice.to_addr, notice.subject) == (
        "organiser",
        "org@example.com",
        "Test game · ann left the game",
    )
    assert "The heuristic bot plays their seat from now on" in notice.text_body
    assert (turn.kind, turn.to_addr) == ("turn", "bob <bob@example.com>")
    story = turn.text_body.split("WHAT HAPPENED SINCE YOUR LAST TURN\n")[1].split("\n\n")[0].splitlines()
    assert story[0].startswith("- ann drew the top of draw pile 1")
    assert story[1] == "- ann left the game; a bot plays for them from now on."
    assert story[2].startswith("- ann drew the top of draw pile 2,")
    with app.test_request_context(), pytest.raises(errors.LinkRevoked):
        seat_rows.of_link(session=db.get_session(), link=links.read(old_personal))
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="only a person"):
        flows.play.leave(session=session, game_id=table.game_id, seat=0)
    start = last_id(app)
    play(app, table)
    assert all(r.seat_id != ann.id for r in rows(app, start)), "no email to a seat that left"
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="game is over"):
        flows.play.leave(session=session, game_id=table.game_id, seat=1)


def test_a_player_leaving_out_of_turn_changes_no_turn(app: Flask, table: Table) -> None:
    start = last_id(app)
    version = table.version()
    with app.app_context(), db.write_session() as session:
        outcome = flows.play.leave(session=session, game_id=table.game_id, seat=2)
        assert outcome.logged == []
    assert table.state().current == 0 and table.version() == version + 1
    assert rows(app, start) == [], "no organiser address, and nobody's turn changed"


def test_organiser_actions_reach_the_players_next_email(app: Flask, table: Table) -> None:
    with app.app_context(), db.write_session() as session:
        session.add(
            AdminAction(
                game_id=table.game_id,
                admin_name="org",
                action="pause",
                detail="paused",
                notice="The organiser paused the game.",
            )
        )
        session.add(AdminAction(game_id=table.game_id, admin_name="org", action="x", detail="only in the log"))
        session.add(
            AdminAction(
                game_id=table.game_id,
                admin_name="org",
                action="change_email",
                detail="d",
                seat=2,
                notice="Only cy hears this.",
            )
        )
    start = last_id(app)
    play(app, table, 3)
    [turn] = rows(app, start)
    assert "bob" in turn.to_addr
    assert "- The organiser paused the game.\n" in turn.text_body
    assert "only in the log" not in turn.text_body and "Only cy hears this." not in turn.text_body
    start = last_id(app)
    play(app, table, 3)
    [turn] = rows(app, start)
    assert "cy" in turn.to_addr
    assert "- Only cy hears this.\n" in turn.text_body and "- The organiser paused the game.\n" in turn.text_body


def test_settings_services(app: Flask, table: Table) -> None:
    with app.test_request_context():
        token = links.settings_token(table.game_id, 1, table.seat(1).nonce)
        personal = table.personal(1)
    with app.test_request_context(), db.write_session() as session:
        seat = seat_rows.of_link(session=session, link=links.read_settings(token)).seat
        assert seat_rows.set_reminders(session=session, seat=seat, on=False).reminders is False
    assert table.seat(1).reminders is False
    with app.test_request_context():
        with pytest.raises(errors.LinkInvalid):
            links.read_settings(personal)  # another purpose's token
        with pytest.raises(errors.LinkInvalid):
            links.read_settings(tamper(token))
    rotate_nonce(app, table.game_id, 1)
    with app.test_request_context(), db.write_session() as session, pytest.raises(errors.LinkRevoked):
        seat_rows.of_link(session=session, link=links.read_settings(token))


def test_fresh_links_go_to_the_address_on_file_at_most_once_in_ten_minutes_and_five_times_a_day(
    app: Flask, table: Table
) -> None:
    with app.test_request_context(), signed_at(days_ago(app.config["PERSONAL_LINK_DAYS"] + 30)):
        expired = table.personal(1)
    with app.test_request_context(), pytest.raises(errors.LinkExpired):
        links.read(expired)
    now = timing.now()

    def ask(at: timedelta) -> bool:
        with app.test_request_context(), db.write_session() as session:
            try:
                return flows.links.fresh_link(session=session, token=expired, now=now + at) is not None
            except errors.TooMany:
                return False

    asked = [timedelta(minutes=m) for m in (0, 5, 11, 22, 33, 44, 55, 24 * 60 + 1)]
    assert [ask(at) for at in asked] == [True, False, True, True, True, True, False, True]
    sent = rows(app, kind="fresh_link")
    assert len(sent) == 6 and {r.to_addr for r in sent} == {"bob <bob@example.com>"}
    [personal] = re.findall(r"http://127\.0\.0\.1:5000/play/([\w.-]+)\s", sent[0].text_body)
    with app.test_request_context():
        link = links.read(personal)
    assert (link.purpose, link.game_id, link.seat) == (links.PERSONAL, table.game_id, 1)
    assert link.nonce_tag == links.nonce_tag(table.seat(1).nonce), "the seat's current link, freshly signed"
    assert sent[0].subject == "Test game · Your fresh link"


def test_a_fresh_link_needs_a_genuine_current_token(app: Flask) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob")]
    table = new_table(app, specs)
    with app.test_request_context():
        bob = table.personal(1)
        move_token = table.move_token(0, {"do": "draw", "pile": "draw1"})
        ann = table.personal(0)
    with app.test_request_context(), db.write_session() as session:
        assert flows.links.fresh_link(session=session, token=bob) is None, "bob has no address: nothing is sent"
        assert flows.links.fresh_link(session=session, token=move_token) is not None, "a move link works too"
        with pytest.raises(errors.LinkInvalid):
            flows.links.fresh_link(session=session, token=tamper(ann))
        with pytest.raises(errors.LinkInvalid):
            flows.links.fresh_link(session=session, token="not-a-token")
    rotate_nonce(app, table.game_id, 0)
    with app.test_request_context(), db.write_session() as session, pytest.raises(errors.LinkInvalid):
        flows.links.fresh_link(session=session, token=ann, now=timing.now() + timedelta(days=2))
    assert len(rows(app, kind="fresh_link")) == 1
    assert seat_of(app, rows(app, kind="fresh_link")[0].seat_id).name == "ann"


def test_fresh_links_asked_at_once_are_sent_once(app: Flask, table: Table) -> None:
    with app.test_request_context():
        token = table.personal(2)
    barrier = threading.Barrier(6)

    def ask() -> str:
        with app.test_request_context():
            barrier.wait()
            try:
                with db.write_session() as session:
                    flows.links.fresh_link(session=session, token=token)
            except errors.TooMany:
                return "limited"
            return "sent"

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: ask(), range(6)))
    assert sorted(results) == ["limited"] * 5 + ["sent"]
    assert len(rows(app, kind="fresh_link")) == 1


def test_a_long_story_is_cut_with_a_pointer_to_the_log(
    app: Flask, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(narrative, "STORY_MOVES", 4)
    start = last_id(app)
    play(app, table, 6, source="timeout")  # ann's and bob's turns, played by the bot at their deadlines
    [turn] = [r for r in rows(app, start) if "cy" in r.to_addr]
    story = turn.text_body.split("WHAT HAPPENED SINCE YOUR LAST TURN\n")[1].split("\n\n")[0].splitlines()
    assert story[0] == "- Earlier moves are in the log on your page."
    assert story[1].startswith("- Time ran out: a bot played for ann. It discarded") or story[1].startswith(
        "- Time ran out: a bot played for ann. It laid"
    )
    assert story[2].startswith("- Time ran out: a bot played for bob. It drew the top of draw pile")
    assert len(story) == 3


def test_create_game_from_the_command_line_with_an_organiser(app: Flask) -> None:
    runner = app.test_cli_runner()
    args = ["create-game", "--name", "Club night", "--player", "Ann <ann@example.com>", "--player", "bot:heuristic"]
    refused = runner.invoke(args=[*args, "--organiser", "org@example.com\r\nBcc: x@example.com"])
    assert refused.exit_code != 0 and "line breaks" in refused.output and "Traceback" not in refused.output
    assert rows(app) == []
    result = runner.invoke(args=[*args, "--organiser", "org@example.com"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        [game] = db.get_session().exec(select(Game)).all()
        assert game.organiser_email == "org@example.com"
    assert [(r.kind, r.to_addr) for r in rows(app)][:1] == [("invitation", "Ann <ann@example.com>")]
