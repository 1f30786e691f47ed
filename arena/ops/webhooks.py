"""Webhook registration: which URLs an operator may register (allow-listed hosts, https, no private addresses),
and adding, listing and removing them, each audited.

The target rule, checked at registration and again before every delivery attempt (a host's addresses can change):
the host must be listed in `ARENA_WEBHOOK_ALLOWED_HOSTS`; the scheme must be https, except for a loopback host
(`localhost`, 127.0.0.0/8, ::1) where http is accepted for development and tests; every address the host resolves
to must be public, unless `ARENA_WEBHOOK_ALLOW_PRIVATE_ADDRESSES` is on. Loopback addresses pass only when the URL
names a loopback host itself, so a public name cannot point the arena at its own machine.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import socket
from collections.abc import Callable, Sequence
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import Engine, select
from sqlmodel import Session

from arena.db.tables import Webhook, utcnow
from arena.ops import audit
from arena.settings import Settings

EVENTS = ("snapshot.published", "generation.failures", "retirement.ready")
PING = "ping"
LOOPBACK_NAMES = frozenset({"localhost"})
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")

Resolver = Callable[[str, int], list[str]]


class WebhookError(ValueError):
    """A webhook that cannot be registered, removed or called; the message is one line naming the reason."""


def allowed_hosts(settings: Settings) -> frozenset[str]:
    """The allow-list of `ARENA_WEBHOOK_ALLOWED_HOSTS`, lower-cased, without trailing dots."""
    return frozenset(
        h.strip().lower().rstrip(".") for h in settings.webhook_allowed_hosts.split(",") if h.strip()
    )


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (the system resolver)."""
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


def _is_loopback_host(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_target(url: str, settings: Settings, resolver: Resolver = resolve) -> str:
    """Refuse a URL the target rule (module docstring) forbids; returns the URL's host. WebhookError otherwise."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().rstrip(".")
    if parts.scheme not in ("http", "https") or not host:
        raise WebhookError(f"'{url}' is not an http(s) URL with a host")
    if parts.username or parts.password:
        raise WebhookError("a webhook URL may not carry a user name or password")
    hosts = allowed_hosts(settings)
    if not hosts:
        raise WebhookError(
            "no webhook host is allowed: set ARENA_WEBHOOK_ALLOWED_HOSTS (comma-separated host names)"
        )
    if host not in hosts:
        raise WebhookError(f"host '{host}' is not in ARENA_WEBHOOK_ALLOWED_HOSTS")
    loopback = _is_loopback_host(host)
    if parts.scheme != "https" and not loopback:
        raise WebhookError(f"'{host}' is not a loopback host: the URL must use https")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise WebhookError(f"bad port in '{url}': {exc}") from exc
    try:
        addresses = resolver(host, port)
    except OSError as exc:
        raise WebhookError(f"cannot resolve '{host}': {exc}") from exc
    for text in addresses:
        address = ipaddress.ip_address(text.split("%")[0])
        if address.is_loopback:
            if not loopback:
                raise WebhookError(f"'{host}' resolves to the loopback address {text}; refused")
        elif not address.is_global and not settings.webhook_allow_private_addresses:
            raise WebhookError(
                f"'{host}' resolves to the non-public address {text}; refused "
                "(ARENA_WEBHOOK_ALLOW_PRIVATE_ADDRESSES allows it)"
            )
    return host


def parse_events(value: str | Sequence[str]) -> list[str]:
    """The events of a comma list (or list), each checked against `EVENTS`."""
    items = value.split(",") if isinstance(value, str) else list(value)
    events = sorted({e.strip() for e in items if e.strip()})
    if not events:
        raise WebhookError(f"name at least one event: {', '.join(EVENTS)}")
    unknown = [e for e in events if e not in EVENTS]
    if unknown:
        raise WebhookError(f"unknown event(s) {', '.join(unknown)}; known: {', '.join(EVENTS)}")
    return events


def add_webhook(
    engine: Engine,
    settings: Settings,
    url: str,
    events: str | Sequence[str],
    *,
    actor: str,
    secret_env: str = "",
    resolver: Resolver = resolve,
) -> tuple[Webhook, str]:
    """Register `url` for `events` (audited). The secret comes from the environment variable `secret_env` (read
    again at each delivery, never stored) or is generated; returns the row and the generated secret ('' if none)."""
    url = url.strip()
    check_target(url, settings, resolver)
    chosen = parse_events(events)
    generated = ""
    if secret_env:
        if not _ENV_NAME.match(secret_env):
            raise WebhookError(f"'{secret_env}' is not an environment variable name")
        if not os.environ.get(secret_env):
            raise WebhookError(f"environment variable {secret_env} is unset or empty")
    else:
        generated = secrets.token_hex(32)
    with Session(engine) as session:
        row = Webhook(url=url, events=chosen, secret=generated, secret_env=secret_env, created_by=actor)
        session.add(row)
        session.flush()
        audit.record(
            session,
            actor=actor,
            action="webhooks.add",
            target=url,
            after={"id": row.id, "url": url, "events": chosen, "secret_env": secret_env},
        )
        session.commit()
        session.refresh(row)
    return row, generated


def list_webhooks(engine: Engine, *, include_removed: bool = False) -> list[Webhook]:
    """Registered webhooks, oldest first (removed ones only when asked)."""
    stmt = select(Webhook).order_by(Webhook.id)  # type: ignore[arg-type]
    if not include_removed:
        stmt = stmt.where(Webhook.removed_at.is_(None))  # type: ignore[union-attr]
    with Session(engine) as session:
        return list(session.execute(stmt).scalars())


def get_webhook(engine: Engine, webhook_id: int) -> Webhook:
    """An active webhook by id; WebhookError if there is none."""
    with Session(engine) as session:
        row = session.get(Webhook, webhook_id)
    if row is None or row.removed_at is not None:
        raise WebhookError(f"no webhook {webhook_id}")
    return row


def remove_webhook(engine: Engine, webhook_id: int, *, actor: str, now: datetime | None = None) -> Webhook:
    """Stop calling a webhook (audited); its delivery history stays."""
    with Session(engine) as session:
        row = session.get(Webhook, webhook_id)
        if row is None or row.removed_at is not None:
            raise WebhookError(f"no webhook {webhook_id}")
        row.removed_at = now or utcnow()
        session.add(row)
        audit.record(
            session,
            actor=actor,
            action="webhooks.remove",
            target=row.url,
            before={"id": row.id, "url": row.url, "events": row.events},
        )
        session.commit()
        session.refresh(row)
    return row


def secret_of(row: Webhook) -> str:
    """The webhook's signing secret: its environment variable's value, or the stored generated one."""
    if row.secret_env:
        value = os.environ.get(row.secret_env, "")
        if not value:
            raise WebhookError(f"environment variable {row.secret_env} (the webhook's secret) is unset")
        return value
    return row.secret
