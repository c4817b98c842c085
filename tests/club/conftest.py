"""Club test fixtures: the organiser and their logged-in client (as the admin tests make them)."""

from __future__ import annotations

from tests.admin.conftest import admin_client, organiser, password_hash

__all__ = ["admin_client", "organiser", "password_hash"]
