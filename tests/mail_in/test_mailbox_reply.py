"""The development mailbox's Reply form: its text goes through the same parser and flow as a reply by mail."""

from __future__ import annotations

import re

from flask import Flask

from tests.apps import Table

from .conftest import sent_to

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def test_replying_from_the_mailbox_makes_the_move_and_answers(reply_app: Flask, glory: Table) -> None:
    turn = sent_to(reply_app, "ann@example.com")[-1]
    client = reply_app.test_client()
    page = client.get(f"/mailbox/{turn.id}").get_data(as_text=True)
    assert "Send the reply" in page
    token = CSRF.search(page)
    assert token
    done = client.post(f"/mailbox/{turn.id}/reply", data={"csrf_token": token.group(1), "text": "1\nhello table"})
    assert done.status_code == 303
    assert "replied=applied" in done.headers["Location"]
    assert glory.moves_logged() == 1
    answer = sent_to(reply_app, "ann@example.com")[-1]
    assert answer.kind == "answer" and "Said to the table: hello table" in answer.text_body
    shown = client.get(done.headers["Location"]).get_data(as_text=True)
    assert "Your reply made its moves" in shown


def test_an_email_without_a_reply_address_has_no_form(app: Flask) -> None:
    from pbem.core import games
    from tests.apps import new_table
    from tests.mail.conftest import deliver

    new_table(app, [games.SeatSpec(n, email=f"{n}@example.com") for n in ("ann", "bob")], seed=1)
    deliver(app)
    client = app.test_client()
    page = client.get("/mailbox/1").get_data(as_text=True)
    assert "Send the reply" not in page
    token = CSRF.search(client.get("/admin/login").get_data(as_text=True))
    refused = client.post("/mailbox/1/reply", data={"csrf_token": token.group(1) if token else "", "text": "1"})
    assert refused.status_code == 400
