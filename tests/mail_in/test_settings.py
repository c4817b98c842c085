"""The mail-in settings: refused when they cannot work, and the scheduler polls IMAP only when it is configured."""

from __future__ import annotations

from typing import Any

import pytest

from pbem import create_app
from pbem.config import ConfigError
from pbem.scheduler import jobs


def _app(**config: Any) -> Any:
    settings = {"TESTING": True, "SECRET_KEY": "test-key-" + "x" * 32, "DATABASE_URL": "sqlite:////tmp/unused.sqlite3"}
    return create_app({**settings, **config})


@pytest.mark.parametrize(
    ("setting", "value", "words"),
    [
        ("MAIL_REPLY_ADDRESS", "a-local-part-far-too-long@club.example", "at most 20 characters"),
        ("MAIL_REPLY_ADDRESS", "play+x@club.example", r"no '\+'"),
        ("MAIL_BOUNCE_ADDRESS", "bounce@localhost", "plain address"),
        ("MAIL_IN_IMAP_TLS", "maybe", "MAIL_IN_IMAP_TLS"),
        ("MAIL_IN_POLL_SECONDS", 1, "MAIL_IN_POLL_SECONDS"),
        ("MAIL_IN_MAX_BYTES", 10, "MAIL_IN_MAX_BYTES"),
        ("MAIL_DKIM_KEY", "/no/such/key.pem", "MAIL_DKIM_DOMAIN"),
    ],
)
def test_settings_that_cannot_work_are_refused(setting: str, value: Any, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        _app(**{setting: value})


def test_the_scheduler_polls_imap_only_when_it_is_configured() -> None:
    plain = jobs.build(_app())
    assert "mail-in" not in {job.id for job in plain.get_jobs()}
    imap = jobs.build(_app(MAIL_IN_IMAP_HOST="imap.club.example", MAIL_IN_IMAP_USER="play", MAIL_IN_POLL_SECONDS=30))
    job = next(job for job in imap.get_jobs() if job.id == "mail-in")
    assert job.trigger.interval.total_seconds() == 30
