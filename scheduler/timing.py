"""Timing runs: one timed generation per active text-to-image model, each with a fresh timing prompt.

Per the methodology: 1024x1024 (or the smallest supported square above it), batch of one, the adapter's
synchronous endpoint where it has one, otherwise submit-and-poll every 100 ms; the client is built and warmed
up before the clock starts; no retries; failures are stored with their kind. Samples land in
`latency_samples`, which `arena.leaderboard.latency.latency_stats` summarizes for the pages.
"""

from __future__ import annotations

import contextlib
import random
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import httpx
from sqlalchemy import Engine, func, insert, select

from arena.db.tables import LatencySample, Model, utcnow
from arena.generation.providers import (
    GenerationRequest,
    MissingApiKey,
    Provider,
    ProviderError,
    build_provider,
)
from arena.generation.providers.adapters import parse_params
from arena.generation.providers.sandbox import SandboxProvider
from arena.leaderboard.latency import TIMED_MODALITY as MODALITY
from arena.runtime.observability import GENERATION_SECONDS, TIMINGS
from arena.settings import Settings
from scheduler.measure import Measurement, PerfCounter, measure, timing_client
from scheduler.selection import active_timing_prompts, choose_prompt, recent_uses

Sleep = Callable[[float], Awaitable[None]]
_SAMPLES = LatencySample.__table__  # type: ignore[attr-defined]
_MODELS = Model.__table__  # type: ignore[attr-defined]
WARM_UP_URL_PARAMS = ("submit_url", "endpoint", "base_url")  # the host whose connection a warm-up opens
DEFAULT_ENDPOINTS = {
    "google_genai": "https://generativelanguage.googleapis.com/",
    "stability": "https://api.stability.ai/",
    "ideogram": "https://api.ideogram.ai/",
}


@dataclass(frozen=True)
class SampleOutcome:
    """What one model's timed call gave."""

    model: str
    prompt_id: str
    status: str
    seconds: float | None
    error_kind: str | None
    fresh_prompt: bool


@dataclass
class TimingReport:
    """A timing run: the models planned, each outcome, models skipped (not callable) and why."""

    run_id: str
    started_at: datetime
    planned: list[str] = field(default_factory=list)
    samples: list[SampleOutcome] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    stopped: bool = False

    def summary(self) -> str:
        """One line: counts of ok, failed and skipped models."""
        ok = sum(s.status == "ok" for s in self.samples)
        failed = len(self.samples) - ok
        line = f"{ok} ok, {failed} failed, {len(self.skipped)} skipped of {len(self.planned)} model(s)"
        return line + (" (stopped early)" if self.stopped else "")

    def progress(self) -> dict[str, Any]:
        """Progress as stored on the job run: done/total and each model's outcome so far."""
        return {
            "total": len(self.planned),
            "done": len(self.samples) + len(self.skipped),
            "samples": [asdict(s) for s in self.samples],
            "skipped": dict(self.skipped),
        }


def timing_models(engine: Engine, model: str | None = None) -> list[Model]:
    """The active text-to-image models (or just `model`, which must be one of them), by slug."""
    with engine.connect() as conn:
        rows = conn.execute(select(_MODELS).order_by(_MODELS.c.slug)).all()
    models = [Model.model_validate(r._mapping) for r in rows]
    if model is None:  # external models never generate, so they have nothing to time
        return [m for m in models if m.active and m.modality == MODALITY and m.adapter != "external"]
    found = next((m for m in models if m.slug == model), None)
    if found is None or not found.active:
        raise ValueError(f"unknown or inactive model '{model}'")
    if found.adapter == "external":
        raise ValueError(f"model '{model}' is external (imported outputs): it has no endpoint to time")
    if found.modality != MODALITY:
        raise ValueError(f"model '{model}' is {found.modality}: timing runs cover text-to-image models")
    return [found]


def sample_counts(engine: Engine) -> dict[str, int]:
    """How many samples each model has (all time)."""
    with engine.connect() as conn:
        rows = conn.execute(select(_SAMPLES.c.model_slug, func.count()).group_by(_SAMPLES.c.model_slug))
        return {slug: int(n) for slug, n in rows}


def timing_request(prompt: str) -> GenerationRequest:
    """The methodology's timing request: 1024x1024 or the smallest supported square above it, one image; a queue
    adapter polls it on the methodology's fixed 100 ms grid (`timing`)."""
    return GenerationRequest(
        prompt=prompt, width=1024, height=1024, extra={"resolution": "requested", "timing": True}
    )


async def open_provider(model: Model, sleep: Sleep | None) -> tuple[Provider, httpx.AsyncClient | None]:
    """The model's provider with an HTTP client of our own (closed by the caller); ValueError on bad params."""
    params = parse_params(model.adapter, model.params)
    client = None
    if model.adapter != "sandbox":
        client = timing_client(float(params.timeout_s))
    try:
        provider = build_provider(
            model.adapter, model.params, slug=model.slug, http_client=client, sleep=sleep
        )
    except Exception:
        if client is not None:
            await client.aclose()
        raise
    return provider, client


async def warm_up(provider: Provider, client: httpx.AsyncClient | None, model: Model) -> None:
    """Authenticate and open a pooled connection before the clock starts (MissingApiKey propagates)."""
    await provider.warm_up()
    target = next((model.params.get(k) for k in WARM_UP_URL_PARAMS if model.params.get(k)), None)
    if target is None:
        target = DEFAULT_ENDPOINTS.get(model.adapter)
    if client is not None and isinstance(target, str):
        parts = urllib.parse.urlsplit(target)
        with contextlib.suppress(httpx.HTTPError):  # any answer will do: it leaves a pooled connection
            await client.get(f"{parts.scheme}://{parts.netloc}/")


def continue_sandbox_draws(provider: Provider, calls_so_far: int) -> None:
    """A sandbox model draws its latency per (slug, call number); continue the count from the stored samples,
    or every run's fresh provider would replay call 0 and the distribution would collapse to one value."""
    if isinstance(provider, SandboxProvider):
        provider._calls = calls_so_far


def store_sample(
    engine: Engine, run_id: str, model: str, prompt_id: str, started_at: datetime, m: Measurement
) -> None:
    """One row of `latency_samples`."""
    with engine.begin() as conn:
        conn.execute(
            insert(_SAMPLES).values(
                run_id=run_id,
                model_slug=model,
                timing_prompt_id=prompt_id,
                started_at=started_at,
                status=m.status,
                seconds=m.seconds,
                first_byte_seconds=m.first_byte_seconds,
                width=m.width,
                height=m.height,
                error_kind=m.error_kind,
                error_message=m.error_message,
            )
        )
    TIMINGS.labels(model, m.status).inc()
    if m.status == "ok" and m.seconds is not None:
        GENERATION_SECONDS.labels(model, "timing").observe(m.seconds)


async def _time_model(
    m: Model,
    prompt: str,
    settings: Settings,
    clock: Callable[[], datetime],
    sleep: Sleep | None,
    perf_counter: PerfCounter,
    counts: dict[str, int],
) -> tuple[datetime, Measurement] | str:
    """(start time, measurement) of one model's timed call, or why it was skipped (not callable as configured)."""
    try:
        provider, client = await open_provider(m, sleep)
    except ValueError as exc:
        return f"bad params: {exc}"
    try:
        await warm_up(provider, client, m)
        continue_sandbox_draws(provider, counts.get(m.slug, 0))
        started_at = clock()
        result = await measure(
            provider,
            timing_request(prompt),
            scratch_dir=settings.media_dir / "tmp" / "timing",
            timeout=settings.timing_timeout_seconds,
            perf_counter=perf_counter,
        )
    except MissingApiKey as exc:
        return str(exc)
    except ProviderError as exc:  # a warm-up failure other than the key: the timed call was not made
        return f"warm-up failed: {exc}"
    finally:
        await provider.aclose()
        if client is not None:
            await client.aclose()
    return started_at, result


async def run_timing(
    engine: Engine,
    settings: Settings,
    *,
    run_id: str,
    model: str | None = None,
    clock: Callable[[], datetime] = utcnow,
    rng: random.Random | None = None,
    sleep: Sleep | None = None,
    perf_counter: PerfCounter = time.perf_counter,
    progress: Callable[[TimingReport], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TimingReport:
    """Time one call per model, one model at a time (in random order) so calls do not compete for the client.

    `clock` stamps samples and drives the 14-day no-repeat rule; `sleep` and `perf_counter` let a simulation
    run on virtual time. ValueError when `model` is not an active text-to-image model.
    """
    rng = rng or random.Random()
    models = timing_models(engine, model)
    prompts = active_timing_prompts(engine)
    report = TimingReport(run_id, clock(), planned=[m.slug for m in models])
    uses = recent_uses(engine, report.planned, report.started_at)
    counts = sample_counts(engine)
    rng.shuffle(models)
    for m in models:
        if should_stop is not None and should_stop():
            report.stopped = True
            break
        prompt_id, fresh = choose_prompt(sorted(prompts), uses[m.slug], rng)
        outcome = await _time_model(m, prompts[prompt_id], settings, clock, sleep, perf_counter, counts)
        if isinstance(outcome, str):
            report.skipped[m.slug] = outcome
        else:
            started_at, result = outcome
            store_sample(engine, run_id, m.slug, prompt_id, started_at, result)
            uses[m.slug][prompt_id] = started_at
            report.samples.append(
                SampleOutcome(m.slug, prompt_id, result.status, result.seconds, result.error_kind, fresh)
            )
        if progress is not None:
            progress(report)
    return report


__all__ = [
    "MODALITY",
    "SampleOutcome",
    "TimingReport",
    "continue_sandbox_draws",
    "open_provider",
    "run_timing",
    "sample_counts",
    "store_sample",
    "timing_models",
    "timing_request",
    "warm_up",
]
