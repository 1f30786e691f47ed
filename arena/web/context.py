"""`AppContext`: everything `create_app` builds once and the routers read (settings, database, caches, limits),
one typed, frozen record kept on the app instead of a bag of `app.state` attributes."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from fastapi.templating import Jinja2Templates
from sqlalchemy import Engine
from starlette.applications import Starlette

from arena.leaderboard import LeaderboardReader
from arena.media.store import MediaStore
from arena.open_prompts.mode import OpenMode
from arena.runtime.shared_state import PageGeneration
from arena.settings import Settings
from arena.voting.kwise_service import KwiseService
from arena.voting.matchup_cache import PoolCache
from arena.voting.service import ArenaService
from arena.voting.sessions import VoterSessions
from arena.web.caches import BoardCache, PageCache
from prompts_taxonomy import Taxonomy


class Limiter(Protocol):
    """Token buckets per key (in-process, or in Redis shared by every process): `wait` peeks at how long a key
    must wait, `take` spends one token and says how long to wait when there was none."""

    def wait(self, key: str) -> float: ...

    def take(self, key: str) -> float: ...


class DemoStage(Protocol):
    """How far `arena demo --serve` has got preparing the demo behind the server."""

    stage: str
    ready: bool


@dataclass
class LiveState:
    """The only values that change while the app runs: when a write last failed for lack of space (monotonic
    seconds), and the demo being prepared behind the server, if any."""

    storage_failed_at: float | None = None
    demo_progress: DemoStage | None = None


@dataclass(frozen=True, slots=True)
class AppContext:
    """What the routers need, built once per app by `create_app` (tests pass their own engine and clock)."""

    settings: Settings
    engine: Engine
    taxonomy: Taxonomy
    media: MediaStore
    clock: Callable[[], datetime]
    templates: Jinja2Templates
    #: Bumped on operator changes so every process drops its cached pages (None without ARENA_REDIS_URL).
    page_generation: PageGeneration | None
    pool: PoolCache
    arena: ArenaService
    sessions: VoterSessions
    session_limiter: Limiter
    address_limiter: Limiter
    operator_attempts: Limiter
    #: ARENA_SECRET_KEY or the generated one: signs voter and operator cookies.
    secret: str
    reference_cache: dict[int, bytes]
    vote_threads: ThreadPoolExecutor
    #: SQLite without Redis: the vote path runs on the event loop first (see `arena.web.voter.routes._run`).
    vote_inline: bool
    leaderboard_reader: LeaderboardReader
    leaderboard_pages: PageCache
    personal_boards: BoardCache
    live: LiveState
    #: The K-wise ("Rank four") service, None while ARENA_KWISE is off.
    kwise: KwiseService | None = None
    #: open-prompt battles (built whatever ARENA_OPEN_PROMPTS says; the routes check the setting and switch)
    open_mode: OpenMode | None = None


def context_of(app: Starlette) -> AppContext:
    """The context `create_app` stored on `app` (the one place it is kept)."""
    return app.state.context
