"""Which two models an open battle gets: the modality's models that may take part (active, not taken out of open
battles by an operator, priced, under today's per-model cap), paired by the same variety rules as the curated arena
(`arena.voting.matchmaking`: no repeat, variety, window cap, model share), read from the open battles' own window.
Without a vote plan of its own yet, the draw among the allowed pairs is uniform (`choose_pair` with no standings
weighs every pair alike)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection, select

from arena.db.tables import Model, OpenBattle
from arena.voting.matchmaking import (
    FIRST_MATCHUPS,
    NO_REPEAT,
    WINDOW,
    Recent,
    choose_pair,
    model_share_cap,
    pair_key,
    window_shares,
)


@dataclass(frozen=True)
class Candidate:
    """A model an open battle may use: what building its provider and pricing it need."""

    slug: str
    adapter: str
    params: dict[str, Any]
    price: float


def candidates(conn: Connection, modality: str) -> list[Candidate]:
    """The modality's models open battles may use: active, not switched off for open battles, with a price (a
    model without one could not be held to the spend caps, so it never takes part)."""
    rows = conn.execute(
        select(Model.slug, Model.adapter, Model.params, Model.price_per_image_usd).where(
            Model.modality == modality,
            Model.active.is_(True),  # type: ignore[attr-defined]
            Model.console_inactive.is_(False),  # type: ignore[attr-defined]
            Model.open_excluded.is_(False),  # type: ignore[attr-defined]
            Model.price_per_image_usd.is_not(None),  # type: ignore[union-attr]
        )
    ).all()
    return [Candidate(r.slug, r.adapter, dict(r.params or {}), float(r.price_per_image_usd)) for r in rows]


_B = OpenBattle.__table__  # type: ignore[attr-defined]


def recent_open(conn: Connection, modality: str, session_id: str) -> Recent:
    """What the variety rules read, from the open battles: pair counts among the modality's last WINDOW - 1
    battles, and this session's first FIRST_MATCHUPS and last NO_REPEAT pairs and its battle count."""
    pairs = select(_B.c.left_model, _B.c.right_model)
    window = Counter(
        pair_key(a, b)
        for a, b in conn.execute(
            pairs.where(_B.c.modality == modality).order_by(_B.c.created_at.desc()).limit(WINDOW - 1)
        )
    )
    mine = pairs.where(_B.c.modality == modality, _B.c.session_id == session_id)
    first = [pair_key(a, b) for a, b in conn.execute(mine.order_by(_B.c.created_at).limit(FIRST_MATCHUPS))]
    last = [pair_key(a, b) for a, b in conn.execute(mine.order_by(_B.c.created_at.desc()).limit(NO_REPEAT))]
    served = (
        len(first) if len(first) < FIRST_MATCHUPS else FIRST_MATCHUPS
    )  # past the first 20 the count is moot
    return Recent(window, first, last[::-1], served)


def pick_pair(
    models: list[Candidate], recent: Recent, rng: np.random.Generator, share_factor: float
) -> tuple[Candidate, Candidate]:
    """Two distinct models among `models` by the variety rules, in random left/right order."""
    by_slug = {m.slug: m for m in models}
    max_share = model_share_cap(len(by_slug), share_factor)
    shares = window_shares(recent.window) if max_share < 1.0 else {}
    left, right = choose_pair(sorted(by_slug), {}, rng, shares=shares, max_share=max_share, recent=recent)
    return by_slug[left], by_slug[right]
