"""`create_app`: the single place where the web application is assembled."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from sqlalchemy import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from arena import __version__
from arena.db import make_engine
from arena.db.tables import utcnow
from arena.leaderboard import LeaderboardReader
from arena.media.store import MediaStore
from arena.open_prompts.mode import build_open_mode
from arena.runtime.paths import STATIC_DIR, TEMPLATES_DIR
from arena.runtime.secret_key import resolve_secret
from arena.runtime.shared_state import PageGeneration, SharedRedis, shared_redis
from arena.settings import Settings
from arena.voting.kwise_service import KwiseService
from arena.voting.matchup_cache import PoolCache
from arena.voting.ratelimit import RateLimiter
from arena.voting.service import ArenaService
from arena.voting.sessions import VoterSessions
from arena.web import api, apidocs, health, media, pages
from arena.web.caches import BoardCache, PageCache
from arena.web.console import audit as console_audit
from arena.web.console import evals as evals_web
from arena.web.console import jobs as admin
from arena.web.console import judge as judge_web
from arena.web.console import models as console_models
from arena.web.console import open_privacy as console_open_privacy
from arena.web.console import open_prompts as console_open
from arena.web.console import operators as console_operators
from arena.web.console import outputs as console_outputs
from arena.web.console import prompts as console_prompts
from arena.web.console import retirement as retirement_web
from arena.web.console import votes as console_votes
from arena.web.context import AppContext, Limiter, LiveState
from arena.web.guards import GuardMiddleware
from arena.web.leaderboard import kwise as kwise_board
from arena.web.leaderboard import page as leaderboard
from arena.web.metrics import router as metrics_router
from arena.web.observe import ObserveMiddleware
from arena.web.openapi import conforming_openapi
from arena.web.vote_loop import vote_path_lifespan
from arena.web.voter import kwise_routes, me, open_routes
from arena.web.voter import private as private_sets
from arena.web.voter import routes as voting
from prompts_taxonomy import load_taxonomy


def _limiter_factory(shared: SharedRedis | None) -> Callable[[str, int, int | None], Limiter]:
    """In-process token buckets, or buckets in Redis shared by every process when ARENA_REDIS_URL is set."""
    if shared is None:
        return lambda _name, rate, burst: RateLimiter(rate, burst=burst)
    from arena.voting.shared_limits import SharedRateLimiter

    return lambda name, rate, burst: SharedRateLimiter(
        shared.client, shared.prefix, name, rate, burst=burst, breaker=shared.breaker
    )


def _pool(engine: Engine, settings: Settings, shared: SharedRedis | None) -> PoolCache:
    """The matchmaking pool; with Redis its vote plan is computed by one process and read by the others, and
    an operator's change (which invalidates the pool) also retires every process's cached pages."""
    if shared is None:
        return PoolCache(engine, plan_votes=settings.matchmaking_plan_votes)
    from arena.voting.shared_plan import SharedPlan

    generation = PageGeneration(shared)
    return PoolCache(
        engine,
        plan_votes=settings.matchmaking_plan_votes,
        plan_source=SharedPlan(shared),
        on_invalidate=generation.bump,
    )


def build_context(settings: Settings, engine: Engine, clock: Callable[[], datetime]) -> AppContext:
    """Everything the routers read, made once: caches, limiters, the vote path's threads."""
    shared = shared_redis(settings)  # None without ARENA_REDIS_URL: every process keeps its own state
    generation = PageGeneration(shared) if shared is not None else None
    taxonomy = load_taxonomy()
    pool = _pool(engine, settings, shared)
    secret = resolve_secret(settings)
    limiter = _limiter_factory(shared)
    templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
    templates.env.globals["demo_mode"] = settings.demo_mode
    media = MediaStore(settings.media_dir)
    return AppContext(
        settings=settings,
        engine=engine,
        taxonomy=taxonomy,
        media=media,
        clock=clock,
        templates=templates,
        page_generation=generation,
        pool=pool,
        arena=ArenaService(engine, settings, taxonomy, pool=pool),
        sessions=VoterSessions(secret, settings.trusted_proxies),
        session_limiter=limiter("session", settings.session_votes_per_minute * 2, None),
        address_limiter=limiter("address", settings.address_votes_per_minute * 2, None),
        operator_attempts=limiter(
            "operator",
            settings.operator_token_attempts_per_minute,
            settings.operator_token_attempts_per_minute,
        ),
        secret=secret,
        reference_cache={},
        vote_threads=ThreadPoolExecutor(voting.VOTE_THREADS, thread_name_prefix="vote"),
        # SQLite without Redis: the vote path runs on the event loop, falling back to the threads (voting._run).
        vote_inline=engine.dialect.name == "sqlite" and shared is None,
        leaderboard_reader=LeaderboardReader(
            engine,
            taxonomy,
            clock,
            min_timing_samples=settings.min_timing_samples,
            generation=generation,  # shared through Redis, if set
        ),
        leaderboard_pages=PageCache(),
        personal_boards=BoardCache(),
        live=LiveState(),
        kwise=KwiseService(engine, settings, taxonomy, pool) if settings.kwise else None,
        open_mode=build_open_mode(settings, engine, media, shared, limiter, clock),
    )


def create_app(
    settings: Settings | None = None,
    *,
    engine: Engine | None = None,
    clock: Callable[[], datetime] = utcnow,
) -> FastAPI:
    """Build the app from settings; tests pass their own settings, engine and clock."""
    settings = settings or Settings()
    app = FastAPI(
        title="Image arena",
        version=__version__,
        description="Blind pairwise votes between image models, Bradley-Terry leaderboards, timing runs.",
        docs_url=None,  # served by arena.web.apidocs from vendored files (no CDN, no inline script)
        redoc_url=None,
        lifespan=vote_path_lifespan,  # PostgreSQL without Redis: the vote path's connections on the loop
    )
    app.state.context = build_context(settings, engine or make_engine(settings.database_url), clock)
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    app.include_router(api.router)
    app.include_router(apidocs.router)
    app.include_router(media.router)
    app.include_router(voting.router)
    app.include_router(kwise_routes.router)
    app.include_router(open_routes.router)
    app.include_router(leaderboard.router)
    app.include_router(kwise_board.router)
    app.include_router(me.router)
    app.include_router(private_sets.router)
    app.include_router(admin.router)
    app.include_router(retirement_web.router)
    app.include_router(judge_web.router)
    app.include_router(evals_web.router)
    for console_router in (
        console_models,
        console_outputs,
        console_prompts,
        console_votes,
        console_audit,
        console_operators,
        console_open,
        console_open_privacy,
    ):
        app.include_router(console_router.router)
    app.include_router(pages.router)
    app.include_router(health.router)
    app.include_router(metrics_router)
    health.install_error_handlers(app)
    app.add_middleware(
        GuardMiddleware,
        max_body_bytes=settings.max_body_bytes,
        max_concurrent=settings.max_concurrent_requests,
        max_per_address=settings.max_requests_per_address,
        body_seconds=settings.body_timeout_seconds,
        trusted_proxies=settings.trusted_proxies,
        route_limits={
            **console_prompts.BODY_LIMITS,
            **console_outputs.BODY_LIMITS,
            # base64 of the largest reference, plus the prompt and the JSON around it
            open_routes.START_PATH: settings.open_reference_max_bytes * 4 // 3 + 64 * 1024,
        },
    )
    app.add_middleware(ObserveMiddleware)  # outermost: every answer, guards' included, is counted and logged
    app.openapi = conforming_openapi(app)  # type: ignore[method-assign]

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # Starlette names only the first matching route's methods; name them all
            headers["Allow"] = ", ".join(allowed_methods(app, request.scope))
        return await http_exception_handler(
            request, StarletteHTTPException(exc.status_code, exc.detail, headers)
        )

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
        return JSONResponse({"detail": "invalid request", "errors": errors}, status_code=422)

    return app


METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(app: FastAPI, scope: dict[str, Any]) -> list[str]:
    """Every method some route of `app` fully matches on this request's path (for a 405's Allow header)."""
    return [
        method
        for method in METHODS
        if any(route.matches({**scope, "method": method})[0] == Match.FULL for route in app.router.routes)
    ]
