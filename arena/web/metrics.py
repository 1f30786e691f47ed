"""The `/metrics` page: every process's counters and histograms (merged from the shared files when several
workers serve), plus gauges computed at scrape time (build info, matchmaking pool, open matchups, snapshot age,
job queue). Who may read it is ARENA_METRICS: `public`, `token` (the default) or `off`."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Iterator

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from sqlalchemy.exc import SQLAlchemyError

from arena import __version__
from arena.ops.gauges import read_state
from arena.runtime.metrics_files import multiprocess_dir
from arena.settings import Settings
from arena.web.context import AppContext, context_of
from arena.web.deps import check_locked_out
from arena.web.operator_auth import authenticate

router = APIRouter(tags=["health"])
log = logging.getLogger(__name__)


class StateCollector:
    """Gauges read when scraped, so they need no multiprocess bookkeeping: the answering worker computes them."""

    def __init__(self, context: AppContext) -> None:
        self.context = context

    def collect(self) -> Iterator[Metric]:
        """Build info, this process's matchmaking pool, and the database-backed state gauges."""
        build = GaugeMetricFamily(
            "arena_build_info", "The running arena version (always 1).", labels=["version"]
        )
        build.add_metric([__version__], 1)
        yield build
        prompts = GaugeMetricFamily(
            "arena_matchup_pool_prompts",
            "Prompts matchmaking can serve (this process's pool).",
            labels=["modality"],
        )
        outputs = GaugeMetricFamily(
            "arena_matchup_pool_outputs",
            "Outputs matchmaking can serve (this process's pool).",
            labels=["modality"],
        )
        for modality, (n_prompts, n_outputs) in sorted(self.context.pool.sizes().items()):
            prompts.add_metric([modality], n_prompts)
            outputs.add_metric([modality], n_outputs)
        yield prompts
        yield outputs
        settings = self.context.settings
        try:
            state = read_state(self.context.engine, self.context.clock(), settings.matchup_ttl_seconds)
        except SQLAlchemyError as error:  # the counters are still worth scraping while the database is away
            log.warning("metrics: state gauges unavailable: %s", type(error).__name__)
            return
        open_ = GaugeMetricFamily(
            "arena_open_matchups", "Served matchups not yet voted on nor expired.", labels=["modality"]
        )
        for modality, n in sorted(state.open_matchups.items()):
            open_.add_metric([modality], n)
        yield open_
        age = GaugeMetricFamily(
            "arena_snapshot_age_seconds", "Seconds since the newest rating snapshot.", labels=["modality"]
        )
        for modality, seconds in sorted(state.snapshot_age_seconds.items()):
            age.add_metric([modality], seconds)
        yield age
        queue = GaugeMetricFamily(
            "arena_job_queue_depth", "Job runs queued and not yet started.", labels=["job"]
        )
        for job, n in sorted(state.queued_runs.items()):
            queue.add_metric([job], n)
        yield queue


def exposition(context: AppContext) -> bytes:
    """The text exposition: every worker's series when they share a directory, else this process's."""
    state = CollectorRegistry()
    state.register(StateCollector(context))
    path = multiprocess_dir()
    if path is None:
        return generate_latest(REGISTRY) + generate_latest(state)
    from prometheus_client import multiprocess

    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged, path=path)
    return generate_latest(merged) + generate_latest(state)


def check_access(request: Request, settings: Settings) -> None:
    """ARENA_METRICS: `off` is 404; `token` needs `Authorization: Bearer` with ARENA_METRICS_TOKEN or an
    operator token (wrong tokens count towards the operator lock-out); `public` lets anyone read."""
    if settings.metrics == "off":
        raise HTTPException(status.HTTP_404_NOT_FOUND, "metrics are turned off (ARENA_METRICS=off)")
    if settings.metrics == "public":
        return
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    challenge = {"WWW-Authenticate": "Bearer"}
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "metrics need 'Authorization: Bearer <token>' with ARENA_METRICS_TOKEN or an operator token "
            "(or set ARENA_METRICS=public)",
            headers=challenge,
        )
    check_locked_out(request)
    if settings.metrics_token and hmac.compare_digest(
        token.strip().encode(), settings.metrics_token.encode()
    ):
        return
    if authenticate(request, settings, token) is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong metrics token", headers=challenge)


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """Prometheus text exposition, if ARENA_METRICS lets this caller read it."""
    context = context_of(request.app)
    check_access(request, context.settings)
    return Response(exposition(context), media_type=CONTENT_TYPE_LATEST)
