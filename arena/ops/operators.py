"""Named operators and their console sessions.

A token is `arena_<key id>_<secret>`, printed once; only its argon2id hash (argon2-cffi, salted, slow) is
stored, found by the public key id so a check costs one hash (and so does a token whose key id is unknown: it
is checked against a dummy hash, so timing does not reveal which key ids exist). Roles: viewers read, operators
act, admins also manage operators. The bootstrap ARENA_OPERATOR_TOKEN is an admin named "bootstrap" (checked
by the web layer). Sessions are rows keyed by the SHA-256 of a random id: expiry and sign-out are decided by the server.
A one-time sign-in link (printed at demo start-up) is such a row with the role `sign-in-link`: never a session
itself, it is used up by the first sign-in that presents it and expires unused after an hour.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import update
from sqlmodel import Session, select

from arena.db.tables import Operator, OperatorSession, utcnow
from arena.ops import audit

ROLES = ("viewer", "operator", "admin")
BOOTSTRAP = "bootstrap"
SIGN_IN_LINK = "sign-in-link"  # the role column of an operator_sessions row that is a one-time link
LINK_TTL = timedelta(hours=1)
DEMO = "demo"  # the operator demo mode signs in with a link printed at start-up
NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
TOKEN = re.compile(r"^arena_([0-9a-f]{12})_[A-Za-z0-9_-]{20,}$")
_HASHER = PasswordHasher()
_DUMMY_HASH: str | None = None  # see _dummy_hash


class OperatorError(ValueError):
    """A refused operator change: bad name or role, duplicate, unknown operator."""


@dataclass(frozen=True)
class Identity:
    """Who is asking: the operator's name and role."""

    name: str
    role: str

    def can(self, role: str) -> bool:
        """Whether this identity has at least `role`."""
        return ROLES.index(self.role) >= ROLES.index(role)


def add_operator(session: Session, name: str, role: str, *, actor: str) -> str:
    """Create an operator and return their token (shown once; only its hash is stored)."""
    if not NAME.match(name):
        raise OperatorError(
            f"bad operator name '{name}': 1-64 of a-z 0-9 . _ - starting with a letter or digit"
        )
    if name == BOOTSTRAP:
        raise OperatorError(f"operator '{name}' already exists (the operator token's built-in name)")
    if role not in ROLES:
        raise OperatorError(f"unknown role '{role}' (use {', '.join(ROLES)})")
    if session.exec(select(Operator).where(Operator.name == name)).first() is not None:
        raise OperatorError(f"operator '{name}' already exists (names are never reused)")
    key_id = secrets.token_hex(6)
    token = f"arena_{key_id}_{secrets.token_urlsafe(32)}"
    session.add(
        Operator(name=name, role=role, key_id=key_id, token_hash=_HASHER.hash(token), created_by=actor)
    )
    audit.record(session, actor=actor, action="operators.add", target=name, after={"role": role})
    session.commit()
    return token


def list_operators(session: Session) -> list[Operator]:
    """Every operator, revoked ones included, by name."""
    return list(session.exec(select(Operator).order_by(Operator.name)).all())


def revoke_operator(session: Session, name: str, *, actor: str, now: datetime | None = None) -> None:
    """Revoke an operator's token and end their sessions at once."""
    now = now or utcnow()
    row = session.exec(select(Operator).where(Operator.name == name)).first()
    if row is None:
        raise OperatorError(f"no operator named '{name}'")
    if row.revoked_at is not None:
        raise OperatorError(f"operator '{name}' is already revoked")
    row.revoked_at = now
    session.add(row)
    session.exec(  # type: ignore[call-overload]
        update(OperatorSession)
        .where(OperatorSession.operator_name == name, OperatorSession.revoked_at.is_(None))  # type: ignore[union-attr]
        .values(revoked_at=now)
    )
    audit.record(
        session, actor=actor, action="operators.revoke", target=name, before={"role": row.role}, after=None
    )
    session.commit()


def _dummy_hash() -> str:
    """The hash of a random token no one holds, made with the same parameters as real ones, once per process."""
    global _DUMMY_HASH
    if _DUMMY_HASH is None:
        _DUMMY_HASH = _HASHER.hash(f"arena_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}")
    return _DUMMY_HASH


def verify_token(session: Session, token: str) -> Identity | None:
    """The active operator holding `token`, or None.

    Every well-formed token costs exactly one argon2 verification: against the operator's hash when its key id
    names an active operator, else against a dummy hash. A wrong token then takes the same time whether its
    key id exists, was revoked or is unknown, so timing does not tell an attacker which key ids are real. A
    string that is not shaped like a token at all is refused at once (the shape is public: that says nothing)."""
    token = token.strip()
    match = TOKEN.match(token)
    if match is None:
        return None
    row = session.exec(select(Operator).where(Operator.key_id == match.group(1))).first()
    active = row is not None and row.revoked_at is None
    try:
        _HASHER.verify(row.token_hash if active and row is not None else _dummy_hash(), token)
    except (VerificationError, InvalidHashError):
        return None
    return Identity(row.name, row.role) if active and row is not None else None


def any_active(session: Session) -> bool:
    """Whether at least one operator is not revoked."""
    return session.exec(select(Operator.id).where(Operator.revoked_at.is_(None))).first() is not None  # type: ignore[union-attr]


def _key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def open_session(
    session: Session, who: Identity, *, now: datetime, ttl: timedelta, via: str = "token"
) -> str:
    """Start a console session for `who`; returns its random id (the cookie carries it, signed)."""
    raw = secrets.token_urlsafe(32)
    session.add(
        OperatorSession(
            id_hash=_key(raw), operator_name=who.name, role=who.role, created_at=now, expires_at=now + ttl
        )
    )
    details: dict[str, Any] = {} if via == "token" else {"via": via}  # token sign-ins are recorded as before
    audit.record(session, actor=who.name, action="operators.sign_in", target=who.name, **details)
    session.commit()
    return raw


def session_identity(session: Session, raw: str, *, now: datetime) -> Identity | None:
    """The identity of a live session (not expired, not signed out, operator not revoked), or None."""
    row = session.get(OperatorSession, _key(raw))
    if row is None or row.revoked_at is not None or row.expires_at <= now or row.role == SIGN_IN_LINK:
        return None
    if row.operator_name == BOOTSTRAP:
        return Identity(BOOTSTRAP, "admin")
    operator = session.exec(select(Operator).where(Operator.name == row.operator_name)).first()
    if operator is None or operator.revoked_at is not None:
        return None
    return Identity(operator.name, operator.role)


def close_session(session: Session, raw: str, *, now: datetime) -> None:
    """Sign out: the session stops working at once, whoever still holds its cookie."""
    row = session.get(OperatorSession, _key(raw))
    if row is not None and row.revoked_at is None:
        row.revoked_at = now
        session.add(row)
        audit.record(session, actor=row.operator_name, action="operators.sign_out", target=row.operator_name)
        session.commit()


def open_link(session: Session, name: str, *, actor: str, now: datetime, ttl: timedelta = LINK_TTL) -> str:
    """A one-time sign-in link's secret for the active operator `name` (only its SHA-256 is stored)."""
    operator = session.exec(select(Operator).where(Operator.name == name)).first()
    if operator is None or operator.revoked_at is not None:
        raise OperatorError(f"no active operator named '{name}'")
    raw = secrets.token_urlsafe(32)
    session.add(
        OperatorSession(
            id_hash=_key(raw), operator_name=name, role=SIGN_IN_LINK, created_at=now, expires_at=now + ttl
        )
    )
    audit.record(
        session, actor=actor, action="operators.sign_in_link", target=name, expires_at=str(now + ttl)
    )
    session.commit()
    return raw


def redeem_link(session: Session, raw: str, *, now: datetime) -> Identity | None:
    """The operator a one-time link signs in, using the link up; None when it is unknown, used, expired or its
    operator revoked. The use is one conditional UPDATE, so two requests racing with one link cannot both win."""
    row = session.get(OperatorSession, _key(raw))
    if row is None or row.role != SIGN_IN_LINK or row.revoked_at is not None or row.expires_at <= now:
        return None
    used = session.exec(  # type: ignore[call-overload]
        update(OperatorSession)
        .where(OperatorSession.id_hash == row.id_hash, OperatorSession.revoked_at.is_(None))  # type: ignore[arg-type,union-attr]
        .values(revoked_at=now)
    )
    session.commit()
    operator = session.exec(select(Operator).where(Operator.name == row.operator_name)).first()
    if used.rowcount != 1 or operator is None or operator.revoked_at is not None:
        return None
    return Identity(operator.name, operator.role)


def demo_operator(session: Session, *, actor: str) -> str | None:
    """The demo's operator `demo` (an admin, added the first time; its token is never shown, it signs in by
    one-time links), or None when it was revoked."""
    row = session.exec(select(Operator).where(Operator.name == DEMO)).first()
    if row is None:
        add_operator(session, DEMO, "admin", actor=actor)
        return DEMO
    return None if row.revoked_at is not None else DEMO
