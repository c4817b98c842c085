"""Signed, recognisable mail: a DKIM signature that dkimpy verifies against the record ``pbem mail-check`` prints,
the headers it signs (one-click unsubscribe included), List-Id, Auto-Submitted and the game's name as the sender's."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dkim
import pytest
from aiosmtpd.controller import Controller

from tests.adventure_helpers import adventure_table
from tests.apps import free_port
from tests.mail.conftest import deliver


class Capture:
    """An SMTP server keeping each message's bytes exactly as they arrived."""

    def __init__(self) -> None:
        self.port = free_port()
        self.raw: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.raw.append(envelope.original_content)
        return "250 OK"


@pytest.fixture
def capture() -> Iterator[Capture]:
    state = Capture()
    controller = Controller(state, hostname="127.0.0.1", port=state.port, server_hostname="localhost")
    controller.start()
    yield state
    controller.stop()


@pytest.fixture
def key(tmp_path: Path) -> Path:
    if shutil.which("openssl") is None:
        pytest.skip("making a test key needs openssl")
    path = tmp_path / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(path), "2048"], check=True, capture_output=True, timeout=60)
    return path


def test_outgoing_mail_is_signed_and_the_printed_record_verifies_it(
    make_reply_app: Any, capture: Capture, key: Path
) -> None:
    app = make_reply_app(
        MAIL_BACKEND="smtp",
        MAIL_SERVER="127.0.0.1",
        MAIL_PORT=capture.port,
        MAIL_USE_TLS=False,
        MAIL_USE_SSL=False,
        MAIL_USERNAME=None,
        MAIL_PASSWORD=None,
        MAIL_DEFAULT_SENDER="Games club <games@club.example>",
        MAIL_DKIM_KEY=str(key),
        MAIL_DKIM_SELECTOR="pbem",
        MAIL_DKIM_DOMAIN="club.example",
    )
    adventure_table(app, ("Ann", "Bob"), {"first_game": True}, seed=3)
    deliver(app)
    assert capture.raw
    check = app.test_cli_runner().invoke(args=["mail-check"])
    assert check.exit_code == 0, check.output
    record = re.search(
        r'^pbem\._domainkey\.club\.example\. IN TXT "(v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+)"$', check.output, re.M
    )
    assert record, check.output
    assert 'club.example. IN TXT "v=spf1' in check.output and "_dmarc.club.example. IN TXT" in check.output

    def dns(name: bytes, timeout: int = 5) -> bytes:
        assert name == b"pbem._domainkey.club.example."
        return record.group(1).encode()

    for raw in capture.raw:
        assert dkim.verify(raw, dnsfunc=dns), "dkimpy verifies the signature"
        signature = raw.split(b"DKIM-Signature:", 1)[1].split(b"\r\n\r\n", 1)[0]
        signed = re.search(rb"h=([^;]+);", signature.replace(b"\r\n", b"").replace(b" ", b"").replace(b"\t", b""))
        assert signed and {b"list-unsubscribe", b"list-unsubscribe-post", b"from", b"subject"} <= set(
            signed.group(1).split(b":")
        )
        head = raw.split(b"\r\n\r\n", 1)[0]
        assert b"From: Call to Adventure <games@club.example>" in head
        assert b"Auto-Submitted: auto-generated" in head and b"List-Id: <game-1." in head
        assert b"Call to Glory" not in head
    tampered = capture.raw[0].replace(b"Subject: ", b"Subject: X", 1)
    assert not dkim.verify(tampered, dnsfunc=dns)


def test_mail_check_says_what_is_missing(reply_app: Any) -> None:
    result = reply_app.test_cli_runner().invoke(args=["mail-check"])
    assert result.exit_code == 0
    assert "missing: MAIL_DKIM_KEY" in result.output and "missing: MAIL_IN_IMAP_HOST" in result.output
