"""Generation backfill on both databases: fills what is missing, retries transient errors, records permanent
failures, and survives being killed and re-run without duplicates or half-written outputs."""

import asyncio
import io
import time

import pytest
from PIL import Image
from sqlmodel import Session, func, select

from arena.db.tables import Output
from arena.generation.backfill import Backfill, RetryPolicy, plan_jobs
from arena.generation.providers.base import ContentRefused, GenerationResult, RateLimited, ServerError, Timing
from arena.generation.registry import parse_registry, sync_registry
from arena.media.store import MediaStore

MODELS = """
[[models]]
slug = "fake-a"
display_name = "Fake A"
organization = "Test"
modality = "text_to_image"
adapter = "sandbox"

[[models]]
slug = "fake-b"
display_name = "Fake B"
organization = "Test"
modality = "text_to_image"
adapter = "sandbox"
"""


def _png(color):
    out = io.BytesIO()
    Image.new("RGB", (96, 96), color).save(out, "PNG")
    return out.getvalue()


class ScriptedProvider:
    """A provider double for the backfill (adapters themselves are tested against real HTTP servers)."""

    def __init__(self, script=None, delay=0.0):
        self.script = dict(script or {})  # prompt text -> list of exceptions/bytes to return in order
        self.calls = []
        self.delay = delay

    async def generate(self, request):
        self.calls.append(request.prompt)
        if self.delay:
            await asyncio.sleep(self.delay)
        steps = self.script.get(request.prompt)
        outcome = steps.pop(0) if steps else _png((len(self.calls) % 255, 90, 30))
        if isinstance(outcome, Exception):
            raise outcome
        now = time.perf_counter()
        return GenerationResult(outcome, Timing(now - 0.2, now - 0.1, now), {"seed": 42}, {"fake": True})

    async def warm_up(self):
        return None

    async def aclose(self):
        return None


@pytest.fixture
def world(settings, initialized):
    with Session(initialized) as s:
        sync_registry(s, parse_registry(MODELS))
    return settings, initialized


def _plan(settings, engine, limit=12, **kw):
    with Session(engine) as s:
        return plan_jobs(s, settings.media_dir, modality="text_to_image", limit=limit, **kw)


def _rows(engine):
    with Session(engine) as s:
        return s.exec(select(Output).order_by(Output.prompt_id, Output.model_slug)).all()


async def _no_sleep(seconds, log=None):
    return None


def test_backfill_fills_missing_outputs_once_and_a_rerun_plans_nothing(world):
    settings, engine = world
    jobs = _plan(settings, engine, limit=10)
    assert len(jobs) == 10 and all(j.request.seed == 42 for j in jobs)
    providers = {"fake-a": ScriptedProvider(), "fake-b": ScriptedProvider()}
    report = asyncio.run(
        Backfill(engine, MediaStore(settings.media_dir), providers, sleep=_no_sleep).run(jobs)
    )
    assert report.generated == 10 and report.failed == 0
    rows = _rows(engine)
    assert len(rows) == 10 and all(r.status == "ok" and r.sent_params == {"seed": 42} for r in rows)
    assert all(abs(r.latency_s - 0.2) < 1e-6 and abs(r.first_byte_s - 0.1) < 1e-6 for r in rows)
    store = MediaStore(settings.media_dir)
    assert all(store.served_path(r.media_id) is not None for r in rows)
    planned_again = {(j.prompt_id, j.model_slug) for j in _plan(settings, engine, limit=None)}
    assert not planned_again & {(r.prompt_id, r.model_slug) for r in rows}


def test_transient_errors_are_retried_with_backoff_and_retry_after(world):
    settings, engine = world
    jobs = _plan(settings, engine, limit=1)
    text = jobs[0].request.prompt
    provider = ScriptedProvider({text: [RateLimited("slow down", retry_after=7.0), ServerError("502")]})
    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    backfill = Backfill(
        engine,
        MediaStore(settings.media_dir),
        {jobs[0].model_slug: provider},
        sleep=sleep,
        policy=RetryPolicy(max_attempts=5, base_delay=0.5, max_delay=30),
        seed=1,
    )
    report = asyncio.run(backfill.run(jobs))
    assert report.generated == 1 and len(provider.calls) == 3
    assert waits[0] == 7.0  # Retry-After honoured
    assert 0 <= waits[1] <= 1.0  # second retry: uniform(0, 0.5 * 2**1)
    assert _rows(engine)[0].attempts == 3


def test_permanent_failures_are_recorded_listed_and_only_retried_on_request(world):
    settings, engine = world
    jobs = _plan(settings, engine, limit=3, model="fake-a")
    refused, garbage = jobs[0].request.prompt, jobs[1].request.prompt
    provider = ScriptedProvider(
        {refused: [ContentRefused("moderation_blocked")], garbage: [b"<html>oops</html>"]}
    )
    slug = jobs[0].model_slug
    report = asyncio.run(
        Backfill(engine, MediaStore(settings.media_dir), {slug: provider}, sleep=_no_sleep).run(jobs)
    )
    assert report.generated == 1 and report.failed == 2
    failed = {r.prompt_id: r for r in _rows(engine) if r.status == "failed"}
    assert failed[jobs[0].prompt_id].error_kind == "content_refused"
    assert failed[jobs[1].prompt_id].error_kind == "bad_response"
    assert "image refused" in failed[jobs[1].prompt_id].error_message
    replanned = {j.prompt_id for j in _plan(settings, engine, limit=None, model=slug)}
    assert not replanned & set(failed)
    retried = {j.prompt_id for j in _plan(settings, engine, limit=None, model=slug, retry_failed=True)}
    assert set(failed) <= retried


def test_transient_failures_after_the_last_attempt_are_planned_again(world):
    settings, engine = world
    jobs = _plan(settings, engine, limit=1)
    provider = ScriptedProvider({jobs[0].request.prompt: [ServerError("500")] * 2})
    backfill = Backfill(
        engine,
        MediaStore(settings.media_dir),
        {jobs[0].model_slug: provider},
        sleep=_no_sleep,
        policy=RetryPolicy(max_attempts=2),
    )
    assert asyncio.run(backfill.run(jobs)).failed == 1
    assert _rows(engine)[0].error_kind == "server_error"
    assert [j.prompt_id for j in _plan(settings, engine, limit=1)] == [jobs[0].prompt_id]
    asyncio.run(
        Backfill(engine, MediaStore(settings.media_dir), {jobs[0].model_slug: provider}, sleep=_no_sleep).run(
            _plan(settings, engine, limit=1)
        )
    )
    assert [r.status for r in _rows(engine)] == ["ok"]


def test_a_killed_backfill_reruns_to_completion_without_duplicates(world):
    settings, engine = world
    jobs = _plan(settings, engine, limit=16)

    async def killed_midway():
        providers = {"fake-a": ScriptedProvider(delay=0.02), "fake-b": ScriptedProvider(delay=0.02)}
        backfill = Backfill(
            engine,
            MediaStore(settings.media_dir),
            providers,
            sleep=_no_sleep,
            concurrency={"fake-a": 2, "fake-b": 2},
        )
        task = asyncio.ensure_future(backfill.run(jobs))
        while backfill.report.generated < 4:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(killed_midway())
    partial = len(_rows(engine))
    assert 4 <= partial < 16
    rest = _plan(settings, engine, limit=None)
    rest = [j for j in rest if (j.prompt_id, j.model_slug) in {(k.prompt_id, k.model_slug) for k in jobs}]
    providers = {"fake-a": ScriptedProvider(), "fake-b": ScriptedProvider()}
    asyncio.run(Backfill(engine, MediaStore(settings.media_dir), providers, sleep=_no_sleep).run(rest))
    with Session(engine) as s:
        total = s.exec(select(func.count()).select_from(Output)).one()
        pairs = s.exec(select(Output.prompt_id, Output.model_slug)).all()
    assert total == 16 == len(set(pairs))
    assert all(
        r.status == "ok" and MediaStore(settings.media_dir).served_path(r.media_id) for r in _rows(engine)
    )


def test_a_limited_plan_covers_every_model_on_the_same_prompts(world):
    settings, engine = world
    jobs = _plan(settings, engine, limit=10)
    by_prompt: dict[str, set[str]] = {}
    for j in jobs:
        by_prompt.setdefault(j.prompt_id, set()).add(j.model_slug)
    # two text-to-image models: 5 prompts with both, so a limited run already makes matchups
    assert len(by_prompt) == 5 and all(models == {"fake-a", "fake-b"} for models in by_prompt.values())
