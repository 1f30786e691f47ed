"""Webhook delivery over real HTTP on both databases: signed bodies a receiver verifies with the docs' snippet,
retries on 5xx / 429 with each attempt recorded, no retry on 400 (a final failure audited), registration refusals
and audit entries, the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db import upgrade_database
from arena.db.tables import AuditEntry, WebhookDelivery
from arena.ops import webhook_delivery, webhooks
from tests.support.webhook_receiver import webhook_receiver

DOCS = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def docs_verify():
    """The `verify` function of docs/webhooks.md, executed as written."""
    (code,) = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    namespace: dict = {}
    exec(code, namespace)
    return namespace["verify"]


@pytest.fixture
def hooked(settings, engine):
    upgrade_database(engine)
    quick = settings.model_copy(
        update={
            "webhook_allowed_hosts": "127.0.0.1",
            "webhook_backoff_seconds": 0.01,
            "webhook_max_attempts": 4,
        }
    )
    return quick, engine


def _deliveries(engine):
    with Session(engine) as s:
        return s.exec(select(WebhookDelivery).order_by(WebhookDelivery.created_at)).all()


def _actions(engine):
    with Session(engine) as s:
        return [(a.action, a.target, a.details) for a in s.exec(select(AuditEntry).order_by(AuditEntry.id))]


def test_a_delivery_is_signed_and_the_docs_snippet_verifies_it(hooked):
    settings, engine = hooked
    with webhook_receiver() as rx:
        _, secret = webhooks.add_webhook(engine, settings, rx.url, "snapshot.published", actor="alice")
        ids = webhook_delivery.emit(
            engine, settings, "snapshot.published", {"boards": {"text_to_image/overall": 3}}
        )
        assert webhook_delivery.DISPATCHER.wait_idle(10)
    (got,) = rx.received
    body = json.loads(got.body)
    assert body["event"] == "snapshot.published" and body["id"] == ids[0] == got.headers["X-Arena-Delivery"]
    assert body["data"] == {"boards": {"text_to_image/overall": 3}} and body["created_at"]
    assert got.headers["X-Arena-Event"] == "snapshot.published"
    verify = docs_verify()
    assert verify(secret, got.headers, got.body)
    assert not verify(secret, got.headers, got.body.replace(b"3", b"4"))  # a changed body fails
    assert not verify("another-secret", got.headers, got.body)
    stale = {**got.headers, "X-Arena-Timestamp": str(int(got.headers["X-Arena-Timestamp"]) - 3600)}
    assert not verify(secret, stale, got.body)  # an old request replayed is refused
    (row,) = _deliveries(engine)
    assert (row.status, row.attempts, row.last_status) == ("delivered", 1, 200)
    assert ("webhooks.add", rx.url, {}) in _actions(engine)


def test_server_errors_and_429_are_retried_then_delivered(hooked):
    settings, engine = hooked
    with webhook_receiver([503, 429, 500]) as rx:
        webhooks.add_webhook(engine, settings, rx.url, "retirement.ready", actor="alice")
        webhook_delivery.emit(engine, settings, "retirement.ready", {"report": 1})
        assert webhook_delivery.DISPATCHER.wait_idle(10)
    assert len(rx.received) == 4
    assert len({r.headers["X-Arena-Delivery"] for r in rx.received}) == 1  # the same delivery each time
    assert len({r.body for r in rx.received}) == 1
    (row,) = _deliveries(engine)
    assert (row.status, row.attempts, row.last_status, row.last_error) == ("delivered", 4, 200, "")
    assert "webhooks.failed" not in [a for a, _, _ in _actions(engine)]


def test_a_400_is_not_retried_and_the_failure_is_recorded_and_audited(hooked):
    settings, engine = hooked
    with webhook_receiver([400]) as rx:
        webhooks.add_webhook(engine, settings, rx.url, "generation.failures", actor="alice")
        (delivery_id,) = webhook_delivery.emit(engine, settings, "generation.failures", {"failed": 12})
        assert webhook_delivery.DISPATCHER.wait_idle(10)
    assert len(rx.received) == 1
    (row,) = _deliveries(engine)
    assert (row.status, row.attempts, row.last_status) == ("failed", 1, 400)
    assert row.last_error.startswith("HTTP 400")
    failed = [d for a, t, d in _actions(engine) if a == "webhooks.failed"]
    assert failed == [
        {"delivery": delivery_id, "event": "generation.failures", "attempts": 1, "status": 400,
         "error": row.last_error}
    ]  # fmt: skip


def test_an_unreachable_receiver_is_tried_max_attempts_times_then_failed(hooked):
    settings, engine = hooked
    with webhook_receiver() as rx:
        url = rx.url
    webhooks.add_webhook(engine, settings, url, "snapshot.published", actor="alice")  # nothing listens now
    webhook_delivery.emit(engine, settings, "snapshot.published", {})
    assert webhook_delivery.DISPATCHER.wait_idle(10)
    (row,) = _deliveries(engine)
    assert (row.status, row.attempts, row.last_status) == ("failed", 4, None)
    assert "ConnectError" in row.last_error
    assert [a for a, _, _ in _actions(engine)].count("webhooks.failed") == 1


def test_removed_webhooks_get_nothing_and_unsubscribed_events_are_not_sent(hooked):
    settings, engine = hooked
    with webhook_receiver() as rx:
        kept, _ = webhooks.add_webhook(engine, settings, rx.url + "?k", "retirement.ready", actor="alice")
        gone, _ = webhooks.add_webhook(engine, settings, rx.url + "?g", "retirement.ready", actor="alice")
        webhooks.remove_webhook(engine, gone.id, actor="bob")
        assert webhook_delivery.emit(engine, settings, "snapshot.published", {}) == []
        webhook_delivery.emit(engine, settings, "retirement.ready", {})
        assert webhook_delivery.DISPATCHER.wait_idle(10)
    assert [r.path for r in rx.received] == ["/hook?k"]
    assert [w.id for w in webhooks.list_webhooks(engine)] == [kept.id]
    assert ("webhooks.remove", gone.url, {}) in _actions(engine)


def test_the_cli_adds_lists_pings_and_removes_and_refuses_a_host_not_allowed(hooked, monkeypatch):
    settings, _ = hooked
    for name, value in {"DATABASE_URL": settings.database_url, "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"}.items():
        monkeypatch.setenv(f"ARENA_{name}", value)
    monkeypatch.setenv("ARENA_WEBHOOK_BACKOFF_SECONDS", "0.01")
    monkeypatch.setenv("HOOK_SECRET", "s3cret-from-env")
    runner = CliRunner()
    refused = runner.invoke(
        app, ["webhooks", "add", "https://evil.example/x", "--events", "snapshot.published"]
    )
    assert refused.exit_code != 0
    assert "host 'evil.example' is not in ARENA_WEBHOOK_ALLOWED_HOSTS" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    bad_event = runner.invoke(app, ["webhooks", "add", "http://127.0.0.1:9/x", "--events", "vote.cast"])
    assert bad_event.exit_code != 0 and "unknown event(s) vote.cast" in bad_event.output
    with webhook_receiver([502]) as rx:
        added = runner.invoke(
            app,
            [
                "webhooks",
                "add",
                rx.url,
                "--events",
                "retirement.ready",
                "--secret-env",
                "HOOK_SECRET",
                "--json",
            ],
        )
        assert added.exit_code == 0, added.output
        hook = json.loads(added.stdout)
        assert hook["secret"] is None and hook["events"] == ["retirement.ready"]
        listed = json.loads(runner.invoke(app, ["webhooks", "list", "--json"]).stdout)
        assert [(w["id"], w["secret_env"]) for w in listed] == [(hook["id"], "HOOK_SECRET")]
        ping = runner.invoke(app, ["webhooks", "test", str(hook["id"]), "--json"])
        assert ping.exit_code == 0, ping.output
        assert json.loads(ping.stdout)["status"] == "delivered" and json.loads(ping.stdout)["attempts"] == 2
    got = rx.received[-1]
    assert got.headers["X-Arena-Event"] == "ping"
    assert docs_verify()("s3cret-from-env", got.headers, got.body)
    shown = json.loads(runner.invoke(app, ["webhooks", "deliveries", "--json"]).stdout)
    assert [(d["event"], d["status"], d["attempts"]) for d in shown] == [("ping", "delivered", 2)]
    assert runner.invoke(app, ["webhooks", "remove", str(hook["id"])]).exit_code == 0
    assert json.loads(runner.invoke(app, ["webhooks", "list", "--json"]).stdout) == []
    missing = runner.invoke(app, ["webhooks", "test", str(hook["id"])])
    assert missing.exit_code != 0 and f"no webhook {hook['id']}" in missing.output


def test_registration_is_refused_while_no_host_is_allowed(settings, engine):
    upgrade_database(engine)
    with pytest.raises(webhooks.WebhookError, match="set ARENA_WEBHOOK_ALLOWED_HOSTS"):
        webhooks.add_webhook(engine, settings, "http://127.0.0.1:9/x", "snapshot.published", actor="alice")
    assert webhooks.list_webhooks(engine) == []


def test_a_delivery_left_due_by_a_stopped_process_goes_out_with_the_next_event(hooked):
    settings, engine = hooked
    with webhook_receiver() as rx:
        hook, _ = webhooks.add_webhook(engine, settings, rx.url, "snapshot.published", actor="alice")
        (left,) = webhook_delivery.enqueue(
            engine, "snapshot.published", {"n": 1}, [hook]
        )  # never handed over
        assert webhook_delivery.due(engine) == [left]
        (new,) = webhook_delivery.emit(engine, settings, "snapshot.published", {"n": 2})
        assert webhook_delivery.DISPATCHER.wait_idle(10)
    assert sorted(r.headers["X-Arena-Delivery"] for r in rx.received) == sorted([left, new])
    assert {d.status for d in _deliveries(engine)} == {"delivered"} and webhook_delivery.due(engine) == []
