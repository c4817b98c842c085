"""Reading one RFC 5322 message into a ``flows.replies.Reply``: who sent it, to which addresses, whether a robot
sent it, and its new text with quotes and signatures stripped (mail-parser-reply, then the quote markers and
phone signatures of the mail clients our players use, in English, Dutch and French).

Messages are read with the email package's compat32 policy: headers stay text until asked for (the default
policy's header objects cost more than the rest of the reading). Nothing here raises on bad input: malformed
MIME, unknown charsets, a missing body or a huge message all give a Reply (perhaps with no text) that the flow
answers or ignores.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser, BytesParser
from email.utils import getaddresses
from html.parser import HTMLParser
from typing import Any

from flufl.bounce import all_failures
from mailparser_reply import EmailReplyParser  # type: ignore[import-untyped]

from ..core.replies import normal_address
from ..flows.replies import Reply

LONGEST_TEXT = 20_000
"""Characters of a reply's text part read (the rest is no command and too long to say)."""
LANGUAGES = ["en", "nl", "fr"]
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc")
# Where the quoted email begins, as mail clients write it (the parser's own list misses some of these).
QUOTE_HEADER = re.compile(
    r"^\s*("
    r"on\b.{0,200}\bwrote:?"  # Gmail, Apple Mail, Thunderbird
    r"|op\b.{0,200}\b(schreef|geschreven)\b.{0,40}:?"  # Dutch
    r"|le\b.{0,200}\ba\s+[ée]crit\s*:?"  # French
    r"|-{2,}\s*(original message|oorspronkelijk bericht|message d'origine|forwarded message)\s*-{2,}"
    r"|_{10,}"  # Outlook's line before "From:"
    r"|(from|van|de)\s*:\s.*"  # Outlook's "From:" block (checked with its "Sent:" below)
    r")\s*$",
    re.IGNORECASE,
)
WROTE = re.compile(
    r"^\s*(on\b.{0,200}\bwrote:?|op\b.{0,200}\b(schreef|geschreven)\b.{0,40}:?|le\b.{0,200}\ba\s+[ée]crit\s*:?)\s*$",
    re.IGNORECASE,
)
OUTLOOK_SENT = re.compile(r"^\s*(sent|verzonden|envoy[ée]|date|datum|to|aan|[àa])\s*:", re.IGNORECASE)
SIGNATURE = re.compile(
    r"^\s*("
    r"sent from my .{0,40}|sent from (outlook|mail) for .{0,40}|get outlook for .{0,40}"
    r"|verzonden (vanaf|met|van) mijn .{0,40}|verstuurd (vanaf|met|van) mijn .{0,40}|outlook voor .{0,40} downloaden"
    r"|envoy[ée] (de|depuis) mon .{0,40}|t[ée]l[ée]chargez outlook pour .{0,40}"
    r")\s*$",
    re.IGNORECASE,
)


def parse(raw: bytes, *, max_bytes: int, envelope_to: Sequence[str] = ()) -> Reply:
    """The Reply that ``raw`` is (``envelope_to``: the recipients the transport names, such as LMTP's RCPT TO);
    a message over ``max_bytes`` is read for its headers only."""
    too_big = len(raw) > max_bytes
    try:
        if too_big:
            message: Message = BytesHeaderParser(policy=policy.compat32).parsebytes(raw)
        else:
            message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:  # the email package is lenient; anything it still refuses is no message we can read
        message = EmailMessage()
    message_id = _message_id(message, raw)
    sender = _sender(message)
    recipients = tuple(dict.fromkeys([*map(normal_address, envelope_to), *_recipients(message)]))
    subject = " ".join(_decoded_header(_header(message, "Subject")).split())[:200]
    bounce = is_bounce(message, recipients)
    failed, detail = failures(message) if bounce else ((), "")
    text = "" if too_big or bounce else new_text(body_text(message))
    return Reply(
        message_id=message_id,
        sender=sender,
        recipients=tuple(r for r in recipients if r),
        subject=subject,
        text=text,
        robot=robot(message),
        forged=forged(message),
        too_big=too_big,
        bounce=bounce,
        bounced=failed,
        bounce_detail=detail,
    )


def _header(message: Message, name: str) -> str:
    """A header's value as text ("" when it is missing or cannot be read)."""
    try:
        value = message.get(name)
    except Exception:
        return ""
    return "" if value is None else str(value).replace("\r", " ").replace("\n", " ").replace("\0", "")


def _decoded_header(value: str) -> str:
    """A header's RFC 2047 encoded words as text (the value as it is when they cannot be read)."""
    try:
        return str(make_header(decode_header(value)))
    except Exception:
        return value


def _all(message: Message, name: str) -> list[str]:
    try:
        values: Iterable[Any] = message.get_all(name) or []
        return [str(v) for v in values]
    except Exception:
        return []


def _message_id(message: Message, raw: bytes) -> str:
    """The message's Message-ID, or one made from its bytes when it has none (the same bytes, the same id)."""
    found = _header(message, "Message-ID").strip()
    if found and len(found) <= 250 and found.isprintable():
        return found
    return f"<sha256-{hashlib.sha256(raw).hexdigest()}@mail-in>"


def _sender(message: Message) -> str:
    """The normalised From address, or "" when there is none or more than one."""
    addresses = [a for _name, a in getaddresses(_all(message, "From")) if a]
    return normal_address(addresses[0]) if len(addresses) == 1 else ""


def _recipients(message: Message) -> list[str]:
    found = []
    for name in RECIPIENT_HEADERS:
        for _display, address in getaddresses(_all(message, name)):
            if address:
                found.append(normal_address(address))
    return found


def is_bounce(message: Message, recipients: Iterable[str]) -> bool:
    """True for a delivery status notification (RFC 3464), a mail server's bounce, or mail to a VERP return path
    (``bounce+TOKEN@…``)."""
    try:
        kind = message.get_content_type()
        report = (message.get_param("report-type") or "") if kind == "multipart/report" else ""
    except Exception:
        kind, report = "", ""
    if str(report).lower() == "delivery-status":
        return True
    sender = _sender(message).split("@")[0]
    if sender in ("mailer-daemon", "postmaster"):
        return True
    return any(r.split("@")[0].startswith("bounce+") for r in recipients)


DIAGNOSTIC = re.compile(r"^(Status|Diagnostic-Code|Action)\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)


def failures(message: Message) -> tuple[tuple[str, ...], str]:
    """The addresses a bounce says failed for good (flufl.bounce's detectors), and its status and diagnostic in a
    line (for the organiser)."""
    try:
        _temporary, permanent = all_failures(message)
    except Exception:
        permanent = frozenset()
    found = sorted({normal_address(a.decode("utf-8", "replace")) for a in permanent} - {""})
    detail: list[str] = []
    try:
        for part in message.walk():  # a delivery-status part's blocks are parts with the fields as headers
            for name in ("Status", "Diagnostic-Code"):
                value = part.get(name)
                if value:
                    detail.append(f"{name}: {' '.join(str(value).split())}")
            if detail:
                break
        if not detail:
            text = body_text(message)
            detail = [f"{k}: {' '.join(v.split())}" for k, v in DIAGNOSTIC.findall(text) if k.lower() != "action"]
    except Exception:
        pass
    return tuple(found), "; ".join(dict.fromkeys(detail))[:290]


def robot(message: Message) -> str:
    """Why ``message`` was sent by a robot (RFC 3834 and the usual headers of auto-replies, lists, bulk mail and
    delivery reports), or "" for a person's message."""
    auto = _header(message, "Auto-Submitted").strip().lower()
    if auto and auto.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto[:40]}"
    precedence = _header(message, "Precedence").strip().lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    for name in ("X-Autoreply", "X-Autorespond", "List-Id", "List-Post"):
        if message.get(name) is not None:
            return f"{name} header"
    if message.get("Return-Path") is not None and _header(message, "Return-Path").strip() in ("<>", ""):
        return "null return path"
    if message.get_content_type() == "multipart/report":
        return "delivery report"
    return ""


def forged(message: Message) -> str:
    """Why the receiving server says the sender is forged (an ``Authentication-Results`` with a DMARC or SPF
    fail), or ""."""
    for value in _all(message, "Authentication-Results"):
        lowered = value.lower()
        for method in ("dmarc", "spf"):
            if re.search(rf"\b{method}\s*=\s*fail\b", lowered):
                return f"{method}=fail"
    return ""


def _decoded(part: Message) -> str:
    """A text part's content as text, whatever its charset and transfer encoding claim (bad bytes replaced)."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        return raw if isinstance(raw, str) else ""
    charset = part.get_content_charset() or "utf-8"
    try:
        text = payload.decode(charset, errors="replace")
    except LookupError:
        text = payload.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff")


def body_text(message: Message) -> str:
    """The message's text: its first inline text/plain part, else its first HTML part as text (quotes left out)."""
    plain = html = None
    try:
        parts = list(message.walk())
    except Exception:
        parts = [message]
    for part in parts:
        try:
            if part.is_multipart() or (part.get_content_disposition() or "inline") == "attachment":
                continue
            kind = part.get_content_type()
        except Exception:
            continue
        if kind == "text/plain" and plain is None:
            plain = _decoded(part)
        elif kind == "text/html" and html is None:
            html = _decoded(part)
    if plain is not None and plain.strip():
        return plain[:LONGEST_TEXT]
    if html is not None:
        return html_text(html[: LONGEST_TEXT * 10])[:LONGEST_TEXT]
    return ""


class _HtmlText(HTMLParser):
    """An HTML reply's own text: block elements end lines, quoted parts (blockquote, Gmail's and Thunderbird's
    quote containers) are left out, and Outlook's reply separator ends it."""

    BLOCKS = frozenset({"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "table", "hr", "ul", "ol", "pre"})
    SKIP = frozenset({"style", "script", "head", "title"})
    QUOTE_CLASSES = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote")
    STOP_IDS = ("appendonsend", "divrplyfwdmsg", "mail-editor-reference-message-container")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.stack: list[tuple[str, bool]] = []
        self.skipping = 0
        self.stopped = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        values = {k: (v or "").lower() for k, v in attrs}
        if any(s in values.get("id", "") for s in self.STOP_IDS):
            self.stopped = True
            return
        quoted = (
            tag == "blockquote" or tag in self.SKIP or any(c in values.get("class", "") for c in self.QUOTE_CLASSES)
        )
        if tag in self.BLOCKS:
            self.out.append("\n")
        if tag in ("br", "hr", "img", "meta", "link", "input"):
            return
        self.stack.append((tag, quoted))
        self.skipping += quoted

    def handle_endtag(self, tag: str) -> None:
        if self.stopped:
            return
        while self.stack:
            open_tag, quoted = self.stack.pop()
            self.skipping -= quoted
            if open_tag == tag:
                break
        if tag in self.BLOCKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.stopped and not self.skipping:
            self.out.append(data)


def html_text(html: str) -> str:
    """The text of an HTML reply without its quoted parts."""
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # HTMLParser is lenient; whatever it refuses leaves what was read so far
        pass
    lines = [" ".join(line.replace("\xa0", " ").split()) for line in "".join(parser.out).splitlines()]
    return "\n".join(lines).strip()


def new_text(text: str) -> str:
    """The part of a reply its sender wrote: the first reply fragment (mail-parser-reply), without quoted lines,
    the quoted email's header and what follows it, signatures and phone footers. A reply written below the
    quote (bottom-posting) keeps its own lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")[:2000]
    whole = "\n".join(lines)
    try:
        fragments = EmailReplyParser(languages=LANGUAGES).read(whole).replies
        first = fragments[0].body if fragments and not fragments[0].headers else ""
    except Exception:
        first = ""
    # bottom-posting starts with the quote's header: the reply is among the quoted lines (read all of it)
    return _own_lines(first) or _own_lines(whole)


def _own_lines(text: str) -> str:
    """``text`` without quoted lines, the quoted email's header and what follows it, signatures and footers."""
    kept: list[str] = []
    source = text.split("\n")
    for i, line in enumerate(source):
        stripped = line.strip()
        if stripped.startswith(">"):
            continue
        if stripped in ("--", "-- ", "—", "__"):
            break
        if QUOTE_HEADER.match(line):
            if WROTE.match(line):
                if any(k.strip() for k in kept):
                    break  # the reply was written above the quote
                continue  # bottom-posting: the header opens a quote of ">" lines, the reply follows them
            outlook_from = re.match(r"^\s*(from|van|de)\s*:", line, re.IGNORECASE)
            if not outlook_from or any(OUTLOOK_SENT.match(n) for n in source[i + 1 : i + 4]):
                break  # Outlook quotes without ">": nothing after its header is the sender's
        if SIGNATURE.match(line):
            continue
        kept.append(line.rstrip())
    return "\n".join(kept).strip()
