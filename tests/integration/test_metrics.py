"""`/metrics` on both databases: who may read it (ARENA_METRICS public / token / off, ARENA_METRICS_TOKEN, operator
tokens, the lock-out), the scrape-time gauges (build info, pool, open matchups, snapshot age, job queue) and the
generation-time histogram fed by backfills and timing runs."""

import asyncio
import threading
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from sqlalchemy import select
from sqlmodel import Session

from arena import __version__
from arena.app import create_app
from arena.db.tables import LatencySample, Output, RatingSnapshot
from arena.generation.backfill import Backfill, plan_jobs
from arena.media.store import MediaStore
from arena.ops import job_runs
from arena.voting import pow as proof
from scheduler.jobs import JobContext, execute
from tests.conftest import ColourProvider
from tests.fakes.scheduling import VirtualTime, sandbox_registry, timing_world

BOARD = {"vote_count": 0, "filter_version": "v", "methodology_version": "m"}
OPERATOR = {"Authorization": "Bearer test-operator-token"}


def parse(text: str) -> dict[str, float]:
    """Sample line -> value of a text exposition."""
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def test_metrics_need_a_bearer_token_by_default(settings, initialized):
    with TestClient(create_app(settings, engine=initialized)) as client:
        bare = client.get("/metrics")
        assert bare.status_code == 401 and bare.headers["www-authenticate"] == "Bearer"
        assert "ARENA_METRICS_TOKEN" in bare.text
        wrong = client.get("/metrics", headers={"Authorization": "Bearer not-it"})
        assert wrong.status_code == 401 and "wrong metrics token" in wrong.text
        ok = client.get("/metrics", headers=OPERATOR)  # the operator token reads metrics too
        assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain")
        assert "arena_http_requests_total" in ok.text


def test_the_metrics_token_reads_metrics_and_nothing_else(settings, initialized):
    settings = settings.model_copy(update={"metrics_token": "scrape-only-secret"})
    scrape = {"Authorization": "Bearer scrape-only-secret"}
    with TestClient(create_app(settings, engine=initialized)) as client:
        assert client.get("/metrics", headers=scrape).status_code == 200
        assert client.get("/api/v1/admin/audit", headers=scrape).status_code == 401
        assert client.get("/api/v1/admin/audit", headers=OPERATOR).status_code == 200


def test_wrong_metrics_tokens_count_towards_the_operator_lockout(settings, initialized):
    settings = settings.model_copy(
        update={"operator_token_attempts_per_minute": 2, "metrics_token": "m-secret"}
    )
    with TestClient(create_app(settings, engine=initialized)) as client:
        codes = [
            client.get("/metrics", headers={"Authorization": "Bearer guess"}).status_code for _ in range(3)
        ]
        assert codes == [401, 401, 429]
        assert client.get("/metrics", headers={"Authorization": "Bearer m-secret"}).status_code == 429


def test_public_metrics_need_no_token_and_off_is_404(settings, initialized):
    public = settings.model_copy(update={"metrics": "public", "operator_token": ""})
    with TestClient(create_app(public, engine=initialized)) as client:
        assert client.get("/metrics").status_code == 200
    off = settings.model_copy(update={"metrics": "off"})
    with TestClient(create_app(off, engine=initialized)) as client:
        gone = client.get("/metrics", headers=OPERATOR)
        assert gone.status_code == 404 and "ARENA_METRICS=off" in gone.text


def test_state_gauges_follow_matchups_votes_snapshots_and_the_queue(settings, world, frozen):
    app = create_app(settings, engine=world, clock=frozen)
    with TestClient(app) as client:

        def scrape() -> dict[str, float]:
            response = client.get("/metrics", headers=OPERATOR)
            assert response.status_code == 200, response.text
            return parse(response.text)

        first = scrape()
        assert first[f'arena_build_info{{version="{__version__}"}}'] == 1.0
        assert first['arena_open_matchups{modality="text_to_image"}'] == 0
        assert first['arena_open_matchups{modality="image_editing"}'] == 0
        assert first['arena_job_queue_depth{job="timing_run"}'] == 0
        assert not any(k.startswith("arena_snapshot_age_seconds") for k in first)  # never snapshotted

        served = [
            client.post("/api/v1/matchups", json={"modality": "text_to_image"}).json() for _ in range(3)
        ]
        voted = served[0]
        nonce = proof.solve(voted["challenge"], voted["difficulty"])
        vote = client.post(
            "/api/v1/votes", json={"matchup_id": voted["id"], "choice": "left", "nonce": nonce}
        )
        assert vote.status_code == 200, vote.text
        for _ in range(2):
            job_runs.request_run(world, "timing_run", frozen(), actor="test", params={})
        with Session(world) as session:  # an older board, then the newest one the age is counted from
            for age in (3600, 0):
                at = frozen() - timedelta(seconds=age)
                session.add(RatingSnapshot(created_at=at, modality="text_to_image", board="overall", **BOARD))
            session.commit()
        frozen.advance(timedelta(seconds=90))

        now = scrape()
        assert now['arena_open_matchups{modality="text_to_image"}'] == 2  # three served, one voted
        assert now['arena_job_queue_depth{job="timing_run"}'] == 2
        assert now['arena_job_queue_depth{job="rating_snapshot"}'] == 0
        assert now['arena_snapshot_age_seconds{modality="text_to_image"}'] == 90.0
        pool = app.state.context.pool.get("text_to_image")
        assert now['arena_matchup_pool_prompts{modality="text_to_image"}'] == len(pool.prompts) == 8
        assert now['arena_matchup_pool_outputs{modality="text_to_image"}'] == 32  # 4 models x 8 prompts

        frozen.advance(timedelta(seconds=settings.matchup_ttl_seconds))
        assert scrape()['arena_open_matchups{modality="text_to_image"}'] == 0  # expired


def _histogram(model: str, source: str) -> tuple[float, float]:
    labels = {"model": model, "source": source}
    count = REGISTRY.get_sample_value("arena_generation_duration_seconds_count", labels) or 0.0
    total = REGISTRY.get_sample_value("arena_generation_duration_seconds_sum", labels) or 0.0
    return count, total


def test_backfill_generations_are_timed_by_model(settings, world):
    with Session(world) as session:
        jobs = [j for j in plan_jobs(session, settings.media_dir) if j.model_slug == "model-1"][:3]
    assert len(jobs) == 3
    before = _histogram("model-1", "backfill")
    backfill = Backfill(world, MediaStore(settings.media_dir), {"model-1": ColourProvider(1)})
    worker = threading.Thread(target=lambda: asyncio.run(backfill.run(jobs)))
    worker.start()
    worker.join()
    after = _histogram("model-1", "backfill")
    with world.connect() as conn:
        stored = conn.execute(
            select(Output.latency_s).where(
                Output.model_slug == "model-1", Output.prompt_id.in_([j.prompt_id for j in jobs])
            )
        ).scalars()
        seconds = sum(stored)
    assert after[0] - before[0] == 3
    assert abs((after[1] - before[1]) - seconds) < 1e-9


def test_timing_runs_feed_the_generation_histogram(settings, engine, monkeypatch):
    import arena.generation.providers.sandbox as sandbox

    world = timing_world(engine, sandbox_registry({"sandbox-histo": (400, 600)}))
    vt = VirtualTime(datetime(2026, 12, 7, 10, tzinfo=UTC))
    monkeypatch.setattr(sandbox, "time", vt)
    before = _histogram("sandbox-histo", "timing")
    ctx = JobContext(
        world, settings, "t", clock=vt.now, sleep=vt.sleep, perf_counter=vt.perf_counter, check_lease=False
    )
    _, outcome = execute(ctx, "timing_run", trigger="manual")
    assert outcome.outcome == "ok", outcome.message
    after = _histogram("sandbox-histo", "timing")
    with world.connect() as conn:
        seconds = list(
            conn.execute(select(LatencySample.seconds).where(LatencySample.status == "ok")).scalars()
        )
    assert len(seconds) == 1 and after[0] - before[0] == 1
    assert abs((after[1] - before[1]) - seconds[0]) < 1e-9
