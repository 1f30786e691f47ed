"""The interactive API documentation (`/docs`, Swagger UI) and the reference (`/redoc`, Redoc), served from
vendored copies under `static/vendor/` with no inline script, so both work offline and under the CSP."""

from __future__ import annotations

from html import escape

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.web.guards import CSP

router = APIRouter(include_in_schema=False)
# Redoc builds its search index in a Web Worker created from a blob: URL made by its own (same-origin) bundle;
# only this page allows that, every other page keeps the strict policy.
REDOC_CSP = CSP + "; worker-src 'self' blob:"

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
{head}
</head>
<body>
{body}
</body>
</html>
"""


def _page(title: str, head: str, body: str, headers: dict[str, str] | None = None) -> HTMLResponse:
    return HTMLResponse(PAGE.format(title=escape(title), head=head, body=body), headers=headers)


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI: the operations list, with "Try it out" against this server."""
    spec = escape(request.app.openapi_url or "/openapi.json")
    return _page(
        f"{request.app.title} - API (Swagger UI)",
        '<link rel="stylesheet" href="/static/vendor/swagger-ui/swagger-ui.css">',
        f'<main id="swagger-ui" data-openapi-url="{spec}"></main>\n'
        '<script src="/static/vendor/swagger-ui/swagger-ui-bundle.js"></script>\n'
        '<script src="/static/js/swagger-init.js"></script>',
    )


@router.get("/redoc", response_class=HTMLResponse)
def redoc(request: Request) -> HTMLResponse:
    """Redoc: the same OpenAPI document as a three-panel reference."""
    spec = escape(request.app.openapi_url or "/openapi.json")
    return _page(
        f"{request.app.title} - API reference (Redoc)",
        "",
        f'<div id="redoc-root" data-openapi-url="{spec}"></div>\n'
        '<script src="/static/vendor/redoc/redoc.standalone.js"></script>\n'
        '<script src="/static/js/redoc-init.js"></script>',
        {"Content-Security-Policy": REDOC_CSP},
    )
