"""The arena's secret: signs voter sessions and operator sign-ins, keys address hashes and pseudonyms, and
names the arena's keys in Redis. Outside `voting/` so the shared state can read it without importing voting."""

from __future__ import annotations

import secrets
from pathlib import Path

from arena.settings import Settings

__all__ = ["resolve_secret"]


def resolve_secret(settings: Settings) -> str:
    """The configured secret, or one generated once and kept beside the media folder."""
    if settings.secret_key:
        return settings.secret_key
    path = Path(settings.media_dir).resolve().parent / "secret_key"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(32)
    path.write_text(secret, encoding="utf-8")
    path.chmod(0o600)
    return secret
