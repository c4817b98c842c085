"""A real IMAP server for tests: Debian's Dovecot, started with its own configuration under a temporary folder
(listening on 127.0.0.1 only, a free port, no TLS, one user from a passwd-file), stopped afterwards.

Skipped with the reason when Dovecot is not installed; on CI (CI=true) it must be there and the test fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.apps import free_port

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
LDA = "/usr/lib/dovecot/dovecot-lda"
CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
listen = 127.0.0.1
protocols = imap
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = dovenull
default_internal_user = dovecot
first_valid_uid = 1
mail_location = maildir:{root}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={root}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
"""


@dataclass
class Dovecot:
    """A running Dovecot: where it listens and the one user's login."""

    host: str
    port: int
    user: str
    password: str
    root: Path
    config: Path

    def deliver(self, raw: bytes) -> None:
        """Deliver a message into the mailbox as a mail server's local delivery does: Dovecot's LDA
        (``dovecot-lda -d USER``, what a Postfix ``pipe`` or ``mailbox_command`` runs)."""
        done = subprocess.run(
            [LDA, "-c", str(self.config), "-d", self.user], input=raw, capture_output=True, timeout=30, check=False
        )
        assert done.returncode == 0, done.stderr

    def settings(self) -> dict[str, object]:
        """The app's MAIL_IN_IMAP_* settings for this server."""
        return {
            "MAIL_IN_IMAP_HOST": self.host,
            "MAIL_IN_IMAP_PORT": self.port,
            "MAIL_IN_IMAP_USER": self.user,
            "MAIL_IN_IMAP_PASSWORD": self.password,
            "MAIL_IN_IMAP_TLS": "none",
        }


def _wait(port: int, seconds: float = 10) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"Dovecot did not listen on port {port}")


def start() -> Iterator[Dovecot]:
    """Start Dovecot (see the module docstring); yields it and stops it."""
    if not os.path.exists(DOVECOT):
        if os.environ.get("CI") == "true":
            pytest.fail("Dovecot (dovecot-imapd) must be installed on CI: the IMAP tests are required there")
        pytest.skip("the IMAP tests need Dovecot: apt-get install dovecot-imapd")
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    root.chmod(0o755)
    for sub in ("mail", "home", "state"):
        (root / sub).mkdir()
        shutil.chown(root / sub, "dovecot", "dovecot")
    port = free_port()
    (root / "passwd").write_text("play:{PLAIN}secret-imap\n")
    config = root / "dovecot.conf"
    config.write_text(CONFIG.format(root=root, port=port))
    # the daemon's children keep inherited pipes open: its output goes to a file, not to a pipe we wait on
    with open(root / "start.log", "wb") as out:
        done = subprocess.run([DOVECOT, "-c", str(config)], stdout=out, stderr=out, timeout=30, check=False)
    if done.returncode != 0:
        log = (root / "dovecot.log").read_text() if (root / "dovecot.log").exists() else ""
        raise RuntimeError(f"Dovecot did not start: {(root / 'start.log').read_text()}{log}")
    try:
        _wait(port)
        yield Dovecot("127.0.0.1", port, "play", "secret-imap", root, config)
    finally:
        subprocess.run(
            [DOVECOT, "-c", str(config), "stop"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
        time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)
