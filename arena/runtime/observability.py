"""Metrics and logs: the Prometheus series the app and its jobs record, and JSON log lines.

Metrics live in prometheus-client's default registry. With `arena serve --workers N` they are kept in files
shared by every process (prometheus-client's multiprocess mode, `arena.runtime.metrics_files`), so one scrape
counts the requests of all workers and the in-process scheduler's jobs. Durations are `*_duration_seconds`
histograms. Log lines
are one JSON object each; the request id ties a request's lines together. Nothing logged carries a client
address, a cookie, a token or a query string (secrets may ride in any of them).
"""

from __future__ import annotations

import contextvars
import json
import logging
import math
from datetime import UTC, datetime
from typing import Any

from prometheus_client import Counter, Histogram

from arena.settings import Settings

REQUESTS = Counter(
    "arena_http_requests_total", "HTTP requests by route, method and status.", ["route", "method", "status"]
)
LATENCY = Histogram(
    "arena_http_request_duration_seconds",
    "Time to answer an HTTP request, by route.",
    ["route", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
VOTES = Counter(
    "arena_votes_total",
    "Votes stored, by outcome (kept / filtered) and filter reason.",
    ["outcome", "reason"],
)
MATCHUPS = Counter("arena_matchups_served_total", "Matchups served, by modality.", ["modality"])
GENERATIONS = Counter(
    "arena_generation_outcomes_total", "Backfill generations by model and outcome.", ["model", "outcome"]
)
TIMINGS = Counter(
    "arena_timing_outcomes_total", "Timed generation calls by model and outcome.", ["model", "outcome"]
)
GENERATION_SECONDS = Histogram(
    "arena_generation_duration_seconds",
    "Seconds of a successful generation call, by model and by what ran it (backfill or timing run).",
    ["model", "source"],
    buckets=(1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 300.0),
)
JOB_RUNS = Counter("arena_job_runs_total", "Finished job runs by job and outcome.", ["job", "outcome"])

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("arena_request_id", default=None)


# What `json.dumps(entry, default=str)` builds on every call, made once.
_ENCODER = json.JSONEncoder(default=str)


_second_text: tuple[float, str] = (math.nan, "")  # the last whole second formatted, and its text


def _utc_iso(created: float) -> str:
    """`datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")`, with the text up to the seconds
    made once a second: the microseconds rounded half to even, as datetime rounds them, then cut to milliseconds."""
    global _second_text
    fraction, whole = math.modf(created)
    micros = round(fraction * 1e6)
    if not 0 <= micros < 1_000_000:  # rounded up to the next second, or a time before 1970
        return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
    second, text = _second_text
    if second != whole:
        text = datetime.fromtimestamp(whole, UTC).isoformat()[:19]
        _second_text = (whole, text)
    return f"{text}.{micros // 1000:03d}+00:00"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, the request id, and any `extra` fields."""

    RESERVED = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _utc_iso(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = request_id.get()
        if rid:
            entry["request_id"] = rid
        for key, value in record.__dict__.items():
            if key not in self.RESERVED and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return _ENCODER.encode(entry)


def log_config(settings: Settings) -> dict[str, Any]:
    """A logging dictConfig for `arena serve`: JSON (default) or text lines on stderr, uvicorn included."""
    formatter = (
        {"()": "arena.runtime.observability.JsonFormatter"}
        if settings.log_format == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    level = settings.log_level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "default"}},
        "root": {"handlers": ["stderr"], "level": level},
        "loggers": {
            "uvicorn": {"level": level},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {"level": "WARNING"},
        },
    }
