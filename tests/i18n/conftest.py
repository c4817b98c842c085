"""Language test fixtures: the mail fixtures of tests/mail (a real aiosmtpd server and an app that sends to it) and
the admin ones (an organiser, a logged-in client, a game) for the admin pages."""

from __future__ import annotations

from tests.admin.conftest import adm_table, admin_client, organiser, password_hash  # noqa: F401
from tests.mail.conftest import make_mail_app, smtp_app, smtp_server  # noqa: F401  (fixtures shared with tests/mail)
