"""``pbem create-admin``: the password is prompted for or read from stdin, checked, hashed with scrypt."""

from __future__ import annotations

from flask import Flask
from sqlmodel import select

from pbem import admin, db
from pbem.models import AdminUser

from .conftest import log_in, logged_in, login_refused


def _admins(app: Flask) -> list[AdminUser]:
    with app.app_context():
        return list(db.get_session().exec(select(AdminUser)))


def test_create_admin_with_a_prompted_password(app: Flask) -> None:
    runner = app.test_cli_runner()
    result = runner.invoke(
        args=["create-admin", "Org", "--email", "org@example.com", "--timezone", "Europe/Amsterdam"],
        input="a very good secret\na very good secret\n",
    )
    assert result.exit_code == 0, result.output
    assert "admin 'org' is created: log in at http://127.0.0.1:5000/admin/login" in result.output
    assert "a very good secret" not in result.output, "the password is not echoed"
    (user,) = _admins(app)
    assert (user.username, user.email, user.timezone) == ("org", "org@example.com", "Europe/Amsterdam")
    assert user.password_hash.startswith("scrypt:") and "a very good secret" not in user.password_hash
    assert logged_in(log_in(app.test_client(), password="a very good secret"))


def test_the_prompt_asks_twice(app: Flask) -> None:
    result = app.test_cli_runner().invoke(
        args=["create-admin", "org"],
        input="a very good secret\nanother one entirely\na b c d e f g h\na b c d e f g h\n",
    )
    assert result.exit_code == 0, result.output
    assert "do not match" in result.output
    assert logged_in(log_in(app.test_client(), password="a b c d e f g h"))


def test_create_admin_from_stdin_and_reset(app: Flask) -> None:
    runner = app.test_cli_runner()
    first = runner.invoke(args=["create-admin", "org", "--password-stdin"], input="first secret 123\n")
    assert first.exit_code == 0, first.output
    again = runner.invoke(args=["create-admin", "org", "--password-stdin"], input="second secret 456\n")
    assert again.exit_code == 1 and "already an admin 'org'" in again.output
    zone = runner.invoke(
        args=["create-admin", "org", "--password-stdin", "--reset", "--timezone", "Asia/Tokyo"], input="x"
    )
    assert zone.exit_code == 1 and "at least" in zone.output
    assert _admins(app)[0].timezone == "UTC", "a refused reset changes nothing"
    reset = runner.invoke(
        args=["create-admin", "org", "--password-stdin", "--reset", "--timezone", "Asia/Tokyo"],
        input="second secret 456\r\n",
    )
    assert reset.exit_code == 0 and "has a new password" in reset.output
    assert _admins(app)[0].timezone == "Asia/Tokyo"
    again_reset = runner.invoke(args=["create-admin", "org", "--password-stdin", "--reset"], input="second secret 456")
    assert again_reset.exit_code == 0 and _admins(app)[0].timezone == "Asia/Tokyo", "kept when not given"
    client = app.test_client()
    assert login_refused(log_in(client, password="first secret 123"))
    assert logged_in(log_in(client, password="second secret 456"))
    assert len(_admins(app)) == 1


def test_create_admin_refuses_bad_input(app: Flask) -> None:
    runner = app.test_cli_runner()
    for args, stdin, words in (
        (["create-admin", "org", "--password-stdin"], "short\n", f"at least {admin.MIN_PASSWORD} characters"),
        (["create-admin", "bad name", "--password-stdin"], "a long password\n", "login name"),
        (["create-admin", "org", "--password-stdin", "--email", "x\r\ny"], "a long password\n", "email"),
        (["create-admin", "org", "--password-stdin", "--timezone", "Moon/Base"], "a long password\n", "time zone"),
        (["create-admin", "org", "--password-stdin", "--reset"], "a long password\n", "no admin 'org'"),
    ):
        result = runner.invoke(args=args, input=stdin)
        assert result.exit_code == 1, (args, result.output)
        assert words in result.output, (args, result.output)
        assert "Traceback" not in result.output
    assert _admins(app) == []
