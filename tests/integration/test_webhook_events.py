"""Each webhook event delivered end to end over real HTTP from the code that emits it, on both databases: a rating
snapshot, a backfill run with more failures than the threshold (an OpenAI-compatible fake that refuses every
prompt), and the monthly retirement report."""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlmodel import Session, select

from arena.db.tables import Model, WebhookDelivery
from arena.generation.backfill import plan_jobs, run_backfill
from arena.generation.registry import parse_registry, sync_registry
from arena.ops import webhook_delivery, webhooks
from arena.prompts.retirement import run_monthly
from tests.fakes.openai_server import Behaviour, FakeOpenAIServer
from tests.support.retirement_month import NOW, build_month
from tests.support.webhook_receiver import webhook_receiver

KEY_ENV = "ARENA_TEST_IMAGES_KEY"
SIZES = 'sizes = ["1024x1024", "1536x1024", "1024x1536"]'


def _hooked(settings):
    return settings.model_copy(update={"webhook_allowed_hosts": "127.0.0.1", "webhook_backoff_seconds": 0.01})


def _events(rx, secret):
    """The events the receiver got, each checked against its signature."""
    assert webhook_delivery.DISPATCHER.wait_idle(20)
    out = []
    for got in rx.received:
        timestamp = got.headers["X-Arena-Timestamp"]
        assert got.headers["X-Arena-Signature"] == webhook_delivery.sign(secret, timestamp, got.body)
        out.append(json.loads(got.body))
    return out


def test_a_stored_snapshot_calls_snapshot_published(settings, initialized):
    settings = _hooked(settings)
    with webhook_receiver() as rx:
        _, secret = webhooks.add_webhook(initialized, settings, rx.url, "snapshot.published", actor="alice")
        month = build_month(settings, initialized)  # ends with take_snapshot(text_to_image)
        (event,) = _events(rx, secret)
    assert event["event"] == "snapshot.published"
    assert event["data"]["boards"]["text_to_image/overall"] == month.votes
    assert event["data"]["created_at"].startswith(str(NOW.date()))


def _refusing_world(settings, engine, base_url):
    registry = f"""
[[models]]
slug = "refuser"
display_name = "Refuser"
organization = "Test"
modality = "text_to_image"
adapter = "openai_compatible"
params = {{ model = "fake-image-1", base_url = "{base_url}", api_key_env = "{KEY_ENV}", timeout_s = 10, {SIZES} }}
"""
    with Session(engine) as s:
        sync_registry(s, parse_registry(registry))
        return {m.slug: m for m in s.exec(select(Model)).all()}


def _backfill(settings, engine, models, limit):
    with Session(engine) as s:
        jobs = plan_jobs(s, settings.media_dir, model="refuser", limit=limit)
    return asyncio.run(run_backfill(engine, settings.media_dir, jobs, models, settings=settings))


def test_a_backfill_over_the_failure_threshold_calls_generation_failures(settings, initialized, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    settings = _hooked(settings).model_copy(update={"webhook_failure_threshold": 3})
    refused = Behaviour("refused", code="content_policy_violation")
    with FakeOpenAIServer(default=refused) as images, webhook_receiver() as rx:
        _, secret = webhooks.add_webhook(initialized, settings, rx.url, "generation.failures", actor="alice")
        models = _refusing_world(settings, initialized, images.base_url)
        under = _backfill(settings, initialized, models, limit=3)  # 3 failures: not over the threshold
        assert under.failed == 3 and _events(rx, secret) == []
        over = _backfill(settings, initialized, models, limit=4)
        (event,) = _events(rx, secret)
    assert over.failed == 4
    assert event["event"] == "generation.failures"
    data = event["data"]
    assert (data["planned"], data["generated"], data["failed"], data["threshold"]) == (4, 0, 4, 3)
    assert {f["model"] for f in data["failures"]} == {"refuser"} and len(data["failures"]) == 4
    assert all(f["reason"].startswith("content_refused") for f in data["failures"])


def test_the_monthly_report_calls_retirement_ready(settings, initialized):
    settings = _hooked(settings)
    month = build_month(settings, initialized)
    with webhook_receiver() as rx:
        _, secret = webhooks.add_webhook(
            initialized, month.settings, rx.url, "retirement.ready", actor="alice"
        )
        report_id = run_monthly(initialized, month.settings, now=NOW)
        (event,) = _events(rx, secret)
    assert event["event"] == "retirement.ready"
    assert event["data"]["report"] == report_id and event["data"]["status"] == "draft"
    assert event["data"]["summary"]["flagged"] >= 1
    with Session(initialized) as s:
        (row,) = s.exec(select(WebhookDelivery)).all()
    assert (row.event, row.status, row.attempts) == ("retirement.ready", "delivered", 1)


@pytest.fixture(autouse=True)
def _drained():
    yield
    webhook_delivery.DISPATCHER.wait_idle(20)
