"""The app factory uvicorn imports in each worker process (`arena serve --workers N`): `arena.asgi:create`."""

from __future__ import annotations

from fastapi import FastAPI

from arena.app import create_app
from arena.runtime.metrics_files import register_worker_exit


def create() -> FastAPI:
    """A fresh app from the environment's settings (every worker builds its own); at exit the worker drops its
    live metric files."""
    register_worker_exit()
    return create_app()
