"""What an adapter declares once: its name, its params model, how to build its provider and how to describe the
parameters a default request sends. `arena.generation.providers.adapters` reads these specs; nothing else lists
adapters.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import BaseModel

from arena.generation.providers.base import GenerationRequest, Provider

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class BuildContext:
    """What the caller hands every builder: the model's slug, an optional shared HTTP client (still the caller's
    to close) and an optional sleep replacing asyncio.sleep (simulated latency, polling, tests)."""

    slug: str
    http_client: httpx.AsyncClient | None = None
    sleep: Sleep | None = None


@dataclass(frozen=True)
class AdapterSpec:
    """One adapter: `params` validates a models.toml `params` table (fields marked `GEN` may be overridden by a
    suite), `build` makes the provider from the parsed params, `describe` returns what a request sends besides
    the prompt and the images, and `check` (optional) refuses params valid field by field but not as a whole,
    raising ValueError("field 'params.xyz': reason")."""

    name: str
    params: type[BaseModel]
    build: Callable[[Any, BuildContext], Provider]
    describe: Callable[[Any, GenerationRequest, str], dict[str, Any]]
    check: Callable[[Any], None] | None = None
