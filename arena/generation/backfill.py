"""Generation backfill: fill every missing (active prompt x active model) output.

Published outputs (shown with their model's name: `arena.media.publication`) do not count: a restored prompt whose
outputs were published gets new ones, with the seed moved on by the number of published outputs of the pair
(a seeded provider would otherwise redraw the published image), and a result that repeats a published image of
the prompt (same bytes, or the same picture by perceptual hash) is recorded as a failure, never served.

Bounded concurrency per model, retries under `arena.runtime.retry.RetryPolicy` (exponential backoff with full jitter)
on rate limits, timeouts and server errors (honouring Retry-After), permanent failures recorded with their
reason. Each output is written file-first (atomic rename) and then committed as one row; the (prompt, model)
unique constraint means a killed and re-run backfill neither duplicates nor half-writes an output.
"""

from __future__ import annotations

import asyncio
import errno
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, select

from arena.db.tables import Model, Output, Prompt, ReferenceImage
from arena.generation.providers import build_provider
from arena.generation.providers.base import (
    DEFAULT_SEED,
    GenerationRequest,
    GenerationResult,
    Provider,
    ProviderError,
)
from arena.media.images import ImageRejected
from arena.media.publication import looks_alike
from arena.media.store import MediaStore, StoredImage
from arena.ops.webhook_delivery import emit
from arena.runtime.observability import GENERATION_SECONDS, GENERATIONS
from arena.runtime.retry import RetryPolicy, is_retryable
from arena.settings import Settings

Sleep = Callable[[float], Awaitable[None]]
# disk_full: the output was generated but could not be stored; the next run tries it again.
RETRYABLE_KINDS = frozenset({"timeout", "rate_limited", "server_error", "disk_full"})
REPEAT_KIND = "published_repeat"


@dataclass(frozen=True)
class Job:
    """One output to make."""

    prompt_id: str
    model_slug: str
    request: GenerationRequest


@dataclass
class BackfillReport:
    """What a backfill run did."""

    planned: int = 0
    generated: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[tuple[str, str, str]] = field(default_factory=list)
    disk_full: str | None = None  # set when storing failed for lack of space: the rest of the run is skipped


def _reference_bytes(media_dir: Path, ref: ReferenceImage | None) -> bytes | None:
    return (media_dir / ref.path).read_bytes() if ref is not None else None


def plan_jobs(
    session: Session,
    media_dir: Path,
    *,
    model: str | None = None,
    modality: str | None = None,
    limit: int | None = None,
    retry_failed: bool = False,
) -> list[Job]:
    """Every (active prompt, active model of the same modality) pair with no unpublished output yet, prompt by
    prompt (all models on a prompt before the next), the first `limit` of them when given.

    Failed outputs are planned again when their failure was transient (timeout, rate limit, server error),
    or always with `retry_failed`. A pair whose outputs were published is asked with the seed moved on by
    their number.
    """
    models = session.exec(select(Model).where(Model.active == True)).all()  # noqa: E712
    models = [
        m
        for m in models
        if (model is None or m.slug == model)
        and (modality is None or m.modality == modality)
        and m.adapter != "external"  # imported outputs only: never generated
    ]
    done: dict[tuple[str, str], Output] = {}
    published: dict[tuple[str, str], int] = {}
    for o in session.exec(select(Output)).all():
        if o.published_at is None:
            done[(o.prompt_id, o.model_slug)] = o
        else:
            published[(o.prompt_id, o.model_slug)] = published.get((o.prompt_id, o.model_slug), 0) + 1
    refs = {r.id: r for r in session.exec(select(ReferenceImage)).all()}
    ref_cache: dict[int, bytes | None] = {}
    jobs: list[Job] = []
    for m in sorted(models, key=lambda m: m.slug):
        prompts = session.exec(
            select(Prompt).where(Prompt.modality == m.modality, Prompt.status == "active").order_by(Prompt.id)
        ).all()
        for p in prompts:
            existing = done.get((p.id, m.slug))
            if existing is not None and (
                existing.status == "ok" or not (retry_failed or existing.error_kind in RETRYABLE_KINDS)
            ):
                continue
            reference = None
            if p.reference_image_id is not None:
                if p.reference_image_id not in ref_cache:
                    ref_cache[p.reference_image_id] = _reference_bytes(
                        media_dir, refs.get(p.reference_image_id)
                    )
                reference = ref_cache[p.reference_image_id]
            region = tuple(p.edit_region) if p.edit_region else None
            jobs.append(
                Job(
                    p.id,
                    m.slug,
                    GenerationRequest(
                        prompt=p.text,
                        modality=p.modality,
                        seed=DEFAULT_SEED + published.get((p.id, m.slug), 0),
                        reference_image=reference,
                        edit_region=region,
                    ),
                )  # type: ignore[arg-type]
            )
    # Prompt by prompt, every model on each: a limited run gives every model outputs for the same prompts, so it
    # makes matchups (model by model, `--limit 160` filled one model and left the arena with no pair).
    jobs.sort(key=lambda j: (j.prompt_id, j.model_slug))
    return jobs if limit is None else jobs[:limit]


class Backfill:
    """Runs planned jobs against providers and records each outcome."""

    def __init__(
        self,
        engine: Engine,
        store: MediaStore,
        providers: Mapping[str, Provider],
        *,
        concurrency: Mapping[str, int] | None = None,
        policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        seed: int | None = None,
        progress: Callable[[BackfillReport], None] | None = None,
    ) -> None:
        self.engine = engine
        self.store = store
        self.providers = providers
        self.limits = {
            slug: asyncio.Semaphore(max(1, (concurrency or {}).get(slug, 4))) for slug in providers
        }
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.rng = random.Random(seed)
        self.progress = progress
        self.report = BackfillReport()

    async def run(self, jobs: list[Job]) -> BackfillReport:
        """Run every job; returns the report (also kept on `self.report`)."""
        self.report.planned = len(jobs)
        await asyncio.gather(*(self._one(job) for job in jobs))
        return self.report

    async def _one(self, job: Job) -> None:
        provider = self.providers[job.model_slug]
        async with self.limits[job.model_slug]:
            if self.report.disk_full is not None:  # no room to store it: do not pay for the call
                self.report.skipped += 1
                return
            attempts = 0
            while True:
                attempts += 1
                try:
                    result = await provider.generate(job.request)
                except ProviderError as exc:
                    if is_retryable(exc) and self.policy.may_retry(attempts):
                        await self.sleep(self.policy.delay(attempts - 1, self.rng, exc.retry_after))
                        continue
                    await asyncio.to_thread(self._record_failure, job, exc.kind, str(exc), attempts)
                    break
                try:
                    await asyncio.to_thread(self._record_success, job, result, attempts)
                except ImageRejected as exc:
                    await asyncio.to_thread(
                        self._record_failure, job, "bad_response", f"image refused: {exc}", attempts
                    )
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    self.report.disk_full = f"no space left on the device holding {self.store.root}"
                    await asyncio.to_thread(self._record_disk_full, job, attempts)
                break
        if self.progress is not None:
            self.progress(self.report)

    def _record_success(self, job: Job, result: GenerationResult, attempts: int) -> None:
        stored = self.store.store(result.image)
        if self._repeats_published(job, stored):
            self.store.discard(stored.media_id)
            self._record_failure(
                job,
                REPEAT_KIND,
                "the provider returned an image of this prompt that is already published",
                attempts,
            )
            return
        timing = result.timing
        first = None if timing.first_byte is None else timing.first_byte - timing.started
        values = dict(
            status="ok",
            media_id=stored.media_id,
            original_sha256=stored.original_sha256,
            original_width=stored.original_width,
            original_height=stored.original_height,
            sent_params=result.sent_params,
            raw_metadata=result.raw_metadata,
            latency_s=timing.total_seconds,
            first_byte_s=first,
            attempts=attempts,
            error_kind=None,
            error_message=None,
        )
        if self._write(job, values):
            self.report.generated += 1
            GENERATIONS.labels(job.model_slug, "ok").inc()
            GENERATION_SECONDS.labels(job.model_slug, "backfill").observe(timing.total_seconds)
        else:
            self.store.discard(stored.media_id)
            self.report.skipped += 1

    def _repeats_published(self, job: Job, stored: StoredImage) -> bool:
        """Whether a new image is one of the prompt's published images (same original, or alike served)."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(Output.original_sha256, Output.media_id).where(
                    Output.prompt_id == job.prompt_id,
                    Output.published_at.is_not(None),  # type: ignore[union-attr]
                    Output.media_id.is_not(None),  # type: ignore[union-attr]
                )
            ).all()
        if not rows:
            return False
        new_path = self.store.served_path(stored.media_id)
        new = new_path.read_bytes() if new_path is not None else b""
        for sha, media_id in rows:
            old = self.store.served_path(media_id) if media_id else None
            if sha == stored.original_sha256 or (
                old is not None and new and looks_alike(new, old.read_bytes())
            ):
                return True
        return False

    def _record_failure(self, job: Job, kind: str, message: str, attempts: int) -> None:
        values = dict(status="failed", attempts=attempts, error_kind=kind, error_message=message[:2000])
        self._write(job, values)
        self.report.failed += 1
        GENERATIONS.labels(job.model_slug, kind).inc()
        self.report.failures.append((job.prompt_id, job.model_slug, f"{kind}: {message}"))

    def _record_disk_full(self, job: Job, attempts: int) -> None:
        try:
            self._record_failure(
                job, "disk_full", "no space left on device while storing the image", attempts
            )
        except SQLAlchemyError:  # the database may sit on the same full disk: the output stays missing
            self.report.failed += 1
            GENERATIONS.labels(job.model_slug, "disk_full").inc()

    def _write(self, job: Job, values: dict[str, object]) -> bool:
        """Insert or update the unpublished row for (prompt, model) in one transaction; False if an ok one exists."""
        with Session(self.engine) as session:
            row = session.exec(
                select(Output).where(
                    Output.prompt_id == job.prompt_id,
                    Output.model_slug == job.model_slug,
                    Output.published_at.is_(None),  # type: ignore[union-attr]  # published rows stay as shown
                )
            ).first()
            if row is not None and row.status == "ok":
                return False
            if row is None:
                row = Output(prompt_id=job.prompt_id, model_slug=job.model_slug, **values)
            else:
                for key, value in values.items():
                    setattr(row, key, value)
            session.add(row)
            try:
                session.commit()
            except IntegrityError:
                session.rollback()
                return False
        return True


async def _instant(_seconds: float) -> None:
    """The sandbox's simulated latency is for timing runs, not for filling the pool."""


async def run_backfill(
    engine: Engine,
    media_dir: Path,
    jobs: list[Job],
    models: Mapping[str, Model],
    *,
    concurrency: int = 4,
    progress: Callable[[BackfillReport], None] | None = None,
    settings: Settings | None = None,
) -> BackfillReport:
    """The backfill as `arena generate` and the scheduler's job run it: each planned model's provider (sandbox
    models without their simulated wait), temp files of a killed run removed, `concurrency` calls per model,
    and every provider closed at the end. ValueError when a model's params are invalid. With `settings`, a run
    with more failures than `ARENA_WEBHOOK_FAILURE_THRESHOLD` calls the `generation.failures` webhooks."""
    providers: dict[str, Provider] = {}
    try:
        for slug in sorted({j.model_slug for j in jobs}):
            model = models[slug]
            sleep = _instant if model.adapter == "sandbox" else None
            providers[slug] = build_provider(model.adapter, model.params, slug=slug, sleep=sleep)
        store = MediaStore(media_dir)
        store.clean_temp()  # what a killed run left behind
        backfill = Backfill(
            engine, store, providers, concurrency={s: concurrency for s in providers}, progress=progress
        )
        report = await backfill.run(jobs)
    finally:
        for provider in providers.values():
            await provider.aclose()
    if settings is not None and report.failed > settings.webhook_failure_threshold:
        notify_failures(engine, settings, report)
    return report


def notify_failures(engine: Engine, settings: Settings, report: BackfillReport) -> None:
    """Call the `generation.failures` webhooks with the run's counts and its first 50 failures."""
    failures = [{"prompt": p, "model": m, "reason": r[:300]} for p, m, r in report.failures[:50]]
    data = {
        "planned": report.planned,
        "generated": report.generated,
        "failed": report.failed,
        "threshold": settings.webhook_failure_threshold,
        "failures": failures,
    }
    emit(engine, settings, "generation.failures", data)
