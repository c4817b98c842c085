"""Language test fixtures: the mail fixtures of tests/mail (a real aiosmtpd server and an app that sends to it)."""

from __future__ import annotations

from tests.mail.conftest import make_mail_app, smtp_app, smtp_server  # noqa: F401  (fixtures shared with tests/mail)
