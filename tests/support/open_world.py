"""An arena with open-prompt battles switched on, for tests over real HTTP: fast sandbox models and models behind
fake OpenAI servers (slow, refusing, failing), a started app per call, and the voter's steps (start, poll, vote)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from sqlalchemy import Engine
from sqlmodel import Session

from arena.app import create_app
from arena.generation.registry import parse_registry, sync_registry
from arena.settings import Settings
from arena.voting import pow as proof

SANDBOX = """
[[models]]
slug = "{slug}"
display_name = "{slug} display"
organization = "Org {slug}"
modality = "{modality}"
adapter = "sandbox"
price_per_image_usd = {price}
params = {{ variant = "{slug}", latency_ms = {{ median = {ms}, p95 = {p95} }} }}
"""

FAKE = """
[[models]]
slug = "{slug}"
display_name = "{slug} display"
organization = "Org {slug}"
modality = "text_to_image"
adapter = "openai_compatible"
price_per_image_usd = {price}
params = {{ model = "fake-image-1", base_url = "{base_url}", api_key_env = "", sizes = ["1024x1024"] }}
"""


def sandbox(slug: str, *, modality: str = "text_to_image", price: float = 0.01, ms: int = 40) -> str:
    """A fast sandbox model entry."""
    return SANDBOX.format(slug=slug, modality=modality, price=price, ms=ms, p95=ms * 2)


def fake(slug: str, base_url: str, *, price: float = 0.01) -> str:
    """A model entry behind a fake OpenAI Images server."""
    return FAKE.format(slug=slug, base_url=base_url, price=price)


def open_settings(settings: Settings, **overrides: Any) -> Settings:
    """The test settings with the mode on, a light proof of work and no minimum vote time (unless overridden)."""
    values: dict[str, Any] = {
        "open_prompts": True,
        "pow_difficulty_bits": 4,
        "min_vote_seconds": 0.0,
        "open_timeout_seconds": 20.0,
        **overrides,
    }
    return settings.model_copy(update=values)


def register(engine: Engine, models: str) -> None:
    """Sync exactly these models into the registry (others inactive)."""
    with Session(engine) as session:
        sync_registry(session, parse_registry(models))


@contextmanager
def open_arena(settings: Settings, engine: Engine) -> Iterator[tuple[httpx.Client, Any]]:
    """A served app and a client with a session of its own; yields (client, app)."""
    from tests.conftest import serve

    app = create_app(settings, engine=engine)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client, app


def start(client: httpx.Client, prompt: str = "a lighthouse at dusk", **body: Any) -> httpx.Response:
    """POST a new battle."""
    return client.post("/api/v1/open/battles", json={"prompt": prompt, **body})


def poll(
    client: httpx.Client, battle_id: str, *, within: float = 30.0
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Poll until the battle leaves `generating`; returns the last answer and every answer seen."""
    seen = []
    deadline = time.monotonic() + within
    while True:
        answer = client.get(f"/api/v1/open/battles/{battle_id}")
        assert answer.status_code == 200, answer.text
        seen.append(answer.json())
        if seen[-1]["status"] != "generating":
            return seen[-1], seen
        if time.monotonic() > deadline:
            raise AssertionError(f"battle {battle_id} still generating after {within}s")
        time.sleep(0.05)


def vote(client: httpx.Client, ready: dict[str, Any], choice: str = "left") -> httpx.Response:
    """Fetch both images (as the page does), then vote with a solved proof of work."""
    for side in ("left", "right"):
        assert client.get(ready["images"][side]).status_code == 200
    nonce = proof.solve(ready["challenge"], ready["difficulty"])
    return client.post(
        "/api/v1/open/votes", json={"battle_id": ready["id"], "choice": choice, "nonce": nonce}
    )
