"""Replies as real mail clients write them: Gmail, Outlook, Apple Mail, Thunderbird and a phone client, top- or
bottom-posted, in English, Dutch and French, with each client's quoting, attribution line, signature, charset
and transfer encoding. Each builder takes the email being answered (its text, sender, subject, Message-ID) and
the player's own words, and returns the bytes a mail server would hand over."""

from __future__ import annotations

import html
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime


@dataclass
class Original:
    """The email a player answers: who sent it, its Reply-To, subject, Message-ID and text part."""

    sender: str
    reply_to: str
    subject: str
    message_id: str
    text: str
    to: str


WHEN = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)

ATTRIBUTION = {
    "gmail": {
        "en": "On Sat, 28 Nov 2026 at 10:00, {sender} wrote:",
        "nl": "Op za 28 nov 2026 om 10:00 schreef {sender}:",
        "fr": "Le sam. 28 nov. 2026 à 10:00, {sender} a écrit :",
    },
    "apple": {
        "en": "On 28 Nov 2026, at 10:00, {sender} wrote:",
        "nl": "Op 28 nov. 2026 om 10:00 heeft {sender} het volgende geschreven:",
        "fr": "Le 28 nov. 2026 à 10:00, {sender} a écrit :",
    },
    "thunderbird": {
        "en": "On 28/11/2026 10:00, {sender} wrote:",
        "nl": "Op 28-11-2026 om 10:00 schreef {sender}:",
        "fr": "Le 28/11/2026 à 10:00, {sender} a écrit :",
    },
}
PHONE_SIGNATURE = {"en": "Sent from my iPhone", "nl": "Verstuurd vanaf mijn iPhone", "fr": "Envoyé de mon iPhone"}
ANDROID_SIGNATURE = {
    "en": "Sent from my Galaxy",
    "nl": "Verzonden vanaf mijn Galaxy",
    "fr": "Envoyé depuis mon Galaxy",
}
OUTLOOK = {
    "en": ("From", "Sent", "To", "Subject", "Saturday, November 28, 2026 10:00 AM"),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp", "zaterdag 28 november 2026 10:00"),
    "fr": ("De", "Envoyé", "À", "Objet", "samedi 28 novembre 2026 10:00"),
}


def quoted(text: str) -> str:
    """``text`` quoted with "> " as most clients do."""
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _message(
    original: Original,
    *,
    sender: str,
    text: str,
    html_part: str | None = None,
    charset: str = "utf-8",
    cte: str = "quoted-printable",
    message_id: str | None = None,
    extra: dict[str, str] | None = None,
    to: str | None = None,
) -> bytes:
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to or original.reply_to
    message["Subject"] = f"Re: {original.subject}"
    message["Date"] = format_datetime(WHEN)
    message["Message-ID"] = message_id or f"<{secrets.token_hex(12)}@mail.example>"
    message["In-Reply-To"] = original.message_id
    message["References"] = original.message_id
    for name, value in (extra or {}).items():
        message[name] = value
    message.set_content(text, charset=charset, cte=cte)
    if html_part is not None:
        message.add_alternative(html_part, subtype="html", charset=charset, cte=cte)
    return message.as_bytes()


def gmail(original: Original, words: str, *, sender: str, lang: str = "en", **kw: object) -> bytes:
    """Gmail on the web: top-posted, text and HTML parts, a gmail_quote container."""
    attribution = ATTRIBUTION["gmail"][lang].format(sender=original.sender)
    text = f"{words}\n\n{attribution}\n\n{quoted(original.text)}\n"
    body = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in words.splitlines())
    html_part = (
        f'<div dir="ltr">{body}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        f'{html.escape(attribution)}<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">'
        f"{html.escape(original.text).replace(chr(10), '<br>')}</blockquote></div>"
    )
    mid = f"<CAK{secrets.token_hex(16)}@mail.gmail.com>"
    return _message(original, sender=sender, text=text, html_part=html_part, message_id=mid, **kw)  # type: ignore[arg-type]


def outlook(original: Original, words: str, *, sender: str, lang: str = "en", **kw: object) -> bytes:
    """Outlook: top-posted, the original below a rule and a From/Sent/To/Subject block, not quoted with ">"."""
    f, s, t, subj, date = OUTLOOK[lang]
    header = f"{f}: {original.sender}\n{s}: {date}\n{t}: {original.to}\n{subj}: {original.subject}"
    text = f"{words}\n\n________________________________\n{header}\n\n{original.text}\n"
    body = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in words.splitlines())
    html_part = (
        f'<html><head><style>p{{margin:0}}</style></head><body><div dir="ltr">{body}</div>'
        '<div id="appendonsend"></div><hr style="display:inline-block;width:98%">'
        f'<div id="divRplyFwdMsg" dir="ltr"><b>{f}:</b> {html.escape(original.sender)}</div>'
        f"<div>{html.escape(original.text).replace(chr(10), '<br>')}</div></body></html>"
    )
    try:  # Outlook writes Windows-1252 when it can, else UTF-8
        text.encode("windows-1252")
        kw.setdefault("charset", "windows-1252")
    except UnicodeEncodeError:
        kw.setdefault("charset", "utf-8")
    extra = {"X-MS-Has-Attach": "", "Thread-Topic": original.subject}
    mid = f"<AM0PR{secrets.token_hex(10).upper()}@AM0PR02MB.eurprd02.prod.outlook.com>"
    return _message(original, sender=sender, text=text, html_part=html_part, message_id=mid, extra=extra, **kw)  # type: ignore[arg-type]


def apple(original: Original, words: str, *, sender: str, lang: str = "en", **kw: object) -> bytes:
    """Apple Mail on an iPhone: top-posted, its signature, then the quote opened by its attribution line."""
    attribution = ATTRIBUTION["apple"][lang].format(sender=original.sender)
    text = f"{words}\n\n{PHONE_SIGNATURE[lang]}\n\n> {attribution}\n> \n{quoted(original.text)}\n"
    extra = {"X-Mailer": "iPhone Mail (22B91)"}
    return _message(original, sender=sender, text=text, extra=extra, **kw)  # type: ignore[arg-type]


def thunderbird(original: Original, words: str, *, sender: str, lang: str = "en", **kw: object) -> bytes:
    """Thunderbird, bottom-posted: the attribution, the quote, then the player's words and a signature."""
    attribution = ATTRIBUTION["thunderbird"][lang].format(sender=original.sender)
    text = f"{attribution}\n{quoted(original.text)}\n\n{words}\n\n-- \nAnn\nhttps://ann.example\n"
    extra = {"User-Agent": "Mozilla Thunderbird"}
    return _message(original, sender=sender, text=text, extra=extra, **kw)  # type: ignore[arg-type]


def phone(original: Original, words: str, *, sender: str, lang: str = "en", **kw: object) -> bytes:
    """Gmail on an Android phone: top-posted in base64, the phone's signature, the quote."""
    attribution = ATTRIBUTION["gmail"][lang].format(sender=original.sender)
    text = f"{words}\n\n{ANDROID_SIGNATURE[lang]}\n\n{attribution}\n\n{quoted(original.text)}\n"
    kw.setdefault("cte", "base64")
    return _message(original, sender=sender, text=text, **kw)  # type: ignore[arg-type]


CLIENTS = {"gmail": gmail, "outlook": outlook, "apple": apple, "thunderbird": thunderbird, "phone": phone}


def plain(
    *,
    sender: str,
    to: str,
    text: str,
    message_id: str | None = None,
    extra: dict[str, str] | None = None,
    subject: str = "Re: game",
) -> bytes:
    """A minimal reply: one text/plain part."""
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(WHEN)
    message["Message-ID"] = message_id or f"<{secrets.token_hex(12)}@mail.example>"
    for name, value in (extra or {}).items():
        message[name] = value
    message.set_content(text)
    return message.as_bytes()
