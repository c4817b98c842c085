"""Fixtures of the i18n tests: the admin ones (an organiser, a logged-in client, a game) for the admin pages."""

from tests.admin.conftest import adm_table, admin_client, organiser, password_hash

__all__ = ["adm_table", "admin_client", "organiser", "password_hash"]
