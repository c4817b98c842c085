"""One time label everywhere: the player's page and the turn email name a time the same way, with the zone's name."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import db, i18n
from pbem.core import games
from pbem.models import OutboxEmail
from tests.apps import new_table
from tests.mail.conftest import deliver

LABEL = r"\w+day \d{1,2} \w+ \d{4}, \d\d:\d\d \(Europe/Amsterdam\)"


def test_the_page_and_the_email_show_the_deadline_alike(app: Flask, client: FlaskClient) -> None:
    specs = [games.SeatSpec("ann", email="ann@example.com", timezone="Europe/Amsterdam"), games.SeatSpec("bob")]
    table = new_table(app, specs, seed=1)
    on_page = re.search(rf"Your deadline: <strong>({LABEL})</strong>", client.get(f"/play/{table.personal(0)}").text)
    assert on_page, "the page names the deadline with the zone's name"
    deliver(app)
    with app.app_context():
        [turn] = db.get_session().exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")).all()
    assert f"Please move before {on_page.group(1)}." in " ".join(turn.text_body.split())
    assert on_page.group(1) in turn.html_body


def test_the_label_names_the_zone_and_utc_is_just_utc() -> None:
    winter = datetime(2026, 11, 25, 17, 0, tzinfo=UTC)
    assert i18n.when(winter, "Europe/Amsterdam") == "Wednesday 25 November 2026, 18:00 (Europe/Amsterdam)"
    assert i18n.when(winter, ZoneInfo("Europe/Amsterdam")).endswith("18:00 (Europe/Amsterdam)")
    assert i18n.when(winter.replace(tzinfo=None), UTC) == "Wednesday 25 November 2026, 17:00 (UTC)"
    assert i18n.when(winter, "Not/AZone") == "Wednesday 25 November 2026, 17:00 (UTC)"
