"""The audit log in the console: filters (operator, action, source, target, dates), JSON and JSON-lines export.

Every route here only reads; the log itself is append-only (database triggers refuse UPDATE and DELETE).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request, status
from fastapi.responses import HTMLResponse, StreamingResponse
from pydantic import AfterValidator, StringConstraints, WithJsonSchema
from sqlmodel import Session

from arena.ops import audit
from arena.ops.operators import Identity
from arena.web.console.base import console_page
from arena.web.context import context_of
from arena.web.operator_auth import OperatorReadDep

router = APIRouter(tags=["audit"])
FILTERS = ("actor", "action", "source", "target", "since", "until")


def _day(value: str | None, name: str) -> datetime | None:
    if not value:
        return None
    try:
        return audit.parse_day(value)
    except ValueError:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, f"{name} must be a date YYYY-MM-DD"
        ) from None


def _select(params: dict[str, str | None]) -> Any:
    until = _day(params.get("until"), "until")
    return audit.query(
        actor=params.get("actor") or None,
        action=params.get("action") or None,
        source=params.get("source") or None,
        target=params.get("target") or None,
        since=_day(params.get("since"), "since"),
        until=until + timedelta(days=1) if until else None,  # the whole 'until' day is included
    )


def _rows(request: Request, params: dict[str, str | None], limit: int | None) -> list[dict[str, Any]]:
    stmt = _select(params)
    if limit is not None:
        stmt = stmt.limit(limit)
    with Session(context_of(request.app).engine) as session:
        return [audit.as_dict(r) for r in session.exec(stmt).scalars()]


DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


def _iso_day(value: str) -> str:
    date.fromisoformat(value)  # a day that does not exist: the ValueError becomes a 422 naming the parameter
    return value


#: A calendar day written YYYY-MM-DD and nothing else (pydantic's own date parsing also takes "0" or a timestamp).
IsoDay = Annotated[
    str,
    StringConstraints(pattern=DAY_PATTERN),
    AfterValidator(_iso_day),
    WithJsonSchema({"type": "string", "format": "date", "pattern": DAY_PATTERN}),
]
#: Free text compared exactly or as a prefix; NUL is the one character no database column can hold.
Text = Annotated[str, StringConstraints(pattern=r"^[^\x00]{0,200}$")]


class AuditFilters:
    """The audit API's filters, shared by the JSON and the export route."""

    def __init__(
        self,
        actor: Annotated[Text | None, Query(description="Exactly this operator.")] = None,
        action: Annotated[
            Text | None, Query(description="Actions starting with this, e.g. `prompts.`.")
        ] = None,
        source: Annotated[
            Literal["cli", "web", "system"] | None, Query(description="Where the action came from.")
        ] = None,
        target: Annotated[
            Text | None, Query(description="Exactly this target (a prompt id, model slug, ...).")
        ] = None,
        since: Annotated[IsoDay | None, Query(description="From this day (YYYY-MM-DD, UTC).")] = None,
        until: Annotated[
            IsoDay | None, Query(description="Up to and including this day (YYYY-MM-DD, UTC).")
        ] = None,
    ) -> None:
        self.params: dict[str, str | None] = {
            "actor": actor,
            "action": action,
            "source": source,
            "target": target,
            "since": since,
            "until": until,
        }


Filters = Annotated[AuditFilters, Depends()]


@router.get("/api/v1/admin/audit")
def audit_json(
    request: Request,
    _who: OperatorReadDep,
    filters: Filters,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[dict[str, Any]]:
    """The newest audit entries matching the filters: who, what, when, from where, before and after."""
    return _rows(request, filters.params, limit)


@router.get(
    "/api/v1/admin/audit/export",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}}},
)
def audit_export(request: Request, _who: OperatorReadDep, filters: Filters) -> StreamingResponse:
    """Every matching audit entry as JSON lines (newest first), for archiving or analysis."""
    rows = _rows(request, filters.params, None)

    def lines() -> Iterator[str]:
        for row in rows:
            yield json.dumps(row, default=str) + "\n"

    return StreamingResponse(
        lines(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": 'attachment; filename="audit.jsonl"', "Cache-Control": "no-store"},
    )


@router.get("/admin/audit", response_class=HTMLResponse, include_in_schema=False)
def audit_page(request: Request) -> HTMLResponse:
    """The audit log with its filters and an export link."""
    params = {k: (request.query_params.get(k) or "")[:128] for k in FILTERS}

    def build(_who: Identity) -> dict[str, Any]:
        query = "&".join(f"{k}={v}" for k, v in params.items() if v)
        return {"filters": params, "entries": _rows(request, params, 300), "export_query": query}

    return console_page(request, "admin_audit.html", "audit", build)
