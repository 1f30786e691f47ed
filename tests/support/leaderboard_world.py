"""A published arena for the leaderboard tests: models of both cohorts and endpoint kinds, outputs, simulated
votes under an old and the current methodology, timing samples, and a stored snapshot with real ratings.

Built once per database backend for the whole test session (simulating votes through the service is the slow
part, especially on PostgreSQL) and closed when the session ends; the tests only read it. The integration
tests get it as the `lb` fixture of tests/integration/conftest.py; the browser tests wrap `shared_world` in a
module-scoped fixture of their own.
"""

from __future__ import annotations

import asyncio
import io
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from sqlalchemy import Engine, insert, select, update
from sqlmodel import Session

from arena.db import make_engine
from arena.db.tables import LatencySample, Prompt, Vote
from arena.generation.backfill import Backfill, plan_jobs
from arena.generation.providers.base import GenerationResult, Timing
from arena.initialize import initialize
from arena.leaderboard.snapshots import take_snapshot
from arena.media.store import MediaStore
from arena.settings import Settings
from arena.simulation.voters import simulate
from arena.voting.service import ArenaService
from prompts_taxonomy import load_taxonomy
from tests.support.pg_schemas import create_schema, drop_schemas, schema_url

OLD_METHODOLOGY = "2026-05"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PROMPTS_PER_MODALITY = 8

# slug, modality, endpoint kind, cohort, price per image, release date, anchor, true rating, median seconds
MODELS = [
    ("lb-aurora", "text_to_image", "standard", "current", 0.06, "2026-09-15", False, 1150.0, 4.5),
    ("lb-meridian", "text_to_image", "standard", "current", 0.01, "2026-06-02", True, 1000.0, 2.0),
    ("lb-ember", "text_to_image", "standard", "current", 0.008, "2026-03-20", False, 950.0, 1.5),
    ("lb-ember-turbo", "text_to_image", "modified", "current", 0.002, "2026-04-10", False, 850.0, 0.8),
    ("lb-relic", "text_to_image", "standard", "legacy", 0.02, "2024-11-05", False, 800.0, 2.5),
    ("lb-fossil", "text_to_image", "standard", "legacy", None, None, False, 760.0, 3.0),
    ("lb-retouch", "image_editing", "standard", "current", 0.02, "2026-05-14", True, 1000.0, 2.5),
    ("lb-inkwell", "image_editing", "standard", "current", 0.05, "2026-08-30", False, 1120.0, 5.5),
    ("lb-palimpsest", "image_editing", "standard", "legacy", 0.015, "2025-01-22", False, 880.0, 3.5),
]
NAMES = {
    "lb-aurora": "Aurora",
    "lb-meridian": "Meridian",
    "lb-ember": "Ember",
    "lb-ember-turbo": "Ember Turbo",
    "lb-relic": "Relic",
    "lb-fossil": "Fossil",
    "lb-retouch": "Retouch",
    "lb-inkwell": "Inkwell",
    "lb-palimpsest": "Palimpsest",
}
TRUTH = {m[0]: m[7] for m in MODELS}


@dataclass
class LeaderboardWorld:
    """What the tests get: the settings (demo mode), the engine, and the time the snapshot was taken."""

    settings: Settings
    engine: Engine
    now: datetime = NOW
    votes: dict[str, int] = field(default_factory=dict)

    def clock(self) -> datetime:
        """The app's clock: frozen at the snapshot time."""
        return self.now


def models_toml() -> str:
    """The registry of the test world."""
    out = []
    for slug, modality, kind, cohort, price, release, anchor, _truth, _median in MODELS:
        lines = [
            "[[models]]",
            f'slug = "{slug}"',
            f'display_name = "{NAMES[slug]} (test)"',
            f'organization = "{"Org " + NAMES[slug][0]}"',
            f'modality = "{modality}"',
            'adapter = "sandbox"',
            f'endpoint_kind = "{kind}"',
            f'cohort = "{cohort}"',
            f"anchor = {'true' if anchor else 'false'}",
        ]
        if price is not None:
            lines.append(f"price_per_image_usd = {price}")
        if release is not None:
            lines.append(f"release_date = {release}")
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


class _ColourProvider:
    """A flat image whose colour depends on the model: fast, and enough to tell outputs apart."""

    def __init__(self, index: int) -> None:
        self.colour = (40 * index % 255, 90 + 15 * index % 120, 200 - 20 * index)

    async def generate(self, request: object) -> GenerationResult:
        out = io.BytesIO()
        Image.new("RGB", (64, 64), self.colour).save(out, "PNG")
        now = time.perf_counter()
        return GenerationResult(out.getvalue(), Timing(now - 0.5, now - 0.2, now), {})

    async def warm_up(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


def _generate(settings: Settings, engine: Engine) -> None:
    with Session(engine) as s:
        jobs = plan_jobs(s, settings.media_dir)
    keep: dict[str, list[str]] = {}
    for job in jobs:
        ids = keep.setdefault(job.request.modality, [])
        if job.prompt_id not in ids and len(ids) < PROMPTS_PER_MODALITY:
            ids.append(job.prompt_id)
    jobs = [j for j in jobs if j.prompt_id in keep[j.request.modality]]
    providers = {m[0]: _ColourProvider(i) for i, m in enumerate(MODELS)}
    backfill = Backfill(engine, MediaStore(settings.media_dir), providers)
    worker = threading.Thread(target=lambda: asyncio.run(backfill.run(jobs)))
    worker.start()
    worker.join()


def _latency(engine: Engine) -> None:
    rng = np.random.default_rng(11)
    rows = []
    for slug, *_rest, median in MODELS:
        for k in range(56):
            started = NOW - timedelta(hours=6 * k + float(rng.uniform(0, 5)))
            failed = k % 19 == 7
            rows.append(
                {
                    "run_id": f"run-{k}",
                    "model_slug": slug,
                    "started_at": started,
                    "status": "failed" if failed else "ok",
                    "seconds": None if failed else float(median * rng.lognormal(0.0, 0.3)),
                    "error_kind": "timeout" if failed else None,
                }
            )
    with engine.begin() as conn:
        conn.execute(insert(LatencySample), rows)


def _votes(settings: Settings, engine: Engine, modality: str, n: int, seed: int, start: datetime) -> None:
    service = ArenaService(engine, settings, load_taxonomy())
    simulate(service, votes=n, voters=12, truth=TRUTH, seed=seed, modality=modality, start=start)


def build_world(database_url: str, root: Path, *, interval: str = "bootstrap") -> LeaderboardWorld:
    """Initialise a database at `database_url` (media under `root`) and publish a snapshot over it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "models.toml").write_text(models_toml(), encoding="utf-8")
    settings = Settings(
        database_url=database_url,
        media_dir=root / "media",
        models_file=root / "models.toml",
        operator_token="test-operator-token",
        demo_mode=True,
        bootstrap_rounds=100,
        interval_method=interval,
        min_votes=40,
        _env_file=None,  # type: ignore[call-arg]
    )
    engine = make_engine(database_url)
    initialize(settings, engine)
    _generate(settings, engine)
    old = settings.model_copy(update={"methodology_version": OLD_METHODOLOGY})
    start = NOW - timedelta(days=3)
    _votes(old, engine, "text_to_image", 50, 1, start)
    _votes(settings, engine, "text_to_image", 150, 2, start + timedelta(days=1))
    _votes(settings, engine, "image_editing", 60, 3, start + timedelta(days=1))
    _latency(engine)
    take_snapshot(engine, settings, seed=5, now=NOW)
    _retire_voted_prompts(engine)
    return LeaderboardWorld(settings=settings, engine=engine)


def _retire_voted_prompts(engine: Engine) -> None:
    """Retire every other voted prompt: model pages show examples only from prompts no longer served."""
    with engine.begin() as conn:
        voted = sorted(r[0] for r in conn.execute(select(Vote.prompt_id).distinct()).all())
        conn.execute(
            update(Prompt)
            .where(Prompt.id.in_(voted[::2]))  # type: ignore[attr-defined]
            .values(status="retired", retired_reason="test: examples", retired_at=NOW)
        )


_WORLDS: dict[str, LeaderboardWorld] = {}
_SCHEMAS: list[str] = []


def _close_all() -> None:
    for world in _WORLDS.values():
        world.engine.dispose()
    _WORLDS.clear()
    drop_schemas(_SCHEMAS)
    _SCHEMAS.clear()


def shared_world(request: pytest.FixtureRequest, backend: str) -> LeaderboardWorld:
    """The session's world on `backend` ("sqlite" or "postgres"), built on first use.

    PostgreSQL's JSON type refuses Infinity, which a bootstrap interval reaches when a model has no loss or no
    win in some replicate of a small slice board, so the PostgreSQL world uses sandwich intervals (always
    finite); the SQLite world keeps the seeded bootstrap.
    """
    if backend in _WORLDS:
        return _WORLDS[backend]
    if not _WORLDS and not _SCHEMAS:
        request.config.add_cleanup(_close_all)
    root = request.getfixturevalue("tmp_path_factory").mktemp(f"leaderboard-{backend}")
    if backend == "sqlite":
        world = build_world(f"sqlite:///{root / 'arena.db'}", root)
    else:
        schema = create_schema("lb_")
        _SCHEMAS.append(schema)
        world = build_world(schema_url(schema), root, interval="sandwich")
    _WORLDS[backend] = world
    return world
