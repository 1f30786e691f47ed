"""The online vote filters: minimum interaction time, honeypot and image fetch, each judging a vote from the
signals stored on it when it arrives, so changing a filter and re-running it over every vote loses nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.settings import Settings
from arena.voting.filters.protocol import OnlineFilter

__all__ = ["HONEYPOT", "IMAGE_FETCH", "MIN_TIME", "ONLINE_FILTERS"]


def _too_fast(signals: Mapping[str, Any], settings: Settings) -> str | None:
    seconds = float(signals.get("seconds", 0.0))
    if seconds < settings.min_vote_seconds:
        return f"voted {seconds:.2f}s after serving (< {settings.min_vote_seconds:g}s)"
    return None


def _honeypot_filled(signals: Mapping[str, Any], _settings: Settings) -> str | None:
    return "hidden honeypot field was filled" if signals.get("honeypot") else None


def _images_not_fetched(signals: Mapping[str, Any], _settings: Settings) -> str | None:
    return None if signals.get("images_fetched") else "client never fetched both images"


MIN_TIME = OnlineFilter("min_time", "1", "too fast", _too_fast)
HONEYPOT = OnlineFilter("honeypot", "1", "hidden form field filled", _honeypot_filled)
IMAGE_FETCH = OnlineFilter("image_fetch", "1", "images not loaded", _images_not_fetched)
ONLINE_FILTERS = (MIN_TIME, HONEYPOT, IMAGE_FETCH)
