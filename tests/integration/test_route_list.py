"""The app's routes, pinned in the order they are matched: a refactor of the assembly (`create_app`, the
routers it includes) must leave every method and path, and their order, as they were."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from starlette.routing import BaseRoute

from arena.app import create_app
from arena.settings import Settings

ROUTES = (
    "GET /openapi.json",
    "MOUNT /static",
    "GET /api/v1/health",
    "GET /api/v1/taxonomy",
    "GET /api/v1/prompts/coverage",
    "GET /api/v1/admin/sampling",
    "GET /docs",
    "GET /redoc",
    "GET /media/{media_id}",
    "POST /api/v1/matchups",
    "POST /api/v1/votes",
    "GET /img/{token}",
    "GET /api/v1/matchups/{matchup_id}/reference",
    "POST /api/v1/kwise/matchups",  # K-wise battles (issue 31), 404 while ARENA_KWISE is off
    "POST /api/v1/kwise/votes",
    "GET /api/v1/kwise/matchups/{matchup_id}/reference",
    "POST /api/v1/open/battles",  # open-prompt battles (issue 30)
    "GET /api/v1/open/battles/{battle_id}",
    "POST /api/v1/open/votes",
    "GET /open-img/{token}",
    "GET /api/v1/open/battles/{battle_id}/reference",
    "GET /api/v1/leaderboard",
    "GET /api/v1/leaderboard.csv",
    "GET /api/v1/models/{slug}",
    "GET /models/{slug}",
    "GET /leaderboard/reference/{prompt_id}",
    "GET /methodology",
    "GET /compare",
    "GET /api/v1/compare",
    "GET /api/v1/leaderboard/history",
    "GET /api/v1/open/board",  # the open-prompt board (issue 30)
    "GET /leaderboard",
    "GET /api/v1/kwise/board",  # the K-wise board (issue 31), 404 while ARENA_KWISE is off
    "GET /api/v1/me",
    "GET /me",
    "GET /private/{token}",  # private matchup sets of eval outputs (issue 27 item 8)
    "GET /private/{token}/img/{showing_id}/{side}",
    "POST /private/{token}/vote",
    "GET /admin",
    "POST /admin/login",
    "GET /admin/sign-in",  # the demo's one-time console link (issue 28 item 1)
    "POST /admin/logout",
    "POST /admin/jobs/{job}/run",
    "GET /api/v1/admin/jobs",
    "POST /api/v1/admin/jobs/{job}/runs",
    "GET /api/v1/admin/runs/{run_id}",
    "GET /api/v1/retirement/reports",
    "GET /api/v1/retirement/reports/{report_id}",
    "POST /api/v1/retirement/reports/{report_id}/apply",
    "POST /api/v1/retirement/reports/{report_id}/reject",
    "GET /admin/retirement",
    "POST /admin/retirement/{report_id}/{decision}",
    "GET /admin/judge",
    "GET /api/v1/admin/judge/report",
    "GET /admin/judge/image/{output_id}",
    "GET /evals",
    "GET /evals/calibration",
    "GET /evals/{run_id}",
    "GET /evals/{run_id}/items/{result_id}/output",
    "GET /evals/{run_id}/items/{result_id}/input/{index}",
    "GET /evals/{run_id}/items/{result_id}",
    "POST /evals/{run_id}/items/{result_id}/labels",
    "POST /evals/{run_id}/items/{result_id}/anchor",
    "GET /admin/models",
    "GET /admin/models/{slug}/deactivate",
    "POST /admin/models/reload",
    "POST /admin/models/{slug}/set",
    "GET /api/v1/admin/models",
    "GET /api/v1/admin/models/reload",
    "POST /api/v1/admin/models/reload",
    "POST /api/v1/admin/models/{slug}",
    "GET /admin/outputs/import",
    "POST /admin/outputs/import",
    "GET /admin/prompts",
    "POST /admin/prompts/import",
    "GET /admin/prompts/{prompt_id}",
    "POST /admin/prompts/{prompt_id}/{action}",
    "GET /admin/outputs/{output_id}/image",
    "GET /api/v1/admin/prompts",
    "POST /api/v1/admin/prompts/import",
    "POST /api/v1/admin/prompts/{prompt_id}/{action}",
    "GET /admin/votes",
    "POST /admin/votes/refilter",
    "POST /admin/votes/clear",
    "POST /admin/votes/snapshot",
    "GET /api/v1/admin/votes/summary",
    "GET /api/v1/admin/votes/flagged",
    "POST /api/v1/admin/votes/refilter",
    "GET /api/v1/admin/audit",
    "GET /api/v1/admin/audit/export",
    "GET /admin/audit",
    "GET /admin/operators",
    "POST /admin/operators",
    "POST /admin/operators/{name}/revoke",
    "GET /api/v1/admin/operators",
    "POST /api/v1/admin/operators",
    "POST /api/v1/admin/operators/{name}/revoke",
    "GET /api/v1/admin/open",
    "POST /api/v1/admin/open/mode",
    "POST /api/v1/admin/open/models/{slug}",
    "GET /admin/open/prompts/{battle_id}/delete",  # open prompts' deletion path (issue 30)
    "POST /admin/open/prompts/{battle_id}/delete",
    "POST /api/v1/admin/open/prompts/{battle_id}/delete",
    "GET /",
    "GET /favicon.ico",
    "GET /healthz",
    "GET /readyz",
    "GET /metrics",
)


def _walk(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
    for route in routes:  # FastAPI keeps included routers as wrappers around the original router
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _walk(inner.routes)
        else:
            yield route


def test_the_app_serves_exactly_the_pinned_routes_in_matching_order(settings: Settings) -> None:
    app = create_app(settings)
    served = [
        f"{method} {route.path}"
        for route in _walk(app.routes)
        for method in sorted(getattr(route, "methods", None) or ["MOUNT"])
        if method != "HEAD"
    ]
    assert served == list(ROUTES)
