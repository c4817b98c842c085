"""The admin services on SQLite and PostgreSQL: accounts, new games, the list, the game view, every repair."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text, update
from sqlmodel import col

from engine import call_to_glory as glory
from engine.call_to_glory.game import parse_task_table, task_table_text
from pbem import admin, db, flows
from pbem.core import audit, errors, games
from pbem.core import seats as seat_rows
from pbem.models import AdminUser, Game, OutboxEmail, Wait
from tests.apps import Table
from tests.mail.conftest import deliver

from .conftest import PASSWORD, actions_of, count, create_table, outbox_rows


def run(app: Flask, service: Callable[..., Any], **kw: Any) -> Any:
    """Call a service in one write transaction, as the views do."""
    with app.app_context(), db.write_session() as session:
        session.expire_on_commit = False  # the test reads what the service returned after the commit
        return service(session=session, **kw)


def read(app: Flask, service: Callable[..., Any], **kw: Any) -> Any:
    """Call a read-only service on the request's session."""
    with app.app_context():
        return service(session=db.get_session(), **kw)


def game_row(app: Flask, game_id: int) -> Game:
    with app.app_context():
        return seat_rows.get_game(session=db.get_session(), game_id=game_id)


def set_game(app: Flask, game_id: int, **values: Any) -> None:
    """Change game columns directly (an arranged situation: an old deadline, a tampered snapshot …)."""
    with app.app_context(), db.write_session() as session:
        session.execute(update(Game).where(col(Game.id) == game_id).values(**values))


def human_move(app: Flask, table: Table, seat: int, source: str = "page") -> games.MoveOutcome:
    """The first legal move of ``seat``, as a player's page would post it."""
    state = table.state()
    move = {k: v for k, v in glory.legal_moves(state)[0].to_json().items() if k != "player"}
    return run(app, flows.play.move, game_id=table.game_id, seat=seat, move=move, decision=state.ply, source=source)


# Accounts -----------------------------------------------------------------------------------------


def test_an_admin_logs_in_with_the_right_password_only(app: Flask, organiser: admin.Actor) -> None:
    user = run(app, admin.authenticate, username="ORG", password=PASSWORD)
    assert user is not None and user.username == "org"
    assert user.password_hash.startswith("scrypt:")
    assert user.last_login_at is not None
    assert run(app, admin.authenticate, username="org", password=PASSWORD + "x") is None
    assert run(app, admin.authenticate, username="nobody", password=PASSWORD) is None
    assert run(app, admin.authenticate, username=None, password=PASSWORD) is None
    assert run(app, admin.authenticate, username="org", password="x" * 5000) is None


BAD_ACCOUNTS = [
    ("a b", PASSWORD, "login name"),
    ("", PASSWORD, "login name"),
    ("x" * 65, PASSWORD, "login name"),
    ("ann\n", PASSWORD, "login name"),
    ("<b>ann</b>", PASSWORD, "login name"),
    ("ann", "short", "at least 10"),
    ("ann", "aaaaaaaaaaaaaaa", "too simple"),
    ("ann", "x" * 2000, "at most"),
]


def test_bad_accounts_are_refused(app: Flask) -> None:
    for username, password, words in BAD_ACCOUNTS:
        with pytest.raises(errors.ServiceError, match=words):
            run(app, admin.create_admin, username=username, password=password)
    assert count(app, AdminUser) == 0


def test_an_account_is_made_once_and_a_reset_ends_its_sessions(app: Flask, organiser: admin.Actor) -> None:
    with pytest.raises(errors.ServiceError, match="already an admin"):
        run(app, admin.create_admin, username="Org", password="another secret 1")
    with pytest.raises(errors.ServiceError, match="no admin"):
        run(app, admin.create_admin, username="nobody", password="another secret 1", reset=True)
    with pytest.raises(errors.ServiceError, match="email"):
        run(app, admin.create_admin, username="ann", password=PASSWORD, email="ann@example.com\r\nBcc: x@evil.example")
    with pytest.raises(errors.ServiceError, match="time zone"):
        run(app, admin.create_admin, username="ann", password=PASSWORD, timezone="Mars/Olympus")
    with app.app_context(), db.write_session() as session:
        before = admin.start_session(session=session, user=session.get(AdminUser, organiser.id))
        second = admin.start_session(session=session, user=session.get(AdminUser, organiser.id))
    with app.app_context():
        assert admin.admin_for_session(session=db.get_session(), value=before) is not None
        assert (
            admin.admin_for_session(session=db.get_session(), value=f"{organiser.id + 1}.{before.split('.')[1]}")
            is None
        )
        other = before[:-1] + ("1" if before.endswith("0") else "0")
        assert admin.admin_for_session(session=db.get_session(), value=other) is None
        assert admin.admin_for_session(session=db.get_session(), value="x.y") is None
        assert admin.admin_for_session(session=db.get_session(), value="99999.abc") is None
    run(app, admin.create_admin, username="org", password="another secret 1", reset=True)
    with app.app_context():
        assert admin.admin_for_session(session=db.get_session(), value=before) is None
        assert admin.admin_for_session(session=db.get_session(), value=second) is None, "a reset ends every session"
    assert run(app, admin.authenticate, username="org", password="another secret 1") is not None
    assert run(app, admin.authenticate, username="org", password=PASSWORD) is None


# New games ----------------------------------------------------------------------------------------


def _new(**kw: Any) -> admin.NewGame:
    seats = kw.pop(
        "seats",
        [
            admin.SeatInput("human", "ann", "ann@example.com", "en", "UTC"),
            admin.SeatInput("human", "bob", "bob@example.com", "fr", "Europe/Paris"),
            admin.SeatInput("heuristic"),
            admin.SeatInput("none"),
        ],
    )
    options = {_OPTION.get(k, k): _option(k, kw.pop(k)) for k in list(kw) if k in _OPTION or k in _GLORY_OPTIONS}
    return admin.NewGame(name=kw.pop("name", "Game"), seats=seats, options=options, **kw)


_GLORY_OPTIONS = ("rounds", "imperial_tasks", "ninja_power", "task_decks", "first_player")
_OPTION = {"first_seat": "first_player", "task_table": "task_decks"}
"""The form's old names of two options: the first seat by its row, the task-card table as text."""


def _option(key: str, value: Any) -> Any:
    return str(value) if key == "first_seat" else value


def _seat(i: int, **kw: Any) -> Callable[[admin.NewGame], None]:
    def change(new: admin.NewGame) -> None:
        for key, value in kw.items():
            setattr(new.seats[i], key, value)

    return change


def _set(**kw: Any) -> Callable[[admin.NewGame], None]:
    def change(new: admin.NewGame) -> None:
        for key, value in kw.items():
            if key in _OPTION or key in _GLORY_OPTIONS:
                new.options[_OPTION.get(key, key)] = _option(key, value)
            else:
                setattr(new, key, value)

    return change


def _tasks(table: str) -> Callable[[admin.NewGame], None]:
    return _set(imperial_tasks=True, task_table=table)


HOSTILE: list[tuple[str, Callable[[admin.NewGame], None], str, str]] = [
    ("name with a line break", _set(name="Friday\r\nBcc: x@evil.example"), "name", "line breaks"),
    ("name too long", _set(name="x" * 81), "name", "at most 80"),
    ("empty name", _set(name="   "), "name", "must not be empty"),
    ("seat name with NUL", _seat(0, name="an\x00n"), "seats-0-name", "control characters"),
    ("seat name too long", _seat(0, name="a" * 41), "seats-0-name", "at most 40"),
    ("header injection in an email", _seat(0, email="ann@example.com\r\nBcc: x@evil.example"), "seats-0-email", "line"),
    ("not an email", _seat(1, email="bob at example"), "seats-1-email", "not an email address"),
    ("no email for a person", _seat(1, email=""), "seats-1-email", "needs an email address"),
    ("path as a time zone", _seat(0, timezone="../../etc/passwd"), "seats-0-timezone", "not known"),
    ("unknown time zone", _seat(1, timezone="Mars/Olympus"), "seats-1-timezone", "not known"),
    ("script as a language", _seat(0, language="<script>"), "seats-0-language", "language"),
    ("unknown seat kind", _seat(2, kind="god"), "seats-2-kind", "bots"),
    ("same name twice", _seat(1, name="ann"), "seats-1-name", "names must differ"),
    ("a name in an empty seat", _seat(3, name="dan"), "seats-3-kind", "choose a person or a bot"),
    ("one player", lambda n: [setattr(n.seats[i], "kind", "none") for i in (1, 2)], "seats", "2 to 4 players"),
    ("first player is an empty seat", _set(first_seat=3), "first_player", "filled-in seats"),
    ("first player out of range", _set(first_seat=7), "first_player", "filled-in seats"),
    ("four rounds with tasks", _set(rounds=4, imperial_tasks=True), "rounds", "1 to 3 rounds"),
    ("no rounds", _set(rounds=0), "rounds", "1 to 4"),
    ("task table: unknown card", _tasks("A: Emperor, Empress, Daimyo, Dragon"), "task_decks", "not a card type"),
    ("task table: three cards", _tasks("A: Emperor, Empress, Daimyo\nB: x\nC: y"), "task_decks", "4 card types"),
    ("task table: deck missing", _tasks("A: Emperor, Empress, Daimyo, Shogun"), "task_decks", "no line for deck"),
    ("task table: bad deck", _tasks("D: Emperor, Empress, Daimyo, Shogun"), "task_decks", "A:, B: or C:"),
    ("organiser email", _set(organiser_email="org@\r\nexample.com"), "organiser_email", "line breaks"),
    ("deadline of 0 hours", _set(policy={"deadline_hours": 0}), "deadline_hours", "whole number"),
    ("unknown timeout", _set(policy={"timeout": "explode"}), "timeout", "timeout policy"),
    ("too many reminders", _set(policy={"max_reminders": 99}), "max_reminders", "whole number"),
    ("not a number", _set(policy={"first_reminder_hours": None}), "first_reminder_hours", "whole number"),
]  # fmt: skip


def test_the_new_game_form_refuses_bad_input_field_by_field(app: Flask, organiser: admin.Actor) -> None:
    for label, change, key, words in HOSTILE:
        new = _new()
        change(new)
        with pytest.raises(errors.InputErrors) as caught:
            run(app, admin.create_game_from_form, actor=organiser, new=new)
        assert key in caught.value.errors, (label, caught.value.errors)
        assert words in caught.value.errors[key], (label, caught.value.errors)
    assert count(app, Game) == 0, "nothing is stored"
    assert count(app, OutboxEmail) == 0, "no invitation is queued"


def test_a_new_game_has_its_options_policy_and_invitations(app: Flask, organiser: admin.Actor) -> None:
    table = "A: Farmer, Monk, Envoy, Ninja\nb: samurai, shogun, daimyo, empress\nC: Emperor, Farmer, Monk, Envoy"
    new = _new(
        rounds=2,
        imperial_tasks=True,
        ninja_power=True,
        task_table=table,
        first_seat=1,
        organiser_email="club@example.com",
        policy={"deadline_hours": None, "timeout": "pause", "max_reminders": 1},
    )
    game = run(app, admin.create_game_from_form, actor=organiser, new=new, seed=5)
    stored = game_row(app, game.id)
    assert stored.options == {
        "rounds": 2,
        "imperial_tasks": True,
        "ninja_power": True,
        "first_player": "bob",
        "task_decks": {
            "A": ["farmer", "monk", "envoy", "ninja"],
            "B": ["samurai", "shogun", "daimyo", "empress"],
            "C": ["emperor", "farmer", "monk", "envoy"],
        },
    }
    assert stored.organiser_email == "club@example.com"
    assert stored.policy is not None and stored.policy["timeout"] == "pause" and stored.policy["deadline_hours"] is None
    assert stored.deadline_at is None
    state = games.load_state(stored)
    assert state.current_player == "bob"
    invitations = outbox_rows(app, game.id, "invitation")
    assert sorted(r.to_addr.split("<")[-1].rstrip(">") for r in invitations) == ["ann@example.com", "bob@example.com"]
    assert [(a.action, a.admin_name) for a in actions_of(app, game.id)] == [("create", "org")]


def test_the_default_task_table_is_not_stored_and_random_order_keeps_the_first_player(
    app: Flask, organiser: admin.Actor
) -> None:
    new = _new(imperial_tasks=True, task_table=task_table_text(), random_order=True, first_seat=2)
    game = run(app, admin.create_game_from_form, actor=organiser, new=new)
    stored = game_row(app, game.id)
    assert "task_decks" not in stored.options
    assert stored.options["first_player"] == "Bot 1"
    assert stored.options["rounds"] == 3


# The list and the game view ------------------------------------------------------------------------


def _all_bots(app: Flask, actor: admin.Actor, name: str) -> int:
    seats = [admin.SeatInput("heuristic"), admin.SeatInput("random")]
    return create_table(app, actor, name=name, seats=seats, rounds=1).game_id


def test_the_list_filters_counts_and_pages(app: Flask, organiser: admin.Actor) -> None:
    plain = create_table(app, organiser, name="plain").game_id
    finished = _all_bots(app, organiser, "bots only")
    paused = create_table(app, organiser, name="paused").game_id
    run(app, admin.pause_game, game_id=paused, actor=organiser)
    aborted = create_table(app, organiser, name="aborted").game_id
    run(app, admin.abort_game, game_id=aborted, actor=organiser)
    late = create_table(app, organiser, name="late").game_id
    set_game(app, late, deadline_at=datetime.now(UTC) - timedelta(hours=1))
    bounced = create_table(app, organiser, name="bounced").game_id
    with app.app_context(), db.write_session() as session:
        session.execute(
            update(OutboxEmail).where(col(OutboxEmail.game_id) == bounced, col(OutboxEmail.kind) == "invitation")
            .values(status="dead", last_error="550 no such user")
        )  # fmt: skip
        session.execute(update(OutboxEmail).where(col(OutboxEmail.game_id) == plain).values(status="sent"))
    now = datetime.now(UTC)

    everything = read(app, admin.list_games, now=now)
    assert everything.total == 6
    assert [r.id for r in everything.rows] == [bounced, late, aborted, paused, finished, plain], "newest first"
    rows = {r.id: r for r in everything.rows}
    assert rows[finished].status == "finished" and rows[finished].turn is None
    assert rows[aborted].status == "aborted" and not rows[aborted].paused and rows[aborted].turn is None
    assert rows[paused].paused and rows[paused].attention(now) == ["paused"]
    assert rows[late].attention(now) == ["deadline passed"]
    assert rows[bounced].dead == 2 and rows[bounced].undelivered == 2, "a queued email is not undelivered"
    assert rows[plain].undelivered == 0 and rows[plain].attention(now) == []
    with app.app_context(), db.write_session() as session:
        retrying = col(OutboxEmail.game_id) == plain, col(OutboxEmail.kind) == "turn"
        session.execute(update(OutboxEmail).where(*retrying).values(status="queued", last_error="421 try later"))
    assert read(app, admin.list_games, now=now).rows[-1].undelivered == 1, "waiting for a retry after a failure"
    assert rows[plain].turn == "ann" and not rows[plain].turn_is_bot
    assert rows[plain].game == "Call to Glory"
    assert rows[plain].waiting_since is not None and rows[plain].deadline_at is not None

    def ids(**kw: Any) -> list[int]:
        return [r.id for r in read(app, admin.list_games, now=now, **kw).rows]

    assert ids(status="finished") == [finished]
    assert ids(status="aborted") == [aborted]
    assert ids(status="playing") == [bounced, late, paused, plain]
    assert ids(attention=True) == [bounced, late, paused]
    assert ids(status="playing", attention=True, per_page=2) == [bounced, late]
    second = read(app, admin.list_games, now=now, attention=True, per_page=2, page=2)
    assert [r.id for r in second.rows] == [paused] and second.pages == 2 and second.total == 3
    assert ids(page=9) == []
    with pytest.raises(errors.ServiceError):
        read(app, admin.list_games, now=now, status="bogus")
    with pytest.raises(errors.ServiceError):
        read(app, admin.list_games, now=now, page=0)


def test_the_game_view_shows_everything(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    human_move(app, adm_table, 0)
    view = read(app, admin.game_view, game_id=adm_table.game_id)
    state = adm_table.state()
    assert view.summary["hands"] == glory.state_summary(state)["hands"], "every hand"
    assert set(view.summary["hands"]) == {"ann", "bob", "Bot 1"}
    assert view.current is not None and view.current.name == "ann"
    assert view.bot_move is not None and view.running and not view.paused
    sources = [(e.kind, e.source) for e in view.log]
    assert sources == [("admin", "admin"), ("move", "page")]
    drawn = state.hands  # the organiser sees the card ann drew face down
    assert "ann drew" in view.log[1].text and "top of" not in view.log[1].text, drawn
    assert {e.kind for e in view.emails} == {"invitation", "turn"}
    with pytest.raises(errors.NotFound):
        read(app, admin.game_view, game_id=999)


# Repairs ------------------------------------------------------------------------------------------


def test_resend_the_turn_email(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    before = len(outbox_rows(app, adm_table.game_id, "turn"))
    message = run(app, admin.resend_turn_email, game_id=adm_table.game_id, actor=organiser)
    assert "ann" in message
    turns = outbox_rows(app, adm_table.game_id, "turn")
    assert len(turns) == before + 1 and "ann@example.com" in turns[-1].to_addr
    assert actions_of(app, adm_table.game_id)[-1].action == "resend_turn"
    run(app, admin.pause_game, game_id=adm_table.game_id, actor=organiser)
    with pytest.raises(errors.NotNow, match="paused"):
        run(app, admin.resend_turn_email, game_id=adm_table.game_id, actor=organiser)


def test_change_email_revokes_old_links_and_invites_the_new_address(
    app: Flask, adm_table: Table, organiser: admin.Actor
) -> None:
    old_personal = adm_table.personal(1)
    old_nonce = adm_table.seat(1).nonce
    invitations = len(outbox_rows(app, adm_table.game_id, "invitation"))
    run(app, admin.change_email, game_id=adm_table.game_id, seat=1, email=" bob@new.example ", actor=organiser)
    seat = adm_table.seat(1)
    assert seat.email == "bob@new.example" and seat.nonce != old_nonce
    new_rows = outbox_rows(app, adm_table.game_id, "invitation")[invitations:]
    assert len(new_rows) == 1 and "bob@new.example" in new_rows[0].to_addr
    client = app.test_client()
    gone = client.get(f"/play/{old_personal}")
    assert gone.status_code == 410 and "no longer valid" in gone.get_data(as_text=True)
    assert client.get(f"/play/{adm_table.personal(1)}").status_code == 200
    last = actions_of(app, adm_table.game_id)[-1]
    assert last.action == "change_email" and last.seat == 1 and "bob@new.example" in last.detail
    assert last.notice is not None and "bob@new.example" not in last.notice, "players are not told the address"
    for bad, words in (("bob@new.example", "already"), ("nope", "not an email"), ("a@b.c\nBcc: x@y.z", "line")):
        with pytest.raises(errors.ServiceError, match=words):
            run(app, admin.change_email, game_id=adm_table.game_id, seat=1, email=bad, actor=organiser)
    with pytest.raises(errors.NotNow, match="bot"):
        run(app, admin.change_email, game_id=adm_table.game_id, seat=2, email="bot@example.com", actor=organiser)
    with pytest.raises(errors.ServiceError, match="no seat"):
        run(app, admin.change_email, game_id=adm_table.game_id, seat=7, email="x@example.com", actor=organiser)
    assert adm_table.seat(1).email == "bob@new.example", "a refused change leaves the seat alone"


def test_the_new_address_of_the_player_to_act_gets_the_turn_email_too(
    app: Flask, adm_table: Table, organiser: admin.Actor
) -> None:
    run(app, admin.change_email, game_id=adm_table.game_id, seat=0, email="ann@new.example", actor=organiser)
    assert "ann@new.example" in outbox_rows(app, adm_table.game_id, "turn")[-1].to_addr


def test_hand_the_seat_to_act_to_a_bot(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    old = adm_table.personal(0)
    message = run(app, admin.hand_seat, game_id=adm_table.game_id, seat=0, kind="heuristic", actor=organiser)
    assert "decision" in message
    seat = adm_table.seat(0)
    assert seat.kind == "heuristic" and seat.left_at is None
    state = adm_table.state()
    assert state.current_player == "bob", "the bot played ann's whole turn at once"
    with app.app_context():
        log = games.move_log(session=db.get_session(), game_id=adm_table.game_id)
    assert [r.source for r in log] == ["bot"] * 3
    assert adm_table.verify()
    assert app.test_client().get(f"/play/{old}").status_code == 410
    with pytest.raises(errors.ServiceError, match="already played by the heuristic bot"):
        run(app, admin.hand_seat, game_id=adm_table.game_id, seat=0, kind="heuristic", actor=organiser)
    notices = read(app, audit.actions_since, game_id=adm_table.game_id, since=datetime.now(UTC) - timedelta(hours=1))
    assert [n.text for n in notices] == ["The organiser handed ann's seat to a bot."]


def test_hand_a_bot_seat_to_a_person(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    run(
        app,
        admin.hand_seat,
        game_id=adm_table.game_id,
        seat=2,
        kind="human",
        email="cy@example.com",
        language="FR",
        timezone="Europe/Berlin",
        actor=organiser,
    )
    seat = adm_table.seat(2)
    assert (seat.kind, seat.email, seat.language, seat.timezone, seat.name) == (
        "human",
        "cy@example.com",
        "fr",
        "Europe/Berlin",
        "Bot 1",
    )
    assert "cy@example.com" in outbox_rows(app, adm_table.game_id, "invitation")[-1].to_addr
    for kw, words in (
        ({"kind": "human", "email": ""}, "needs an email"),
        ({"kind": "human", "email": "d@example.com", "timezone": "Nowhere/Land"}, "time zone"),
        ({"kind": "human", "email": "d@example.com", "language": "english please"}, "language"),
        ({"kind": "wizard"}, "bots"),
    ):
        with pytest.raises(errors.ServiceError, match=words):
            run(app, admin.hand_seat, game_id=adm_table.game_id, seat=1, actor=organiser, **kw)
    assert adm_table.seat(1).email == "bob@example.com"


def test_pause_refuses_moves_and_resume_starts_a_fresh_wait(
    app: Flask, adm_table: Table, organiser: admin.Actor
) -> None:
    old_deadline = game_row(app, adm_table.game_id).deadline_at
    run(app, admin.pause_game, game_id=adm_table.game_id, reason="holidays", actor=organiser)
    game = game_row(app, adm_table.game_id)
    assert game.paused_at is not None and "holidays" in games.pause_words(game)
    assert game.deadline_at is None and game.next_reminder_at is None
    with pytest.raises(errors.Paused):
        human_move(app, adm_table, 0)
    with pytest.raises(errors.NotNow, match="paused"):
        run(app, admin.pause_game, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.resume_game, game_id=adm_table.game_id, actor=organiser)
    with pytest.raises(errors.ServiceError, match="line breaks"):
        run(app, admin.pause_game, game_id=adm_table.game_id, reason="a\nb", actor=organiser)
    later = datetime.now(UTC) + timedelta(days=2)
    run(app, admin.pause_game, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.resume_game, game_id=adm_table.game_id, actor=organiser, now=later)
    game = game_row(app, adm_table.game_id)
    assert game.paused_at is None and game.deadline_at is not None and old_deadline is not None
    assert game.deadline_at.replace(tzinfo=UTC) > old_deadline.replace(tzinfo=UTC) + timedelta(days=1)
    human_move(app, adm_table, 0)
    with pytest.raises(errors.NotNow, match="not paused"):
        run(app, admin.resume_game, game_id=adm_table.game_id, actor=organiser)
    assert [a.action for a in actions_of(app, adm_table.game_id)] == ["create", "pause", "resume", "pause", "resume"]


def test_resume_lets_a_bot_play_at_once(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    run(app, admin.pause_game, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.hand_seat, game_id=adm_table.game_id, seat=0, kind="random", actor=organiser)
    assert adm_table.moves_logged() == 0, "no bot plays while the game is paused"
    run(app, admin.resume_game, game_id=adm_table.game_id, actor=organiser)
    assert adm_table.state().current_player == "bob"
    assert adm_table.verify()


def test_extend_the_deadline(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    before = game_row(app, adm_table.game_id).deadline_at
    assert before is not None
    run(app, admin.extend_deadline, game_id=adm_table.game_id, hours=48, actor=organiser)
    after = game_row(app, adm_table.game_id).deadline_at
    assert after is not None and after - before == timedelta(hours=48)
    assert game_row(app, adm_table.game_id).next_reminder_at is not None
    past = datetime.now(UTC) - timedelta(hours=5)
    set_game(app, adm_table.game_id, deadline_at=past)  # the game's summary of its waits
    with app.app_context(), db.write_session() as session:  # and ann's wait itself
        session.execute(update(Wait).where(col(Wait.game_id) == adm_table.game_id).values(deadline_at=past))
    now = datetime.now(UTC)
    run(app, admin.extend_deadline, game_id=adm_table.game_id, hours=2, actor=organiser, now=now)
    late = game_row(app, adm_table.game_id).deadline_at
    assert late is not None and abs(late.replace(tzinfo=UTC) - (now + timedelta(hours=2))) < timedelta(seconds=1)
    for hours in (0, -3, 10_000):
        with pytest.raises(errors.ServiceError, match="extend by"):
            run(app, admin.extend_deadline, game_id=adm_table.game_id, hours=hours, actor=organiser)
    last = actions_of(app, adm_table.game_id)[-1]
    assert last.action == "extend_deadline" and last.notice == "The organiser gave ann 2 hours more to play."
    no_deadline = create_table(app, organiser, policy={"deadline_hours": None}).game_id
    with pytest.raises(errors.NotNow, match="no deadline"):
        run(app, admin.extend_deadline, game_id=no_deadline, hours=5, actor=organiser)


def test_the_bot_makes_the_open_decision_once(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    decision = adm_table.state().ply
    run(app, admin.pause_game, game_id=adm_table.game_id, actor=organiser)
    message = run(app, admin.bot_decision, game_id=adm_table.game_id, decision=decision, actor=organiser)
    assert message.startswith("The bot decided for ann: Draw")
    with app.app_context():
        log = games.move_log(session=db.get_session(), game_id=adm_table.game_id)
    assert [(r.source, r.seat) for r in log] == [("admin", 0)]
    with pytest.raises(errors.AlreadyPlayed):
        run(app, admin.bot_decision, game_id=adm_table.game_id, decision=decision, actor=organiser)
    assert adm_table.moves_logged() == 1 and adm_table.verify()
    assert game_row(app, adm_table.game_id).paused_at is not None, "the game stays paused"


def test_retry_dead_emails(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    with pytest.raises(errors.NotNow, match="no undeliverable"):
        run(app, admin.retry_dead_emails, game_id=adm_table.game_id, actor=organiser)
    with app.app_context(), db.write_session() as session:
        session.execute(
            update(OutboxEmail)
            .where(col(OutboxEmail.game_id) == adm_table.game_id, col(OutboxEmail.kind) == "invitation")
            .values(status="dead", attempts=8, last_error="550 5.1.1 no such user")
        )
    assert "2 emails are queued again" in run(app, admin.retry_dead_emails, game_id=adm_table.game_id, actor=organiser)
    rows = outbox_rows(app, adm_table.game_id, "invitation")
    assert [(r.status, r.attempts) for r in rows] == [("queued", 0), ("queued", 0)]
    assert actions_of(app, adm_table.game_id)[-1].action == "retry_emails"


def test_abort_stops_the_game_for_good(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    run(app, admin.abort_game, game_id=adm_table.game_id, reason="we moved away", actor=organiser)
    game = game_row(app, adm_table.game_id)
    assert game.aborted_at is not None and game.status == "playing", "status still mirrors the engine"
    assert game.deadline_at is None and game.next_reminder_at is None
    with pytest.raises(errors.Paused):
        human_move(app, adm_table, 0)
    with pytest.raises(errors.Paused, match="stopped"):
        preference = {"do": "preference", "discard_preference": "larger"}
        run(app, flows.play.move, game_id=adm_table.game_id, seat=1, move=preference, decision=None, source="page")
    listed = read(app, admin.list_games, now=datetime.now(UTC), status="aborted")
    assert [r.id for r in listed.rows] == [adm_table.game_id]
    for service, kw in (
        (admin.pause_game, {}),
        (admin.resume_game, {}),
        (admin.abort_game, {}),
        (admin.resend_turn_email, {}),
        (admin.bot_decision, {"decision": adm_table.state().ply}),
        (admin.hand_seat, {"seat": 0, "kind": "random"}),
        (admin.extend_deadline, {"hours": 3}),
    ):
        with pytest.raises(errors.NotNow, match="aborted"):
            run(app, service, game_id=adm_table.game_id, actor=organiser, **kw)
    assert run(app, admin.verify, game_id=adm_table.game_id, actor=organiser)[0]


def test_finished_games_refuse_repairs(app: Flask, organiser: admin.Actor) -> None:
    finished = _all_bots(app, organiser, "done")
    for service in (admin.pause_game, admin.abort_game, admin.resend_turn_email):
        with pytest.raises(errors.NotNow, match="over"):
            run(app, service, game_id=finished, actor=organiser)
    with pytest.raises(errors.NotFound):
        run(app, admin.pause_game, game_id=12345, actor=organiser)


def test_the_export_replays_to_the_stored_state(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    for _ in range(5):
        human_move(app, adm_table, adm_table.state().current)
    export = run(app, admin.export_record, game_id=adm_table.game_id, actor=organiser)
    assert export.filename == f"call-to-glory-{adm_table.game_id}-admin-game.json"
    record = json.loads(export.text)
    assert record["format"] == glory.RECORD_FORMAT and record["players"] == ["ann", "bob", "Bot 1"]
    _, replayed = glory.replay(record)
    assert glory.state_summary(replayed) == glory.state_summary(adm_table.state())
    assert actions_of(app, adm_table.game_id)[-1].action == "export"


def test_verify_finds_a_tampered_snapshot(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    human_move(app, adm_table, 0)
    ok, words = run(app, admin.verify, game_id=adm_table.game_id, actor=organiser)
    assert ok and words == "Replayed 1 moves: the stored state matches."
    state = glory.to_json(adm_table.state())
    state["preferences"]["bob"] = "pile2"
    set_game(app, adm_table.game_id, state=state)
    ok, words = run(app, admin.verify, game_id=adm_table.game_id, actor=organiser)
    assert not ok and "DIFFERS" in words
    with app.app_context(), db.write_session() as session:
        session.execute(
            text("UPDATE move SET move = :m WHERE game_id = :g"),
            {"m": json.dumps({"player": "ann", "do": "lay", "type": "farmer", "count": 9}), "g": adm_table.game_id},
        )
    ok, words = run(app, admin.verify, game_id=adm_table.game_id, actor=organiser)
    assert not ok and "does not replay" in words
    assert [a.detail.split(":")[0] for a in actions_of(app, adm_table.game_id)[-3:]] == ["verified the game"] * 3


def test_actions_since_tells_players_in_plain_words(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    start = datetime.now(UTC) - timedelta(seconds=1)
    run(app, admin.pause_game, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.export_record, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.resume_game, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.extend_deadline, game_id=adm_table.game_id, hours=12, actor=organiser)
    run(app, admin.change_email, game_id=adm_table.game_id, seat=1, email="b@example.org", actor=organiser)
    notices = read(app, audit.actions_since, game_id=adm_table.game_id, since=start)
    assert [(n.action, n.seat, n.text) for n in notices] == [
        ("pause", None, "The organiser paused the game."),
        ("resume", None, "The organiser resumed the game."),
        ("extend_deadline", None, "The organiser gave ann 12 hours more to play."),
        ("change_email", 1, "The organiser changed bob's email address."),
    ]
    assert all(n.at.tzinfo is not None for n in notices)
    assert read(app, audit.actions_since, game_id=adm_table.game_id, since=notices[-1].at) == []
    naive = (notices[1].at - timedelta(microseconds=1)).replace(tzinfo=None)
    assert read(app, audit.actions_since, game_id=adm_table.game_id, since=naive)[0].action == "resume"


def test_task_table_text_round_trips() -> None:
    assert parse_task_table(task_table_text()) == {
        deck: list(cards) for deck, cards in glory.cards.DEFAULT_TASK_TABLE.items()
    }


def test_players_hear_about_it_in_their_next_email(app: Flask, adm_table: Table, organiser: admin.Actor) -> None:
    run(app, admin.pause_game, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.resume_game, game_id=adm_table.game_id, actor=organiser)
    run(app, admin.change_email, game_id=adm_table.game_id, seat=0, email="ann@new.example", actor=organiser)
    while adm_table.state().current_player == "ann":
        human_move(app, adm_table, 0)
    deliver(app)  # the sender renders it
    email = outbox_rows(app, adm_table.game_id, "turn")[-1]
    assert "bob@example.com" in email.to_addr
    text = " ".join(email.text_body.split())
    assert "The organiser paused the game." in text and "The organiser resumed the game." in text
    assert "changed ann's email" not in text, "an address change is told to that player only"
