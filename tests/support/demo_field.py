"""A demo-sized field for tests: six text-to-image models (15 pairs) with outputs for the first ten prompts,
drawn by the flat-colour provider double of tests/conftest.py."""

from __future__ import annotations

import asyncio
import threading

from sqlalchemy import Engine
from sqlmodel import Session

from arena.generation.backfill import Backfill, plan_jobs
from arena.generation.registry import parse_registry, sync_registry
from arena.media.store import MediaStore
from arena.settings import Settings
from tests.conftest import WORLD_MODELS, ColourProvider


def build_demo_field(settings: Settings, engine: Engine, *, models: int = 6, prompts: int = 10) -> None:
    """Register `models` text-to-image models and give each an output for the first `prompts` prompts."""
    text = "".join(WORLD_MODELS.format(i=i, modality="text_to_image") for i in range(models))
    with Session(engine) as s:
        sync_registry(s, parse_registry(text))
        jobs = plan_jobs(s, settings.media_dir)
    chosen = list(dict.fromkeys(j.prompt_id for j in jobs))[:prompts]
    jobs = [j for j in jobs if j.prompt_id in chosen]
    providers = {f"model-{i}": ColourProvider(i) for i in range(models)}
    backfill = Backfill(engine, MediaStore(settings.media_dir), providers)
    # In a thread of its own: Playwright's sync API may already run an event loop in this one.
    worker = threading.Thread(target=lambda: asyncio.run(backfill.run(jobs)))
    worker.start()
    worker.join()
    assert backfill.report.generated == models * prompts
