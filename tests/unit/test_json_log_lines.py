"""JSON log lines: the time field is exactly `datetime.isoformat(timespec="milliseconds")` of the record's time
(including the rounding at a second's edge), and the line keeps its fields, their order and their values."""

from __future__ import annotations

import json
import logging
import random
from datetime import UTC, datetime

from arena.runtime.observability import JsonFormatter, request_id


def _record(created: float) -> logging.LogRecord:
    log = logging.getLogger("arena.access")
    extra = {"method": "POST", "route": "/api/v1/votes", "status": 200, "ms": 1.2}
    record = log.makeRecord(
        log.name, logging.INFO, __file__, 0, "%s %s %d", ("POST", "/v", 200), None, extra=extra
    )
    record.created = created
    return record


def test_the_time_field_is_the_iso_text_of_the_record_time() -> None:
    rng = random.Random(7)
    times = [0.0, 1e-7, 1.0005, 1.9995, 1.9999994999, 1.9999995, 1.9999996, 1_767_225_599.9999996]
    times += [rng.uniform(0, 4e9) for _ in range(2000)]
    formatter = JsonFormatter()
    for created in times:
        line = json.loads(formatter.format(_record(created)))
        assert line["time"] == datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds"), (
            created
        )


def test_a_line_keeps_its_fields_in_order() -> None:
    token = request_id.set("0123456789abcdef")
    try:
        line = JsonFormatter().format(_record(1_767_225_600.25))
    finally:
        request_id.reset(token)
    assert line == json.dumps(
        {
            "time": "2026-01-01T00:00:00.250+00:00",
            "level": "info",
            "logger": "arena.access",
            "message": "POST /v 200",
            "request_id": "0123456789abcdef",
            "method": "POST",
            "route": "/api/v1/votes",
            "status": 200,
            "ms": 1.2,
        }
    )
