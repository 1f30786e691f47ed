"""Webhook delivery: an event becomes one stored delivery per subscribed webhook, sent by a background thread so
the emitting job never waits; each attempt is signed, recorded, and retried with exponential backoff.

Signature: `X-Arena-Signature: sha256=<hex HMAC-SHA256 of "<X-Arena-Timestamp>." + raw body>` keyed with the
webhook's secret; a receiver recomputes it and refuses old timestamps (replays). Retried: network errors, 429 and
5xx, up to `ARENA_WEBHOOK_MAX_ATTEMPTS`; any other answer ends the delivery. A final failure is audited.
Deliveries a process could not finish before exiting stay due in the table: the next event emitted anywhere, or
`arena webhooks deliver`, sends them.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import json
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import Engine, select, update
from sqlmodel import Session

from arena.db.tables import Webhook, WebhookDelivery, utcnow
from arena.ops import audit
from arena.ops.webhooks import PING, WebhookError, check_target, secret_of
from arena.settings import Settings

log = logging.getLogger("arena.webhooks")
RETRY_STATUSES = frozenset({429}) | frozenset(range(500, 600))
MAX_WAIT_SECONDS = 300.0
QUEUE_SIZE = 1000
EXIT_DRAIN_SECONDS = 15.0


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The signature header's value for `body` sent at `timestamp`."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def _wanted(engine: Engine, event: str) -> list[Webhook]:
    with Session(engine) as session:
        rows = session.execute(select(Webhook).where(Webhook.removed_at.is_(None))).scalars()  # type: ignore[union-attr]
        return [w for w in rows if event in w.events]


def enqueue(engine: Engine, event: str, data: dict[str, Any], webhooks: list[Webhook]) -> list[str]:
    """Store one delivery of `event` per webhook (same body for every attempt); returns their ids."""
    now = utcnow()
    ids = []
    with Session(engine) as session:
        for hook in webhooks:
            delivery_id = uuid.uuid4().hex
            body = {"event": event, "id": delivery_id, "created_at": now.isoformat(), "data": data}
            session.add(
                WebhookDelivery(
                    id=delivery_id,
                    webhook_id=hook.id,  # type: ignore[arg-type]
                    event=event,
                    body=json.dumps(body, sort_keys=True, default=str),
                    created_at=now,
                    next_attempt_at=now,
                )
            )
            ids.append(delivery_id)
        session.commit()
    return ids


def emit(engine: Engine, settings: Settings, event: str, data: dict[str, Any]) -> list[str]:
    """Queue `event` for every webhook subscribed to it and return at once; never raises (a webhook problem must
    not fail the job that emits it, it is logged instead). Deliveries left due by a process that stopped are
    handed to the thread too."""
    try:
        hooks = _wanted(engine, event)
        ids = enqueue(engine, event, data, hooks) if hooks else []
        leftovers = [d for d in due(engine) if d not in ids]
    except Exception:  # the emitting job goes on whatever happens here
        log.exception("webhook event %s not queued", event)
        return []
    for delivery_id in [*ids, *leftovers]:
        DISPATCHER.submit(engine, settings, delivery_id)
    return ids


def _claim(engine: Engine, delivery_id: str, now: datetime, lease: timedelta) -> bool:
    """Take the next attempt of a due delivery; False if it is finished, not due, or another process has it."""
    with engine.begin() as conn:
        claimed = conn.execute(
            update(WebhookDelivery)
            .where(
                WebhookDelivery.id == delivery_id,
                WebhookDelivery.status.in_(("pending", "sending")),  # type: ignore[attr-defined]
                WebhookDelivery.next_attempt_at <= now,  # type: ignore[arg-type]
            )
            .values(status="sending", next_attempt_at=now + lease)
        )
        return claimed.rowcount == 1


def _retry_after(response: httpx.Response) -> float:
    try:
        return max(0.0, float(response.headers.get("retry-after", "0")))
    except ValueError:
        return 0.0


def attempt(
    engine: Engine, settings: Settings, delivery_id: str, client: httpx.Client | None = None
) -> float | None:
    """One claimed attempt, recorded. Returns the seconds to wait before the next attempt, or None when the
    delivery is over (delivered, failed for good, or not ours to send)."""
    now = utcnow()
    if not _claim(engine, delivery_id, now, timedelta(seconds=settings.webhook_timeout_seconds * 2 + 30)):
        return None
    with Session(engine) as session:
        row = session.get(WebhookDelivery, delivery_id)
        hook = session.get(Webhook, row.webhook_id) if row is not None else None
    assert row is not None and hook is not None
    number = row.attempts + 1
    status: int | None = None
    retry = False
    wait = settings.webhook_backoff_seconds * 2 ** (number - 1)
    try:
        if hook.removed_at is not None and row.event != PING:
            raise WebhookError("the webhook was removed")
        check_target(hook.url, settings)
        body = row.body.encode()
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "arena-webhooks/1",
            "X-Arena-Event": row.event,
            "X-Arena-Delivery": row.id,
            "X-Arena-Timestamp": timestamp,
            "X-Arena-Signature": sign(secret_of(hook), timestamp, body),
        }
        own = client or httpx.Client(timeout=settings.webhook_timeout_seconds, follow_redirects=False)
        try:
            response = own.post(hook.url, content=body, headers=headers)
        finally:
            if client is None:
                own.close()
        status = response.status_code
        error = "" if 200 <= status < 300 else f"HTTP {status}: {response.text[:200]}"
        retry = status in RETRY_STATUSES
        if status == 429:
            wait = max(wait, _retry_after(response))
    except WebhookError as exc:
        error = str(exc)
        retry = error.startswith("cannot resolve")
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
        retry = True
    delivered = status is not None and 200 <= status < 300
    final = delivered or not retry or number >= settings.webhook_max_attempts
    end = utcnow()
    with engine.begin() as conn:
        conn.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id == delivery_id)
            .values(
                status="delivered" if delivered else ("failed" if final else "pending"),
                attempts=number,
                last_status=status,
                last_error=error[:500],
                next_attempt_at=end if final else end + timedelta(seconds=min(wait, MAX_WAIT_SECONDS)),
                finished_at=end if final else None,
            )
        )
    if final and not delivered:
        audit.record_now(
            engine,
            actor="system",
            action="webhooks.failed",
            target=hook.url,
            delivery=delivery_id,
            event=row.event,
            attempts=number,
            status=status,
            error=error[:300],
        )
    return None if final else min(wait, MAX_WAIT_SECONDS)


def deliver(
    engine: Engine, settings: Settings, delivery_id: str, sleep: Callable[[float], None] = time.sleep
) -> None:
    """Attempt a delivery until it is over, waiting the backoff between attempts."""
    while (wait := attempt(engine, settings, delivery_id)) is not None:
        sleep(wait)


def due(engine: Engine, now: datetime | None = None) -> list[str]:
    """Deliveries waiting for an attempt (left pending, or held by a process that stopped), oldest first."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(WebhookDelivery.id)
                .where(
                    WebhookDelivery.status.in_(("pending", "sending")),  # type: ignore[attr-defined]
                    WebhookDelivery.next_attempt_at <= (now or utcnow()),  # type: ignore[arg-type]
                )
                .order_by(WebhookDelivery.created_at)  # type: ignore[arg-type]
            ).scalars()
        )


class Dispatcher:
    """A daemon thread sending queued deliveries one after the other; the queue is bounded (a delivery that
    does not fit stays due in the table), and the process waits up to `EXIT_DRAIN_SECONDS` for it at exit."""

    def __init__(self, size: int = QUEUE_SIZE) -> None:
        self.queue: queue.Queue[tuple[Engine, Settings, str]] = queue.Queue(maxsize=size)
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def submit(self, engine: Engine, settings: Settings, delivery_id: str) -> None:
        """Hand a stored delivery to the thread (started on first use)."""
        try:
            self.queue.put_nowait((engine, settings, delivery_id))
        except queue.Full:
            log.warning("webhook queue full: delivery %s left for `arena webhooks deliver`", delivery_id)
            return
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="arena-webhooks", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        while True:
            engine, settings, delivery_id = self.queue.get()
            try:
                deliver(engine, settings, delivery_id)
            except Exception:  # one broken delivery must not stop the thread
                log.exception("webhook delivery %s", delivery_id)
            finally:
                self.queue.task_done()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every submitted delivery is over (True) or `timeout` seconds passed (False)."""
        deadline = time.monotonic() + timeout
        while self.queue.unfinished_tasks:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True


DISPATCHER = Dispatcher()
atexit.register(DISPATCHER.wait_idle, EXIT_DRAIN_SECONDS)
