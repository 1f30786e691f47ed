"""Voter identity: a signed, HttpOnly, SameSite cookie holding a random session id; the client address taken
from X-Forwarded-For only when the direct peer is a configured trusted proxy; addresses stored only as keyed
hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.requests import Request
from starlette.responses import Response

COOKIE = "arena_sid"
COOKIE_MAX_AGE = 30 * 24 * 3600
#: Verified cookies and address hashes kept per process (a cookie value always verifies to the same id, an
#: address always hashes the same): itsdangerous derives its key and checks an HMAC on every `loads`.
MEMO_SIZE = 4096


def forwarded_client(peer: str, forwarded: str | None, trusted: set[str] | frozenset[str]) -> str:
    """The client behind `peer`: the last X-Forwarded-For hop that is not a trusted proxy when `peer` is one,
    else `peer` itself (the request guards and the vote path name clients the same way)."""
    if peer in trusted and forwarded:
        hops = [h.strip() for h in forwarded.split(",") if h.strip()]
        for hop in reversed(hops):
            if hop not in trusted:
                return hop
    return peer


class VoterSessions:
    """Issues and verifies session cookies; hashes client addresses."""

    def __init__(self, secret: str, trusted_proxies: str = "") -> None:
        self._serializer = URLSafeSerializer(secret, salt="arena-voter-session")
        self._hash_key = hashlib.sha256(("addr:" + secret).encode()).digest()
        self.trusted = {p.strip() for p in trusted_proxies.split(",") if p.strip()}
        self._verified: dict[str, str] = {}
        self._hashes: dict[str, str] = {}

    def read(self, request: Request) -> str | None:
        """The session id from a validly signed cookie, or None."""
        raw = request.cookies.get(COOKIE)
        if not raw:
            return None
        known = self._verified.get(raw)
        if known is not None:
            return known
        try:
            value = self._serializer.loads(raw)
        except BadSignature:
            return None
        if not (isinstance(value, str) and len(value) == 32):
            return None
        _remember(self._verified, raw, value)
        return value

    def sign(self, session_id: str) -> str:
        """The cookie value that `read` turns back into `session_id`."""
        return self._serializer.dumps(session_id)

    @staticmethod
    def new_id() -> str:
        """A fresh random session id."""
        return secrets.token_hex(16)

    def set_cookie(self, response: Response, request: Request, session_id: str) -> None:
        """Set the signed cookie of `session_id` on `response`."""
        response.set_cookie(
            COOKIE,
            self.sign(session_id),
            max_age=COOKIE_MAX_AGE,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )

    def client_address(self, request: Request) -> str:
        """The client's address; X-Forwarded-For counts only when the peer is a trusted proxy."""
        peer = request.client.host if request.client else "unknown"
        return forwarded_client(peer, request.headers.get("x-forwarded-for"), self.trusted)

    def address_hash(self, address: str) -> str:
        """A keyed hash of an address: linkable for anomaly checks, not reversible to the address."""
        known = self._hashes.get(address)
        if known is None:
            known = hmac.new(self._hash_key, address.encode(), hashlib.sha256).hexdigest()[:32]
            _remember(self._hashes, address, known)
        return known


def _remember(memo: dict[str, str], key: str, value: str) -> None:
    """Keep `key` -> `value`, starting over once MEMO_SIZE entries are kept (a bound, not an LRU)."""
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[key] = value
