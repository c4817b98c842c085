"""The DNS records that make outgoing mail trusted: SPF (who may send for the domain), DKIM (the public key of
MAIL_DKIM_KEY) and DMARC (what receivers do with mail that fails both), as ``pbem mail-check`` prints them."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Any

from dkim.crypto import parse_pem_private_key  # type: ignore[import-untyped]

RSA_ENCRYPTION = bytes.fromhex("2a864886f70d010101")  # 1.2.840.113549.1.1.1


@dataclass(frozen=True)
class Record:
    """One DNS record to publish: its name, type and value, and what it is for."""

    name: str
    kind: str
    value: str
    why: str

    def __str__(self) -> str:
        return f'{self.name}. IN {self.kind} "{self.value}"'


def _length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _der(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + _length(len(content)) + content


def _integer(n: int) -> bytes:
    return _der(0x02, n.to_bytes(n.bit_length() // 8 + 1, "big"))


def public_key(pem: bytes) -> str:
    """The base64 SubjectPublicKeyInfo of an RSA private key in PEM form (the ``p=`` of a DKIM record)."""
    key = parse_pem_private_key(pem)
    rsa = _der(0x30, _integer(key["modulus"]) + _integer(key["publicExponent"]))
    algorithm = _der(0x30, _der(0x06, RSA_ENCRYPTION) + _der(0x05, b""))
    spki = _der(0x30, algorithm + _der(0x03, b"\0" + rsa))
    return base64.b64encode(spki).decode()


def sender_domain(cfg: Any) -> str:
    """The domain outgoing mail is from: MAIL_DKIM_DOMAIN, else that of MAIL_DEFAULT_SENDER."""
    return str(cfg.get("MAIL_DKIM_DOMAIN") or parseaddr(cfg["MAIL_DEFAULT_SENDER"])[1].rpartition("@")[2]).lower()


def records(cfg: Any, key: bytes | None) -> tuple[list[Record], list[str]]:
    """The records to publish for the configured domain (and key), and what the configuration lacks."""
    domain = sender_domain(cfg)
    missing = []
    out = [
        Record(
            domain,
            "TXT",
            "v=spf1 mx a ~all",
            "SPF: the domain's mail servers may send for it (add include:… for a relay such as MAIL_SERVER's)",
        )
    ]
    if key is not None:
        selector = cfg["MAIL_DKIM_SELECTOR"]
        out.append(
            Record(f"{selector}._domainkey.{domain}", "TXT", f"v=DKIM1; k=rsa; p={public_key(key)}", "DKIM: the key")
        )
    else:
        missing.append("MAIL_DKIM_KEY: outgoing mail is not signed (strict filters may file it as spam)")
    out.append(Record(f"_dmarc.{domain}", "TXT", f"v=DMARC1; p=quarantine; rua=mailto:postmaster@{domain}", "DMARC"))
    for name, why in (
        ("MAIL_REPLY_ADDRESS", "replies are not read (emails carry no Reply-To)"),
        ("MAIL_BOUNCE_ADDRESS", "no VERP return path (bounces are matched by address only)"),
        ("MAIL_IN_IMAP_HOST", "no IMAP mailbox is read (use a pipe transport or pbem mail-in --listen instead)"),
    ):
        if not cfg.get(name):
            missing.append(f"{name}: {why}")
    if domain in ("localhost", "") or "." not in domain:
        missing.append(f"MAIL_DEFAULT_SENDER: {domain!r} is not a domain others can check")
    return out, missing
