"""Bad input through ``pbem mail-in``: each gives a clear outcome (exit 0 with a polite answer, or nothing for a
robot), never a traceback, never a move applied twice, nothing lost (exit 75 when the database cannot take it)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

import pytest
from flask import Flask

from tests.apps import Table

from . import clients
from .conftest import inbound, last_email, mail_in, sent_to
from .test_replies import _talk


def _answer(app: Flask, address: str = "ann@example.com") -> str:
    row = sent_to(app, address)[-1]
    assert row.kind == "answer"
    return row.text_body


def test_a_huge_message_is_not_read_but_answered(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    message = EmailMessage(policy=SMTP)
    message["From"] = "ann@example.com"
    message["To"] = original.reply_to
    message["Subject"] = "Re: photos"
    message["Message-ID"] = "<huge@mail.example>"
    message.set_content("draw pile 1")
    message.add_attachment(b"\0" * 25_000_000, maintype="application", subtype="octet-stream", filename="big.bin")
    result = mail_in(reply_app, message.as_bytes())
    assert result.exit_code == 0, result.output
    assert glory.moves_logged() == 0
    assert "Not done: Your reply was too large to read." in _answer(reply_app)


def test_a_two_megabyte_line_is_no_command_and_too_long_to_say(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = clients.plain(sender="ann@example.com", to=original.reply_to, text="draw pile 1 " * 180_000)
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 0 and _talk(reply_app, glory) == []
    assert "Not done: your message must be at most 280 characters" in _answer(reply_app)


def test_an_attachment_only_reply(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    message = EmailMessage(policy=SMTP)
    message["From"] = "ann@example.com"
    message["To"] = original.reply_to
    message["Message-ID"] = "<attached@mail.example>"
    message.add_attachment(b"draw pile 1\n", maintype="text", subtype="plain", filename="move.txt")
    assert mail_in(reply_app, message.as_bytes()).exit_code == 0
    assert glory.moves_logged() == 0
    assert "Nothing was done" in _answer(reply_app)


def test_an_html_only_reply_keeps_its_own_words_and_drops_the_quote(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    message = EmailMessage(policy=SMTP)
    message["From"] = "Ann <ann@example.com>"
    message["To"] = original.reply_to
    message["Message-ID"] = "<html-only@mail.example>"
    message.set_content(
        "<html><body><div>draw&nbsp;pile&nbsp;2</div><div><br></div>"
        '<div class="gmail_quote"><blockquote><div>1. draw pile 1</div><div>lay samurai</div></blockquote></div>'
        "</body></html>",
        subtype="html",
    )
    assert mail_in(reply_app, message.as_bytes()).exit_code == 0
    assert glory.moves_logged() == 1
    assert "Done: Draw from draw pile 2" in _answer(reply_app)


@pytest.mark.parametrize(
    ("charset", "cte", "bom"),
    [("iso-8859-1", "quoted-printable", b""), ("windows-1252", "8bit", b""), ("utf-8", "base64", b"\xef\xbb\xbf")],
)
def test_charsets_and_transfer_encodings(reply_app: Flask, glory: Table, charset: str, cte: str, bom: bytes) -> None:
    original = last_email(reply_app, "cy@example.com")
    words = "Très bien joué, Zoë — à toi" if charset != "iso-8859-1" else "Très bien joué, Zoë, à toi"
    message = EmailMessage(policy=SMTP)
    message["From"] = "cy@example.com"
    message["To"] = original.reply_to
    message["Message-ID"] = f"<{charset}@mail.example>"
    if bom:
        message.set_content(
            bom + words.encode(), maintype="text", subtype="plain", cte=cte, params={"charset": "utf-8"}
        )
    else:
        message.set_content(words, charset=charset, cte=cte)
    assert mail_in(reply_app, message.as_bytes()).exit_code == 0
    assert _talk(reply_app, glory) == [words]


MALFORMED = [
    b'From: ann@example.com\r\nTo: {to}\r\nMessage-ID: <m1@x>\r\nContent-Type: multipart/mixed; boundary="nope"\r\n\r\n'
    b"--other\r\ndraw pile 1\r\n",
    b"From: ann@example.com\r\nTo: {to}\r\nMessage-ID: <m2@x>\r\nContent-Type: text/plain; charset=x-unknown-99\r\n"
    b"Content-Transfer-Encoding: base64\r\n\r\n!!!not base64!!!\r\n",
    b"From: =?utf-8?q?broken\r\nTo: {to}\r\nMessage-ID: <m3@x>\r\nSubject: =?utf-8?b?////?=\r\n\r\ndraw pile 1\r\n",
    b"\xff\xfe\x00garbage without headers\r\n\r\n",
    b"",
    b"From: ann@example.com\r\nTo: {to}\r\nContent-Type: text/plain\r\n\r\ndraw pile 1\r\n",  # no Message-ID
]


@pytest.mark.parametrize("index", range(len(MALFORMED)))
def test_malformed_mime_and_headers(reply_app: Flask, glory: Table, index: int) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = MALFORMED[index].replace(b"{to}", original.reply_to.encode())
    result = mail_in(reply_app, raw)
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert glory.moves_logged() <= 1
    again = mail_in(reply_app, raw)
    assert again.exit_code == 0 and "duplicate" in again.output
    assert glory.moves_logged() <= 1


def test_a_command_for_the_wrong_state(reply_app: Flask, glory: Table) -> None:
    original = last_email(reply_app, "ann@example.com")
    raw = clients.gmail(original, "lay samurai", sender="ann@example.com")
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 0
    text = _answer(reply_app)
    assert "Not done: lay samurai: " in text
    assert "Not done: lay samurai: \n" not in text, "the refusal says why"


def test_a_file(reply_app: Flask, glory: Table, tmp_path: Path) -> None:
    original = last_email(reply_app, "ann@example.com")
    path = tmp_path / "reply.eml"
    path.write_bytes(clients.phone(original, "draw pile 1", sender="ann@example.com"))
    result = reply_app.test_cli_runner().invoke(args=["mail-in", str(path)])
    assert result.exit_code == 0 and glory.moves_logged() == 1


def test_the_database_locked_gives_a_temporary_failure_then_the_retry_works(
    reply_app: Flask, glory: Table, database_url: str
) -> None:
    if not database_url.startswith("sqlite"):
        pytest.skip("the lock held here is SQLite's")
    original = last_email(reply_app, "ann@example.com")
    raw = clients.gmail(original, "draw pile 1", sender="ann@example.com")
    holder = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = mail_in(reply_app, raw)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 75, result.output
    assert glory.moves_logged() == 0 and inbound(reply_app) == []
    assert mail_in(reply_app, raw).exit_code == 0
    assert glory.moves_logged() == 1


def test_the_command_exits_75_when_the_database_is_unreachable(tmp_path: Path) -> None:
    """The real command, as a mail server's pipe transport runs it."""
    pbem = Path(sys.executable).with_name("pbem")
    env = {
        "PATH": "/usr/bin:/bin",
        "PBEM_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none",
        "PBEM_SECRET_KEY": "k" * 40,
        "PBEM_MAIL_REPLY_ADDRESS": '"play@club.example"',
    }
    raw = clients.plain(sender="ann@example.com", to="play+1-0-0-0123456789abcdef0123@club.example", text="hi")
    done = subprocess.run(
        [str(pbem), "mail-in", "-"], input=raw, env=env, capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 75, done.stderr
    assert b"Traceback" not in done.stderr
