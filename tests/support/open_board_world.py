"""A database with open-prompt battles and votes of known strengths, written as the live flow stores them:
three text-to-image models with many votes (log-strengths 0, 0.5, 1.0 nats, no ties), a fourth with three
votes, tags on every battle, consent on some, personal data in some prompts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import Engine, insert

from arena.db import make_engine
from arena.db.tables import OpenBattle, OpenVote
from arena.initialize import initialize
from arena.settings import Settings

MODELS = ("model-0", "model-1", "model-2", "model-3")
STRENGTH = {"model-0": 0.0, "model-1": 0.5, "model-2": 1.0}
NEWCOMER = "model-3"
MIN_VOTES = 40
N_VOTES = 600
START = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
SECRET = "write to jane.doe@example.com or call +1 (555) 123-4567"


def models_toml() -> str:
    """Four sandbox text-to-image models."""
    return "".join(
        f'[[models]]\nslug = "{m}"\ndisplay_name = "{m}"\norganization = "Org"\nmodality = "text_to_image"\n'
        'adapter = "sandbox"\n\n'
        for m in MODELS
    )


@dataclass
class OpenWorld:
    """The settings, engine and what was stored (votes as (a, b, winner, use_case))."""

    settings: Settings
    engine: Engine
    votes: list[tuple[str, str, str, str]] = field(default_factory=list)
    consented: list[str] = field(default_factory=list)  # battle ids whose voter consented
    private: list[str] = field(default_factory=list)

    @property
    def clock(self) -> datetime:
        return NOW


def _battle(i: int, a: str, b: str, use_case: str, consent: bool, text: str) -> dict[str, object]:
    created = START + timedelta(minutes=i)
    return {
        "id": f"ob-{i:04d}",
        "modality": "text_to_image",
        "prompt_text": text,
        "left_model": a,
        "right_model": b,
        "left_status": "ok",
        "right_status": "ok",
        "left_token": f"lt-{i}",
        "right_token": f"rt-{i}",
        "status": "voted",
        "session_id": f"session-{i % 7}",
        "client_hash": f"client-{i % 5}",
        "challenge": f"ch-{i}",
        "consent": consent,
        "cost_usd": 0.0,
        "spend_day": created.strftime("%Y-%m-%d"),
        "moderation": {},
        "use_case": use_case,
        "capability": "lighting",
        "tagged_at": created,
        "created_at": created,
        "ready_at": created,
        "finished_at": created,
        "expires_at": created + timedelta(hours=1),
    }


def build(database_url: str, root: Path, seed: int = 5) -> OpenWorld:
    """Initialise (no starter pool) and store the open battles and their votes."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "models.toml").write_text(models_toml(), encoding="utf-8")
    settings = Settings(
        database_url=database_url,
        media_dir=root / "media",
        models_file=root / "models.toml",
        operator_token="test-operator-token",
        load_starter_pool=False,
        min_votes=MIN_VOTES,
        bootstrap_rounds=200,
        overall_anchor="model-0",
        slice_anchor="model-0",
        _env_file=None,  # type: ignore[call-arg]
    )
    engine = make_engine(database_url)
    initialize(settings, engine)
    world = OpenWorld(settings=settings, engine=engine)
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a in STRENGTH for b in STRENGTH if a < b]
    battles, votes = [], []
    plan = [pairs[int(rng.integers(len(pairs)))] for _ in range(N_VOTES)]
    plan += [(NEWCOMER, "model-1"), (NEWCOMER, "model-2"), ("model-0", NEWCOMER)]
    for i, (a, b) in enumerate(plan):
        if NEWCOMER in (a, b):
            a_wins = i % 3 != 2  # the newcomer wins two of three
            a_wins = a_wins if a == NEWCOMER else not a_wins
        else:
            p = 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a]))
            a_wins = bool(rng.random() < p)
        use_case = "marketing_advertising" if i % 2 else "consumer"
        consent = i % 3 == 0
        text = f"a lighthouse at dusk number {i}, painted in oils" + (f", {SECRET}" if i % 9 == 0 else "")
        battles.append(_battle(i, a, b, use_case, consent, text))
        (world.consented if consent else world.private).append(f"ob-{i:04d}")
        when = START + timedelta(minutes=i, seconds=30)
        votes.append(
            {
                "battle_id": f"ob-{i:04d}",
                "modality": "text_to_image",
                "model_a": a,
                "model_b": b,
                "a_side": "left",
                "winner": "model_a" if a_wins else "model_b",
                "methodology": settings.methodology_version,
                "session_id": f"session-{i % 7}",
                "client_hash": f"client-{i % 5}",
                "served_at": when,
                "voted_at": when,
                "signals": {},
            }
        )
        world.votes.append((a, b, "model_a" if a_wins else "model_b", use_case))
    with engine.begin() as conn:
        conn.execute(insert(OpenBattle), battles)
        conn.execute(insert(OpenVote), votes)
    return world
