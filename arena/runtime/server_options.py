"""How every server of the app is started: uvicorn options from the settings, so proxy headers are believed
only from ARENA_TRUSTED_PROXIES (uvicorn's own default trusts X-Forwarded-For from 127.0.0.1, which would let
any local client pick its address and dodge rate limits and the per-address filters)."""

from __future__ import annotations

from typing import Any

from arena.settings import Settings


def trusted_proxies(settings: Settings) -> list[str]:
    """The configured proxy addresses, in order."""
    return [p.strip() for p in settings.trusted_proxies.split(",") if p.strip()]


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy options: X-Forwarded-* honoured only from the configured proxies, else never."""
    proxies = trusted_proxies(settings)
    return {"proxy_headers": bool(proxies), "forwarded_allow_ips": proxies or []}


def uvicorn_options(
    settings: Settings, *, host: str | None = None, port: int | None = None
) -> dict[str, Any]:
    """Everything `arena serve` passes to uvicorn."""
    from arena.runtime.observability import log_config

    return {
        "host": host or settings.host,
        "port": port or settings.port,
        "log_level": settings.log_level,
        "log_config": log_config(settings),
        "server_header": False,
        "access_log": False,  # the app logs each request itself (JSON, with a request id, no address)
        **proxy_options(settings),
    }
