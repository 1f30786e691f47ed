"""Which timing prompt a model gets: one it has not been sent within the window (14 days), drawn uniformly.

The choice is a pure function of the active prompt ids, the model's recent uses and an RNG; the query for
recent uses counts failed calls too (the provider saw the prompt either way).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Engine, func, select

from arena.db.tables import LatencySample, TimingPrompt
from arena.leaderboard.latency import WINDOW

_SAMPLES = LatencySample.__table__  # type: ignore[attr-defined]
_PROMPTS = TimingPrompt.__table__  # type: ignore[attr-defined]


def choose_prompt(
    active: Sequence[str], recent: Mapping[str, datetime], rng: random.Random
) -> tuple[str, bool]:
    """(prompt id, fresh): uniform among prompts not in `recent`; when all are, the least recently used one."""
    if not active:
        raise ValueError("the timing set has no active prompts: run `arena init`")
    fresh = sorted(set(active) - set(recent))
    if fresh:
        return rng.choice(fresh), True
    return min(active, key=lambda pid: (recent[pid], pid)), False


def active_timing_prompts(engine: Engine) -> dict[str, str]:
    """Active timing prompts: id -> text."""
    with engine.connect() as conn:
        rows = conn.execute(select(_PROMPTS.c.id, _PROMPTS.c.text).where(_PROMPTS.c.active.is_(True))).all()
    return {r.id: r.text for r in rows}


def recent_uses(
    engine: Engine, models: Iterable[str], now: datetime, *, window: timedelta = WINDOW
) -> dict[str, dict[str, datetime]]:
    """Model -> {prompt id -> last use} for samples started after now - window (failed calls included)."""
    slugs = list(models)
    uses: dict[str, dict[str, datetime]] = {slug: {} for slug in slugs}
    if not slugs:
        return uses
    with engine.connect() as conn:
        rows = conn.execute(
            select(_SAMPLES.c.model_slug, _SAMPLES.c.timing_prompt_id, func.max(_SAMPLES.c.started_at))
            .where(
                _SAMPLES.c.model_slug.in_(slugs),
                _SAMPLES.c.started_at > now - window,
                _SAMPLES.c.timing_prompt_id.is_not(None),
            )
            .group_by(_SAMPLES.c.model_slug, _SAMPLES.c.timing_prompt_id)
        ).all()
    for slug, prompt_id, last in rows:
        uses[slug][prompt_id] = last
    return uses


__all__ = ["active_timing_prompts", "choose_prompt", "recent_uses"]
