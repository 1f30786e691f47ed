"""A simulated month of votes with known per-prompt discrimination, for the retirement tests.

Four text-to-image models with true ratings 700..1450 (250 apart: wide enough that 117 decisive votes of a
coin-flip prompt bound its slope below 0.5 against a board that the coin flips themselves flatten); twelve
starter prompts (all four prompts of three cells) get outputs from every model and 130 simulated votes each
between uniformly drawn model pairs, 10% ties. On the discriminating prompts the better model wins with its
Bradley-Terry probability (the favorite wins about 88% of decisive votes); on the coin-flip prompts each side
wins half the time. Votes are inserted directly (the service path is exercised separately), then a rating
snapshot makes the current overall board.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import Engine, insert, select
from sqlmodel import Session

from arena.db.tables import Output, Prompt, Vote
from arena.generation.registry import parse_registry, sync_registry
from arena.leaderboard.snapshots import take_snapshot
from arena.settings import Settings

TRUTH = {"ret-a": 700.0, "ret-b": 950.0, "ret-c": 1200.0, "ret-d": 1450.0}
NOW = datetime(2026, 12, 1, 4, 0, tzinfo=UTC)
VOTES_PER_PROMPT = 130
# Per cell (in order): how many of its four prompts are coin flips. Cells 1 and 2 then keep 2 active
# prompts (under the minimum of 3); cell 3 keeps 3.
COIN_FLIPS_PER_CELL = (2, 2, 1)
CELLS = (("marketing_advertising", "text_rendering"), ("consumer", "material"), ("ui_ux_design", "layout"))


@dataclass
class Month:
    """The settings to use (demo mode: simulated votes count), and which prompts are which."""

    settings: Settings
    coin_flips: list[str] = field(default_factory=list)
    discriminating: list[str] = field(default_factory=list)
    votes: int = 0


def month_settings(settings: Settings, **extra: object) -> Settings:
    """The test settings with simulated votes counted and a quick bootstrap."""
    return settings.model_copy(update={"demo_mode": True, "bootstrap_rounds": 20, **extra})


def _registry() -> str:
    return "\n".join(
        f'[[models]]\nslug = "{slug}"\ndisplay_name = "{slug}"\norganization = "Org"\n'
        f'modality = "text_to_image"\nadapter = "sandbox"\nanchor = {"true" if slug == "ret-b" else "false"}\n'
        for slug in TRUTH
    )


def build_month(settings: Settings, engine: Engine, *, seed: int = 11) -> Month:
    """Register the models, add outputs and a month of votes, take a snapshot; return what was built."""
    month = Month(month_settings(settings))
    with Session(engine) as s:
        sync_registry(s, parse_registry(_registry()))
    rng = np.random.default_rng(seed)
    with engine.begin() as conn:
        for (use_case, capability), flips in zip(CELLS, COIN_FLIPS_PER_CELL, strict=True):
            ids = list(
                conn.execute(
                    select(Prompt.id)
                    .where(
                        Prompt.modality == "text_to_image",
                        Prompt.use_case == use_case,
                        Prompt.capability == capability,
                    )
                    .order_by(Prompt.id)
                ).scalars()
            )
            assert len(ids) == 4, (use_case, capability, ids)
            month.coin_flips += ids[:flips]
            month.discriminating += ids[flips:]
        rows, votes = [], []
        for prompt_id in month.coin_flips + month.discriminating:
            for slug in TRUTH:
                rows.append(
                    {
                        "prompt_id": prompt_id,
                        "model_slug": slug,
                        "status": "ok",
                        "media_id": secrets.token_hex(16),
                        "sent_params": {},
                        "raw_metadata": {},
                        "created_at": NOW - timedelta(days=30),
                    }
                )
        conn.execute(insert(Output), rows)
        ordered = sorted(month.coin_flips + month.discriminating)
        prompts = {p.id: p for p in conn.execute(select(Prompt).where(Prompt.id.in_(ordered)))}
        slugs = sorted(TRUTH)
        for prompt_id in ordered:
            prompt = prompts[prompt_id]
            fair = prompt_id in month.coin_flips
            for _ in range(VOTES_PER_PROMPT):
                a, b = sorted(rng.choice(slugs, size=2, replace=False))
                p_a = 0.5 if fair else 1.0 / (1.0 + 10 ** ((TRUTH[b] - TRUTH[a]) / 400.0))
                u = rng.random()
                winner = (
                    ("tie" if rng.random() < 0.5 else "tie (bothbad)")
                    if u < 0.1
                    else ("model_a" if rng.random() < p_a else "model_b")
                )
                served = NOW - timedelta(days=20) + timedelta(seconds=len(votes) * 30)
                votes.append(
                    {
                        "matchup_id": uuid.uuid4().hex,
                        "modality": "text_to_image",
                        "prompt_id": prompt_id,
                        "use_case": prompt.use_case,
                        "capability": prompt.capability,
                        "model_a": a,
                        "model_b": b,
                        "a_side": "left",
                        "winner": winner,
                        "methodology": settings.methodology_version,
                        "session_id": f"sim-{len(votes) % 97}",
                        "source": "simulated",
                        "served_at": served,
                        "voted_at": served + timedelta(seconds=9),
                        "signals": {},
                    }
                )
        conn.execute(insert(Vote), votes)
        month.votes = len(votes)
    snap = take_snapshot(
        engine, month.settings, modality="text_to_image", refilter=False, now=NOW - timedelta(hours=1)
    )
    assert snap.boards.get("text_to_image/overall") == month.votes, snap.failures
    return month
