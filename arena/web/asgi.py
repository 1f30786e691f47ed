"""The app factory uvicorn imports in each worker process (`arena serve --workers N`)."""

from __future__ import annotations

from fastapi import FastAPI


def create() -> FastAPI:
    """A fresh app from the environment's settings (every worker builds its own)."""
    from arena.app import create_app

    return create_app()
