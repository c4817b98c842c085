"""What the emails say, checked on the outbox rows that moves write (both databases).

Every kind renders a complete text part and an HTML part; names with accents, emoji and
right-to-left text survive into subjects, bodies and recipients; subjects name the game,
the round and what is asked; every email to a seat threads under its invitation and
carries RFC 8058 unsubscribe headers; hostile names are refused at input. ``check_email``
(also used by the end-to-end test) proves that an email shows no hand but the recipient's:
every card drawn in the HTML part is the recipient's hand, a set on the table or the top of
a discard pile, and no sentence names a card someone else drew face down.
``test_the_email_check_catches_leaks`` shows the check fails on an email that leaks.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from flask import Flask
from markupsafe import escape
from sqlalchemy import func
from sqlmodel import col, select

from engine import call_to_glory as glory
from engine.call_to_glory import Options
from engine.call_to_glory.words import LogEntry, narrative
from pbem import db, flows, i18n
from pbem.core import errors, games, links
from pbem.core import seats as seat_rows
from pbem.mail import compose, notify
from pbem.models import OutboxEmail, Seat
from tests.apps import Table, new_table

from .conftest import deliver

ZOE, BOB, SARA = "Zoë Ærø", "Bob 🎲 <b>&", "שרה"
VOID = {"br", "img", "meta", "input", "hr", "link", "col", "area", "base", "wbr", "source"}
STORY_LINE = re.compile(r"^- (.*)$", re.MULTILINE)
FACE_DOWN = re.compile(r"\ban? [A-Z][a-z]+ from draw pile")
VALUES = dict(zip(glory.TYPES, glory.VALUES, strict=True))


def card_list(cards: list[dict[str, Any]], empty: str = "no cards") -> str:
    """'Farmer (20) ×3, Monk (18)': cards as a Call to Glory text part lists them."""
    shown = []
    for c in cards:
        count = f" ×{c['count']}" if c["count"] > 1 else ""
        shown.append(f"{c['type'].capitalize()} ({c['value']}){count}")
    return ", ".join(shown) or empty


# --- reading an email ----------------------------------------------------------------------------------------


class CardCells(HTMLParser):
    """The card cells of an HTML part (``data-card``/``data-count``) by enclosing ``data-cards`` section,
    and every ``data-hand`` owner."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None]] = []
        self.sections: dict[str, Counter[str]] = {}
        self.hands: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        section = found.get("data-cards") or (self.stack[-1][1] if self.stack else None)
        if found.get("data-hand") is not None:
            self.hands.append(found["data-hand"] or "")
        if found.get("data-cards"):
            self.sections.setdefault(found["data-cards"] or "", Counter())
        if found.get("data-card"):
            where = section or "(outside any section)"
            self.sections.setdefault(where, Counter())[found["data-card"] or ""] += int(found.get("data-count") or 1)
        if tag not in VOID:
            self.stack.append((tag, section))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


def card_sections(html: str) -> CardCells:
    """Parse the card cells of an HTML part."""
    parser = CardCells()
    parser.feed(html)
    return parser


def check_email(text: str, html: str, viewer: str, state: glory.State) -> None:
    """The email shows ``viewer`` nothing they may not see in ``state`` (R11): no hand but their own."""
    view = glory.player_view(state, viewer)
    cells = card_sections(html)
    assert cells.hands in ([], [viewer]), f"hand sections {cells.hands} in an email to {viewer}"
    for section, cards in cells.sections.items():
        if section == "hand":
            assert cells.hands == [viewer]
            assert cards == Counter(view["hands"][viewer]), f"{viewer}'s email shows the hand {cards}"
        elif section.startswith("table:"):
            assert cards == Counter(view["tables"][section[6:]]), f"{section} shows {cards}"
        elif section in ("discard1", "discard2"):
            pile = view["discard_piles"][int(section[-1]) - 1]
            assert cards == (Counter({pile[-1]: 1}) if pile else Counter()), f"{section} shows {cards}"
        else:
            raise AssertionError(f"cards in an unknown place of {viewer}'s email: {section} {cards}")
    if "YOUR HAND\n" in text:
        shown = text.split("YOUR HAND\n", 1)[1].split("\n", 1)[0]
        own = [{"type": t, "count": n, "value": VALUES[t]} for t, n in view["hands"][viewer].items()]
        assert shown == card_list(own), f"{viewer}'s text part shows the hand {shown!r}"
    for line in STORY_LINE.findall(text):
        if FACE_DOWN.search(line):
            assert line.startswith(
                ("You ", "Time ran out: a bot played for you.", "The organiser had a bot play for you.")
            ), f"{viewer}'s email names a card someone else drew face down: {line}"


# --- helpers --------------------------------------------------------------------------------------------------


def rows(app: Flask, after: int = 0, **where: Any) -> list[OutboxEmail]:
    """Outbox rows with an id above ``after`` (matching ``where``), oldest first, once what was due was sent
    (emails about the game are rendered by the sender)."""
    deliver(app)
    with app.app_context():
        query = select(OutboxEmail).where(col(OutboxEmail.id) > after).order_by(col(OutboxEmail.id))
        for name, value in where.items():
            query = query.where(getattr(OutboxEmail, name) == value)
        return list(db.get_session().exec(query))


def last_id(app: Flask) -> int:
    """The newest outbox row's id (0 for none)."""
    with app.app_context():
        return db.get_session().exec(select(func.max(OutboxEmail.id))).one() or 0


def seat_of(app: Flask, seat_id: int | None) -> Seat:
    with app.app_context():
        seat = db.get_session().get(Seat, seat_id)
        assert seat is not None
        return seat


def play(app: Flask, table: Table, moves: int | None = None, source: str = "page") -> list[OutboxEmail]:
    """Let the heuristic bot make ``moves`` moves (or finish the game) through the service; check every email
    queued on the way against the state it was queued in. Returns those emails."""
    queued: list[OutboxEmail] = []
    done = 0
    while moves is None or done < moves:
        state = table.state()
        if state.is_finished:
            break
        move = glory.HeuristicBot().choose(state).to_json()
        del move["player"]
        deliver(app)  # the sender runs between moves
        start = last_id(app)
        with app.app_context(), db.write_session() as session:
            flows.play.move(
                session=session, game_id=table.game_id, seat=state.current, move=move, decision=state.ply, source=source
            )
        new = rows(app, start)
        state = table.state()
        for row in new:
            if row.seat_id is not None:
                check_email(row.text_body, row.html_body, seat_of(app, row.seat_id).name, state)
        queued += new
        done += 1
    return queued


@pytest.fixture
def friday(app: Flask) -> Table:
    """A 1-round game of three people with accented, emoji and right-to-left names, and an organiser."""
    specs = [
        games.SeatSpec(ZOE, email="zoe@example.com", timezone="Europe/Amsterdam"),
        games.SeatSpec(BOB, email="bob@example.com", timezone="America/New_York"),
        games.SeatSpec(SARA, email="sara@example.com"),
    ]
    return new_table(
        app, specs, name="Friday game", seed=12345, options=Options(rounds=1), organiser_email="org@example.com"
    )


# --- tests ----------------------------------------------------------------------------------------------------


def test_every_kind_renders_both_parts_and_keeps_every_name(app: Flask, friday: Table) -> None:
    play(app, friday)
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=friday.game_id)
        notify.queue_organiser_notice(session=session, game=game, subject="Paused", body="Zoë's turn timed out.")
        flows.links.fresh_link(session=session, token=friday.personal(2))
        flows.links.lost_links(session=session, address="sara@example.com")
        seat = seat_rows.seats_of(session=session, game_id=friday.game_id)[1]
        notify.queue_replaced(
            session=session, game=game, seat=seat, email="before@example.com", language="en", timezone="UTC"
        )
    found = rows(app)
    assert {r.kind for r in found} == set(compose.KINDS)
    for row in found:
        assert row.text_body.strip() and "<html" in row.html_body and "</html>" in row.html_body
        assert "<script" not in row.html_body and "src=" not in row.html_body, "no external resources"
        for url in re.findall(r"https?://[^\s\"<]+", row.html_body):
            assert url.startswith("http://127.0.0.1:5000/"), f"a link elsewhere: {url}"
        assert "Friday game" in row.text_body and "Friday game" in row.html_body
        assert "Friday game" in row.subject or row.kind == "lost_links", "the one email about every game of a player"
        if row.seat_id is None:
            assert (row.kind, row.to_addr) in (
                ("organiser", "org@example.com"),
                ("lost_links", "sara@example.com"),
                ("notice", "before@example.com"),
            )
            assert row.kind != "lost_links" or (SARA in row.text_body and escape(SARA) in row.html_body)
            continue
        name = seat_of(app, row.seat_id).name
        assert name in row.text_body and escape(name) in row.html_body, f"{name!r} lost in a {row.kind} email"
        assert "<b>&" not in row.html_body, "names are escaped in HTML"
        assert row.to_addr.startswith(f"{name} <") or row.to_addr.startswith(f'"{name}" <')
        links_in_text = re.findall(r"https?://\S+", row.text_body)
        for url in links_in_text:
            assert url in row.html_body, "the text part carries every link of the HTML part, and the reverse"
        for url in re.findall(r'href="([^"]+)"', row.html_body):
            assert url in row.text_body
    for name in (ZOE, BOB, SARA):  # every name appears in the others' invitations
        invitation = next(r for r in found if r.kind == "invitation" and seat_of(app, r.seat_id).name != name)
        assert name in invitation.text_body and escape(name) in invitation.html_body


def test_subjects_name_the_game_the_round_and_what_is_asked(app: Flask, friday: Table) -> None:
    play(app, friday)
    subjects = {r.kind: r.subject for r in rows(app)}
    assert subjects["invitation"] == "Friday game · You are invited"
    assert subjects["turn"] == "Friday game · Round 1 · Your turn"
    assert subjects["scores"] == "Friday game · Round 1 scores"
    assert subjects["game_over"] == "Friday game · Game over"


def test_threads_and_unsubscribe_headers(app: Flask, friday: Table) -> None:
    play(app, friday, 12)
    found = rows(app)
    client = app.test_client()
    for position in range(3):
        seat = friday.seat(position)
        mine = [r for r in found if r.seat_id == seat.id]
        root = f"<pbem-g{friday.game_id}-s{position}-{links.nonce_tag(seat.nonce)}@127.0.0.1>"
        assert mine[0].kind == "invitation" and mine[0].message_id == root
        assert "In-Reply-To" not in mine[0].headers
        assert len(mine) > 1
        for row in mine[1:]:
            assert row.headers["In-Reply-To"] == root and row.headers["References"] == root
            assert row.message_id != root
        for row in mine:
            assert row.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            url = re.fullmatch(r"<(http://127\.0\.0\.1:5000/settings/[^>]+)>", row.headers["List-Unsubscribe"])
            assert url, row.headers
            page = client.get(url.group(1).removeprefix("http://127.0.0.1:5000"))
            assert page.status_code == 200 and escape(seat.name) in page.text
    assert len({r.message_id for r in found}) == len(found), "no two emails share a Message-ID"
    # An invitation sent again (the admin page does, for a new address) replies to the root.
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=friday.game_id)
        seats = seat_rows.seats_of(session=session, game_id=friday.game_id)
        again = notify.queue_invitation(session=session, game=game, seats=seats, seat=seats[1])
        assert again is not None
        root = compose.thread_root(game, seats[1])
        assert again.message_id != root and again.headers["In-Reply-To"] == root


def test_the_organiser_notice_has_no_seat_headers(app: Flask, friday: Table) -> None:
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=friday.game_id)
        assert notify.queue_organiser_notice(session=session, game=game, subject="Game paused", body="A.\n\nB <b>.")
    [row] = rows(app, kind="organiser")
    assert row.subject == "Friday game · Game paused" and row.to_addr == "org@example.com"
    assert "List-Unsubscribe" not in row.headers and "In-Reply-To" not in row.headers
    assert "B &lt;b&gt;." in row.html_body and "B <b>." in row.text_body
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=friday.game_id)
        notify.queue_organiser_notice(session=session, game=game, subject="Friday game · Paused: Bob", body="x")
    assert rows(app, kind="organiser")[-1].subject == "Friday game · Paused: Bob", "the name is not said twice"
    no_organiser = new_table(app, [games.SeatSpec("ann", email="ann@example.com"), games.SeatSpec("bob")])
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=no_organiser.game_id)
        assert notify.queue_organiser_notice(session=session, game=game, subject="x", body="y") is None


def test_invitation_carries_the_seed_commitment_and_game_over_reveals_the_seed(app: Flask, friday: Table) -> None:
    commitment = hashlib.sha256(b"12345").hexdigest()
    invitations = rows(app, kind="invitation")
    assert len(invitations) == 3
    for row in invitations:
        assert commitment in row.text_body and commitment in row.html_body
        assert "links to a page that checks it against this commitment" in row.text_body
        assert "12345" not in row.text_body.replace(commitment, ""), "the seed itself stays secret"
        for other in (ZOE, BOB, SARA):
            assert other in row.text_body
        assert "Rounds: 1" in row.text_body
        assert "Players, in turn order".upper() in row.text_body
        assert re.search(r"http://127\.0\.0\.1:5000/play/\S+", row.text_body)
    play(app, friday)
    over = rows(app, kind="game_over")
    assert len(over) == 3
    final = friday.state()
    for row in over:
        assert "The seed was 12345" in row.text_body and commitment in row.text_body
        assert "sha256sum" not in row.text_body, "no shell command: a page does the check"
        check = re.search(r"http://127\.0\.0\.1:5000/play/(\S+)/check\n", row.text_body)
        assert check and f'href="http://127.0.0.1:5000/play/{check.group(1)}/check"' in row.html_body
        [attachment] = row.attachments
        assert attachment["filename"] == f"call-to-glory-{friday.game_id}.json"
        assert attachment["content_type"] == "application/json"
        _record, replayed = glory.replay(json.loads(attachment["content"]))
        assert glory.to_json(replayed) == glory.to_json(final)
        winners = final.winners
        if len(winners) == 1:
            assert "wins" in row.text_body or "You win!" in row.text_body
        else:
            assert "Shared victory" in row.text_body


def test_shared_victory_is_said_as_such(app: Flask) -> None:
    table = new_table(app, [games.SeatSpec("ann", email="a@example.com"), games.SeatSpec("bob", email="b@example.com")])
    with app.app_context():
        game = seat_rows.get_game(session=db.get_session(), game_id=table.game_id)
        seats = seat_rows.seats_of(session=db.get_session(), game_id=table.game_id)
        state = table.state()
        state.status, state.winners = "finished", [0, 1]
        state.round_scores, state.totals = [[30, 30]], [30, 30]
        with app.test_request_context():
            email = compose.game_over(game=game, seats=seats, seat=seats[0], state=state, record="{}")
    assert "Shared victory: ann and bob (you among them)" in email.text
    assert "Shared victory" in email.html


def test_a_score_sheet_has_types_values_bonuses_totals_and_the_next_start_player(app: Flask) -> None:
    specs = [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob", "cy")]
    table = new_table(app, specs, seed=3, options=Options(rounds=2, imperial_tasks=True))
    while not table.state().round_scores:
        play(app, table, 1)
    state = table.state()
    details = glory.round_details(state)[0]
    sheets = rows(app, kind="scores")
    assert len(sheets) == 3
    for row in sheets:
        assert row.subject.endswith("· Round 1 scores")
        for name, player in details["players"].items():
            assert f"Round score: {player['round_score']}    Total: {player['total']}" in row.text_body
            for t in player["types"]:
                assert f"{t['type'].capitalize()} ({t['cards']} card" in row.text_body
            for bonus in player["task_bonuses"]:
                if bonus["cards"]:
                    assert f"= {bonus['points']}" in row.text_body
            assert name in row.html_body
        assert f"{details['ranking'][0]}" in row.text_body.split("RANKING")[1]
        starter = details["next_start_player"]
        me = seat_of(app, row.seat_id).name
        assert ("You start round 2." if starter == me else f"{starter} starts round 2.") in row.text_body


def test_turn_email_shows_own_hand_the_tables_piles_scores_and_one_link_per_first_decision(
    app: Flask, friday: Table
) -> None:
    play(app, friday, 9)
    state = friday.state()
    seat = friday.seat(state.current)
    [row] = [r for r in rows(app, kind="turn") if r.seat_id == seat.id][-1:]
    check_email(row.text_body, row.html_body, seat.name, state)
    view = glory.player_view(state, seat.name)
    urls = re.findall(r"^(.+):\n(http://127\.0\.0\.1:5000/play/\S+)$", row.text_body, re.MULTILINE)
    moves = [m for m in glory.legal_moves(state) if m.player == seat.name]
    labels = [label for label, _ in urls if not label.startswith("Your page")]
    assert len(labels) == len(moves), (labels, moves)
    for label, url in urls:
        if label.startswith("Your page"):
            continue
        link = None
        with app.test_request_context():
            link = links.read(url.rsplit("/", 1)[1])
        assert link.purpose == links.MOVE and link.decision == str(state.ply) and link.seat == state.current
        assert link.move is not None and glory.can_apply(
            state, glory.Move.from_json({**link.move, "player": seat.name})
        )
    for i, size in enumerate(view["draw_piles"], start=1):
        assert f"Draw from draw pile {i} (face down, {size} cards)" in row.text_body
    for pile in view["discard_piles"]:
        if pile:
            assert f"{pile[-1].capitalize()} on top" in row.text_body
    for name in (ZOE, BOB, SARA):
        assert f"- {name}: {view['totals'][name]}" in row.text_body


def test_a_reminder_says_how_long_the_game_waited_and_the_deadline_in_the_players_time_zone(
    app: Flask, friday: Table
) -> None:
    play(app, friday, 3)  # Zoë's turn, then Bob's (America/New_York)
    state = friday.state()
    assert state.current == 1
    deadline = datetime(2026, 7, 4, 16, 30, tzinfo=UTC)
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=friday.game_id)
        seats = seat_rows.seats_of(session=session, game_id=friday.game_id)
        row = notify.queue_turn_email(
            session=session,
            game=game,
            seats=seats,
            seat=seats[1],
            state=state,
            reminder=2,
            last_reminder=True,
            waited=timedelta(days=2, hours=3),
            deadline=deadline,
        )
        assert row is not None
        reminder_id = row.id
    [row] = [r for r in rows(app) if r.id == reminder_id]  # rendered when it is sent
    assert row.subject == "Friday game · Round 1 · Reminder 2 · Your turn"
    assert "Reminder 2: the game has waited 2 days and 3 hours for you." in row.text_body
    assert "This is the last reminder. Please move before Saturday 4 July 2026, 12:30 (America/New_York)." in (
        row.text_body
    )
    assert "Saturday 4 July 2026, 12:30 (America/New_York)" in row.html_body
    with app.app_context(), db.write_session() as session:
        game = seat_rows.get_game(session=session, game_id=friday.game_id)
        seats = seat_rows.seats_of(session=session, game_id=friday.game_id)
        # Nobody else is asked to move, and reminders respect the seat's setting.
        for other in (0, 2):
            assert (
                notify.queue_turn_email(session=session, game=game, seats=seats, seat=seats[other], state=state) is None
            )
        seats[1].reminders = False
        assert (
            notify.queue_turn_email(session=session, game=game, seats=seats, seat=seats[1], state=state, reminder=1)
            is None
        )
        assert notify.queue_turn_email(session=session, game=game, seats=seats, seat=seats[1], state=state) is not None


def test_the_story_says_who_did_what_since_the_last_turn(app: Flask, friday: Table) -> None:
    play(app, friday, 3, source="page")  # Zoë's whole turn
    play(app, friday, 3, source="timeout")  # Bob's turn, played by the bot at his deadline
    state = friday.state()
    assert state.current == 2
    [row] = rows(app, kind="turn")[-1:]
    assert seat_of(app, row.seat_id).name == SARA
    story = row.text_body.split("WHAT HAPPENED SINCE YOUR LAST TURN\n")[1].split("\n\n")[0]
    lines = story.splitlines()
    assert len(lines) == 2, story
    assert lines[0].startswith(f"- {ZOE} drew the top of draw pile")
    assert lines[1].startswith(f"- Time ran out: a bot played for {BOB}. It drew the top of draw pile")
    check_email(row.text_body, row.html_body, SARA, state)


def test_a_hostile_name_is_refused_at_input(app: Flask) -> None:
    hostile = "Eve\r\nBcc: x@example.com"
    with pytest.raises(errors.ServiceError, match="may not contain line breaks or control characters"):
        games.check_seat(games.SeatSpec(hostile, email="eve@example.com"))
    for specs, organiser in (
        ([games.SeatSpec(hostile, email="eve@example.com"), games.SeatSpec("bob")], None),
        ([games.SeatSpec("eve", email="eve@example.com\r\nBcc: x@example.com"), games.SeatSpec("bob")], None),
        ([games.SeatSpec("eve"), games.SeatSpec("bob")], "org@example.com\r\nBcc: x@example.com"),
    ):
        with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError) as caught:
            flows.games.create(session=session, name="G", seats=specs, organiser_email=organiser)
        assert "line breaks" in caught.value.message
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="line breaks"):
        flows.games.create(session=session, name="Friday\r\nBcc: x@example.com", seats=[games.SeatSpec("a")] * 2)
    with app.app_context(), db.write_session() as session, pytest.raises(errors.ServiceError, match="not an email"):
        specs = [games.SeatSpec("a"), games.SeatSpec("b")]
        flows.games.create(session=session, name="G", seats=specs, organiser_email="not-an-address")
    assert rows(app) == [], "nothing was stored or queued"


def test_the_email_check_catches_leaks(app: Flask, friday: Table) -> None:
    play(app, friday, 3)
    state = friday.state()
    [row] = rows(app, kind="turn")[-1:]
    viewer = seat_of(app, row.seat_id).name
    other = next(p for p in state.players if p != viewer)
    check_email(row.text_body, row.html_body, viewer, state)
    hand = glory.player_view(state, other)["hands"][other]
    cells = "".join(f'<td data-card="{t}" data-count="{n}"></td>' for t, n in hand.items())
    leaks = [
        (
            row.text_body,
            row.html_body.replace(
                "</body>", f'<div data-hand="{other}"><div data-cards="hand">{cells}</div></div></body>'
            ),
        ),
        (row.text_body, row.html_body.replace("</body>", f"<table><tr>{cells}</tr></table></body>")),
        (row.text_body + f"\n- {other} drew a Farmer from draw pile 1.\n", row.html_body),
        (
            re.sub(
                r"YOUR HAND\n.*\n",
                f"YOUR HAND\n{card_list([{'type': t, 'count': n, 'value': 1} for t, n in hand.items()])}\n",
                row.text_body,
            ),
            row.html_body,
        ),
    ]
    for text, html in leaks:
        with pytest.raises(AssertionError):
            check_email(text, html, viewer, state)


def test_narrative_sentences() -> None:
    draw = {"event": "draw", "player": "Bob", "pile": "draw1", "card": "monk"}
    take = {"event": "draw", "player": "Bob", "pile": "discard2", "card": "farmer"}
    lay = {
        "event": "lay",
        "player": "Bob",
        "type": "farmer",
        "count": 3,
        "beaten": {"player": "ann", "count": 2, "pile": "discard1"},
        "ninja_taken": False,
    }
    when = datetime(2026, 1, 1, tzinfo=UTC)
    entries = [
        LogEntry("Bob", "link", [draw], when),
        LogEntry("Bob", "page", [take], when + timedelta(minutes=1)),
        LogEntry("Bob", "page", [lay], when + timedelta(minutes=2)),
        LogEntry("cy", "page", [{**draw, "player": "cy"}], when + timedelta(minutes=3)),
        LogEntry("cy", "timeout", [{**draw, "player": "cy", "pile": "draw2"}], when + timedelta(days=3)),
        LogEntry(
            "cy",
            "timeout",
            [{"event": "discard", "player": "cy", "type": "empress", "pile": "discard2"}],
            when + timedelta(days=3),
        ),
        LogEntry(
            "dee",
            "admin",
            [{"event": "discard", "player": "dee", "type": "ninja", "pile": "discard1"}],
            when + timedelta(days=4),
        ),
    ]
    left = [(when + timedelta(days=3, hours=1), "dee left the game; a bot plays for them from now on.")]
    assert narrative(entries, "ann", left) == [
        "Bob drew the top of draw pile 1 and the Farmer from discard pile 2, laid 3 Farmers and beat your 2 Farmers, "
        "which went to discard pile 1.",
        "cy drew the top of draw pile 1.",
        "Time ran out: a bot played for cy. It drew the top of draw pile 2, discarded an Empress on discard pile 2.",
        "dee left the game; a bot plays for them from now on.",
        "The organiser had a bot play for dee. It discarded a Ninja on discard pile 1.",
    ]
    assert narrative(entries[:1], "Bob") == ["You drew a Monk from draw pile 1."]
    assert narrative(entries[:1], None) == ["Bob drew the top of draw pile 1."]


def test_times_and_durations_in_words() -> None:
    summer = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    assert i18n.when(summer, "Europe/Amsterdam") == "Wednesday 1 July 2026, 14:00 (Europe/Amsterdam)"
    assert i18n.when(summer.replace(tzinfo=None), "UTC") == "Wednesday 1 July 2026, 12:00 (UTC)"
    assert i18n.when(summer.replace(month=12), "America/New_York") == (
        "Tuesday 1 December 2026, 07:00 (America/New_York)"
    )
    assert i18n.duration(timedelta(days=1)) == "1 day"
    assert i18n.duration(timedelta(days=2, hours=5, minutes=59)) == "2 days and 5 hours"
    assert i18n.duration(timedelta(hours=7)) == "7 hours"
    assert i18n.duration(timedelta(minutes=20)) == "less than an hour"
