"""What the benchmarks share: a throw-away PostgreSQL schema."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text


@contextmanager
def postgres_schema(admin_url: str) -> Iterator[str]:
    """A new schema on the server of ``admin_url``; the URL that uses it; dropped on exit."""
    schema = f"bench_{secrets.token_hex(6)}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        sep = "&" if "?" in admin_url else "?"
        yield f"{admin_url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()
