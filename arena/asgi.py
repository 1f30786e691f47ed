"""The app factory uvicorn imports in each worker process (`arena serve --workers N`): `arena.asgi:create`."""

from __future__ import annotations

from fastapi import FastAPI

from arena.app import create_app


def create() -> FastAPI:
    """A fresh app from the environment's settings (every worker builds its own)."""
    return create_app()
