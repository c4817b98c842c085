"""Signed links: a seat's personal link and move links bound to one decision (itsdangerous)."""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any

from flask import current_app, url_for
from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

from .. import timing
from .errors import LinkExpired, LinkInvalid

PERSONAL = "pbem.personal"
MOVE = "pbem.move"
SETTINGS = "pbem.settings"
MINE = "pbem.mine"
"""The salt of an address's "my games" link (``mine_token``)."""
MAX_ADDRESS = 254
DAY = 86400
MAX_SEATS = 64
"""A bound on seat numbers in links, whatever the game (a game checks its own seats)."""


@dataclass(frozen=True)
class Link:
    """What a verified token says: the game, the seat, and for a move link the decision and the move."""

    purpose: str
    game_id: int
    seat: int
    nonce_tag: str
    decision: str | None = None
    move: dict[str, Any] | None = None


def nonce_tag(nonce: str) -> str:
    """A short digest of a seat's secret nonce: rotating the nonce invalidates every link of the seat."""
    return hashlib.sha256(nonce.encode()).hexdigest()[:12]


class _Signer(TimestampSigner):
    """itsdangerous's signer, its time stamps read from ``timing.now`` (a link's age follows the one clock)."""

    def get_timestamp(self) -> int:
        return int(timing.now().timestamp())


def _serializer(purpose: str) -> URLSafeTimedSerializer:
    keys = [*current_app.config["SECRET_KEY_FALLBACKS"], current_app.config["SECRET_KEY"]]
    return URLSafeTimedSerializer(keys, salt=purpose, signer=_Signer)


def personal_token(game_id: int, seat: int, nonce: str) -> str:
    """A seat's personal token, valid for the whole game (PERSONAL_LINK_DAYS)."""
    return _serializer(PERSONAL).dumps({"g": game_id, "s": seat, "n": nonce_tag(nonce)})


def move_token(game_id: int, seat: int, nonce: str, decision: str, move: dict[str, Any]) -> str:
    """A token for one move at one decision (the id of the seat's open decision), valid MOVE_LINK_DAYS."""
    body = {k: v for k, v in move.items() if k != "player"}
    return _serializer(MOVE).dumps({"g": game_id, "s": seat, "n": nonce_tag(nonce), "d": decision, "m": body})


def read(token: str) -> Link:
    """Verify a token of either purpose; raise LinkInvalid or LinkExpired."""
    if not isinstance(token, str) or len(token) > 2000:
        raise LinkInvalid
    for purpose, days in ((PERSONAL, "PERSONAL_LINK_DAYS"), (MOVE, "MOVE_LINK_DAYS")):
        try:
            data = _serializer(purpose).loads(token, max_age=current_app.config[days] * DAY)
        except SignatureExpired:
            _, payload = _serializer(purpose).loads_unsafe(token)
            payload = payload if isinstance(payload, dict) else {}
            game_id, seat = payload.get("g"), payload.get("s")
            raise LinkExpired(
                game_id if isinstance(game_id, int) else None, seat if isinstance(seat, int) else None
            ) from None
        except BadSignature:
            continue
        return _parse(purpose, data)
    raise LinkInvalid


def settings_token(game_id: int, seat: int, nonce: str) -> str:
    """A seat's settings token (its settings page and one-click unsubscribe), valid PERSONAL_LINK_DAYS."""
    return _serializer(SETTINGS).dumps({"g": game_id, "s": seat, "n": nonce_tag(nonce)})


def read_settings(token: str) -> Link:
    """Verify a settings token; raise LinkInvalid or LinkExpired."""
    if not isinstance(token, str) or len(token) > 2000:
        raise LinkInvalid
    try:
        data = _serializer(SETTINGS).loads(token, max_age=current_app.config["PERSONAL_LINK_DAYS"] * DAY)
    except SignatureExpired:
        raise LinkExpired(None, None) from None
    except BadSignature:
        raise LinkInvalid from None
    link = _parse(PERSONAL, data)
    return Link(SETTINGS, link.game_id, link.seat, link.nonce_tag)


def mine_token(address: str) -> str:
    """The signed "my games" token of an email address (compared without case), valid PERSONAL_LINK_DAYS: it opens
    the page of every game the address plays here. Signed, not encrypted: it holds the address and nothing else."""
    return _serializer(MINE).dumps({"a": address.strip().lower()})


def read_mine(token: str) -> str:
    """The address of a verified "my games" token (lower case); raise LinkInvalid or LinkExpired."""
    if not isinstance(token, str) or len(token) > 2000:
        raise LinkInvalid
    try:
        data = _serializer(MINE).loads(token, max_age=current_app.config["PERSONAL_LINK_DAYS"] * DAY)
    except SignatureExpired:
        raise LinkExpired(None, None) from None
    except BadSignature:
        raise LinkInvalid from None
    address = data.get("a") if isinstance(data, dict) else None
    if not isinstance(address, str) or not 3 <= len(address) <= MAX_ADDRESS or "@" not in address:
        raise LinkInvalid
    return address


def read_any_age(token: str) -> Link:
    """Verify a personal or move token's signature but not its age: only to mail a seat a fresh link."""
    if not isinstance(token, str) or len(token) > 2000:
        raise LinkInvalid
    for purpose in (PERSONAL, MOVE):
        try:
            data = _serializer(purpose).loads(token, max_age=None)
        except BadSignature:
            continue
        return _parse(purpose, data)
    raise LinkInvalid


def _parse(purpose: str, data: Any) -> Link:
    if not isinstance(data, dict):
        raise LinkInvalid
    game_id, seat, tag = data.get("g"), data.get("s"), data.get("n")
    if type(game_id) is not int or type(seat) is not int or not isinstance(tag, str):
        raise LinkInvalid
    if game_id < 1 or not 0 <= seat < MAX_SEATS:
        raise LinkInvalid
    if purpose == PERSONAL:
        return Link(purpose, game_id, seat, tag)
    decision, move = data.get("d"), data.get("m")
    if type(decision) is int:
        decision = str(decision)  # links signed before decisions had string ids
    if not isinstance(decision, str) or not 0 < len(decision) <= 64 or not isinstance(move, dict):
        raise LinkInvalid
    return Link(purpose, game_id, seat, tag, decision, move)


REPLY = "reply"
BOUNCE = "bounce"
LONGEST_LOCAL = 64
"""RFC 5321: at most 64 characters before the @ (the reply address's own local part, its "+" and the token)."""
_REPLY_TOKEN = re.compile(r"([1-9][0-9]{0,9})-([0-9]{1,2})-([0-9a-f]{6}|0)-([0-9a-f]{20})")
LONGEST_TOKEN = 10 + 1 + 2 + 1 + 6 + 1 + 20


@dataclass(frozen=True)
class ReplyToken:
    """What the token of a reply (or bounce) address names: the game, the seat, a digest of the decision the email
    was about ("0": none), and the MAC that binds them to the seat's nonce (checked with ``ReplyToken.valid``)."""

    purpose: str
    game_id: int
    seat: int
    decision: str
    mac: str

    def valid(self, nonce: str) -> bool:
        """True when the token was made for the seat's current nonce with a current or fallback secret key."""
        body = f"{self.game_id}-{self.seat}-{self.decision}"
        return any(hmac.compare_digest(self.mac, _reply_mac(key, self.purpose, body, nonce)) for key in _secret_keys())


def decision_digest(decision: str | None) -> str:
    """A decision id as a reply token carries it: six hex digits of its SHA-256 ("0" for no decision)."""
    return hashlib.sha256(decision.encode()).hexdigest()[:6] if decision else "0"


def _secret_keys() -> list[str]:
    return [current_app.config["SECRET_KEY"], *current_app.config["SECRET_KEY_FALLBACKS"]]


def _reply_mac(key: str, purpose: str, body: str, nonce: str) -> str:
    message = f"pbem.{purpose}|{body}|{nonce_tag(nonce)}".encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()[:20]


def reply_token(game_id: int, seat: int, nonce: str, decision: str | None, purpose: str = REPLY) -> str:
    """The token of a seat's reply address (or, with ``purpose`` BOUNCE, of its return path): lowercase, at most
    LONGEST_TOKEN characters, unforgeable without the secret key, and dead once the seat's nonce changes."""
    body = f"{game_id}-{seat}-{decision_digest(decision)}"
    return f"{body}-{_reply_mac(current_app.config['SECRET_KEY'], purpose, body, nonce)}"


def tagged_address(base: str, token: str) -> str:
    """``local+token@domain`` from the configured address ``local@domain``."""
    local, _, domain = base.rpartition("@")
    return f"{local}+{token}@{domain}"


def read_reply_address(address: str, base: str, purpose: str = REPLY) -> ReplyToken | None:
    """The token of ``address`` if it is ``base`` (``local@domain``) with a well-formed token after a "+" (case
    does not matter); None otherwise. The MAC is checked against the seat's nonce later (``ReplyToken.valid``)."""
    local, _, domain = base.lower().rpartition("@")
    got_local, _, got_domain = address.strip().lower().rpartition("@")
    if not local or got_domain != domain or not got_local.startswith(local + "+"):
        return None
    match = _REPLY_TOKEN.fullmatch(got_local[len(local) + 1 :])
    if match is None:
        return None
    game_id, seat, decision, mac = match.groups()
    return ReplyToken(purpose, int(game_id), int(seat), decision, mac)


def external_url(endpoint: str, **values: Any) -> str:
    """An absolute URL from the configured scheme and SERVER_NAME, never from the request's Host."""
    path = url_for(endpoint, _external=False, **values)
    return f"{current_app.config['PREFERRED_URL_SCHEME']}://{current_app.config['SERVER_NAME']}{path}"
