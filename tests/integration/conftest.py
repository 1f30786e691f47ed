"""Fixtures shared by the leaderboard integration tests: the published world on each backend, and a client of
the app served over it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from arena.app import create_app
from tests.conftest import BACKENDS, serve
from tests.support.leaderboard_world import LeaderboardWorld, shared_world


@pytest.fixture(scope="module", params=BACKENDS)
def lb(request: pytest.FixtureRequest) -> LeaderboardWorld:
    """The published world on each backend."""
    return shared_world(request, request.param)


@pytest.fixture(scope="module")
def web(lb: LeaderboardWorld) -> Iterator[httpx.Client]:
    """A client of the app served over the world, its clock frozen at the snapshot time."""
    app = create_app(lb.settings, engine=lb.engine, clock=lb.clock)
    with serve(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        yield client
