"""A first turn through HTTP: page, draw, draw, discard; the log equals the snapshot."""

from __future__ import annotations

from flask.testing import FlaskClient

from engine import call_to_glory as glory
from tests.apps import Table, form_fields


def test_one_turn_through_the_page(client: FlaskClient, table: Table) -> None:
    token = table.personal(0)
    page = client.get(f"/play/{token}")
    assert page.status_code == 200
    csrf, decision = form_fields(page.text)
    for pile in ("draw1", "draw2"):
        r = client.post(f"/play/{token}", data={"csrf_token": csrf, "decision": decision, "do": "draw", "pile": pile})
        assert r.status_code == 303
        csrf, decision = form_fields(client.get(f"/play/{token}").text)
    hand = table.state().hands[0]
    card = next(t for t in range(9) if hand[t])

    r = client.post(
        f"/play/{token}",
        data={"csrf_token": csrf, "decision": decision, "do": "discard", "type": glory.TYPES[card]},
    )
    assert r.status_code == 303
    assert table.state().current_player == "bob"
    assert table.verify()
