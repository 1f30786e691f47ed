"""Shared rendering for the operator console's pages: the sign-in gate, the section nav, role flags, CSRF."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import Request, status
from fastapi.responses import HTMLResponse
from markupsafe import Markup, escape

from arena.ops.operators import Identity
from arena.web.context import context_of
from arena.web.operator_auth import csrf_token, page_gate

SECTIONS = (
    ("models", "/admin/models", "Models"),
    ("prompts", "/admin/prompts", "Prompts"),
    ("votes", "/admin/votes", "Votes"),
    ("jobs", "/admin", "Jobs"),
    ("retirement", "/admin/retirement", "Retirement"),
    ("audit", "/admin/audit", "Audit log"),
    ("operators", "/admin/operators", "Operators"),
    ("judge", "/admin/judge", "LLM judge"),
    ("evals", "/evals", "Evals"),
)


def when(moment: datetime | str | None) -> Markup:
    """A stored time as operators read it: `<time datetime="ISO">3 Dec 2026, 18:40 UTC</time>` (no seconds or
    microseconds); console_time.js rewrites the text to the browser's local time, the UTC text is the fallback."""
    if moment is None or moment == "":
        return Markup("-")
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment)
        except ValueError:
            return Markup(escape(moment))
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    text = f"{moment.day} {moment:%b %Y, %H:%M} UTC"
    return Markup(f'<time class="local-time" datetime="{moment.isoformat()}">{text}</time>')


def render(
    request: Request, template: str, context: dict[str, Any], *, status_code: int = 200
) -> HTMLResponse:
    """A console template with the helpers every page uses; never cached."""
    return context_of(request.app).templates.TemplateResponse(
        request,
        template,
        {"when": when, "sections": SECTIONS, **context},
        status_code=status_code,
        headers={"Cache-Control": "no-store"},
    )


def console_page(
    request: Request, template: str, section: str, build: Callable[[Identity], dict[str, Any]]
) -> HTMLResponse:
    """Render a console page for a signed-in operator, or the sign-in form (403 when routes are disabled).

    `build` returns the page's own context; the page learns the role as `can_act` (operator or admin) and
    `is_admin`, and shows action buttons only when allowed (the POST routes check the role themselves)."""
    settings = context_of(request.app).settings
    gate, who = page_gate(request, settings)
    if gate is not None or who is None:
        code = status.HTTP_403_FORBIDDEN if gate and gate.get("disabled") else status.HTTP_200_OK
        return render(request, template, {**(gate or {}), "section": section}, status_code=code)
    return render(request, template, {**console_context(request, who, section), **build(who)})


def console_context(request: Request, who: Identity, section: str) -> dict[str, Any]:
    """What `_console.html` needs for a signed-in operator: the section nav, the role flags, CSRF, the flash."""
    return {
        "section": section,
        "who": who,
        "can_act": who.can("operator"),
        "is_admin": who.can("admin"),
        "csrf": csrf_token(request, context_of(request.app).settings),
        "flash": request.query_params.get("done", "")[:200],
    }
